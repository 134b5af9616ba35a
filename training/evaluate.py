"""`mahjong-lens eval`: how well a recogniser reads labelled photos, source by source.

A detection is a *correct tile* when it overlaps a labelled tile of the same name with
IoU >= 0.5; each label can be claimed once, most confident detection first. A red five read
on a label of its five counts as right: the labelled sets' classes have no red fives, so they
label one by its five.
Recall = correct tiles / labelled tiles, precision = correct tiles / detections, and an
image is *exact* when every labelled tile is read right and nothing else is reported.
The peer (PyPI ``mahjong-detector``, a 34-class YOLO ONNX model shipped inside the
package) is measured on the same photos with ``--peer``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mahjong_lens.vision.classes import CLASS_NAMES, FLOWERS, NUM_CLASSES
from mahjong_lens.datasets.real import IMAGE_EXTS, inflated_boxes
from mahjong_lens.vision.classes import pixel_box, read_yolo_labels
from mahjong_lens.rules.tiles import is_red, plain
from mahjong_lens.vision.detections import TileDetection, iou, turned_boxes  # noqa: F401 (iou: evaluate's API)

IOU_THRESHOLD = 0.5
#: Below IoU 0.5 but at least this, a box and a label are taken for the same tile, the two
#: drawn apart (a label shifted off its tile, as in Roboflow's augmented copies, or a loose box)
NEAR_IOU = 0.3
#: Why a labelled tile was not read right: a reading of another face on it; a box on it at
#: IoU 0.3-0.5 only; its box (IoU >= 0.5) went to another label (a tile labelled twice, or
#: labels overlapping); no box at all (the detector missed it)
UNREAD_KINDS = ("read as another tile", "box off the label", "box of another label", "no box")
#: Why a reading was false: it reads another face on a label; it lies off a label (IoU
#: 0.3-0.5); it is a second box on a tile read right; it lies on no label (an unlabelled
#: tile around the labelled ones, or nothing)
FALSE_KINDS = ("another tile's label", "off a label", "second box", "on no label")
# The peer's 34 class names -> ours (its honours are Japanese readings).
PEER_NAMES = {"tou": "1z", "nan": "2z", "sha": "3z", "pe": "4z",
              "haku": "5z", "hatsu": "6z", "chun": "7z"}


@dataclass
class Truth:
    tile: str
    box: tuple[float, float, float, float]


@dataclass
class ImageScore:
    """One image's counts; `confusions` pairs (labelled tile, read tile) for boxes found at
    the right place but read as another tile."""
    labelled: int
    detected: int
    correct: int
    confusions: list[tuple[str, str]] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    right: list[bool] = field(default_factory=list)  # per label, in order: read right
    # why: each label not read right and each counted false reading, with its kind
    # (``UNREAD_KINDS``, ``FALSE_KINDS``)
    unread: list[tuple[Truth, str, str]] = field(default_factory=list)  # (label, kind, read as)
    false: list[tuple[TileDetection, str]] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return self.correct == self.labelled == self.detected


@dataclass
class SourceScore:
    images: int = 0
    labelled: int = 0
    detected: int = 0
    correct: int = 0
    exact: int = 0
    seconds: float = 0.0
    hands: int = 0          # photos of a hand (``reference_hand``)
    hands_exact: int = 0    # of those, the hand a scan finds is the labelled hand
    unread: Counter = field(default_factory=Counter)  # labels not read right, by kind
    false: Counter = field(default_factory=Counter)   # false readings, by kind

    def add(self, score: ImageScore, seconds: float, hand_read: bool | None = None) -> None:
        self.images += 1
        self.unread.update(kind for _, kind, _ in score.unread)
        self.false.update(kind for _, kind in score.false)
        self.labelled += score.labelled
        self.detected += score.detected
        self.correct += score.correct
        self.exact += int(score.exact)
        self.seconds += seconds
        if hand_read is not None:
            self.hands += 1
            self.hands_exact += int(hand_read)

    @property
    def recall(self) -> float:
        return self.correct / self.labelled if self.labelled else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.detected if self.detected else 1.0

    def to_dict(self) -> dict:
        return {"images": self.images, "labelled": self.labelled, "detected": self.detected,
                "correct": self.correct, "recall": round(self.recall, 4),
                "precision": round(self.precision, 4), "exact": self.exact,
                "hands": self.hands, "hands_read_exactly": self.hands_exact,
                "seconds_per_image": round(self.seconds / max(self.images, 1), 4),
                "unread": {kind: self.unread[kind] for kind in UNREAD_KINDS},
                "false": {kind: self.false[kind] for kind in FALSE_KINDS}}


def reads_label(label: str, reading: str) -> bool:
    """Whether a tile read as `reading` is the tile labelled `label`.  The labelled photos'
    class list (the data README's 0..41) has no red fives, so a set's red five is labelled
    by its five ("5m"): reading it "0m" is reading it right (and tells its dora)."""
    return reading == label or plain(reading) == label and is_red(reading)


def as_labelled(found: Counter, labelled: Counter) -> Counter:
    """The tiles of a hand read (`found`) as the labels name them: a red five read counts
    as its five where the `labelled` hand names no red five (``reads_label``)."""
    if any(is_red(tile) for tile in labelled):
        return found
    return Counter(plain(tile) for tile in found.elements())


def score_image(detections: list[TileDetection], truths: list[Truth],
                ignore_unlabelled: tuple[str, ...] = ()) -> ImageScore:
    """Match detections to labels: most confident first, each takes the free label of its
    own tile with the highest IoU >= 0.5.  A detection read as one of `ignore_unlabelled`
    that matches nothing is not counted (for sets that leave those tiles unlabelled)."""
    free = list(range(len(truths)))
    correct = 0
    right = [False] * len(truths)
    unmatched: list[TileDetection] = []
    for det in sorted(detections, key=lambda d: -d.confidence):
        best, best_iou = None, IOU_THRESHOLD
        for k in free:
            if reads_label(truths[k].tile, det.tile):
                overlap = iou(det.box, truths[k].box)
                if overlap >= best_iou:
                    best, best_iou = k, overlap
        if best is None:
            unmatched.append(det)
        else:
            free.remove(best)
            correct += 1
            right[best] = True
    # the wrong readings: unmatched detections on a still-unclaimed label of another tile
    confusions = []
    counted = len(detections)
    false: list[tuple[TileDetection, str]] = []
    read_as_other: dict[int, str] = {}  # label -> the face read on it
    for det in unmatched:
        overlaps = [(iou(det.box, truths[k].box), k) for k in free]
        overlap, k = max(overlaps, default=(0.0, -1))
        if overlap >= IOU_THRESHOLD:
            confusions.append((truths[k].tile, det.tile))
            free.remove(k)
            read_as_other[k] = det.tile
            false.append((det, FALSE_KINDS[0]))
            continue
        nearest = max((iou(det.box, t.box) for t in truths), default=0.0)
        if det.tile in ignore_unlabelled:
            counted -= 1  # a tile the set leaves unlabelled
        else:
            false.append((det, FALSE_KINDS[2] if nearest >= IOU_THRESHOLD else
                          FALSE_KINDS[1] if nearest >= NEAR_IOU else FALSE_KINDS[3]))
    unread = []
    for k, truth in enumerate(truths):
        if right[k]:
            continue
        nearest = max((iou(det.box, truth.box) for det in detections), default=0.0)
        unread.append((truth, UNREAD_KINDS[0] if k in read_as_other else
                       UNREAD_KINDS[2] if nearest >= IOU_THRESHOLD else
                       UNREAD_KINDS[1] if nearest >= NEAR_IOU else UNREAD_KINDS[3],
                       read_as_other.get(k, "")))
    return ImageScore(labelled=len(truths), detected=counted, correct=correct,
                      confusions=confusions, missed=[truths[k].tile for k in free], right=right,
                      unread=unread, false=false)


def read_truths(label_file: Path, width: int, height: int) -> list[Truth]:
    """The labelled tiles of a YOLO label file, in pixels (rows of unknown classes skipped)."""
    return truths_of(read_yolo_labels(label_file), width, height)


def truths_of(rows: list[tuple[int, float, float, float, float]], width: int, height: int) -> list[Truth]:
    """The labelled tiles of YOLO label rows, in pixels (rows of unknown classes skipped)."""
    return [Truth(CLASS_NAMES[row[0]], pixel_box(row, width, height)) for row in rows if 0 <= row[0] < NUM_CLASSES]


def labelled_images(folder: Path, dev_only: bool = False) -> list[tuple[str, Path, Path]]:
    """(source, image, label file) for every images/ folder under `folder`.  The source is
    the data set's folder name plus the kind of photo (hand rows, tray, single tiles...)."""
    from mahjong_lens.datasets.real import is_dev_photo, photo_source
    found = []
    image_dirs = [folder] if folder.name == "images" else sorted(folder.rglob("images"))
    for image_dir in image_dirs:
        set_name = image_dir.parent.parent.name if image_dir.parent.name in ("train", "valid", "test") \
            else image_dir.parent.name
        for image in sorted(image_dir.iterdir()):
            if image.suffix.lower() not in IMAGE_EXTS:
                continue
            if dev_only and not is_dev_photo(image.name):
                continue
            kind = photo_source(image.name)
            source = f"{set_name}/{kind}" if kind != "other" else set_name
            found.append((source, image, image_dir.parent / "labels" / (image.stem + ".txt")))
    return found


class PeerRecognizer:
    """PyPI mahjong-detector (34 classes, grayscale YOLO ONNX) behind our Recognizer API."""

    def __init__(self) -> None:
        from mahjong_detector.predict import CLASS_NAMES as peer_names  # noqa: F401 (fails early)
        self.names = [PEER_NAMES.get(n, n) for n in peer_names]

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        from mahjong_detector.predict import predict
        from mahjong_detector.preprocess import preprocess_image
        from PIL import Image
        picture = Image.fromarray(np.ascontiguousarray(image[..., ::-1]))
        prepared, padding = preprocess_image(picture)
        return [TileDetection(self.names[d.class_id], (d.x1, d.y1, d.x2, d.y2), d.confidence)
                for d in predict(prepared, padding)]


def inflated_labels(truths: list[Truth]) -> bool:
    """Whether a photo's labels are the inflated boxes of a rotated copy
    (``datasets.real.inflated_boxes``): a tight detection of such a tile can fall below IoU 0.5."""
    return inflated_boxes([(x2 - x1, y2 - y1) for x1, y1, x2, y2 in (t.box for t in truths)])


def one_tile_labels(truths: list[Truth], at_least: int = 8) -> bool:
    """Whether every label of a photo names the same face (at least `at_least` of them):
    a set holds four of a tile, so such a photo was labelled with one default class, not
    read (seven chinese-mixed `valid/` trays call every tile 1p)."""
    faces = {t.tile for t in truths}
    return len(truths) >= at_least and len(faces) == 1 and faces != {"back"}


def largest_hand_tiles(detections: list[TileDetection]) -> list[str]:
    """Every tile of the largest hand the layout finds among `detections` (its concealed
    tiles, its melds as laid, its flowers), or [] when it finds none: the hand a scan of the
    photo would score."""
    from mahjong_lens.vision.layout import find_layout
    layout = find_layout(detections)
    if not layout.hands:
        return []
    hand = max(layout.hands, key=lambda h: len(h.indices))  # its flowers among them
    tiles = list(hand.concealed) + [tile for meld in hand.melds for tile in meld.tiles]
    return tiles + [detections[i].tile for i in hand.flowers]


def labelled_hand(truths: list[Truth]) -> list[str]:
    """The tiles of the largest hand a photo's labels lay out as, the labels taken as the
    reader's tiles: what a reading of the photo's hand is compared with where tiles around
    the hand are labelled too (a few of the discards in chinese-mixed's hands on the table)."""
    return largest_hand_tiles([TileDetection(t.tile, t.box, 1.0) for t in truths])


#: The fewest tiles (flowers included) a photo's labels must lay out as to be a hand on the table.
HAND_AT_LEAST = 13


def lays_out_as_hand(truths: list[Truth], at_least: int = HAND_AT_LEAST) -> bool:
    """Whether a photo's labels, taken as the reader's tiles, lay out as one hand of at
    least `at_least` tiles: a hand photographed on the table.  Most of chinese-mixed's
    "single tiles" photos (named ``*_n_jpg``) are such photos, the hand's row labelled and
    the tiles around it mostly not; the rest are grids of tiles and stretched columns."""
    return len(labelled_hand(truths)) >= at_least


def reference_hand(truths: list[Truth], hand_rows: bool) -> Counter | None:
    """What a reading of a hand photo is compared with: the tiles of the hand its labels lay
    out as (not the few labelled discards around it); for a photo named a hand row
    (`hand_rows`) whose labels lay out as no whole hand (melds in a block beside the row:
    hand_009, hand_010), every label.  None for any other photo whose labels lay out as no
    hand of `HAND_AT_LEAST` tiles or more: no hand photo."""
    on_table = labelled_hand(truths)
    if len(on_table) >= HAND_AT_LEAST:
        return Counter(on_table)
    return Counter(t.tile for t in truths) if hand_rows else None


def hand_read_exactly(detections: list[TileDetection], reference: Counter) -> bool:
    """Whether the tiles of the largest hand the layout finds in `detections` are the
    `reference` hand, as a multiset: tiles around the hand, labelled or not, do not count
    against it, as a scan ignores them too."""
    return as_labelled(Counter(largest_hand_tiles(detections)), reference) == reference


def turned_quarter(image: np.ndarray, truths: list[Truth]) -> tuple[np.ndarray, list[Truth]]:
    """The photo turned a quarter counter-clockwise (np.rot90) and its labels, still exact:
    a quarter turn moves an axis-aligned box to an axis-aligned box."""
    height, width = image.shape[:2]
    boxes = turned_boxes([t.box for t in truths], width, height)
    return (np.ascontiguousarray(np.rot90(image)),
            [Truth(t.tile, tuple(float(v) for v in box)) for t, box in zip(truths, boxes)])


#: Upper bounds (px) of the bands the eval reports recall in by a tile's size: how small a
#: tile can be in the picture and still be read (how high a webcam may hang)
SIZE_BANDS = (16, 24, 32, 48)


def tile_size(box: tuple[float, float, float, float], width: int, height: int) -> float:
    """A tile's short side in pixels of its photo scaled to 640 px on the long side."""
    return min(box[2] - box[0], box[3] - box[1]) * 640 / max(width, height, 1)


def band(value: float, bounds: Sequence[float], unit: str) -> str:
    """The name of the band between `bounds` (ascending) that `value` falls in: "< 16 px",
    "16-24 px", ..., ">= 48 px"."""
    lower = None
    for upper in bounds:
        if value < upper:
            return f"{lower:g}-{upper:g} {unit}" if lower is not None else f"< {upper:g} {unit}"
        lower = upper
    return f">= {lower:g} {unit}"


def size_band(size: float) -> str:
    return band(size, SIZE_BANDS, "px")


def recall_by_size(records: list[dict]) -> dict[str, tuple[int, int]]:
    """(labelled, read right) per size band over the eval's records of photos as taken,
    the bands in order, small first."""
    counts: dict[str, list[int]] = {size_band(lower): [0, 0] for lower in (0, *SIZE_BANDS)}
    for record in records:
        if record["source"].endswith(TURNED):  # the same tiles again
            continue
        for size, right in record.get("sizes", []):
            counts[size_band(size)][0] += 1
            counts[size_band(size)][1] += int(right)
    return {band: (n, right) for band, (n, right) in counts.items()}


TURNED = " (turned a quarter)"
ROTATED = " (rotated copies)"  # Roboflow's turned copies of hand rows, their labels inflated
SUSPECT = " (every tile labelled one face)"
HAND_ROW = ": a hand on the table"


def evaluate(recognizer, items: list[tuple[str, Path, Path]], ignore_bonus_in: tuple[str, ...] = ("riichi-tray",),
             progress: bool = True, turned: bool = False,
             gallery: ErrorGallery | None = None) -> tuple[dict[str, SourceScore], Counter, list[dict]]:
    """Scores per source, the confusion counts, and one record per image.  With `turned`,
    each hand-row and tray photo with tight labels is read a second time turned a quarter
    and reported as its own source: rows running up the picture, as a camera over the
    table sees the players at its sides.  A `gallery` collects a picture of each error in
    the photos as taken."""
    import cv2
    scores: dict[str, SourceScore] = defaultdict(SourceScore)
    confusions: Counter = Counter()
    records = []
    for done, (source, image_path, label_path) in enumerate(items, 1):
        image = cv2.imread(str(image_path))
        if image is None:
            continue
        truths = read_truths(label_path, image.shape[1], image.shape[0])
        hand_rows = source.endswith("hand-rows")  # named a hand row (hand_*)
        if hand_rows and inflated_labels(truths):
            source += ROTATED  # their hands are still compared: as multisets of tiles
        elif one_tile_labels(truths):
            source += SUSPECT
        elif source.endswith("single-tiles") and lays_out_as_hand(truths):
            source += HAND_ROW  # a hand row by its labels, whatever the photo's name says
        # the hand its labels lay out as, laid out once from the photo as taken (the same
        # tiles turned a quarter are the same hand)
        reference = reference_hand(truths, hand_rows) if hand_rows or source.endswith(HAND_ROW) else None
        views = [(source, image, truths)]
        if turned and source.endswith(("hand-rows", "tray", HAND_ROW)) and not inflated_labels(truths):
            views.append((source + TURNED, *turned_quarter(image, truths)))
        for view_source, view, view_truths in views:
            started = time.perf_counter()
            detections = recognizer.detect(view)
            seconds = time.perf_counter() - started
            ignore = FLOWERS if any(view_source.startswith(s) for s in ignore_bonus_in) else ()
            score = score_image(detections, view_truths, ignore)
            hand_read = None if reference is None else hand_read_exactly(detections, reference)
            scores[view_source].add(score, seconds, hand_read)
            if view_source == source:  # "all" stays the photos as taken
                scores["all"].add(score, seconds, hand_read)
                if not source.endswith(SUSPECT):  # their "confusions" are the labels' mistakes
                    confusions.update(score.confusions)
                    if gallery is not None:
                        gallery.add(view, image_path.stem, score)
            records.append({"image": image_path.name, "source": view_source, "labelled": score.labelled,
                            "detected": score.detected, "correct": score.correct, "exact": score.exact,
                            "hand_read_exactly": hand_read,
                            "confusions": score.confusions, "missed": score.missed,
                            "unread": [[t.tile, kind, read] for t, kind, read in score.unread],
                            "false": [[d.tile, kind] for d, kind in score.false],
                            "sizes": [[round(tile_size(t.box, view.shape[1], view.shape[0]), 1), right]
                                      for t, right in zip(view_truths, score.right)]})
        if progress and done % 50 == 0:
            print(f"  {done}/{len(items)} images", file=sys.stderr, flush=True)
    return dict(scores), confusions, records


class ErrorGallery:
    """Pictures of the eval's errors, kind by kind (``UNREAD_KINDS``, ``FALSE_KINDS``): each
    the tile's neighbourhood with the label (green) or the reading (red) drawn, captioned
    with what was labelled and read and the photo's name.  Looking at them tells a reader at
    once whether the reader or the label is wrong (a label shifted off its tile, a tile
    nobody labelled, a label of another face than the tile shows)."""

    #: the kinds drawn: a false reading on another tile's label or off a label is the same
    #: error as its label's, drawn once
    KINDS = UNREAD_KINDS + FALSE_KINDS[2:]

    def __init__(self, per_kind: int = 16, keep: int = 400, size: int = 80) -> None:
        self.per_kind, self.keep, self.size = per_kind, keep, size
        self.counts: Counter = Counter()
        self.pictures: dict[str, list[tuple[np.ndarray, str, str]]] = {kind: [] for kind in self.KINDS}

    def add(self, image: np.ndarray, name: str, score: ImageScore) -> None:
        errors = [(t.box, kind, f"{t.tile}->{read}" if read else t.tile, (60, 170, 40))
                  for t, kind, read in score.unread]
        errors += [(d.box, kind, f"read {d.tile}", (40, 40, 220)) for d, kind in score.false if kind in self.KINDS]
        for box, kind, caption, colour in errors:
            self.counts[kind] += 1
            if len(self.pictures[kind]) < self.keep:
                self.pictures[kind].append((self.thumbnail(image, box, colour), caption, name[:14]))

    def thumbnail(self, image: np.ndarray, box: tuple[float, float, float, float],
                  colour: tuple[int, int, int]) -> np.ndarray:
        """The box with half its size around it, padded to a square, the box drawn."""
        import cv2
        x1, y1, x2, y2 = box
        side = max(x2 - x1, y2 - y1) * 2.0
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        left, top = int(round(cx - side / 2)), int(round(cy - side / 2))
        span = max(1, int(round(side)))
        padded = cv2.copyMakeBorder(image, span, span, span, span, cv2.BORDER_CONSTANT, value=(114, 114, 114))
        crop = padded[top + span: top + 2 * span, left + span: left + 2 * span]
        scale = self.size / span
        thumb = cv2.resize(crop, (self.size, self.size), interpolation=cv2.INTER_AREA)
        corner = lambda x, y: (int(round((x - left) * scale)), int(round((y - top) * scale)))  # noqa: E731
        cv2.rectangle(thumb, corner(x1, y1), corner(x2, y2), colour, 2)
        return thumb

    def draw(self, path: Path, title: str) -> None:
        """A PNG of up to `per_kind` pictures of each kind of error, spread over all found."""
        import cv2
        cell, caption, head = self.size + 6, 30, 24
        kinds = [kind for kind in self.KINDS if self.pictures[kind]]
        width = max(8 + cell * self.per_kind, 560)
        height = 34 + len(kinds) * (head + self.size + caption + 8) + 4
        canvas = np.full((height, width, 3), 255, np.uint8)
        cv2.putText(canvas, title[:90], (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        y = 34
        for kind in kinds:
            found = self.pictures[kind]
            shown = [found[round(i * len(found) / min(len(found), self.per_kind))]
                     for i in range(min(len(found), self.per_kind))]
            cv2.putText(canvas, f"{kind}: {self.counts[kind]}", (8, y + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                        (0, 0, 0), 1, cv2.LINE_AA)
            y += head
            for i, (thumb, text, name) in enumerate(shown):
                x = 8 + i * cell
                canvas[y:y + self.size, x:x + self.size] = thumb
                cv2.putText(canvas, text, (x, y + self.size + 12), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 1,
                            cv2.LINE_AA)
                cv2.putText(canvas, name, (x, y + self.size + 25), cv2.FONT_HERSHEY_SIMPLEX, 0.3, (110, 110, 110),
                            1, cv2.LINE_AA)
            y += self.size + caption + 8
        path.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(path), canvas)


def draw_confusions(confusions: Counter, path: Path, title: str, top: int = 12) -> None:
    """A PNG matrix of the tiles most often read as another (rows: labelled, columns: read)."""
    import cv2
    pairs = confusions.most_common(40)
    tiles: list[str] = []
    for (truth, read), _ in pairs:
        for tile in (truth, read):
            if tile not in tiles and len(tiles) < top:
                tiles.append(tile)
    tiles = sorted(tiles, key=lambda t: CLASS_NAMES.index(t) if t in CLASS_NAMES else 99)
    cell, head = 44, 70
    size = head + cell * max(len(tiles), 1)
    canvas = np.full((size + 40, size + 20, 3), 255, np.uint8)
    cv2.putText(canvas, title[:60], (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    peak = max([n for (a, b), n in confusions.items() if a in tiles and b in tiles], default=1)
    for i, truth in enumerate(tiles):
        y = head + i * cell
        cv2.putText(canvas, truth, (8, y + 28), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        for j, read in enumerate(tiles):
            x = head + j * cell
            if i == 0:
                cv2.putText(canvas, read, (x + 8, head - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1,
                            cv2.LINE_AA)
            count = confusions.get((truth, read), 0)
            shade = int(255 - 200 * count / peak) if count else 255
            cv2.rectangle(canvas, (x, y), (x + cell - 2, y + cell - 2), (shade, shade, 255), -1)
            cv2.rectangle(canvas, (x, y), (x + cell - 2, y + cell - 2), (200, 200, 200), 1)
            if count:
                cv2.putText(canvas, str(count), (x + 8, y + 28), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1,
                            cv2.LINE_AA)
    cv2.putText(canvas, "rows: labelled tile, columns: read as", (8, size + 25), cv2.FONT_HERSHEY_SIMPLEX,
                0.45, (80, 80, 80), 1, cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), canvas)


def draw_recall_by_size(bands: dict[str, tuple[int, int]], path: Path, title: str) -> None:
    """A PNG bar chart of recall per size band (``recall_by_size``), each bar labelled with
    its recall and its number of tiles: how small a tile may be and still be read."""
    import cv2
    shown = [(band, n, right) for band, (n, right) in bands.items() if n]
    bar, gap, top, height = 90, 20, 50, 200
    canvas = np.full((top + height + 60, max(gap + (bar + gap) * len(shown), 520), 3), 255, np.uint8)
    cv2.putText(canvas, title[:70], (8, 22), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    for k, (band, n, right) in enumerate(shown):
        x, recall = gap + k * (bar + gap), right / n
        cv2.rectangle(canvas, (x, top + int(height * (1 - recall))), (x + bar, top + height), (200, 120, 40), -1)
        cv2.putText(canvas, f"{recall:.2f}", (x + 22, top + int(height * (1 - recall)) - 6),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        cv2.putText(canvas, band, (x + 4, top + height + 20), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
        cv2.putText(canvas, f"{n} tiles", (x + 4, top + height + 40), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (90, 90, 90), 1,
                    cv2.LINE_AA)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), canvas)


def format_table(name: str, scores: dict[str, SourceScore]) -> str:
    """The per-source table: box by box (recall, precision, images with every tile read right
    and nothing else found), and for photos of a hand, the hands read exactly
    (``hand_read_exactly``: the hand a scan would score, tiles around it aside)."""
    width = max([len(source) for source in scores] + [34])
    lines = [f"{name}", f"  {'source':{width}} {'images':>6} {'tiles':>6} {'recall':>7} {'precis.':>7} "
                        f"{'exact':>9} {'hands read':>10} {'s/img':>7}"]
    for source in sorted(scores, key=lambda s: (s == "all", s)):
        s = scores[source]
        precision = f"{s.precision:7.3f}" if s.detected else "   none"  # nothing reported
        hands = f"{s.hands_exact:4d}/{s.hands:<5d}" if s.hands else ""
        lines.append(f"  {source:{width}} {s.images:6d} {s.labelled:6d} {s.recall:7.3f} {precision} "
                     f"{s.exact:4d}/{s.images:<4d} {hands:>10} {s.seconds / max(s.images, 1):7.3f}")
    return "\n".join(lines)


def format_errors(scores: dict[str, SourceScore]) -> str:
    """Why, source by source: the labels not read right and the false readings by kind
    (``UNREAD_KINDS``, ``FALSE_KINDS``).  Tiles nobody labelled around a hand count as false
    readings "on no label"; labels shifted off their tiles as "box off the label"."""
    width = max([len(source) for source in scores] + [34])
    unread = " / ".join(UNREAD_KINDS)
    false = " / ".join(FALSE_KINDS)
    lines = [f"  why: labels not read right ({unread}); false readings ({false})"]
    for source in sorted(scores, key=lambda s: (s == "all", s)):
        s = scores[source]
        lines.append(f"  {source:{width}} unread {sum(s.unread.values()):4d}: "
                     + " / ".join(f"{s.unread[k]}" for k in UNREAD_KINDS)
                     + f"   false {sum(s.false.values()):4d}: " + " / ".join(f"{s.false[k]}" for k in FALSE_KINDS))
    return "\n".join(lines)


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", nargs="+", required=True,
                        help="folders with images/ and labels/ (searched recursively)")
    parser.add_argument("--model", default=None, help="folder with the weights (default: models/)")
    parser.add_argument("--dev", action="store_true",
                        help="only the development photos held out of training (for train/ folders)")
    parser.add_argument("--peer", action="store_true", help="also measure PyPI mahjong-detector")
    parser.add_argument("--limit", type=int, default=0, help="at most this many images per folder")
    parser.add_argument("--out", default="eval-out", help="folder for the confusion images and JSON")
    parser.add_argument("--conf", type=float, default=None, help="detector confidence threshold")
    parser.add_argument("--iou", type=float, default=None,
                        help="detector NMS IoU: of two boxes overlapping more, the weaker is dropped")
    parser.add_argument("--turned", action="store_true",
                        help="also read each hand-row and tray photo turned a quarter (reported apart)")
    parser.add_argument("--tile-set", metavar="NAME",
                        help="also read with a tile set taught with `mahjong-lens teach` (reported beside)")
    parser.add_argument("--database", help="where the taught tile sets are kept (default: the referee's log)")


def run(args: argparse.Namespace) -> int:
    from mahjong_lens.vision.recognizer import ALSO_TRAINED_FILE, also_trained_on, load_recognizer
    items = []
    for folder in args.data:
        found = labelled_images(Path(folder), dev_only=args.dev)
        items += found[: args.limit] if args.limit else found
    # photos the weights were trained on (`train --also-train`) would flatter the figures
    trained_on = also_trained_on(args.model)
    kept = [item for item in items if item[1].name not in trained_on]
    if len(kept) < len(items):
        print(f"eval: {len(items) - len(kept)} photos left out: the model trained on them "
              f"(its {ALSO_TRAINED_FILE})")
    items = kept
    if not items:
        print("eval: no labelled images found")
        return 1
    out = Path(args.out)
    recognizers = [("ours", load_recognizer(args.model))]
    if args.conf is not None:
        recognizers[0][1].conf = args.conf
    if args.iou is not None:
        recognizers[0][1].iou = args.iou
    if getattr(args, "tile_set", None):
        from mahjong_lens.vision.tile_sets import TileSetError, with_tile_set
        try:
            recognizers.append((f"taught {args.tile_set}", with_tile_set(recognizers[0][1], args.tile_set,
                                                                          getattr(args, "database", None))))
        except TileSetError as error:
            print(f"eval: {error}")
            return 2
    if args.peer:
        try:
            recognizers.append(("peer mahjong-detector", PeerRecognizer()))
        except ImportError as error:
            print(f"eval: peer not available ({error}); pip install mahjong-detector")
    report = {}
    for name, recognizer in recognizers:
        recognizer.detect(np.full((640, 640, 3), 127, np.uint8))  # warm up, not timed
        gallery = ErrorGallery()
        scores, confusions, records = evaluate(recognizer, items, turned=args.turned, gallery=gallery)
        print(format_table(name, scores))
        print(format_errors(scores))
        print("  most confused (labelled -> read): " +
              ", ".join(f"{a}->{b} x{n}" for (a, b), n in confusions.most_common(8)))
        bands = recall_by_size(records)
        print("  recall by the tile's short side (photo at 640 px): " + ", ".join(
            f"{band} {right / n:.3f} ({n})" for band, (n, right) in bands.items() if n))
        slug = name.split()[0]
        draw_confusions(confusions, out / f"confusion-{slug}.png", f"{name}: most confused tiles")
        draw_recall_by_size(bands, out / f"recall-by-size-{slug}.png",
                            f"{name}: recall by the tile's short side (photo at 640 px)")
        gallery.draw(out / f"errors-{slug}.png", f"{name}: errors by kind (green: the label, red: the reading)")
        report[name] = {"sources": {k: v.to_dict() for k, v in scores.items()},
                        "confusions": [[a, b, n] for (a, b), n in confusions.most_common(30)],
                        "recall_by_size": {band: {"labelled": n, "right": right}
                                           for band, (n, right) in bands.items()},
                        "images": records}
    out.mkdir(parents=True, exist_ok=True)
    (out / "eval.json").write_text(json.dumps(report, indent=1))
    print(f"eval: confusion images, error pictures, recall by size and eval.json in {out}")
    return 0
