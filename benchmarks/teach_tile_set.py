"""Teach it your tiles, measured: a tile set taught from a few labelled photos of one folder,
then the photos of another read with and without it.

    python benchmarks/teach_tile_set.py                      # riichi-bluemat: train/ teaches, valid/ reads
    python benchmarks/teach_tile_set.py --teach-photos 1     # taught from one photo
    python benchmarks/teach_tile_set.py --match 0.85 --margin 0.05
    python benchmarks/teach_tile_set.py --teach datasets/also_train_red_table_set.txt \
        --read ../shared/data/real/chinese-mixed/valid --read-pattern 'IMG_27(6[1-9]|7[0-7])'
        # the red-table set: taught from its first half, its unseen second half read

Every box the detector puts on a taught photo is an example: of the face it covers by its label,
or of no tile where it covers no label (``vision.tile_sets.teach``). Recall and precision are
``mahjong-lens eval``'s (``training.evaluate.evaluate``).
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mahjong_lens.training.evaluate import evaluate, labelled_images, read_truths  # noqa: E402
from mahjong_lens.training.train import default_data_dir  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    data = default_data_dir() / "real" / "riichi-bluemat"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teach", default=str(data / "train"),
                        help="labelled photos to teach from: a folder, or a list of photos (as train --also-train reads)")
    parser.add_argument("--read", default=str(data / "valid"), help="labelled photos to read")
    parser.add_argument("--read-pattern", default=None, help="only the photos to read whose names match this")
    parser.add_argument("--teach-photos", type=int, default=0, help="teach from this many photos (0: all)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--match", type=float, default=None)
    parser.add_argument("--margin", type=float, default=None)
    parser.add_argument("--untaught-match", type=float, default=None,
                        help="the similarity asked of an example where the classifier is sure of a face the set lacks")
    args = parser.parse_args(argv)
    import cv2

    from mahjong_lens.vision.recognizer import load_recognizer
    from mahjong_lens.vision.tile_sets import Example, TileSetStore, taught_recognizer, teach

    from mahjong_lens.datasets.real import label_path_for, read_photo_list
    base = load_recognizer(args.model)
    if Path(args.teach).is_file():
        teach_items = [("listed", photo, label_path_for(photo))
                       for photo in read_photo_list(Path(args.teach), default_data_dir())]
    else:
        teach_items = labelled_images(Path(args.teach))
    if args.teach_photos:
        # spread over the folder: the photos of a fixed camera change slowly
        step = max(1, len(teach_items) // args.teach_photos)
        teach_items = teach_items[::step][:args.teach_photos]
    taught_names = {photo.name for _, photo, _ in teach_items}
    read_items = [item for item in labelled_images(Path(args.read)) if item[1].name not in taught_names
                  and (not args.read_pattern or re.search(args.read_pattern, item[1].name))]
    with tempfile.TemporaryDirectory() as folder:
        store = TileSetStore(Path(folder) / "sets.sqlite")
        started = time.perf_counter()
        faces = none = 0
        for n, (_, image_path, label_path) in enumerate(teach_items, 1):
            image = cv2.imread(str(image_path))
            labels = [Example(t.tile, t.box) for t in read_truths(label_path, image.shape[1], image.shape[0])]
            kept = teach(store, base, "benchmark", image, labels, source=image_path.name)
            faces, none = faces + kept["faces"], none + kept["not_a_tile"]
            print(f"\r  taught {n}/{len(teach_items)} photos", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        taught = taught_recognizer(base, store, "benchmark")
        if args.match is not None:
            taught.match = args.match
        if args.margin is not None:
            taught.margin = args.margin
        if args.untaught_match is not None:
            taught.untaught_match = args.untaught_match
        print(f"taught from {len(teach_items)} photo(s) of {args.teach}: {faces} tiles and {none} boxes on no "
              f"tile, in {time.perf_counter() - started:.1f} s")
        print(f"reading {len(read_items)} photo(s) of {args.read}:")
        for label, recognizer in (("as shipped", base), (f"taught (match {taught.match}, margin "
                                                         f"{taught.margin}, untaught {taught.untaught_match})", taught)):
            scores, _, _ = evaluate(recognizer, read_items, progress=False)
            total = scores["all"]  # every source together
            false = sum(total.false.values())
            print(f"  {label:<48} recall {total.recall:.3f} ({total.correct}/{total.labelled}), precision "
                  f"{total.precision:.3f} ({total.correct}/{total.detected}), photos exact {total.exact}/"
                  f"{total.images}, {total.seconds / max(total.images, 1):.2f} s a photo")
            print(f"  {'':<48} unread: {dict(total.unread)}; false readings ({false}): {dict(total.false)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
