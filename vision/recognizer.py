"""The shipped tile recogniser: a one-class YOLO tile detector, then a YOLO crop classifier.

``load_recognizer()`` reads ``models/tile_detector.pt`` and ``models/tile_classifier.pt``,
and ``models/tile_classifier_2.pt`` where there is one (see models/README.md for how they
were trained and how well they read).  The detector finds every tile, whatever its face;
each box is cut out with a small margin, padded to a square, and all crops of a photo are
classified in one batch.  The classifiers were trained on crops in all four rotations, so
sideways and upside-down tiles read too; each crop is read in its four quarter-turns, shared
out between the classifiers, and the probabilities averaged.  Two boxes that are one tile's
halves are read again as one (``joined_halves``).
"""
from __future__ import annotations

import logging
import os
import sys
from collections.abc import Collection, Sequence
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path

import numpy as np

from mahjong_lens.vision.classes import BACK, CLASS_NAMES, NOT_A_TILE
from mahjong_lens.rules.tiles import plain
from mahjong_lens.vision import TRAIN_EXTRA
from mahjong_lens.vision.detections import TileDetection, turned_boxes
from mahjong_lens.vision.onnx_models import (FEATURES_OUTPUT, ONNX_SOURCE_KEY, OnnxDetector, export_names, export_size,  # noqa: F401
                                file_sha256, onnx_session, set_metadata, to_tensor)


def _models_dir() -> Path:
    """Where the shipped weights are: $MAHJONG_LENS_MODELS, else models/ of the source tree
    (a clone, an editable install), else the copy a plain `pip install .` puts under
    <prefix>/share/mahjong-lens/models (the ONNX exports only)."""
    if os.environ.get("MAHJONG_LENS_MODELS"):
        return Path(os.environ["MAHJONG_LENS_MODELS"])
    tree = Path(__file__).resolve().parent.parent / "models"
    installed = Path(sys.prefix) / "share" / "mahjong-lens" / "models"
    return tree if tree.is_dir() or not installed.is_dir() else installed


MODELS_DIR = _models_dir()
DETECTOR_FILE = "tile_detector.pt"
CLASSIFIER_FILE = "tile_classifier.pt"
# optional: a second classifier, trained on for longer with more synthetic hands, that reads
# half of each crop's quarter-turns (two classifiers for the price of one)
SECOND_CLASSIFIER_FILE = "tile_classifier_2.pt"
# the photos of the real valid/ folders the weights were trained on (`train --also-train`),
# one file name per line: the evaluation leaves them out, so its figures stay on photos
# the model never saw
ALSO_TRAINED_FILE = "also_trained_on.txt"
DETECTOR_SIZE = 416    # photo size of the shipped detector; a model says its own in its train args
CLASSIFIER_SIZE = 96   # crop size of the shipped classifier; a model says its own in its train args
CROP_MARGIN = 0.08
TILE_RATIO = 4 / 3   # long side / short side of a tile face
STRETCHED = 2.2      # a box longer than this times its width is not a tile's true shape
# a box of the detector's look at the photo turned a quarter is a tile the first look missed
# when it overlaps none of the first look's boxes by more than this IoU (0.15-0.25 read the
# same; 0.35 adds shifted copies of tiles already found)
NEW_BOX_IOU = 0.2
# and when the detector is at least this sure of it
NEW_BOX_CONF = 0.5
# a box that holds this share of a more confident box is dropped: a tile with part of its
# neighbour, large enough to pass NMS (IoU < 0.45), which splits a row in two for the layout
COVERED_SHARE = 0.9
# the detector looks again at the photo turned a quarter when this share of its boxes lie
# (wider than tall): a hand running up the picture, or two of the four at a table
LYING_SHARE = 0.3
# where the tiles the detector finds are small (median short side below SMALL_TILE px in the
# photo scaled to 640 px), or it finds none, it looks again at the photo at CLOSE_LOOK_SIZE
# px and keeps that look: a camera over a whole table sees tiles of 15-25 px, which a look
# at 416 px misses
SMALL_TILE = 28.0
CLOSE_LOOK_SIZE = 640
# a box the detector is unsure of (confidence below the first) whose face the classifiers
# cannot name either (likeliest class below the second) is dropped: such boxes are nearly
# all dice, the table's centre, part of a tile at the photo's edge, books on a shelf and the
# sides of standing tiles (at 0.4, more of them were kept)
UNSURE_BOX = (0.5, 0.5)
# a box whose face the classifiers cannot name, however sure the detector is of it (likeliest
# class below this), is dropped: on the blue mat's book shelf the detector is sure at 0.5-0.56
# of a spine the classifiers give 0.15-0.17
NAMELESS_FACE = 0.2
# one tile boxed in two halves (a big 4p boxed as two 2p: its two halves are each a 2p's
# pattern) is one box: two overlapping boxes, one the detector and classifiers are unsure of
# (confidence below HALF_BOX_WEAK), the smaller with at least HALF_BOX_OVERLAP of its area in
# the other, whose union is no bigger than one tile (HALF_BOX_SIZE: its area, and each side,
# against the photo's median box), are read again as their union; they become that box where
# it reads a face at HALF_BOX_FACE or more that is among each half's four likeliest, and
# another face than either half's (two tiles of one face side by side in a diagonal row read
# as their own face) unless the smaller lies HALF_BOX_INSIDE within the other (a second box
# on a tile's lower half).  valid/: the blue mat 0.967 / 0.940 -> 0.978 / 0.961, the red-table
# half 0.969 / 0.977 -> 0.972 / 0.983
HALF_BOX_WEAK = 0.5
HALF_BOX_OVERLAP = 0.2
HALF_BOX_SIZE = (1.5, 1.35)
HALF_BOX_FACE = 0.9
HALF_BOX_INSIDE = 0.75
# a standing tile seen from its front is sometimes boxed as its top with the upper part of its
# face, and as its face: two boxes one above the other at one width (their spans across the
# photo shared HALF_BOX_STACKED or more, up it less), read as two faces (a 4p's upper part
# shows a 2p).  Such a pair is taken for halves however sure of each the detector is and
# however little of one lies in the other, where their faces differ and the less sure of the
# two is below HALF_BOX_STACKED_SURE: two whole tiles in a block are read each for sure (the
# blue mat 0.978 / 0.961 -> 0.978 / 0.968)
HALF_BOX_STACKED = 0.85
HALF_BOX_STACKED_SURE = 0.99
# a box whose long side is this many times the photo's median box's is no tile (a tile lying
# sideways or nearer the camera is at most about twice another): the shipped detector once
# boxed a tray's whole edge, which kept a hand's two rows apart
LONG_BOX = 3.0
# a box read face down whose middle is the colour of the table around the tiles (the median of
# the photo outside every box, CIELAB distance below this) is felt, not a tile's back: the blue
# mat and the red and green tables of `valid/` gave 16 such boxes below 18, the synthetic
# scenes' true backs lay 27 and more from their felt
FELT_DISTANCE = 18.0
# a concealed kong's face-down tile the classifiers took for no tile lies one step before or
# after its two face-up tiles, in line with them (``with_kong_backs``): the face-up tiles
# KONG_BACK_STEP tiles apart, the back KONG_BACK_STEP steps on (perspective and a lying back's
# larger box stretch the step: 1.45 of it in one scene) and at most KONG_BACK_ACROSS of a
# tile off the line
KONG_BACK_STEP = (0.5, 1.6)
KONG_BACK_ACROSS = 0.35
# and overlaps no tile read by this IoU or more (a second box on that tile; a synthetic kong's back
# overlapped a weak box across it and its neighbour by 0.44)
KONG_BACK_CLEAR = 0.5
# the detector's own threshold: a box it is less sure of is no tile, but for WEAK_BOX_*
DETECTOR_CONF = 0.35
# a box the detector is less sure of (WEAK_BOX_CONF to DETECTOR_CONF) is a tile it nearly missed
# where the classifiers read a face in it at WEAK_BOX_FACE or more, and it lies among the tiles
# found: its middle within WEAK_BOX_NEAR of a tile's long side from a found tile's, and no tile
# read face down as near (a dead wall, stacked tiles half hidden: the layout reads walls from
# the boxes the detector is sure of).  At most WEAK_BOX_INSIDE of it may lie in tiles found
# (else it is part of one), its sides must be a tile's (WEAK_BOX_SIZE times the photo's median
# box's; a tile half hidden gives a smaller box), and the photo's edge cuts it nowhere (a shelf
# behind the table, a tile cut off: nobody lays out a hand there).  Faces a plain patch looks
# like are read so only surely (WEAK_BOX_PLAIN: a back never, the White dragon, blank in many
# sets, at 0.99 or more): weak boxes on felt read `back`, on a pale check of a synthetic
# tablecloth 5z at 0.89-0.95; real White dragons' weak boxes read 5z at 1.00.  The blue mat's
# three tiles without a box lay at 0.28-0.35, read right at 0.73-1.00
WEAK_BOX_CONF = 0.25
WEAK_BOX_FACE = 0.7
WEAK_BOX_NEAR = 1.5
WEAK_BOX_INSIDE = 0.45
WEAK_BOX_SIZE = (0.5, 1.5)
WEAK_BOX_PLAIN = {BACK: float("inf"), "5z": 0.99}
# a box far from every other (its middle LONE_BOX_DISTANCE of the photo's median tile length
# or more from the nearest box's) that the two stages together are unsure of (confidence, the
# detector's times the face's, below LONE_BOX_CONF) is the room around the table, not a tile:
# the blue mat's power bank read 1p (5.9 tiles off, 0.36) and a book read 3s (2.7, 0.31); no
# tile of `valid/` read right lies so
LONE_BOX_DISTANCE = 2.5
LONE_BOX_CONF = 0.4


def trained_size(model: object, session: object | None = None, default: int = DETECTOR_SIZE) -> int:
    """The image size a YOLO model was trained at (a detector's photos, a classifier's
    crops): from its ONNX export's metadata (an onnxruntime `session`) or its checkpoint's
    train args (an ultralytics `model` loaded from a .pt); `default` when neither says."""
    if session is not None:
        size = export_size(session, 0)
        if size:
            return size
    size = (getattr(model, "ckpt", None) or {}).get("train_args", {}).get("imgsz")
    return int(size) if size else default


def ultralytics_yolo():
    """ultralytics' YOLO class, for training, exporting and reading with PyTorch; a clear
    error where the `[train]` extra is not installed."""
    os.environ.setdefault("YOLO_OFFLINE", "1")  # never let ultralytics reach the network
    try:
        from ultralytics import YOLO
    except ImportError:
        raise ModuleNotFoundError(f"this needs PyTorch and ultralytics: {TRAIN_EXTRA}",
                                  name="ultralytics") from None
    return YOLO


def default_device() -> str:
    """'cuda:0' where PyTorch is installed and sees a GPU, else 'cpu' (the ONNX exports on
    onnxruntime).  torch is imported only where an NVIDIA driver is present, so a CPU
    machine never pays its start-up; $MAHJONG_LENS_DEVICE chooses outright."""
    chosen = os.environ.get("MAHJONG_LENS_DEVICE")
    if chosen:
        return chosen
    import importlib.util
    if not Path("/dev/nvidiactl").exists() or importlib.util.find_spec("torch") is None:
        return "cpu"
    import torch
    return "cuda:0" if torch.cuda.is_available() else "cpu"


def is_stretched(box: tuple[float, float, float, float]) -> bool:
    """A box far longer than any tile: a photo stretched to a square, as the screen
    captures in the real sets are."""
    width, height = box[2] - box[0], box[3] - box[1]
    return width > STRETCHED * height or height > STRETCHED * width


def unstretch_scale(boxes: np.ndarray) -> tuple[float, float] | None:
    """How much to scale a photo's width and height to undo a stretch, judged from the tile
    boxes a first look found there; None when they have a tile's shape.

    The real sets hold rows and columns of tiles stretched to a square (screen captures,
    some "single tiles" photos): a row stretched up and down, every tile ten times taller
    than wide.  The detector learnt tiles of a tile's shape and finds few of those, some
    boxes spanning two tiles; looking again at the photo scaled back so that the boxes stand
    as tall as a tile (4:3) it finds them (`valid/` single tiles 0.936 -> 0.970 right,
    screenshots 0.875 -> 0.944)."""
    if len(boxes) == 0:
        return None
    widths = np.maximum(boxes[:, 2] - boxes[:, 0], 1e-6)
    heights = np.maximum(boxes[:, 3] - boxes[:, 1], 1e-6)
    tall = float(np.median(heights / widths))
    if tall > STRETCHED:        # stretched up and down: squeeze the height
        return 1.0, TILE_RATIO / tall
    if 1 / tall > STRETCHED:    # stretched sideways: squeeze the width (faces stand upright)
        return tall / TILE_RATIO, 1.0
    return None


def small_tiles(boxes: np.ndarray, width: int, height: int, below: float = SMALL_TILE) -> bool:
    """Whether the tiles in `boxes` (N x 4) are small: their median short side, in the photo
    scaled to 640 px on its long side, is under `below` px; or there are none."""
    if len(boxes) == 0:
        return True
    short = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    return float(np.median(short)) * 640 / max(width, height, 1) < below


def tiles_lie(boxes: np.ndarray, share: float = LYING_SHARE) -> bool:
    """Whether at least `share` of the boxes are wider than tall: tiles lying across the
    picture, as a hand running up it shows them (a camera over the table sees the players
    at its sides so; a called tile turned sideways in a meld is one in a hand's fourteen)."""
    if len(boxes) == 0:
        return False
    widths, heights = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    return bool(np.mean(widths > heights) >= share)


def box_overlaps(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The intersection areas of every box of `a` with every box of `b` (N x M; boxes
    x1y1x2y2), and the areas of the boxes of `a` and of `b`."""
    a, b = np.asarray(a, np.float32).reshape(-1, 4), np.asarray(b, np.float32).reshape(-1, 4)
    width = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    height = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    inter = np.clip(width, 0, None) * np.clip(height, 0, None)
    area = lambda boxes: np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)  # noqa: E731
    return inter, area(a), area(b)


def box_ious(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The IoU of every box of `a` with every box of `b` (N x M; boxes x1y1x2y2)."""
    inter, area_a, area_b = box_overlaps(a, b)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def middle_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far the middle of every box of `a` lies from the middle of every box of `b`
    (N x M; boxes x1y1x2y2)."""
    a, b = np.asarray(a, np.float32).reshape(-1, 4), np.asarray(b, np.float32).reshape(-1, 4)
    offsets = (a[:, None, :2] + a[:, None, 2:]) / 2 - (b[None, :, :2] + b[None, :, 2:]) / 2
    return np.hypot(offsets[..., 0], offsets[..., 1])


def without_covering_boxes(boxes: np.ndarray, confidences: np.ndarray,
                           share: float = COVERED_SHARE) -> tuple[np.ndarray, np.ndarray]:
    """`boxes` less each that holds `share` or more of a more confident box's area: a weak
    box around a tile and part of its neighbour, which NMS at IoU 0.45 lets through.  The
    layout took such a pair for a row of its own and left the tile out of the hand (`valid/`
    hands on the table turned a quarter: 51 -> 58 of 73 read exactly; upright, 60 either way)."""
    if len(boxes) < 2:
        return boxes, confidences
    inter, _, area = box_overlaps(boxes, boxes)
    held = inter / area[None, :]  # [i, j]: the share of box j inside box i
    np.fill_diagonal(held, 0.0)
    covering = ((held >= share) & (confidences[None, :] > confidences[:, None])).any(axis=1)
    return boxes[~covering], confidences[~covering]


def added_boxes(boxes: np.ndarray, confidences: np.ndarray, more: np.ndarray, more_confidences: np.ndarray,
                max_iou: float = NEW_BOX_IOU, min_confidence: float = NEW_BOX_CONF) -> tuple[np.ndarray, np.ndarray]:
    """`boxes` as they are, and those of `more` that overlap none of them by more than
    `max_iou` (a second look's boxes where the first found nothing): the first look's boxes
    are kept rather than merged, as the layout reads the gaps between them (taking the more
    confident of two overlapping boxes lost 9 of 60 hands read exactly)."""
    sure = np.asarray(more_confidences) >= min_confidence
    more, more_confidences = np.asarray(more, np.float32)[sure], np.asarray(more_confidences, np.float32)[sure]
    if len(more) and len(boxes):
        keep = box_ious(more, boxes).max(axis=1) <= max_iou
        more, more_confidences = more[keep], more_confidences[keep]
    return (np.concatenate([boxes, more]).astype(np.float32),
            np.concatenate([confidences, more_confidences]).astype(np.float32))


def crops_read(reader: object, image: np.ndarray, join_halves: bool = True
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """What a recogniser (its `boxes`, `classify`, `class_names` and `crop_size`) reads of a
    photo before anything is dropped: its boxes, their confidences, class probabilities and
    crops (what a taught tile set compares), a tile boxed in two halves made one box
    (``joined_halves``) and the tiles the detector nearly missed added (``with_weak_boxes``,
    for a reader whose `boxes_and_weak` gives them); `join_halves` False: the models'
    readings alone."""
    if join_halves and hasattr(reader, "boxes_and_weak"):
        boxes, box_conf, weak, weak_conf = reader.boxes_and_weak(image)
    else:
        (boxes, box_conf), weak, weak_conf = reader.boxes(image), np.zeros((0, 4), np.float32), np.zeros(0, np.float32)
    crops = [square_crop(image, tuple(box), CROP_MARGIN, reader.crop_size) for box in boxes]
    probabilities = reader.classify(crops)
    if not join_halves:
        return boxes, box_conf, probabilities, crops
    read = joined_halves(image, boxes, box_conf, probabilities, crops, reader.class_names,
                         reader.classify, reader.crop_size)
    return with_weak_boxes(image, *read, weak, weak_conf, reader.class_names, reader.classify, reader.crop_size)


def with_weak_boxes(image: np.ndarray, boxes: np.ndarray, box_conf: np.ndarray, probabilities: np.ndarray,
                    crops: list[np.ndarray], weak: np.ndarray, weak_conf: np.ndarray, class_names: Sequence[str],
                    classify, crop_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """The boxes, confidences, probabilities and crops read, and the `weak` boxes (those the
    detector was less sure of than its threshold) that are tiles it nearly missed
    (``WEAK_BOX_*``): among the tiles found and the size of one, clear of them and of the
    photo's edge, read surely as a face no plain patch could be.  `classify`: crops ->
    probabilities."""
    weak = np.asarray(weak, np.float32).reshape(-1, 4)
    if not len(weak) or not len(boxes):
        return boxes, box_conf, probabilities, crops
    found = np.asarray(boxes, np.float32)
    height, width = image.shape[:2]
    uncut = (weak[:, 0] > 1) & (weak[:, 1] > 1) & (weak[:, 2] < width - 1) & (weak[:, 3] < height - 1)
    inter, weak_area, _ = box_overlaps(weak, found)
    clear = (inter / np.maximum(weak_area[:, None], 1e-6)).max(axis=1) <= WEAK_BOX_INSIDE
    sides, weak_sides = np.sort(found[:, 2:] - found[:, :2], axis=1), np.sort(weak[:, 2:] - weak[:, :2], axis=1)
    ratio = weak_sides / np.maximum(np.median(sides, axis=0), 1e-6)  # short and long side against the median's
    tile_sized = ((ratio >= WEAK_BOX_SIZE[0]) & (ratio <= WEAK_BOX_SIZE[1])).all(axis=1)
    close = middle_distances(weak, found) <= WEAK_BOX_NEAR * float(np.median(sides[:, 1]))
    names = list(class_names)
    backs = np.array([names[int(np.argmax(probs))] == BACK for probs in probabilities], bool)
    near = close.any(axis=1) & ~close[:, backs].any(axis=1)  # among faces, not in a wall of backs
    candidates = [k for k in range(len(weak)) if uncut[k] and clear[k] and tile_sized[k] and near[k]]
    if not candidates:
        return boxes, box_conf, probabilities, crops
    weak_crops = [square_crop(image, tuple(weak[k]), CROP_MARGIN, crop_size) for k in candidates]
    weak_probabilities = np.asarray(classify(weak_crops), np.float32)
    added = [n for n, probs in enumerate(weak_probabilities)
             if names[int(np.argmax(probs))] != NOT_A_TILE
             and float(probs.max()) >= WEAK_BOX_PLAIN.get(names[int(np.argmax(probs))], WEAK_BOX_FACE)]
    if not added:
        return boxes, box_conf, probabilities, crops
    return (np.concatenate([found, weak[[candidates[n] for n in added]]]),
            np.concatenate([np.asarray(box_conf, np.float32),
                            np.asarray(weak_conf, np.float32)[[candidates[n] for n in added]]]),
            np.concatenate([np.asarray(probabilities, np.float32), weak_probabilities[added]]),
            list(crops) + [weak_crops[n] for n in added])


def _span_overlap(low: float, high: float, other_low: float, other_high: float) -> float:
    """How much two spans of one axis share: their intersection over their union."""
    union = max(high, other_high) - min(low, other_low)
    return max(0.0, min(high, other_high) - max(low, other_low)) / union if union > 0 else 0.0


def stacked_boxes(box: np.ndarray, other: np.ndarray, shared: float = HALF_BOX_STACKED) -> bool:
    """Whether two boxes lie one above the other at one width: their spans across the photo
    share `shared` or more, their spans up it less.  (Only up the photo: a standing tile's top
    is seen above its face; two boxes side by side at one height are a row's neighbours.)"""
    across = _span_overlap(box[0], box[2], other[0], other[2])
    return across >= shared > _span_overlap(box[1], box[3], other[1], other[3])


def half_box_pairs(boxes: np.ndarray, box_conf: np.ndarray, probabilities: np.ndarray,
                   class_names: Sequence[str]) -> list[tuple[int, int, np.ndarray, float, bool]]:
    """Pairs of boxes that may be one tile boxed in two halves (``HALF_BOX_*``), each with
    their union box, the smaller box's share inside the other, and whether they are a
    standing tile's top and face (``HALF_BOX_STACKED``): the most overlapping first, no box
    in two pairs."""
    if len(boxes) < 3:  # the photo's median box must be a tile's
        return []
    boxes = np.asarray(boxes, np.float32)
    widths, heights = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    long_side = float(np.median(np.maximum(widths, heights)))
    short_side = float(np.median(np.minimum(widths, heights)))
    tile_area = float(np.median(widths * heights))
    faces = np.array(probabilities, np.float32)
    if NOT_A_TILE in class_names:
        faces[:, list(class_names).index(NOT_A_TILE)] = 0.0
    read, face_sure = faces.argmax(axis=1), faces.max(axis=1)
    sure = np.asarray(box_conf, np.float32) * face_sure
    inter, area, _ = box_overlaps(boxes, boxes)
    held = inter / np.minimum(area[:, None], area[None, :])  # the smaller box's share inside the other
    candidates = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if held[i, j] < HALF_BOX_OVERLAP:
                continue
            top_and_face = (read[i] != read[j] and min(face_sure[i], face_sure[j]) < HALF_BOX_STACKED_SURE
                            and stacked_boxes(boxes[i], boxes[j]))
            if min(sure[i], sure[j]) >= HALF_BOX_WEAK and not top_and_face:
                continue
            union = np.concatenate([np.minimum(boxes[i, :2], boxes[j, :2]), np.maximum(boxes[i, 2:], boxes[j, 2:])])
            width, height = float(union[2] - union[0]), float(union[3] - union[1])
            area_limit, side_limit = HALF_BOX_SIZE
            if (width * height > area_limit * tile_area or max(width, height) > side_limit * long_side
                    or min(width, height) > side_limit * short_side):
                continue
            candidates.append((float(held[i, j]), i, j, union, top_and_face))
    pairs, used = [], set()
    for inside, i, j, union, top_and_face in sorted(candidates, key=lambda c: -c[0]):
        if i not in used and j not in used:
            used |= {i, j}
            pairs.append((i, j, union, inside, top_and_face))
    return pairs


def joined_halves(image: np.ndarray, boxes: np.ndarray, box_conf: np.ndarray, probabilities: np.ndarray,
                  crops: list[np.ndarray], class_names: Sequence[str], classify, crop_size: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """The boxes, their confidences, probabilities and crops with each tile boxed in two
    halves (``half_box_pairs``) made one box, where the crop of the pair's union reads as one
    tile (``HALF_BOX_FACE``, ``HALF_BOX_INSIDE``).  `classify`: crops -> probabilities."""
    pairs = half_box_pairs(boxes, box_conf, probabilities, class_names)
    if not pairs:
        return boxes, box_conf, probabilities, crops
    names = list(class_names)
    union_crops = [square_crop(image, tuple(union), CROP_MARGIN, crop_size) for _, _, union, _, _ in pairs]
    union_probabilities = classify(union_crops)

    def likeliest(probs: np.ndarray, count: int) -> list[str]:
        return [names[k] for k in np.argsort(probs)[::-1] if names[k] != NOT_A_TILE and probs[k] > 0][:count]

    joined, gone = [], set()
    for (i, j, union, inside, top_and_face), crop, probs in zip(pairs, union_crops, union_probabilities):
        face = names[int(np.argmax(probs))]
        if face == NOT_A_TILE or float(probs.max()) < HALF_BOX_FACE:
            continue
        if face not in likeliest(probabilities[i], 4) or face not in likeliest(probabilities[j], 4):
            continue  # the union is another tile than either half could be
        halves = {likeliest(probabilities[i], 1)[0], likeliest(probabilities[j], 1)[0]}
        if face in halves and inside < HALF_BOX_INSIDE and not top_and_face:
            continue  # two neighbours of one face, as a diagonal row overlaps them
        gone |= {i, j}
        joined.append((union, max(float(box_conf[i]), float(box_conf[j])), probs, crop))
    if not joined:
        return boxes, box_conf, probabilities, crops
    keep = [k for k in range(len(boxes)) if k not in gone]
    return (np.concatenate([np.asarray(boxes, np.float32)[keep], np.array([b for b, _, _, _ in joined], np.float32)]),
            np.concatenate([np.asarray(box_conf, np.float32)[keep], np.array([c for _, c, _, _ in joined], np.float32)]),
            np.concatenate([np.asarray(probabilities, np.float32)[keep],
                            np.array([p for _, _, p, _ in joined], np.float32)]),
            [crops[k] for k in keep] + [c for _, _, _, c in joined])


def square_crop(image: np.ndarray, box: tuple[float, float, float, float], margin: float = CROP_MARGIN,
                size: int = CLASSIFIER_SIZE) -> np.ndarray:
    """The tile in `box` with a margin, padded to a square (so a centre crop cuts nothing
    off the face) and resized to size x size.  Training cuts its crops with this too.

    A stretched box (``is_stretched``) is squeezed back to a standing tile's shape: the
    screen captures it comes from show their faces upright, in a column (stretched wide)
    or a row (stretched tall).  On the real captures this took correct tiles from 0.42
    (squeezed to a lying tile in a column) to 0.85."""
    import cv2
    h, w = image.shape[:2]
    x1, y1, x2, y2 = box
    mx, my = (x2 - x1) * margin, (y2 - y1) * margin
    x1, y1 = max(0, int(round(x1 - mx))), max(0, int(round(y1 - my)))
    x2, y2 = min(w, int(round(x2 + mx))), min(h, int(round(y2 + my)))
    crop = image[y1:max(y2, y1 + 1), x1:max(x2, x1 + 1)]
    ch, cw = crop.shape[:2]
    # padding a stretched box instead would leave the face a thin strip
    if is_stretched((0, 0, cw, ch)):
        short = min(ch, cw)  # the stretch made the other side long
        crop = cv2.resize(crop, (short, max(1, round(short * TILE_RATIO))), interpolation=cv2.INTER_AREA)
    ch, cw = crop.shape[:2]
    side = max(ch, cw)
    top, left = (side - ch) // 2, (side - cw) // 2
    padded = cv2.copyMakeBorder(crop, top, side - ch - top, left, side - cw - left,
                                cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return cv2.resize(padded, (size, size), interpolation=cv2.INTER_AREA)


@contextmanager
def quiet_ultralytics():
    """ultralytics logs to stdout (e.g. when it first opens an ONNX model), which would
    spoil `scan --json`; only its warnings pass."""
    logger = logging.getLogger("ultralytics")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


class CropClassifier:
    """One YOLO crop classifier: its ONNX export on a CPU where there is a fresh one (no
    torch needed), else the PyTorch weights."""

    def __init__(self, path: Path, device: str, use_onnx: bool = True) -> None:
        self.path, self.device = Path(path), device
        self.session = onnx_session(path) if use_onnx else None
        self.model = None
        if self.session is not None:
            self.class_names = export_names(self.session)
            self.crop_size = export_size(self.session, CLASSIFIER_SIZE)
        else:
            model = ultralytics_yolo()(str(Path(path).with_suffix(".pt")), task="classify")
            self.model = model.model.float().eval().to(device)
            self.class_names = [model.names[i] for i in range(len(model.names))]
            self.crop_size = trained_size(model, default=CLASSIFIER_SIZE)
        unknown = set(self.class_names) - set(CLASS_NAMES) - {NOT_A_TILE}
        if unknown:
            raise ValueError(f"classifier {path} has unknown classes {sorted(unknown)}")

    @property
    def gives_features(self) -> bool:
        """Whether its export gives each crop's pooled features (``FEATURES_OUTPUT``)."""
        return self.session is not None and any(o.name == FEATURES_OUTPUT for o in self.session.get_outputs())

    def features(self, batch: np.ndarray) -> np.ndarray:
        """Pooled features (N x dims) of a batch of square BGR crops: what a taught tile set
        compares crops by (vision.tile_sets)."""
        if not self.gives_features:
            raise ValueError(f"{self.path.with_suffix('.onnx')} gives no features: re-run `mahjong-lens export`")
        name = self.session.get_inputs()[0].name
        return self.session.run([FEATURES_OUTPUT], {name: to_tensor(batch)})[0].astype(np.float32)

    def probabilities(self, batch: np.ndarray) -> np.ndarray:
        """Class probabilities (N x classes) of a batch of square BGR crops."""
        array = to_tensor(batch)  # RGB, as ultralytics trains
        if self.session is not None:
            name = self.session.get_inputs()[0].name
            output = self.session.get_outputs()[0].name
            probabilities = self.session.run([output], {name: array})[0].astype(np.float32)
        else:
            import torch
            with torch.inference_mode():
                output = self.model(torch.from_numpy(array).to(self.device))
            if isinstance(output, (tuple, list)):
                output = output[0]
            probabilities = output.float().cpu().numpy()
        if probabilities.min() < 0 or abs(probabilities.sum(1).mean() - 1) > 1e-3:
            exp = np.exp(probabilities - probabilities.max(axis=1, keepdims=True))  # logits: softmax
            probabilities = (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)
        return probabilities


class TwoStageRecognizer:
    """Reads tiles from a BGR image (implements vision.detections.Recognizer)."""

    # (detector, face) confidences under which a box is dropped; a class default too, for
    # readers built around faked stages
    unsure_box: tuple[float, float] | None = UNSURE_BOX
    conf: float = DETECTOR_CONF

    def __init__(self, detector_path: Path, classifier_paths: Path | Sequence[Path], imgsz: int | None = None,
                 conf: float = DETECTOR_CONF, iou: float = 0.45, device: str | None = None,
                 rotations: int = 4, onnx: bool = True, turned_look: bool = True,
                 unsure_box: tuple[float, float] | None = UNSURE_BOX) -> None:
        self.device = device or default_device()
        # NMS IoU 0.45, not 0.6: a second, weaker box nearly half over a tile is nearly
        # always a duplicate of it (development hand photos read exactly 20 -> 24 of 43 at
        # 0.5); 0.45 takes the two boxes the detector puts on a called tile lying sideways
        # (synthetic hands 10 -> 12 of 60; the real photos read as at 0.5; 0.4 loses tiles
        # of real rows photographed at a slant)
        self.conf, self.iou = conf, iou
        self.rotations = rotations  # test-time views per crop (1: no averaging)
        self.turned_look = turned_look  # the detector looks at the photo turned a quarter too
        self.unsure_box = unsure_box
        # on a CPU the ONNX exports beside the weights run 2-3 times faster (onnxruntime);
        # on a GPU, PyTorch
        use_onnx = onnx and self.device == "cpu"
        detector_session = onnx_session(detector_path) if use_onnx else None
        if isinstance(classifier_paths, (str, Path)):
            classifier_paths = [classifier_paths]
        self.classifiers = [CropClassifier(path, self.device, use_onnx) for path in classifier_paths]
        if not self.classifiers:
            raise ValueError("the recogniser needs at least one classifier")
        first = self.classifiers[0]
        for other in self.classifiers[1:]:
            if other.class_names != first.class_names or other.crop_size != first.crop_size:
                raise ValueError(f"classifier {other.path} has other classes or another crop size "
                                 f"than {first.path}")
        self.class_names, self.crop_size = first.class_names, first.crop_size
        self.backend = "+".join(["onnx" if detector_session else "torch"] +
                                ["onnx" if c.session else "torch" for c in self.classifiers])
        if detector_session is not None:
            self.detector = OnnxDetector(detector_session, DETECTOR_SIZE)
        else:
            self.detector = ultralytics_yolo()(str(Path(detector_path).with_suffix(".pt")), task="detect")
        # photos are read at the size the detector learnt (imgsz: another, to try one)
        self.imgsz = imgsz or trained_size(self.detector, detector_session)

    def boxes(self, image: np.ndarray, conf: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The detector's tile boxes (N x 4, x1y1x2y2 pixels) and their confidences; on a
        stretched photo (``unstretch_scale``), those of a second look at it scaled back; where
        its tiles are small (``small_tiles``), those of a closer look at it.  `conf`: the
        detector's threshold for this look (its own when None)."""
        boxes, confidences, _, _ = self.boxes_and_weak(image, conf)
        return boxes, confidences

    def boxes_and_weak(self, image: np.ndarray, conf: float | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``boxes``, and the boxes of the same look the detector was less sure of than its
        threshold, down to ``WEAK_BOX_CONF``, with their confidences (none when `conf` is
        given): tiles it may have nearly missed (``with_weak_boxes``)."""
        import cv2
        weak = WEAK_BOX_CONF if conf is None and self.conf > WEAK_BOX_CONF else None
        boxes, confidences, scale, weak_boxes = self._find_boxes(image, conf=conf, weak=weak)
        if scale is None:
            if self.imgsz < CLOSE_LOOK_SIZE and small_tiles(boxes, image.shape[1], image.shape[0]):
                boxes, confidences, _, weak_boxes = self._find_boxes(image, CLOSE_LOOK_SIZE, conf, weak)
            return (boxes, confidences, *weak_boxes)
        height, width = image.shape[:2]
        size = (max(1, round(width * scale[0])), max(1, round(height * scale[1])))
        boxes, confidences, _, (weak_boxes, weak_confidences) = self._find_boxes(
            cv2.resize(image, size, interpolation=cv2.INTER_AREA), conf=conf, weak=weak)
        fx, fy = size[0] / width, size[1] / height  # as rounded to whole pixels
        unscale = np.array([fx, fy, fx, fy], np.float32)
        return boxes / unscale, confidences, weak_boxes / unscale, weak_confidences

    def _find_boxes(self, image: np.ndarray, size: int | None = None, conf: float | None = None,
                    weak: float | None = None
                    ) -> tuple[np.ndarray, np.ndarray, tuple[float, float] | None, tuple[np.ndarray, np.ndarray]]:
        """The detector's boxes, their confidences, the scale that undoes a stretch of
        the photo (``unstretch_scale``; None when its tiles have a tile's shape), and the boxes
        of its first look from `weak` up to its threshold with their confidences (none when
        `weak` is None).

        Where many tiles lie across the picture (``tiles_lie``: a hand running up it, as a
        camera over the table sees the side players), also the boxes of its look at the
        photo turned a quarter that lie where the first look found nothing (``added_boxes``):
        it misses a few tiles of such a row that it finds with the row running across.
        `valid/` hands on the table turned a quarter: 41 -> 51 of 73 read exactly, tiles
        0.920 -> 0.948 found (58 with ``without_covering_boxes``); upright photos are read
        as before.  A stretched photo is looked at turned only once scaled back.  `size`,
        `conf`: the detector's input size and threshold (its own when None)."""
        threshold = self.conf if conf is None else conf
        boxes, confidences = self._look(image, size, weak if weak is not None else conf)
        sure = confidences >= threshold
        weak_boxes = (boxes[~sure], confidences[~sure])
        boxes, confidences = without_covering_boxes(boxes[sure], confidences[sure])
        scale = unstretch_scale(boxes)
        if not self.turned_look or scale is not None or not tiles_lie(boxes):
            return boxes, confidences, scale, weak_boxes
        turned, turned_confidences = without_covering_boxes(*self._look(np.ascontiguousarray(np.rot90(image)), size,
                                                                        conf))
        height, width = image.shape[:2]
        turned = turned_boxes(turned, height, width, 3).astype(np.float32)  # three more turns: upright
        return (*added_boxes(boxes, confidences, turned, turned_confidences), None, weak_boxes)

    def _look(self, image: np.ndarray, size: int | None = None, conf: float | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
        conf = self.conf if conf is None else conf
        if isinstance(self.detector, OnnxDetector):
            return self.detector.predict(image, size or self.imgsz, conf=conf, iou=self.iou, max_det=300)
        with quiet_ultralytics():
            result = self.detector.predict(image, imgsz=size or self.imgsz, conf=conf, iou=self.iou,
                                           device=self.device, verbose=False, max_det=300)[0]
        return (result.boxes.xyxy.cpu().numpy().astype(np.float32),
                result.boxes.conf.cpu().numpy().astype(np.float32))

    def classify(self, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (N x classes) for square BGR crops, averaged over the crop
        turned by 0, 90, 180 and 270 degrees (the classifiers learnt every turn, so the
        average is steadier than one look: +4 points on held-out crops).  With two
        classifiers, turn k is read by classifier k mod 2: the first reads the crop upright
        and upside down, the second lying either way."""
        if not crops:
            return np.zeros((0, len(self.class_names)), np.float32)
        batch = np.stack(crops)
        views: list[list[np.ndarray]] = [[] for _ in self.classifiers]
        for k in range(self.rotations):
            views[k % len(self.classifiers)].append(np.rot90(batch, k, axes=(1, 2)))
        probabilities = [classifier.probabilities(np.concatenate(turns))
                         for classifier, turns in zip(self.classifiers, views) if turns]
        return np.concatenate(probabilities).reshape(-1, len(crops), len(self.class_names)).mean(0)

    def readings(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every box the detector finds (N x 4), its confidence (N) and its crop's class
        probabilities (N x classes, `NOT_A_TILE` included), nothing dropped yet."""
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("the recogniser reads a BGR colour image (height x width x 3)")
        boxes, box_conf, probabilities, _ = crops_read(self, image)
        return boxes, box_conf, probabilities

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        boxes, box_conf, probabilities = self.readings(image)
        return detections_of(image, boxes, box_conf, probabilities, self.class_names, self.unsure_box)


def detections_of(image: np.ndarray, boxes: np.ndarray, box_conf: np.ndarray, probabilities: np.ndarray,
                  class_names: Sequence[str], unsure_box: tuple[float, float] | None = UNSURE_BOX,
                  faces: Sequence[str | None] | None = None) -> list[TileDetection]:
    """The tiles a photo's readings give (``read_boxes``) with a concealed kong's backs read
    as no tile restored (``with_kong_backs``), less the felt read as backs
    (``without_felt_backs``) and lone boxes neither stage is sure of
    (``without_lone_unsure_boxes``): what the recogniser and a taught tile set report."""
    detections = read_boxes(boxes, box_conf, probabilities, class_names, unsure_box, faces=faces)
    detections, kong_backs = with_kong_backs(detections, boxes, box_conf, probabilities, class_names, faces=faces)
    return without_lone_unsure_boxes(without_felt_backs(image, detections, keep=kong_backs))


def without_lone_unsure_boxes(detections: list[TileDetection]) -> list[TileDetection]:
    """The detections less each that lies far from every other (``LONE_BOX_DISTANCE``) and
    that the detector and classifiers together are unsure of (``LONE_BOX_CONF``): a thing of
    a tile's size in the room around the table.  Tiles lie together (a hand, melds, a wall, a
    tray); a lone tile is kept where the two stages together are at least ``LONE_BOX_CONF``
    sure of it.  Needs three boxes at least, for their median to be a tile's length."""
    if len(detections) < 3:
        return detections
    boxes = np.array([d.box for d in detections], np.float32)
    tile = float(np.median([max(d.width, d.height) for d in detections]))
    distances = middle_distances(boxes, boxes)
    np.fill_diagonal(distances, np.inf)
    lone = distances.min(axis=1) >= LONE_BOX_DISTANCE * tile
    return [d for d, alone in zip(detections, lone) if not (alone and d.confidence < LONE_BOX_CONF)]


def with_kong_backs(detections: list[TileDetection], boxes: np.ndarray, box_conf: np.ndarray,
                    probabilities: np.ndarray, class_names: Sequence[str],
                    faces: Sequence[str | None] | None = None) -> tuple[list[TileDetection], set[int]]:
    """`detections` and, read face down, the boxes the classifiers took for no tile whose
    likeliest face is a back, where they lie as a concealed kong's face-down tiles: in line
    with two neighbouring tiles of one face, one tile's step before and after them
    (``KONG_BACK_STEP``), with a back or another such box on the other side.  The classifiers
    learnt no tile from real photos' boxes on felt and books; a kong's plain backs look like
    them (synthetic seeds 5000 and 6000: 7 of 14 concealed kongs lost a back so).  Returns the
    detections and the indices among them of every back that lies so, read as a back or
    restored (``without_felt_backs`` keeps those: a back the colour of the table is a kong's
    there, not felt)."""
    names = list(class_names)
    if NOT_A_TILE not in names or BACK not in names or len(detections) < 2:
        return detections, set()
    none, back = names.index(NOT_A_TILE), names.index(BACK)
    taken_for_none = []
    for k, probs in enumerate(probabilities):
        if (faces is not None and faces[k] is not None) or int(np.argmax(probs)) != none:
            continue
        faces_only = np.array(probs, np.float32)
        faces_only[none] = 0.0
        if int(np.argmax(faces_only)) == back and faces_only[back] > 0:
            taken_for_none.append(k)
    if taken_for_none:  # a box taken for no tile over a tile read is no back of its own
        clear = box_ious(np.asarray(boxes, np.float32)[taken_for_none],
                         np.array([d.box for d in detections], np.float32)).max(axis=1) < KONG_BACK_CLEAR
        taken_for_none = [k for k, free in zip(taken_for_none, clear) if free]
    if not taken_for_none and not any(d.face_down for d in detections):
        return detections, set()
    centres = np.array([d.center for d in detections], np.float32)
    sizes = np.array([max(d.width, d.height) for d in detections], np.float32)
    taken = np.asarray(boxes, np.float32)[taken_for_none].reshape(-1, 4)
    candidate_centres = (taken[:, :2] + taken[:, 2:]) / 2

    def flank(origin: np.ndarray, direction: np.ndarray, length: float, tile: float) -> tuple[str, int] | None:
        """A back, or a box taken for no tile, one step (`length`, as far again as the kong's
        face-up tiles lie apart, ``KONG_BACK_STEP``) from `origin` along unit `direction`,
        at most ``KONG_BACK_ACROSS`` of a tile off that line: the nearest such."""
        def placed(centre: np.ndarray) -> float | None:
            offset = centre - origin
            along = float(np.dot(offset, direction))
            across = abs(float(offset[0] * direction[1] - offset[1] * direction[0]))
            if KONG_BACK_STEP[0] * length <= along <= KONG_BACK_STEP[1] * length and across <= KONG_BACK_ACROSS * tile:
                return abs(along - length) + across
            return None
        found = [(placed(centres[i]), BACK, i) for i, d in enumerate(detections) if d.face_down]
        found += [(placed(centre), NOT_A_TILE, k) for centre, k in zip(candidate_centres, taken_for_none)]
        found = [(distance, kind, k) for distance, kind, k in found if distance is not None]
        return min(found)[1:] if found else None

    by_face: dict[str, list[int]] = {}
    for i, d in enumerate(detections):
        if not d.face_down:
            by_face.setdefault(plain(d.tile), []).append(i)
    restored: set[int] = set()
    kong_backs: set[int] = set()
    for i, j in (pair for alike in by_face.values() for pair in combinations(alike, 2)):
        step = centres[j] - centres[i]
        length = float(np.hypot(*step))
        tile = float(max(sizes[i], sizes[j]))
        if not KONG_BACK_STEP[0] * tile <= length <= KONG_BACK_STEP[1] * tile:
            continue  # not neighbours
        ends = [flank(centres[i], -step / length, length, tile), flank(centres[j], step / length, length, tile)]
        if all(ends):
            restored |= {k for kind, k in ends if kind == NOT_A_TILE}
            kong_backs |= {k for kind, k in ends if kind == BACK}
    if not restored:
        return detections, kong_backs
    more = []
    for k in sorted(restored):
        probs = np.array(probabilities[k], np.float32)
        tile_share = max(1.0 - float(probs[none]), 1e-6)  # the back's probability given a tile is there
        order = [int(j) for j in np.argsort(probs)[::-1] if j not in (none, back)]
        more.append(TileDetection(tile=BACK, box=tuple(float(v) for v in boxes[k]),
                                  confidence=float(box_conf[k]) * float(probs[back]) / tile_share,
                                  alternatives=[(names[j], float(probs[j]) / tile_share) for j in order[:3]],
                                  face_confidence=float(probs[back]) / tile_share))
    return detections + more, kong_backs | set(range(len(detections), len(detections) + len(more)))


def without_felt_backs(image: np.ndarray, detections: list[TileDetection],
                       keep: Collection[int] = ()) -> list[TileDetection]:
    """The detections less any read face down whose middle has the table's colour
    (``FELT_DISTANCE``): the classifiers take plain felt for a plain back.  `keep`: the
    indices of backs kept whatever their colour (a concealed kong's, ``with_kong_backs``)."""
    if not any(d.face_down for k, d in enumerate(detections) if k not in keep):
        return detections
    import cv2
    scale = min(1.0, 320.0 / max(image.shape[:2]))  # the table's colour needs no detail
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    height, width = lab.shape[:2]
    outside = np.ones((height, width), bool)
    for d in detections:
        x1, y1, x2, y2 = (int(round(v * scale)) for v in d.box)
        outside[max(0, y1):max(0, y2), max(0, x1):max(0, x2)] = False
    if outside.sum() < 0.1 * outside.size:
        return detections  # tiles fill the photo: no table to compare with
    felt = np.median(lab[outside], axis=0)

    def on_felt(d: TileDetection) -> bool:
        x1, y1, x2, y2 = (v * scale for v in d.box)
        w, h = x2 - x1, y2 - y1
        middle = lab[int(y1 + 0.3 * h):int(np.ceil(y2 - 0.3 * h)), int(x1 + 0.3 * w):int(np.ceil(x2 - 0.3 * w))]
        if middle.size == 0:
            return False
        return float(np.linalg.norm(np.median(middle.reshape(-1, 3), axis=0) - felt)) < FELT_DISTANCE

    return [d for k, d in enumerate(detections) if k in keep or not (d.face_down and on_felt(d))]


def read_boxes(boxes: np.ndarray, box_conf: np.ndarray, probabilities: np.ndarray, class_names: Sequence[str],
               unsure_box: tuple[float, float] | None = UNSURE_BOX,
               faces: Sequence[str | None] | None = None,
               nameless_face: float = NAMELESS_FACE) -> list[TileDetection]:
    """The detections of a photo's boxes from their confidences and class probabilities: a
    box read as `NOT_A_TILE` is dropped, and so is one neither stage believes in
    (``UNSURE_BOX``), one whose face the classifiers cannot name (``NAMELESS_FACE``) or one
    many tiles long (``LONG_BOX``).  ``faces``: for each box, a face
    given from elsewhere (a taught tile set, ``vision.tile_sets``; `NOT_A_TILE` drops the
    box), or None where the classifier's reading stands."""
    detections = []
    for k, (box, det_conf, probs) in enumerate(zip(boxes, box_conf, probabilities)):
        given = faces[k] if faces is not None else None
        if given == NOT_A_TILE:
            continue  # a taught set was shown this is no tile
        order = [int(j) for j in np.argsort(probs)[::-1]]
        if given is None:
            if class_names[order[0]] == NOT_A_TILE:
                continue  # a box on no tile: a classifier that knows them says so
            best = next(j for j in order if class_names[j] != NOT_A_TILE)
            if unsure_box and det_conf < unsure_box[0] and probs[best] < unsure_box[1]:
                continue  # neither stage believes it is a tile
            if probs[best] < nameless_face:
                continue  # no face to name: no tile the classifiers know
            tile, sure = class_names[best], float(probs[best])
        else:  # the set named it: as sure as the classifier was of that face, and at least 0.95
            tile = given
            sure = max(float(probs[list(class_names).index(given)]) if given in class_names else 0.0, 0.95)
        detections.append(TileDetection(
            tile=tile,
            box=tuple(float(v) for v in box),
            confidence=float(det_conf * sure),
            alternatives=[(class_names[j], float(probs[j])) for j in order
                          if class_names[j] not in (NOT_A_TILE, tile)][:3],
            face_confidence=sure,
        ))
    return _without_long_boxes(detections)


def _without_long_boxes(detections: list[TileDetection]) -> list[TileDetection]:
    """The detections less any box many tiles long (``LONG_BOX``), where there are enough
    boxes (5) for their median to be a tile's."""
    if len(detections) < 5:
        return detections
    tile = float(np.median([max(d.width, d.height) for d in detections]))
    return [d for d in detections if max(d.width, d.height) <= LONG_BOX * tile]


def classifier_files(folder: Path) -> list[Path]:
    """The classifier weights a recogniser in `folder` reads with: tile_classifier.pt, then
    tile_classifier_2.pt where there is one (the first need not exist yet: the caller says
    what is missing)."""
    second = folder / SECOND_CLASSIFIER_FILE
    return [folder / CLASSIFIER_FILE] + ([second] if _weights_exist(second) else [])


def _weights_exist(weights: Path) -> bool:
    """The .pt or its ONNX export (an install may ship only the exports)."""
    return weights.exists() or weights.with_suffix(".onnx").exists()


def export_onnx(folder: Path | None = None) -> list[Path]:
    """Write the ONNX exports of a folder's detector and classifiers beside them (needs the
    `onnx` package), stamped with the checksum of the weights they come from."""
    YOLO = ultralytics_yolo()
    import onnx
    folder = Path(folder) if folder else MODELS_DIR
    written = []
    models = [(folder / DETECTOR_FILE, "detect")] + [(path, "classify") for path in classifier_files(folder)]
    for weights, task in models:
        if not weights.exists():
            raise FileNotFoundError(f"{weights} is missing: nothing to export")
        model = YOLO(str(weights), task=task)
        size = trained_size(model, default=DETECTOR_SIZE if task == "detect" else CLASSIFIER_SIZE)
        # dynamic: the detector letterboxes a photo as with PyTorch (no square padding), the
        # classifier takes any number of crops
        exported = Path(model.export(format="onnx", imgsz=size, dynamic=True,
                                     simplify=False, verbose=False))
        graph = onnx.load(str(exported))
        if task == "classify":
            with_features_output(graph)  # what a taught tile set compares crops by
        set_metadata(graph, {ONNX_SOURCE_KEY: file_sha256(weights)})
        onnx.save(graph, str(exported))
        written.append(exported)
    return written


def with_features_output(graph) -> bool:
    """Add a classifier graph's pooled features (the input of its last linear layer, one
    vector per crop) as a second output, ``FEATURES_OUTPUT``; True if it was added. An
    `onnx` ModelProto edited in place: the class probabilities stay the first output."""
    import onnx
    if any(o.name == FEATURES_OUTPUT for o in graph.graph.output):
        return False
    linear = [n for n in graph.graph.node if n.op_type in ("Gemm", "MatMul")]
    if not linear:
        raise ValueError("no linear layer in the classifier graph: no features to give")
    pooled = linear[-1].input[0]
    graph.graph.node.append(onnx.helper.make_node("Identity", [pooled], [FEATURES_OUTPUT]))
    graph.graph.output.append(onnx.helper.make_tensor_value_info(FEATURES_OUTPUT, onnx.TensorProto.FLOAT,
                                                                 ["crops", "features"]))
    onnx.checker.check_model(graph)
    return True


def also_trained_on(path: str | Path | None = None) -> set[str]:
    """The file names of the photos outside train/ that the weights in folder `path`
    (default models/) were trained on; empty when there is no list."""
    folder = Path(path) if path else MODELS_DIR
    if folder.is_file():
        folder = folder.parent
    listing = folder / ALSO_TRAINED_FILE
    if not listing.exists():
        return set()
    return {Path(line.strip()).name for line in listing.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")}


def load_recognizer(path: str | None = None) -> TwoStageRecognizer:
    """The shipped recogniser, or the one in folder `path` (holding tile_detector.pt and
    tile_classifier.pt, tile_classifier_2.pt if it has a second classifier, and their ONNX
    exports if any).  Each call loads the weights afresh; keep the instance."""
    folder = Path(path) if path else MODELS_DIR
    if folder.is_file():
        folder = folder.parent
    detector, classifiers = folder / DETECTOR_FILE, classifier_files(folder)
    missing = [p.with_suffix(".onnx").name for p in (detector, classifiers[0]) if not _weights_exist(p)]
    if missing:
        raise FileNotFoundError(
            f"the tile recogniser's model files ({', '.join(missing)}) are not in {folder}: reinstall "
            "mahjong-lens, or point $MAHJONG_LENS_MODELS or --model at the folder that holds them")
    return TwoStageRecognizer(detector, classifiers)
