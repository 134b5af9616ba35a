"""`mahjong-lens train`: train the two-stage tile recogniser on this machine.

Why two stages: a single 46-class YOLO detector from scratch needs many slow epochs on a
CPU (about 9 minutes per epoch at 480 px on two cores).  Finding *a tile* is an easy task
that a one-class detector learns in few epochs; telling the 46 faces apart is a small-image
task that a classifier learns from 64 px crops in about a minute per epoch.  So:

* stage ``detector``: yolo11n (from ``yolo11n.yaml``, no pretrained weights), one class
  "tile", trained on the real photos (and synthetic scenes when ``datasets.synth`` exists);
* stage ``classifier``: yolo11n-cls (from ``yolo11n-cls.yaml``) over the 46 classes, on
  square crops cut from the labelled real boxes, the tile art of ``../shared/data/art``
  (augmented) and synthetic crops, each in the four rotations so sideways tiles read too.

Both stages resume from their last checkpoint (``--resume``), stop after a time budget
(``--time-budget`` minutes, ultralytics fits its learning-rate schedule to it), print
progress, and use the GPU when there is one.  Generated training folders live in a scratch
directory outside the repository (``--work``); the finished weights are copied to models/.
"""
from __future__ import annotations

import argparse
import csv
import os
import random
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from mahjong_lens.datasets.art import default_data_dir
from mahjong_lens.vision.classes import BACK, CLASS_NAMES, NOT_A_TILE, NUM_CLASSES
from mahjong_lens.datasets.real import (IMAGE_EXTS, inflated_boxes, is_dev_photo, label_path_for, photo_group,
                                        photo_source, read_photo_list)
from mahjong_lens.vision.classes import pixel_box, read_yolo_labels
from mahjong_lens.vision.detections import pair_by_iou, turned_boxes
from mahjong_lens.vision.recognizer import (CLASSIFIER_FILE, CLASSIFIER_SIZE, CROP_MARGIN, DETECTOR_FILE, DETECTOR_SIZE,
                               SECOND_CLASSIFIER_FILE, ALSO_TRAINED_FILE, TwoStageRecognizer, also_trained_on,
                               box_overlaps, export_onnx, load_recognizer, square_crop)

REPO = Path(__file__).resolve().parent.parent
MODELS_DIR = REPO / "models"
SYNTH_CROPS_PER_CLASS = 500
SCREEN_CROPS_PER_CLASS = 120
REAL_SETS = ("chinese-mixed", "riichi-tray")
# One photo in datasets.real.DEV_EVERY (by its original name, so all augmented copies go
# together) is kept out of training as the development split: it picks checkpoints and
# measures the hand-row source, which the real valid/ folders do not contain.
# a tile set with a few listed photos (`--also-train`) against hundreds of the others: each of
# its crops is written this many times more
ALSO_TRAIN_WEIGHT = 2
# a rendered tile read right at this or more is no hard example (``hard_hand_crops``)
HARD_SURE = 0.5
# the seeds benchmarks/scan_synthetic_hands.py measures with: never trained on
BENCHMARK_SEEDS = (2000, 3000, 4000)


def require_train_extra() -> None:
    """Fail at once, before any data is generated, where the `[train]` extra is missing."""
    import importlib.util
    for package in ("torch", "ultralytics", "onnx"):
        if importlib.util.find_spec(package) is None:
            raise ModuleNotFoundError(f"{package} is not installed", name=package)


def offline_ultralytics() -> None:
    """Make sure ultralytics never reaches the network (no hub, fonts, AMP check, events)."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    polars_stand_in()


def polars_stand_in() -> None:
    """Where polars is missing, a stand-in for the one call a training run makes of it.

    ultralytics reads its own results.csv with ``polars.read_csv(...).to_dict(as_series=False)``
    each time it saves a checkpoint.  The lent GPU machines have no polars, and its wheel (about
    40 MB) cannot travel beside the repository in the 64 MiB a call carries, so there the CSV is
    read with the standard library instead (columns of numbers where a value is one)."""
    try:
        import polars  # noqa: F401
        return
    except ImportError:
        pass
    import csv
    import io
    import types

    def value(text: str) -> float | str:
        try:
            return float(text)
        except ValueError:
            return text

    class Table:
        def __init__(self, columns: dict[str, list]):
            self.columns = columns

        def to_dict(self, as_series: bool = True) -> dict[str, list]:
            return self.columns

    def read_csv(source, infer_schema_length=None) -> Table:
        text = source.decode() if isinstance(source, bytes) else Path(source).read_text()
        rows = list(csv.reader(io.StringIO(text)))
        header = [name.strip() for name in rows[0]] if rows else []
        return Table({name: [value(row[k].strip()) for row in rows[1:] if k < len(row)]
                      for k, name in enumerate(header)})

    stand_in = types.ModuleType("polars")
    stand_in.read_csv = read_csv
    sys.modules["polars"] = stand_in


def default_work_dir() -> Path:
    env = os.environ.get("MAHJONG_LENS_WORK")
    return Path(env) if env else REPO.parent / "scratch" / "mahjong-lens"


def pick_device(choice: str = "auto") -> str:
    if choice != "auto":
        return choice
    import torch
    return "0" if torch.cuda.is_available() else "cpu"


def training_precision(device: str, chosen: str | None = None) -> str | bool:
    """ultralytics' `amp` for a run: full precision on a CPU; on a GPU bfloat16 unless `chosen`
    says "fp32".  Not ultralytics' default fp16: its check of fp16 first fetches a model
    (yolo26n.pt), and nothing here may download; bf16 needs no check, and Hopper GPUs run it
    at full speed."""
    if device == "cpu" or chosen == "fp32":
        return False
    return "bf16"


# --------------------------------------------------------------------------- labels

# The original photo an image was made from (Roboflow's copies share the part before
# '.rf.'): datasets.real owns that grouping; the name is kept for callers of this module.
photo_name = photo_group


PACKED_SOURCES = ("hand-rows", "tray")  # tiles side by side, touching their neighbours


def one_class_label_text(rows: list[tuple[int, float, float, float, float]]) -> str:
    """A YOLO label file with every tile, whatever its face, in class 0 ('tile')."""
    return "".join(f"0 {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}\n" for _, cx, cy, w, h in rows)


def inflated_rows(rows: list[tuple[int, float, float, float, float]], width: int, height: int) -> bool:
    """Whether a photo's YOLO label rows are the inflated boxes of a rotated copy
    (``datasets.real.inflated_boxes``, judged in pixels: the photos are stretched)."""
    return inflated_boxes([(bw * width, bh * height) for _, _, _, bw, bh in rows])


Box = tuple[float, float, float, float]


Readings = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


def once_per_photo(reader: TwoStageRecognizer) -> Readings:
    """`reader.readings`, kept for the last photo it was asked about: the boxes the crops are
    cut at and the boxes on no tile come from one look at each photo, not two."""
    last: list = [None, None]  # the photo (held, so no other array takes its place) and its readings

    def readings(image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if last[0] is not image:
            last[:] = [image, reader.readings(image)]
        return last[1]
    return readings


def crop_detector(reader: TwoStageRecognizer, readings: Readings | None = None) -> Callable[[np.ndarray], np.ndarray]:
    """The tile boxes (N x 4 pixels) that `reader` (a loaded recogniser) finds in a photo;
    from `readings` where the crops' readings are wanted too (``once_per_photo``)."""
    if readings is not None:
        return lambda image: readings(image)[0]
    return lambda image: reader.boxes(image)[0]


def faces_down_on_no_label(reader: TwoStageRecognizer,
                           readings: Readings | None = None) -> Callable[[np.ndarray, list[Box]], list[Box]]:
    """The boxes `reader` (a loaded recogniser) reads as a face-down tile (`back`), or as no
    tile (`NOT_A_TILE`, which it drops), where a real photo has no label (IoU < 0.3 with each
    of `labels`, pixel boxes).  The real sets hold no face-down tile (checked by eye: the 48
    `back` readings in `valid/` are empty slots of the riichi set's tray, the 7 in 396
    training photos dice and felt), so each is a box on no tile: the classifier's examples
    of `NOT_A_TILE`.  Counting the boxes already read as no tile keeps them when a reader
    that learnt the class cuts the crops (`back` alone: 66 boxes before the classifiers
    learnt `none`, 30 after).  `readings`: `reader.readings` unless given (``once_per_photo``)."""
    from mahjong_lens.training.evaluate import NEAR_IOU, iou
    on_no_tile = {reader.class_names.index(name) for name in (BACK, NOT_A_TILE) if name in reader.class_names}
    read = readings or reader.readings

    def boxes(image: np.ndarray, labels: list[Box]) -> list[Box]:
        found, _, probabilities = read(image)
        return [tuple(float(v) for v in box) for box, probs in zip(found, probabilities)
                if int(np.argmax(probs)) in on_no_tile and all(iou(tuple(box), label) < NEAR_IOU for label in labels)]
    return boxes


def boxes_on_no_label(reader: TwoStageRecognizer, readings: Readings | None = None,
                      most_inside: float = 0.1, conf: float | None = None
                      ) -> Callable[[np.ndarray, list[Box]], list[Box]]:
    """Every box `reader` finds, whatever it reads there, that lies on no label: at most
    `most_inside` of its area inside any labelled box.  For a set labelled to the last tile in
    view (``--with-set``: riichi-bluemat labels every face-up tile fully in view), what the
    detector finds elsewhere is the world around the table (book spines on a shelf, cards,
    tiles cut off by the photo's edge), which the classifier must learn to call no tile.
    `conf`: the detector's threshold for this look (``--set-conf``; as teaching looks at a
    photo for its surroundings at ``tile_sets.BACKGROUND_CONF``), else one look shared with
    the crops (`readings`)."""
    read = readings or reader.readings

    def boxes(image: np.ndarray, labels: list[Box]) -> list[Box]:
        found = reader.boxes(image, conf)[0] if conf is not None else read(image)[0]
        if not len(found):
            return []
        if labels:
            inter, area, _ = box_overlaps(found, np.asarray(labels, np.float32))
            inside = (inter / area[:, None]).max(axis=1)
        else:
            inside = np.zeros(len(found))
        return [tuple(float(v) for v in box) for box, share in zip(found, inside) if share <= most_inside]
    return boxes


def snap_to_detector(label_boxes: list[Box], detector_boxes: list[Box], min_iou: float = 0.3) -> list[Box | None]:
    """For each labelled box, the detector's box on the same tile, or None.  Pairs are
    taken greedily by IoU (>= `min_iou`), each box once.  A classifier trained on crops cut
    where the detector puts its boxes sees what it will see when reading a photo; and a
    label that Roboflow shifted off its tile (its turned copies) still names the tile the
    detector finds under it, rather than a crop of half of two tiles."""
    paired = pair_by_iou(label_boxes, detector_boxes, min_iou)
    return [tuple(float(v) for v in detector_boxes[paired[i]]) if i in paired else None
            for i in range(len(label_boxes))]


def hard_examples(labels: Sequence[tuple[str, Box]], found: np.ndarray, probabilities: np.ndarray,
                  class_names: Sequence[str], sure: float = HARD_SURE) -> tuple[int, list[tuple[str, Box]]]:
    """Of the labelled tiles (name, pixel box), those the reader gets wrong: each paired with
    the reader's box on it (``pair_by_iou``, IoU >= 0.5; a tile with none is the
    detector's miss, no classifier's), and kept where the likeliest face there (`probabilities`,
    a row per box of `found`) is another, or its own is below `sure`.  Returns how many were
    paired, and the hard ones as (true name, the reader's box)."""
    paired = pair_by_iou([box for _, box in labels], found, min_iou=0.5)
    hard = []
    for i, k in sorted(paired.items()):
        tile, probs = labels[i][0], probabilities[k]
        truth = list(class_names).index(tile)
        if int(np.argmax(probs)) != truth or float(probs[truth]) < sure:
            hard.append((tile, tuple(float(v) for v in found[k])))
    return len(paired), hard


def hard_hand_crops(reader: TwoStageRecognizer, folder: Path, count: int, seed: int, copies: int = 1,
                    size: int = CLASSIFIER_SIZE, sure: float = HARD_SURE, min_elevation: float = 45.0) -> Counter:
    """Add to a classifier data folder (train/CLASS) the crops `reader` gets wrong in `count`
    rendered hands of `seed` (``datasets.synth``, as ``benchmarks/scan_synthetic_hands.py``
    renders them, JPEG-compressed the same way), the tiles of the hands laid face up on the
    table and seen from `min_elevation` degrees or more: each is cut where the reader's
    detector puts its box (``hard_examples``, IoU >= 0.5), and written, in its four
    quarter-turns, `copies` times, where the reader's likeliest face is another or its own is
    below `sure`.  (Tiles seen from low down, or the detector's boxes half off a tile, are
    mostly past reading: looked at, they would teach noise.)
    More scenes of the same kind teach the classifiers little they do not know (4,000 more
    scenes moved no real figure);
    these are the crops it does not.  Files are named by seed and scene, so a second run of
    the same seed writes the same files again.  Returns the crops written, by class."""
    import cv2
    from mahjong_lens.datasets import synth
    from mahjong_lens.datasets.art import load_styles
    styles = load_styles()
    names = list(reader.class_names)
    written: Counter = Counter()
    looked = hard = 0
    step = max(1, count // 10)
    for index in range(count):
        scene = synth.render_scene_full(synth.scene_rng(seed, index), 640, styles=styles, kind="hand")
        _, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        image = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        camera = scene.meta["camera"]
        players = {hand["player"] for hand in scene.meta["hands"] if hand["revealed"] and not hand["standing"]}
        labelled = [b for b in scene.boxes if b.player in players and b.group in synth.HAND_GROUPS
                    and b.box[2] > b.box[0] and b.box[3] > b.box[1] and b.tile in names]
        # a hand seen from low down, or too small to read, gives no example to learn from
        readable = camera["elevation"] >= min_elevation and camera["tile_px"] >= 22 and labelled
        found, _, probabilities = reader.readings(image) if readable else ([], None, None)
        if len(found):
            paired, examples = hard_examples([(b.tile, tuple(b.box)) for b in labelled], found,
                                             probabilities, names, sure)
            looked += paired
            for tile, box in examples:
                hard += 1
                crop = square_crop(image, box, CROP_MARGIN, size)
                for copy in range(copies):
                    for turn in range(4):
                        key = f"hard{seed}_{index}_{hard}_{copy}_{turn}"
                        cv2.imwrite(str(folder / "train" / tile / f"{key}.png"), _rotate(crop, turn))
                        written[tile] += 1
        if (index + 1) % step == 0 or index + 1 == count:
            print(f"train: hard crops: {index + 1}/{count} hands, {hard} of {looked} tiles misread or unsure",
                  flush=True)
    return written


def real_images(data_dir: Path, split: str, more_sets: Sequence[str] = ()) -> list[Path]:
    """The photos of a split of the real sets (REAL_SETS, and `more_sets` of ../shared/data/real)."""
    images: list[Path] = []
    for name in (*REAL_SETS, *more_sets):
        folder = data_dir / "real" / name / split / "images"
        images += sorted(p for p in folder.glob("*") if p.suffix.lower() in IMAGE_EXTS)
    return images


def synth_scenes(work: Path, count: int, seed: int) -> list[Path]:
    """Images of `count` synthetic scenes (YOLO labels in the 46-class list beside them),
    rendered once into WORK/synth-COUNT-SEED by datasets.synth; none if it is unavailable."""
    if count <= 0:
        return []
    out = work / f"synth-{count}-{seed}"
    images = out / "images"
    if not (images.exists() and len(list(images.glob("*.jpg"))) >= count):
        try:
            from mahjong_lens.datasets.synth import generate  # the data engineer's renderer
        except ImportError as error:
            print(f"train: no synthetic scenes ({error}); training on real photos only")
            return []
        print(f"train: rendering {count} synthetic scenes into {out}")
        # the same files whatever the number of workers; a GPU machine's 16 cores render its
        # thousands of scenes in a minute rather than ten
        generate(out, count, seed, workers=max(1, min(os.cpu_count() or 1, 16)))  # a line of progress per tenth
    return sorted(images.glob("*.jpg"))


def screen_captures(work: Path, count: int, seed: int, art_dir: Path | None = None) -> list[Path]:
    """Images of `count` synthetic screen captures (datasets.synth.render_screen_capture),
    rendered once into WORK/screens-COUNT-SEED: the real training photos have none."""
    if count <= 0:
        return []
    out = work / f"screens-{count}-{seed}"
    images = out / "images"
    if not (images.exists() and len(list(images.glob("*.jpg"))) >= count):
        from mahjong_lens.datasets.synth import generate_screen_captures
        print(f"train: rendering {count} screen captures into {out}")
        generate_screen_captures(out, count, seed, art_dirs=[art_dir] if art_dir else None)
    return sorted(images.glob("*.jpg"))


def _link(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if dst.exists() or dst.is_symlink():
        dst.unlink()
    os.symlink(src.resolve(), dst)


# ------------------------------------------------------------------- detector data

def turn_labels(rows: list[tuple[int, float, float, float, float]],
                quarter_turns: int) -> list[tuple[int, float, float, float, float]]:
    """YOLO label rows (normalised cx, cy, w, h) of a picture turned by np.rot90(k): a
    quarter turn moves an axis-aligned box to an axis-aligned box, so the labels stay exact."""
    boxes = turned_boxes([pixel_box(row, 1, 1) for row in rows], 1, 1, quarter_turns)
    return [(cls, float(x1 + x2) / 2, float(y1 + y2) / 2, float(x2 - x1), float(y2 - y1))
            for (cls, *_), (x1, y1, x2, y2) in zip(rows, boxes)]


def write_turned_copies(images: list[Path], out_images: Path, out_labels: Path, seed: int = 0) -> int:
    """A quarter-turned copy of each photo of tiles standing side by side (hand rows, trays,
    the "single tiles" photos whose labels lay out as a hand on the table) whose boxes are
    tight, turned left or right at random: rows that run up the picture, as a camera over the
    table sees the players at its sides. Roboflow's own rotated copies
    cannot teach this: their boxes are inflated."""
    import cv2
    from mahjong_lens.training.evaluate import lays_out_as_hand, truths_of
    rng = random.Random(seed)
    written = 0
    for image_path in images:
        source = photo_source(image_path.name)
        # most "single tiles" photos are a hand on the table: known from their labels
        if source not in PACKED_SOURCES + ("single-tiles",) or is_dev_photo(image_path.name):
            continue
        rows = read_yolo_labels(label_path_for(image_path))
        image = cv2.imread(str(image_path))
        if not rows or image is None:
            continue
        height, width = image.shape[:2]
        if inflated_rows(rows, width, height):
            continue
        if source == "single-tiles" and not lays_out_as_hand(truths_of(rows, width, height)):
            continue
        turns = rng.choice((1, 3))
        name = f"turned{turns}__{image_path.parts[-4]}__{image_path.stem}"
        out_images.mkdir(parents=True, exist_ok=True)
        out_labels.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(out_images / f"{name}.jpg"), _rotate(image, turns), [cv2.IMWRITE_JPEG_QUALITY, 95])
        (out_labels / f"{name}.txt").write_text(one_class_label_text(turn_labels(rows, turns)))
        written += 1
    return written


def prepare_detector_data(data_dir: Path, work: Path, synth_count: int = 0, seed: int = 0,
                          screen_count: int = 0, turned: bool = False, more_sets: Sequence[str] = ()) -> Path:
    """A one-class YOLO dataset in WORK/detector-data; returns its data.yaml.  `turned`
    adds a quarter-turned copy of each real hand-row, tray and hand-on-the-table photo
    (``write_turned_copies``)."""
    root = work / "detector-data"
    if root.exists():
        shutil.rmtree(root)
    counts = {"train": 0, "val": 0}
    real = real_images(data_dir, "train", more_sets)
    if turned:
        counts["train"] += write_turned_copies(real, root / "images" / "train", root / "labels" / "train", seed)
        print(f"train: {counts['train']} quarter-turned copies of hand-row, tray and hand-on-the-table photos")
    for image in (real + synth_scenes(work, synth_count, seed)
                  + screen_captures(work, screen_count, seed, data_dir / "art")):
        split = "val" if (is_dev_photo(image.name) and "synth" not in str(image)) else "train"
        prefix = image.parts[-4] if "real" in image.parts else "synth"
        name = f"{prefix}__{image.name}"
        _link(image, root / "images" / split / name)
        rows = read_yolo_labels(label_path_for(image))
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split / (Path(name).stem + ".txt")).write_text(one_class_label_text(rows))
        counts[split] += 1
    yaml = root / "data.yaml"
    yaml.write_text(f"path: {root}\ntrain: images/train\nval: images/val\nnames:\n  0: tile\n")
    print(f"train: detector data {counts['train']} train / {counts['val']} dev images -> {yaml}")
    return yaml


# ----------------------------------------------------------------- classifier data

def _rotate(image: np.ndarray, quarter_turns: int) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(image, quarter_turns % 4))


def slanted_crop(image: np.ndarray, box: Box, degrees: float, margin: float, size: int) -> np.ndarray:
    """The crop the detector would give of the tile in `box` had it lain turned by
    `degrees` on the table: the photo turned about the box's centre, cut at the upright
    bounding box of the turned box (so the neighbours' corners come in, as they do in a
    photo of a slanted tile)."""
    import cv2
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    turn = cv2.getRotationMatrix2D((cx, cy), degrees, 1.0)
    corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64) @ turn[:, :2].T + turn[:, 2]
    # warp only the patch around the box, not the whole photo
    half = int(np.hypot(x2 - x1, y2 - y1) * (0.5 + margin)) + 2
    origin = np.array([cx - half, cy - half])  # the patch's top left in the photo
    turn[:, 2] -= origin
    patch = cv2.warpAffine(image, turn, (2 * half, 2 * half), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=(114, 114, 114))
    left, top = corners.min(0) - origin
    right, bottom = corners.max(0) - origin
    return square_crop(patch, (float(left), float(top), float(right), float(bottom)), margin, size)


def rare_class_copies(class_counts: Counter, most: int = 4) -> dict[int, int]:
    """How many times to write each real crop of a class so that rare classes (the bonus
    tiles have a third as many real crops as a suit tile) weigh about as much as the
    median class, at most `most` times."""
    if not class_counts:
        return {}
    median = float(np.median(list(class_counts.values())))
    return {cls: int(min(most, max(1, round(median / count)))) for cls, count in class_counts.items()}


def _augment_art(tile: np.ndarray, rng: random.Random) -> np.ndarray:
    """A photo-like view of a flat tile picture: perspective, scale, colour, blur, noise,
    on a random background."""
    import cv2
    if tile.ndim == 3 and tile.shape[2] == 4:  # composite transparent art on a random colour
        alpha = tile[:, :, 3:4].astype(np.float32) / 255
        background = np.full_like(tile[:, :, :3], [rng.randint(0, 255) for _ in range(3)])
        tile = (tile[:, :, :3] * alpha + background * (1 - alpha)).astype(np.uint8)
    elif tile.ndim == 2:
        tile = cv2.cvtColor(tile, cv2.COLOR_GRAY2BGR)
    h, w = tile.shape[:2]
    pad = int(0.15 * max(h, w))
    canvas = np.zeros((h + 2 * pad, w + 2 * pad, 3), np.uint8)
    canvas[:] = [rng.randint(0, 255) for _ in range(3)]
    canvas[pad:pad + h, pad:pad + w] = tile
    jitter = 0.08
    src = np.float32([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]])
    dst = src + np.float32([[rng.uniform(-jitter, jitter) * w, rng.uniform(-jitter, jitter) * h]
                            for _ in range(4)])
    matrix = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(canvas, matrix, (canvas.shape[1], canvas.shape[0]),
                                 borderMode=cv2.BORDER_REPLICATE)
    xs, ys = dst[:, 0], dst[:, 1]
    out = warped[max(0, int(ys.min())):int(ys.max()), max(0, int(xs.min())):int(xs.max())]
    # downscale then upscale: the small, soft look of a tile in a phone photo
    small = rng.randint(18, 60)
    scale = small / max(out.shape[:2])
    out = cv2.resize(out, (max(4, int(out.shape[1] * scale)), max(4, int(out.shape[0] * scale))),
                     interpolation=cv2.INTER_AREA)
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (3, 3), rng.uniform(0.3, 1.2))
    out = out.astype(np.float32)
    out = out * rng.uniform(0.6, 1.25) + rng.uniform(-30, 30)          # exposure
    out = out * np.float32([rng.uniform(0.85, 1.15) for _ in range(3)])  # white balance
    out += np.random.default_rng(rng.randint(0, 2**31)).normal(0, rng.uniform(0, 8), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def prepare_classifier_data(data_dir: Path, work: Path, art_copies: int = 24, seed: int = 0,
                            synth_count: int = 0, max_per_class: int = 1500, screen_count: int = 0,
                            size: int = CLASSIFIER_SIZE, detector: Callable[[np.ndarray], np.ndarray] | None = None,
                            real_copies: int = 1, slant: float = 0.0, balance: bool = False,
                            synth_per_class: int = SYNTH_CROPS_PER_CLASS,
                            not_a_tile: Callable[[np.ndarray, list[Box]], list[Box]] | None = None,
                            also_train: Sequence[Path] = (), also_weight: int = ALSO_TRAIN_WEIGHT,
                            set_photos: Sequence[Path] = (),
                            off_labels: Callable[[np.ndarray, list[Box]], list[Box]] | None = None) -> Path:
    """An image-folder dataset (train/CLASS, val/CLASS) of square tile crops, `size` px.

    With a `detector` (a function from a BGR photo to its tile boxes, N x 4 pixels), the
    real photos' crops are cut at the detector's boxes (``snap_to_detector``; a label with
    none keeps its own box), and the turned copies of packed rows, whose inflated labels
    hold parts of the neighbours, give the crops the detector finds in them.  Each real
    training crop is written `real_copies` times, each at its own margin and quarter-turn,
    to weigh the real photos more against the art and the synthetic crops; with `balance`,
    as many times more for a rare class (``rare_class_copies``).  With `slant` (degrees),
    every copy but the first is cut as if its tile lay turned by up to that angle
    (``slanted_crop``): tiles of a hand pushed together lie at a slant in real photos.
    With `not_a_tile` (a function from a real photo and its label boxes to boxes on no tile,
    ``faces_down_on_no_label``), those boxes are cut in all four turns as the class
    `NOT_A_TILE`, which the recogniser drops.  `also_train`: photos from outside train/
    (a tile set train/ lacks), every one a training photo, none held out for development,
    each crop written `also_weight` times as often as the others'.
    Their boxes on no tile are found as the others' are: every box the detector puts on no
    label is not a non-tile there either (drawn for the red-table set: 6 of its 17 are
    tiles left unlabelled at the photo's edge or under a shifted label).  `set_photos`:
    training photos of a set labelled to the last tile in view (``--with-set``), whose boxes
    on no label (`off_labels`, ``boxes_on_no_label``) are all written as `NOT_A_TILE`."""
    import cv2
    rng = random.Random(seed)
    root = work / "classifier-data"
    if root.exists():
        shutil.rmtree(root)
    # an empty class folder would still make a class: NOT_A_TILE only when asked for
    names = CLASS_NAMES + ((NOT_A_TILE,) if not_a_tile else ())
    for split in ("train", "val"):
        for name in names:
            (root / split / name).mkdir(parents=True, exist_ok=True)
    written = {"train": 0, "val": 0}
    per_class: dict[str, int] = {}

    def save(crop: np.ndarray, split: str, name: str, key: str) -> None:
        if split == "train":
            if per_class.get(name, 0) >= max_per_class * 4:
                return
            per_class[name] = per_class.get(name, 0) + 1
        cv2.imwrite(str(root / split / name / f"{key}.png"), crop)
        written[split] += 1

    # 1. crops of the labelled real boxes (train split; dev photos go to val)
    sources = [(img, read_yolo_labels(label_path_for(img)), False) for img in real_images(data_dir, "train")]
    sources += [(img, read_yolo_labels(label_path_for(img)), True) for img in also_train]
    sources += [(img, read_yolo_labels(label_path_for(img)), True) for img in set_photos]
    open_world = {str(img) for img in set_photos} if off_labels is not None else set()
    rng.shuffle(sources)
    inflated = snapped_count = no_tile_count = 0
    class_copies: dict[int, int] = {}
    if balance:
        counts: Counter = Counter(row[0] for image_path, rows, extra in sources
                                  if extra or not is_dev_photo(image_path.name) for row in rows)
        class_copies = rare_class_copies(counts)
        print("train: real crops of rare classes written more often: " +
              ", ".join(f"{CLASS_NAMES[c]} x{n}" for c, n in sorted(class_copies.items()) if n > 1 and c < NUM_CLASSES))
    for n, (image_path, rows, extra) in enumerate(sources):
        if not rows and not_a_tile is None:
            continue
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        h, w = image.shape[:2]
        boxes = [pixel_box(row, w, h) for row in rows]
        label_boxes = list(boxes)
        packed_and_inflated = photo_source(image_path.name) in PACKED_SOURCES and inflated_rows(rows, w, h)
        if detector is not None:
            snapped = snap_to_detector(boxes, [tuple(b) for b in detector(image)])
            snapped_count += sum(b is not None for b in snapped)
            # an inflated label stays out: its crop would not show one tile
            boxes = [s if s is not None or packed_and_inflated else b for s, b in zip(snapped, boxes)]
        elif packed_and_inflated:
            # a rotated copy of tiles standing side by side: each box holds parts of the
            # neighbouring tiles, so its crop does not show one tile (the upright copies of
            # the same photo do). Scattered single tiles have room around them: kept.
            inflated += 1
            continue
        split = "val" if is_dev_photo(image_path.name) and not extra else "train"
        for k, ((cls, *_), box) in enumerate(zip(rows, boxes)):
            if not 0 <= cls < NUM_CLASSES or box is None:
                continue
            if split == "val":
                save(square_crop(image, box, CROP_MARGIN, size), split, CLASS_NAMES[cls], f"real{n}_{k}_0")
                continue
            first_turn = rng.randrange(4)
            copies = real_copies * class_copies.get(cls, 1) * (also_weight if extra else 1)
            for copy in range(copies):
                turns = (first_turn + copy) % 4
                if slant and copy:
                    crop = slanted_crop(image, box, rng.uniform(-slant, slant), rng.uniform(0.0, 0.15), size)
                else:
                    crop = square_crop(image, box, rng.uniform(0.0, 0.15), size)
                save(_rotate(crop, turns), split, CLASS_NAMES[cls], f"real{n}_{k}_{copy}_{turns}")
        finder = off_labels if str(image_path) in open_world else not_a_tile
        for k, box in enumerate(finder(image, label_boxes) if finder else []):
            no_tile_count += 1
            for turns in range(1 if split == "val" else 4):  # few examples: each in every turn
                margin = CROP_MARGIN if split == "val" else rng.uniform(0.0, 0.15)
                save(_rotate(square_crop(image, box, margin, size), turns), split, NOT_A_TILE,
                     f"none{n}_{k}_{turns}")
        if n % 200 == 0 and detector is not None:
            print(f"train: crops of {n}/{len(sources)} real photos cut at the detector's boxes", flush=True)
    if not_a_tile is not None:
        print(f"train: {no_tile_count} boxes on no tile in the real photos, written as '{NOT_A_TILE}'")
    if detector is not None:
        print(f"train: classifier crops from real photos: {written} "
              f"({snapped_count} of them at the detector's boxes)")
    else:
        print(f"train: classifier crops from real photos: {written} "
              f"({inflated} rotated copies with inflated boxes left out)")

    # 2. the tile art, many augmented views of each (the only source of red fives and backs
    #    until synthetic scenes are available)
    art_dir = data_dir / "art"
    for style in sorted(p for p in art_dir.iterdir() if p.is_dir()):
        for picture in sorted(style.glob("*.png")):
            name = picture.stem
            if name not in CLASS_NAMES:
                continue  # blank, joker
            tile = cv2.imread(str(picture), cv2.IMREAD_UNCHANGED)
            if tile is None:
                continue
            # red fives and backs are rarer in art; more copies keep the classes balanced
            copies = art_copies * (3 if name in ("0m", "0p", "0s", "back") else 1)
            for k in range(copies):
                view = _augment_art(tile, rng)
                crop = square_crop(view, (0, 0, view.shape[1], view.shape[0]), rng.uniform(0, 0.1), size)
                turns = k % 4
                save(_rotate(crop, turns), "train", name, f"art_{style.name}_{k}_{turns}")

    # 3. single-tile photos of many designs (crops/labels.csv)
    crops_csv = data_dir / "real" / "crops" / "labels.csv"
    if crops_csv.exists():
        with crops_csv.open() as handle:
            for n, row in enumerate(csv.DictReader(handle)):
                name = row.get("tile", "")
                image = cv2.imread(str(crops_csv.parent / "images" / row.get("image", "")))
                if name not in CLASS_NAMES or image is None:
                    continue
                for k in range(4):
                    crop = square_crop(image, (0, 0, image.shape[1], image.shape[0]), 0.0, size)
                    save(_rotate(crop, k), "train", name, f"crops{n}_{k}")

    def scene_crops(images: list[Path], per_class_cap: int, max_margin: float, tag: str) -> None:
        # a cap per class keeps the rendered art from outweighing the real photos
        taken: Counter = Counter()
        for n, image_path in enumerate(images):
            image = cv2.imread(str(image_path))
            if image is None:
                continue
            h, w = image.shape[:2]
            for k, row in enumerate(read_yolo_labels(label_path_for(image_path))):
                cls = row[0]
                if 0 <= cls < NUM_CLASSES and taken[cls] < per_class_cap:
                    taken[cls] += 1
                    crop = square_crop(image, pixel_box(row, w, h), rng.uniform(0.0, max_margin), size)
                    save(_rotate(crop, k % 4), "train", CLASS_NAMES[cls], f"{tag}{n}_{k}")

    # 4. synthetic scenes (face-down tiles, red fives, sideways tiles in context)
    scene_crops(synth_scenes(work, synth_count, seed + 1), synth_per_class, 0.15, "synth")
    # 5. screen captures (stretched digital tiles; square_crop squeezes them back)
    scene_crops(screen_captures(work, screen_count, seed + 1, data_dir / "art"), SCREEN_CROPS_PER_CLASS, 0.06, "screen")
    print(f"train: classifier data {written['train']} train / {written['val']} val crops -> {root}")
    return root


# ------------------------------------------------------------------------ training

def with_new_class(weights: Path, name: str, out: Path) -> Path:
    """A copy of classifier `weights` with one more class, `name`, its head's other rows
    kept (ultralytics would draw the whole head afresh for a new class count) and the new
    one starting as unlikely as the least likely class.  The classes must stay in the
    alphabetical order of the image folders ultralytics reads, `name` last."""
    import torch
    checkpoint = torch.load(weights, map_location="cpu", weights_only=False)
    model = (checkpoint.get("ema") or checkpoint["model"]).float()
    names = [model.names[i] for i in range(len(model.names))]
    if name in names:
        return Path(weights)
    if sorted(names + [name]) != names + [name]:
        raise ValueError(f"class {name!r} would not come last in {weights}'s alphabetical class order")
    head = model.model[-1].linear
    wider = torch.nn.Linear(head.in_features, head.out_features + 1)
    with torch.no_grad():
        wider.weight[:-1], wider.bias[:-1] = head.weight, head.bias
        wider.weight[-1].zero_()
        wider.bias[-1] = head.bias.min()
    model.model[-1].linear = wider
    model.names = dict(enumerate(names + [name]))
    model.yaml["nc"] = len(model.names)
    checkpoint.update(model=model, ema=None, optimizer=None, epoch=-1)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(checkpoint, out)
    return out


def _train(stage: str, model_cfg: str, data: str, args: argparse.Namespace, **extra) -> Path:
    """Start or resume one ultralytics run under WORK/runs/STAGE; returns its weights dir."""
    offline_ultralytics()
    from ultralytics import YOLO
    run_dir = Path(args.work) / "runs" / stage
    last = run_dir / "weights" / "last.pt"
    budget_hours = args.time_budget / 60 if args.time_budget else None
    device = pick_device(args.device)
    precision = training_precision(device, getattr(args, "precision", None))
    started = time.time()
    if getattr(args, "init", None):
        # a new run that starts from given weights (e.g. the shipped model, to train it on
        # changed data or at another size) rather than from the bare config
        print(f"train: new {stage} run from the weights {args.init}")
        YOLO(str(args.init)).train(data=data, epochs=args.epochs, time=budget_hours, device=device,
                                   project=str(run_dir.parent), name=stage, exist_ok=True,
                                   amp=precision, plots=False, seed=args.seed, **extra)
    elif args.resume and last.exists():
        import torch
        checkpoint = torch.load(last, map_location="cpu", weights_only=False)
        unfinished = checkpoint.get("epoch", -1) >= 0
        del checkpoint
        if unfinished:
            print(f"train: resuming {stage} from {last}")
            overrides = {"resume": True, "device": device}
            if budget_hours:
                overrides["time"] = budget_hours
            YOLO(str(last)).train(**overrides)
        else:
            # a finished run: fine-tune its best weights with a fresh schedule
            # (kept aside: the new run writes its own best.pt over it)
            best = run_dir / "weights" / "previous-best.pt"
            shutil.copy(run_dir / "weights" / "best.pt", best)
            print(f"train: {stage} run finished; continuing from its best weights ({best})")
            YOLO(str(best)).train(data=data, epochs=args.epochs, time=budget_hours, device=device,
                                  project=str(run_dir.parent), name=stage, exist_ok=True,
                                  amp=precision, plots=False, **extra)
    else:
        YOLO(model_cfg).train(data=data, epochs=args.epochs, time=budget_hours, device=device,
                              project=str(run_dir.parent), name=stage, exist_ok=True,
                              pretrained=False, amp=precision, plots=False, seed=args.seed, **extra)
    minutes = (time.time() - started) / 60
    print(f"train: {stage} finished this session in {minutes:.1f} min; weights in {run_dir / 'weights'}")
    return run_dir / "weights"


def publish(weights_dir: Path, file_name: str) -> Path:
    """Copy the best checkpoint to models/ without its optimiser state (fp16, a few MB)."""
    from ultralytics.utils.torch_utils import strip_optimizer
    best = weights_dir / "best.pt"
    if not best.exists():
        best = weights_dir / "last.pt"
    MODELS_DIR.mkdir(exist_ok=True)
    target = MODELS_DIR / file_name
    strip_optimizer(str(best), s=str(target))
    print(f"train: published {best} -> {target} ({target.stat().st_size / 1e6:.1f} MB)")
    try:
        for exported in export_onnx(MODELS_DIR):
            print(f"train: ONNX export {exported} (used on a CPU)")
    except ImportError:
        print("train: the `onnx` package is missing, so no ONNX export was written; the stale "
              "exports are ignored. Install it and run `mahjong-lens export`.")
    except FileNotFoundError as error:
        print(f"train: no ONNX export yet: {error}")
    return target


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stage", choices=("detector", "classifier"), required=True)
    parser.add_argument("--data", default=str(default_data_dir()), help="the shared data folder")
    parser.add_argument("--work", default=str(default_work_dir()),
                        help="scratch folder for generated training sets and runs (outside the repo)")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--time-budget", type=float, default=None,
                        help="minutes of training this session (the schedule is fitted to it)")
    parser.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    parser.add_argument("--init", default=None,
                        help="start a new run from these weights (e.g. models/tile_classifier.pt)")
    parser.add_argument("--device", default="auto", help="auto, cpu, or a CUDA index")
    parser.add_argument("--precision", choices=("bf16", "fp32"), default=None,
                        help="on a GPU: bf16 (the default there) or fp32; a CPU trains in fp32")
    parser.add_argument("--imgsz", type=int, default=None,
                        help="detector: photo size (default 416); classifier: crop size (default 96)")
    parser.add_argument("--batch", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--synth", type=int, default=0, help="synthetic scenes to add (0: none)")
    parser.add_argument("--screens", type=int, default=0,
                        help="synthetic screen captures to add (the real training photos have none)")
    parser.add_argument("--synth-per-class", type=int, default=SYNTH_CROPS_PER_CLASS,
                        help="classifier: at most this many crops of a class from the synthetic scenes")
    parser.add_argument("--rebuild-data", action="store_true",
                        help="with --resume: regenerate the training set (e.g. to add --synth) but keep the weights")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr0", type=float, default=None,
                        help="classifier: initial learning rate (default 0.002; lower to fine-tune)")
    parser.add_argument("--erasing", type=float, default=0.0,
                        help="classifier: probability of random erasing (regularises a model that overfits)")
    parser.add_argument("--auto-augment", choices=("none", "randaugment", "augmix", "autoaugment"),
                        default="none", help="classifier: torchvision automatic augmentation policy")
    parser.add_argument("--scale", type=float, default=0.1,
                        help="classifier: random-resized-crop keeps between 1-SCALE and all of the crop")
    parser.add_argument("--turned", action="store_true",
                        help="detector: add a quarter-turned copy of each real hand-row, tray and "
                             "hand-on-the-table photo (rows running up the picture)")
    parser.add_argument("--crop-detector", default=None, metavar="FOLDER",
                        help="classifier: cut the real photos' crops at the boxes of this folder's "
                             "detector (e.g. models), as the recogniser will, not at the labels")
    parser.add_argument("--real-copies", type=int, default=1,
                        help="classifier: write each real training crop this many times (other turns)")
    parser.add_argument("--slant", type=float, default=0.0, metavar="DEGREES",
                        help="classifier: cut every real copy but the first as if its tile lay turned "
                             "by up to this angle (slanted tiles in real photos)")
    parser.add_argument("--balance", action="store_true",
                        help="classifier: write the real crops of rare classes (bonus tiles) up to "
                             "4 times as often, towards the median class")
    parser.add_argument("--second", action="store_true",
                        help="classifier: publish as the second classifier (models/tile_classifier_2.pt), "
                             "which reads half of each crop's quarter-turns")
    parser.add_argument("--also-train", default=None, metavar="LIST",
                        help="classifier: also train on the photos listed (paths relative to --data), e.g. "
                             "a tile set only valid/ holds; published with the weights, and the evaluation "
                             "leaves those photos out")
    parser.add_argument("--also-weight", type=int, default=ALSO_TRAIN_WEIGHT, metavar="N",
                        help="each crop of the --also-train photos is written N times as often as the others'")
    parser.add_argument("--no-publish", action="store_true", help="do not copy the weights to models/")
    parser.add_argument("--with-set", action="append", default=[], metavar="NAME",
                        help="also the train/ photos of this set of ../shared/data/real (e.g. "
                             "riichi-bluemat; its valid/ stays unseen); classifier (with --not-a-tile): "
                             "each crop written --also-weight times, and every box on none of its "
                             "labels learnt as no tile (the set labels every face-up tile in view)")
    parser.add_argument("--set-conf", type=float, default=None, metavar="CONF",
                        help="with --with-set and --not-a-tile: look at the set's photos again with the "
                             "detector's threshold at CONF (e.g. 0.1) for the boxes on no label, so that "
                             "the classifier learns the weaker boxes of the surroundings as no tile too")
    parser.add_argument("--hard-scenes", type=int, default=0, metavar="N",
                        help="classifier: render N synthetic hands (--hard-seed) and add the crops the "
                             "--crop-detector recogniser (default: models/) reads wrong or unsure, in four turns")
    parser.add_argument("--hard-seed", type=int, default=46,
                        help="seed of the --hard-scenes hands (the benchmarks read 2000, 3000 and 4000)")
    parser.add_argument("--hard-copies", type=int, default=1, metavar="K",
                        help="each hard crop written K times (in four turns each)")
    parser.add_argument("--not-a-tile", action="store_true",
                        help="classifier (with --crop-detector): learn a class 'none' from the boxes the "
                             "recogniser reads as face-down tiles where a real photo has no label (empty "
                             "tray slots, dice, felt: the real sets hold no face-down tile); the "
                             "recogniser drops boxes read so")


def run(args: argparse.Namespace) -> int:
    require_train_extra()
    if args.second and args.stage != "classifier":
        print("train: --second is for the classifier stage", file=sys.stderr)
        return 2
    if args.not_a_tile and (args.stage != "classifier" or not args.crop_detector):
        print("train: --not-a-tile is for the classifier stage, with --crop-detector", file=sys.stderr)
        return 2
    if args.hard_scenes > 0 and args.hard_seed in BENCHMARK_SEEDS:
        print(f"train: --hard-seed {args.hard_seed} is a benchmark's seed; take another", file=sys.stderr)
        return 2
    data_dir, work = Path(args.data), Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    # --resume reuses the training set already generated in WORK, if there is one
    if args.stage == "detector":
        yaml = work / "detector-data" / "data.yaml"
        if not (args.resume and yaml.exists()) or args.rebuild_data:
            yaml = prepare_detector_data(data_dir, work, args.synth, args.seed, args.screens, args.turned,
                                         args.with_set)
        weights = _train("detector", "yolo11n.yaml", str(yaml), args, imgsz=args.imgsz or DETECTOR_SIZE,
                         batch=args.batch or 16, workers=args.workers, cache="ram", patience=100,
                         degrees=5.0, fliplr=0.5, close_mosaic=2, single_cls=True,
                         # what ultralytics picks by itself for a run this short; a run from
                         # trained weights needs little warm-up
                         optimizer="AdamW", lr0=args.lr0 or 0.002, warmup_epochs=1.0 if args.init else 3.0)
        target = DETECTOR_FILE
    else:
        folder = work / "classifier-data"
        try:
            also_train = read_photo_list(Path(args.also_train), data_dir) if args.also_train else []
        except OSError as error:
            print(f"train: --also-train: {error}", file=sys.stderr)
            return 2
        reader = None
        if not (args.resume and folder.exists()) or args.rebuild_data:
            # one recogniser, loaded once, cuts the crops and finds the boxes on no tile, from
            # one look at each photo
            reader = load_recognizer(args.crop_detector) if args.crop_detector else None
            readings = once_per_photo(reader) if reader and args.not_a_tile else None
            detector = crop_detector(reader, readings) if reader else None
            not_a_tile = faces_down_on_no_label(reader, readings) if args.not_a_tile else None
            set_photos = [photo for photo in real_images(data_dir, "train", args.with_set)
                          if any(f"/real/{name}/" in str(photo) for name in args.with_set)]
            off_labels = boxes_on_no_label(reader, readings, conf=args.set_conf) \
                if args.not_a_tile and reader else None
            folder = prepare_classifier_data(data_dir, work, seed=args.seed, synth_count=args.synth,
                                             screen_count=args.screens, size=args.imgsz or CLASSIFIER_SIZE,
                                             detector=detector, real_copies=args.real_copies,
                                             slant=args.slant, balance=args.balance,
                                             synth_per_class=args.synth_per_class, not_a_tile=not_a_tile,
                                             also_train=also_train, also_weight=args.also_weight,
                                             set_photos=set_photos, off_labels=off_labels)
        if args.hard_scenes > 0:
            written = hard_hand_crops(reader or load_recognizer(args.crop_detector), folder, args.hard_scenes,
                                      args.hard_seed, args.hard_copies, args.imgsz or CLASSIFIER_SIZE)
            print(f"train: {sum(written.values())} hard crops added, most of "
                  + ", ".join(f"{name} {n}" for name, n in written.most_common(8)))
        if args.not_a_tile and args.init:
            # the shipped classifier's head grows a row instead of being drawn afresh
            args.init = str(with_new_class(Path(args.init), NOT_A_TILE, work / "init-with-not-a-tile.pt"))
        weights = _train("classifier", "yolo11n-cls.yaml", str(folder), args,
                         imgsz=args.imgsz or CLASSIFIER_SIZE, batch=args.batch or 128,
                         workers=args.workers, cache="ram", patience=100, fliplr=0.0, scale=args.scale,
                         erasing=args.erasing, hsv_h=0.0, hsv_s=0.3, hsv_v=0.3,
                         auto_augment=None if args.auto_augment == "none" else args.auto_augment,
                         # ultralytics' automatic choice for 46 classes is AdamW at 2e-4, far
                         # too slow for the few epochs a CPU allows
                         optimizer="AdamW", lr0=args.lr0 or 0.002, warmup_epochs=0.5)
        target = SECOND_CLASSIFIER_FILE if args.second else CLASSIFIER_FILE
    if not args.no_publish:
        publish(weights, target)
        # the list travels with the weights: the evaluation leaves those photos out
        listed = MODELS_DIR / ALSO_TRAINED_FILE
        if args.stage == "classifier" and args.also_train:
            names = sorted({photo.name for photo in also_train} | also_trained_on(MODELS_DIR))
            listed.write_text(f"# photos outside train/ the classifiers trained on (train --also-train)\n"
                              + "\n".join(names) + "\n")
            print(f"train: {len(names)} photos outside train/ listed in {listed}")
    return 0


def configure_export(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default=None, help="folder of the weights (default: models/)")


def run_export(args: argparse.Namespace) -> int:
    """``mahjong-lens export``: ONNX beside the weights, which the recogniser then uses on a CPU."""
    require_train_extra()
    try:
        written = export_onnx(Path(args.model) if args.model else None)
    except FileNotFoundError as error:
        print(f"export: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(f"export: wrote {path}")
    return 0
