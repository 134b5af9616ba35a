#!/bin/bash
# One training call on a lent GPU machine (the `device` tool's `run`), from the repository root.
#
# Prepared here first (README.md, "Training on a lent GPU machine"):
#   mahjong-lens pack --out .bundle/data --also-train datasets/also_train_red_table_set.txt
#   the three wheels ultralytics needs there, in .whl (pip download, as the README says)
# Then, with carry [".bundle", ".whl"] and a timeout that leaves a minute to spare:
#   STAGES=detector DETECTOR_MINUTES=5 bash training/device_train.sh          (about 7 minutes)
#   STAGES=classifier CLASSIFIER_MINUTES=3 bash training/device_train.sh      (a second call, if time is left)
#   STAGES="classifier classifier2" ...   both classifiers, the second on the first's crops
#
# Each stage runs the shipped line from the shipped weights (models/README.md, Training)
# on the packed data, with the synthetic scenes rendered there, and leaves its weights, log and
# results in $OUT.  Nothing is published to models/: measure the weights here first.
# HARD_SCENES=4000 adds to the classifier's data the crops the shipped recogniser gets wrong in
# that many rendered hands (on a CPU budget that cost the real sets their figures).
set -o pipefail
OUT=${OUT:-/tmp/device-out}
WORK=${WORK:-/tmp/mahjong-lens-work}
mkdir -p "$OUT" "$WORK"
started=$(date +%s)
say() { echo "device_train [$(( $(date +%s) - started )) s]: $*"; }

# ultralytics (pure Python wheels) beside the machine's own torch; polars is stood in for by
# training/train.py.  Our package without its dependencies: the machine has numpy, opencv,
# onnxruntime and torch, and training needs nothing else of ours.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || { say "the wheels in .whl did not install"; exit 1; }
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . \
    || python3 -m pip install -q --no-index --no-deps --no-build-isolation --target /tmp/site . \
    || { say "mahjong-lens did not install"; exit 1; }
export MAHJONG_LENS_DATA=$PWD/.bundle/data YOLO_OFFLINE=1 PYTHONUNBUFFERED=1
[ -f "$MAHJONG_LENS_DATA/PACKED.txt" ] || { say "no packed data in $MAHJONG_LENS_DATA (mahjong-lens pack)"; exit 1; }
cat "$MAHJONG_LENS_DATA/PACKED.txt"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null
python3 -c "import torch; print('torch', torch.__version__, 'CUDA', torch.cuda.is_available())"
DEVICE=${DEVICE:-0}
# the console (whose last 12,000 characters come back) without the progress bars; the logs keep all
quiet() { tr '\r' '\n' | grep -av "it/s\|s/it\|img/s\|Caching images" || true; }
# train STAGE NAME WEIGHTS_FILE ARGS...: one `mahjong-lens train` run of STAGE (detector or
# classifier) in $WORK/NAME; its best weights and results.csv into $OUT, nothing published
train() {
    local stage=$1 name=$2 file=$3
    shift 3
    python3 -m mahjong_lens.cli train --stage "$stage" --work "$WORK/$name" --device "$DEVICE" \
        --precision "${PRECISION:-bf16}" \
        --workers "${WORKERS:-12}" --no-publish "$@" 2>&1 | tee "$OUT/$name.log" | quiet
    [ "${PIPESTATUS[0]}" -eq 0 ] || { say "the $name run failed ($name.log)"; exit 1; }
    cp "$WORK/$name/runs/$stage/weights/best.pt" "$OUT/$file"
    # the last epoch's too: best.pt is picked by the development photos' mAP (or top-1), which
    # says little of whole hands; compare_models.py --candidate $OUT/last measures it beside
    mkdir -p "$OUT/last"
    cp "$WORK/$name/runs/$stage/weights/last.pt" "$OUT/last/$file"
    cp "$WORK/$name/runs/$stage/results.csv" "$OUT/$name-results.csv"
}
# the shipped classifiers' line (models/README.md, Training), less what differs between the two
classifier_args=(--crop-detector models --not-a-tile --real-copies 3 --slant 20 --balance --imgsz 96
    --synth "${CLASSIFIER_SYNTH:-2000}" --seed "${SEED:-5}" --synth-per-class 1500 --screens "${SCREENS:-300}"
    --erasing 0.1 --lr0 "${CLASSIFIER_LR:-0.0002}" --epochs "${CLASSIFIER_EPOCHS:-10}"
    --time-budget "${CLASSIFIER_MINUTES:-3}" --batch "${CLASSIFIER_BATCH:-256}"
    --also-train datasets/also_train_red_table_set.txt --with-set riichi-bluemat --set-conf 0.1)

for stage in ${STAGES:-detector}; do
    say "$stage"
    case $stage in
    detector)
        # the shipped detector's line: synthetic scenes, screen captures, the quarter-turned real rows and
        # trays, the blue mat's train/ photos
        train detector detector tile_detector.pt --init models/tile_detector.pt \
            --synth "${DETECTOR_SYNTH:-3000}" --screens "${SCREENS:-300}" --seed "${SEED:-5}" --turned \
            --with-set riichi-bluemat --lr0 "${DETECTOR_LR:-0.0005}" --epochs "${DETECTOR_EPOCHS:-40}" \
            --time-budget "${DETECTOR_MINUTES:-4}" --batch "${DETECTOR_BATCH:-64}"
        ;;
    classifier)
        # the shipped line for the first classifier
        train classifier classifier tile_classifier.pt --init models/tile_classifier.pt "${classifier_args[@]}" \
            --hard-scenes "${HARD_SCENES:-0}" --hard-copies "${HARD_COPIES:-2}"
        ;;
    classifier2)
        # the shipped line for the second classifier, on the first's crops where this machine
        # still holds them (the same call: a machine lent again starts bare), else cut anew
        mkdir -p "$WORK/classifier2"
        [ -d "$WORK/classifier/classifier-data" ] && ln -sfn "$WORK/classifier/classifier-data" "$WORK/classifier2/classifier-data"
        train classifier classifier2 tile_classifier_2.pt --init models/tile_classifier_2.pt --second --resume \
            "${classifier_args[@]}"
        ;;
    speed)
        # the shipped weights read with PyTorch on the GPU (the model card's "seconds per photo,
        # GPU"), over the packed development trays and hand rows; the same on the CPU beside it
        for where in cuda:0 cpu; do
            MAHJONG_LENS_DEVICE=$where python3 -m mahjong_lens.cli eval --dev \
                --data "$MAHJONG_LENS_DATA/real/riichi-tray/train" "$MAHJONG_LENS_DATA/real/chinese-mixed/train" \
                2>&1 | tee "$OUT/speed-${where%%:*}.log" | grep -a "source\|tray\|hand-rows \|^  all"
        done
        ;;
    *)
        say "unknown stage $stage (detector, classifier, classifier2, speed)"; exit 2 ;;
    esac
done
ls -la "$OUT"
say "done"
