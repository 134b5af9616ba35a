"""Teach it your tiles: a named tile set that the recogniser adapts to, from a few examples.

A club's or a player's own tiles may differ from every set the classifier learnt, and the
room around a table holds things the detector takes for tiles (book spines on a shelf, a
phone). An example is one box the detector found, cut as the classifier sees it, and what is
really there: a face, or ``none`` (no tile). What is kept of it is the first classifier's
pooled features of the crop, averaged over its four quarter turns (a tile may lie any way).

Reading with a tile set (``TaughtRecognizer``): each box's features are compared (cosine)
with the set's examples; where the nearest example is close (``MATCH``) and nearer than the
nearest of any other face by ``MARGIN``, its face replaces the classifier's reading, and
``none`` drops the box; elsewhere the classifier's reading stands. Nothing is trained: a set
taught from one photo reads the next one at once.

Examples come from labelled photos (YOLO label files, as in ../shared/data: ``mahjong-lens
teach``), from a photo of one of each tile laid in rows in ``LAYOUT_ORDER``, or from a photo
corrected on the page. Sets are kept in SQLite (``TileSetStore``), beside the referee's log.
"""
from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mahjong_lens.vision.classes import BACK
from mahjong_lens.rules.tiles import parse_tiles

from .detections import TileDetection, pair_by_iou

NOT_A_TILE = "none"
#: the faces of a tile set laid out to teach it: one of each, in rows, in this order
#: (characters, dots, bamboo 1 to 9, then East South West North, White Green Red)
LAYOUT_ORDER = tuple(parse_tiles("123456789m123456789p123456789s1234567z"))
#: an example this similar (cosine of the features) or more may name a box
MATCH = 0.70
#: and it must be this much nearer than the nearest example of any other face
MARGIN = 0.02
#: where the classifier reads a face the set holds no example of at least this surely, nothing
#: in the set was weighed against that face, so an example of no tile drops the box only at
#: UNTAUGHT_MATCH similarity or more. (Taught from one photo of seven honours, real 8p tiles the
#: classifier was sure of lay 0.71-0.79 from that photo's boxes on no tile, and were dropped:
#: recall 0.967 -> 0.917; with that photo's background taught too, 4s tiles read at 0.69 lay
#: 0.71 from a green book: at 0.9 recall 0.949, at 0.5 0.967, precision 0.902 either way.)
#: Not for `back`: a set taught from labelled photos holds no backs (labels name faces), and
#: boxes read `back` there are mostly tiles half hidden behind others, which the set knows.
#: The same bar keeps a box of the background a tile nobody labelled (BACKGROUND_CONF).
SURE_FACE = 0.5
UNTAUGHT_MATCH = 0.85
#: a detector box is the labelled tile it overlaps by this IoU or more (else it is no tile)
IOU_TO_LABEL = 0.5
#: Teaching also looks for what the detector takes for a tile only at this confidence (the
#: recogniser keeps 0.35 and up), away from every tile of the photo: more of what is no tile
#: around the table, unless the classifier reads a face there at SURE_FACE or more (a tile
#: nobody labelled, cut off at the photo's edge). Blue-mat set taught from one photo: 3 -> 7
#: boxes on no tile, precision 0.829 -> 0.902 (0.05: 0.905, 0.15: 0.902).
BACKGROUND_CONF = 0.1
#: ... a box overlapping a tile or label by more than this share of the smaller is none of that.
BACKGROUND_OVERLAP = 0.1


class TileSetError(ValueError):
    """A tile set that cannot be taught or read as asked: the message says why."""


@dataclass(frozen=True)
class Example:
    """One box of a photo and what it truly is (a face, or NOT_A_TILE)."""

    tile: str
    box: tuple[float, float, float, float]


class TileSetStore:
    """Named tile sets and their examples in SQLite."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS tile_sets (name TEXT PRIMARY KEY, created REAL)")
            db.execute("CREATE TABLE IF NOT EXISTS tile_examples (id INTEGER PRIMARY KEY, tile_set TEXT, "
                       "tile TEXT, features BLOB, source TEXT)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def names(self) -> list[dict[str, Any]]:
        """Each set's name and how many examples of faces and of no tile it holds."""
        with self._connect() as db:
            rows = db.execute("SELECT s.name, COUNT(e.id), SUM(e.tile = ?), COUNT(DISTINCT e.tile) FROM tile_sets s "
                              "LEFT JOIN tile_examples e ON e.tile_set = s.name GROUP BY s.name ORDER BY s.name",
                              (NOT_A_TILE,)).fetchall()
        return [{"name": name, "examples": count, "not_a_tile": none or 0,
                 "faces": faces - (1 if none else 0)} for name, count, none, faces in rows]

    def add(self, name: str, tiles: Sequence[str], features: np.ndarray, source: str = "") -> int:
        """Keep examples (their tiles and feature rows) under a set, made if new; returns how many."""
        name = valid_name(name)
        features = np.asarray(features, np.float32).reshape(len(tiles), -1)
        with self._connect() as db:
            db.execute("INSERT OR IGNORE INTO tile_sets (name, created) VALUES (?, ?)", (name, time.time()))
            db.executemany("INSERT INTO tile_examples (tile_set, tile, features, source) VALUES (?, ?, ?, ?)",
                           [(name, tile, row.tobytes(), source) for tile, row in zip(tiles, features)])
        return len(tiles)

    def count(self, name: str) -> int:
        """How many examples a set holds (cheap: a reader cached for that many stays good);
        TileSetError for a set that does not exist."""
        with self._connect() as db:
            if db.execute("SELECT 1 FROM tile_sets WHERE name = ?", (name,)).fetchone() is None:
                raise self._unknown(name)
            return db.execute("SELECT COUNT(*) FROM tile_examples WHERE tile_set = ?", (name,)).fetchone()[0]

    def _unknown(self, name: str) -> TileSetError:
        known = [row["name"] for row in self.names()]
        return TileSetError(f"no tile set named {name!r}" + (f" (there are: {', '.join(known)})" if known
                                                             else " (none has been taught yet)"))

    def examples(self, name: str) -> tuple[list[str], np.ndarray]:
        """A set's tiles and features (rows); TileSetError for a set that does not exist."""
        with self._connect() as db:
            if db.execute("SELECT 1 FROM tile_sets WHERE name = ?", (name,)).fetchone() is None:
                raise self._unknown(name)
            rows = db.execute("SELECT tile, features FROM tile_examples WHERE tile_set = ? ORDER BY id",
                              (name,)).fetchall()
        if not rows:
            return [], np.zeros((0, 0), np.float32)
        return [tile for tile, _ in rows], np.stack([np.frombuffer(blob, np.float32) for _, blob in rows])

    def delete(self, name: str) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM tile_examples WHERE tile_set = ?", (name,))
            db.execute("DELETE FROM tile_sets WHERE name = ?", (name,))


def valid_name(name: Any) -> str:
    """A tile set's name: a few words a player chooses."""
    if not isinstance(name, str) or not name.strip():
        raise TileSetError("a tile set needs a name, such as 'club blue set'")
    name = " ".join(name.split())
    if len(name) > 60:
        raise TileSetError("a tile set's name is at most 60 characters")
    return name


def _unit(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, np.float32)
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-6)


def crop_features(recognizer: Any, crops: list[np.ndarray]) -> np.ndarray:
    """The first classifier's pooled features of each crop, averaged over its quarter turns
    and made unit length (rows)."""
    if not crops:
        return np.zeros((0, 0), np.float32)
    classifier = recognizer.classifiers[0]
    batch = np.stack(crops)
    turns = [classifier.features(np.ascontiguousarray(np.rot90(batch, k, axes=(1, 2)))) for k in range(4)]
    return _unit(np.mean(turns, axis=0))


def examples_from_labels(boxes: np.ndarray, labels: Sequence[Example]) -> list[str]:
    """What each detector box is, by the labels: the face of the label it covers (IoU at
    least IOU_TO_LABEL, each label once, the best pairs first), else NOT_A_TILE (a box on
    something labelled as no tile)."""
    paired = pair_by_iou(boxes, [label.box for label in labels], IOU_TO_LABEL)
    return [labels[paired[b]].tile if b in paired else NOT_A_TILE for b in range(len(boxes))]


def examples_from_page(tiles: Any) -> list[Example]:
    """The page's [{box: [x1, y1, x2, y2], tile}] (the boxes a player kept, each with its
    face, as the recogniser names faces) as examples; TileSetError for anything else."""
    from mahjong_lens.vision.classes import CLASS_NAMES
    if not isinstance(tiles, list) or not tiles:
        raise TileSetError("send the photo's tiles: a list of {box: [x1, y1, x2, y2], tile}")
    examples = []
    for item in tiles:
        box, tile = (item.get("box"), item.get("tile")) if isinstance(item, dict) else (None, None)
        if not (isinstance(box, list) and len(box) == 4
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)) \
                or tile not in CLASS_NAMES:
            raise TileSetError("each tile is {box: [x1, y1, x2, y2], tile: a tile such as 5p}")
        x1, y1, x2, y2 = (float(v) for v in box)
        # NaN, infinite, inverted or negative corners would teach every real tile as no tile
        if not all(math.isfinite(v) and v >= 0 for v in (x1, y1, x2, y2)) or x2 <= x1 or y2 <= y1:
            raise TileSetError(f"a tile's box {box} is no box: its corners are [left, top, right, bottom] "
                               "in the photo's pixels, the right of the left and below the top")
        examples.append(Example(tile, (x1, y1, x2, y2)))
    return examples


def check_inside(labels: Sequence[Example], image: np.ndarray) -> None:
    """TileSetError where a labelled box lies outside the photo (a pixel of slack)."""
    height, width = image.shape[:2]
    outside = next((label for label in labels if label.box[2] > width + 1 or label.box[3] > height + 1), None)
    if outside is not None:
        raise TileSetError(f"a tile's box {list(outside.box)} lies outside the photo ({width} x {height} pixels)")


def examples_from_layout(detections: Sequence[TileDetection]) -> list[str]:
    """What each detected tile is in a photo of one of each tile laid in rows in LAYOUT_ORDER
    (reading order); TileSetError when the photo does not show exactly those tiles."""
    from .layout.rows import _rows_and_stacked
    rows, _ = _rows_and_stacked(list(detections))
    faces = [i for i, d in enumerate(detections) if not d.face_down]
    if len(faces) != len(LAYOUT_ORDER):
        raise TileSetError(f"the layout photo shows {len(faces)} tiles; it should show {len(LAYOUT_ORDER)}, one "
                           "of each (1-9 of characters, dots and bamboo, then East South West North, White Green "
                           "Red), in rows, in that order")
    # rows from the top of the photo down, each read left to right
    ordered = sorted(rows, key=lambda row: np.mean([detections[i].center[1] for i in row]))
    order = [i for row in ordered for i in sorted(row, key=lambda i: detections[i].center[0])]
    if sorted(order) != sorted(faces):
        raise TileSetError("the layout's tiles do not lie in clear rows: lay them in rows with a little room "
                           "between the rows, and photograph them from above")
    names = [""] * len(detections)
    for i, face in zip(order, LAYOUT_ORDER):
        names[i] = face
    return names


def background_crops(recognizer: Any, image: np.ndarray, taken: Sequence[Sequence[float]]) -> list[np.ndarray]:
    """Crops of what the detector takes for a tile only when it looks harder (confidence
    ``BACKGROUND_CONF`` and up) away from every box and label in ``taken`` (overlapping
    none of them): in a photo taught from, those are things around the table, which other
    photos of the same table may box more surely (a book shelf behind a fixed camera). None
    from a recogniser without a detector threshold to lower."""
    from .recognizer import CROP_MARGIN, box_overlaps, square_crop
    if not hasattr(recognizer, "conf"):
        return []
    boxes, _ = recognizer.boxes(image, conf=BACKGROUND_CONF)
    if len(boxes) and len(taken):
        inter, area, taken_area = box_overlaps(boxes, taken)
        # the share of the smaller of each two boxes that lies in both
        boxes = boxes[(inter / np.minimum(area[:, None], taken_area[None, :])).max(axis=1) <= BACKGROUND_OVERLAP]
    crops = [square_crop(image, tuple(box), CROP_MARGIN, recognizer.crop_size) for box in boxes]
    if not crops:
        return []
    probabilities = recognizer.classify(crops)
    faces = [j for j, name in enumerate(recognizer.class_names) if name != NOT_A_TILE]
    # a face the classifier is sure of is a tile nobody labelled, not the table's surroundings
    return [crop for crop, p in zip(crops, probabilities) if float(p[faces].max()) < SURE_FACE]


def teach(store: TileSetStore, recognizer: Any, name: str, image: np.ndarray,
          labels: Sequence[Example] | None = None, source: str = "") -> dict[str, int]:
    """Teach a set from one photo: its labelled tiles (``labels``; every other box is no tile),
    or, without labels, a photo of one of each tile laid out in LAYOUT_ORDER. Returns how many
    examples of faces and of no tile were kept."""
    from .recognizer import crops_read
    name = valid_name(name)
    boxes, _, _, crops = crops_read(recognizer, image)
    if labels is not None:
        check_inside(labels, image)
        tiles = examples_from_labels(boxes, labels)
    else:
        tiles = examples_from_layout([TileDetection("1m", tuple(map(float, box)), 1.0) for box in boxes])
    keep = [k for k, tile in enumerate(tiles) if tile]
    chosen_crops = [crops[k] for k in keep]
    chosen = [tiles[k] for k in keep]
    taken = list(boxes) + ([label.box for label in labels] if labels is not None else [])
    background = background_crops(recognizer, image, taken)
    chosen_crops += background
    chosen += [NOT_A_TILE] * len(background)
    features = crop_features(recognizer, chosen_crops)
    store.add(name, chosen, features, source)
    none = sum(tile == NOT_A_TILE for tile in chosen)
    return {"faces": len(chosen) - none, "not_a_tile": none}


class TaughtRecognizer:
    """A recogniser reading with a taught tile set (implements vision.detections.Recognizer)."""

    def __init__(self, base: Any, tiles: Sequence[str], features: np.ndarray, name: str = "",
                 match: float = MATCH, margin: float = MARGIN, untaught_match: float = UNTAUGHT_MATCH) -> None:
        if not len(tiles):
            raise TileSetError(f"the tile set {name!r} has no examples yet: teach it first")
        self.base, self.name = base, name
        self.tiles = list(tiles)
        self.features = _unit(features)
        self.match, self.margin, self.untaught_match = match, margin, untaught_match

    def nearest(self, features: np.ndarray, readings: Sequence[tuple[str, float]] | None = None
                ) -> list[str | None]:
        """The face each feature row is taught to be (NOT_A_TILE: none), or None where the set
        does not say (no example close enough, or two faces nearly as close). `readings`, the
        classifier's (face, probability) of each row: a face it is sure of that the set holds
        no example of is no tile only by a closer example (``UNTAUGHT_MATCH``)."""
        if not len(features):
            return []
        similarity = features @ self.features.T          # boxes x examples
        faces = np.array(self.tiles)
        best = similarity.argmax(axis=1)
        nearest = similarity[np.arange(len(similarity)), best]
        # the nearest example of any other face than the nearest one's
        other = np.where(faces[None, :] != faces[best][:, None], similarity, -1.0).max(axis=1)
        needed = np.full(len(features), self.match)
        if readings is not None:
            taught = set(self.tiles)
            needed = np.array([self.untaught_match if faces[b] == NOT_A_TILE and sure >= SURE_FACE
                               and face not in taught and face != BACK else self.match
                               for b, (face, sure) in zip(best, readings)])
        sure = (nearest >= needed) & (nearest - other >= self.margin)
        return [str(faces[b]) if ok else None for b, ok in zip(best, sure)]

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        from .recognizer import crops_read, detections_of
        boxes, confidences, probabilities, crops = crops_read(self.base, image)
        names = self.base.class_names
        readings = [(names[int(np.argmax(p))], float(np.max(p))) for p in probabilities]
        taught = self.nearest(crop_features(self.base, crops), readings)
        return detections_of(image, boxes, confidences, probabilities, names, self.base.unsure_box, faces=taught)


def taught_recognizer(base: Any, store: TileSetStore, name: str) -> TaughtRecognizer:
    """The recogniser reading with tile set `name` from the store."""
    tiles, features = store.examples(name)
    return TaughtRecognizer(base, tiles, features, name)



def store_for(database: str | None = None) -> TileSetStore:
    """The tile sets kept in the app's database (the referee's log; `--database`)."""
    from mahjong_lens.vision.storage import database_path
    return TileSetStore(database_path(database))


def with_tile_set(recognizer: Any, tile_set: str | None, database: str | None = None) -> Any:
    """The recogniser, reading with tile set `tile_set` when one is named."""
    return recognizer if not tile_set else taught_recognizer(recognizer, store_for(database), tile_set)


def label_examples(photo: Path, width: int, height: int, labels: Path | None = None) -> list[Example] | None:
    """The labelled tiles of a photo: its YOLO label file (in `labels`, or the labels/
    folder beside its images/ folder), None where it has none."""
    from mahjong_lens.vision.classes import CLASS_NAMES, NUM_CLASSES, pixel_box, read_yolo_labels
    candidates = [labels / f"{photo.stem}.txt"] if labels else []
    candidates.append(photo.parent.parent / "labels" / f"{photo.stem}.txt")
    found = next((path for path in candidates if path.exists()), None)
    if found is None:
        return None
    return [Example(CLASS_NAMES[row[0]], pixel_box(row, width, height)) for row in read_yolo_labels(found)
            if 0 <= row[0] < NUM_CLASSES]


def configure_teach(parser: Any) -> None:
    parser.add_argument("name", nargs="?", help="the tile set's name, such as 'club blue set'")
    parser.add_argument("photos", nargs="*", help="photos of the set: labelled (a YOLO label file beside "
                                                  "them or in --labels), or laid out (--layout)")
    parser.add_argument("--labels", help="folder of the photos' YOLO label files")
    parser.add_argument("--layout", action="store_true",
                        help="each photo shows one of each tile in rows, in the order "
                             "1-9 characters, 1-9 dots, 1-9 bamboo, East South West North, White Green Red")
    parser.add_argument("--list", action="store_true", help="list the tile sets taught")
    parser.add_argument("--forget", action="store_true", help="delete the named tile set")
    parser.add_argument("--database", help="the app's database (default: the referee's log)")
    parser.add_argument("--model", help="folder of the recogniser weights (default: models/)")


def run_teach(args: Any) -> int:
    import sys

    def fail(message: str) -> int:
        print(f"mahjong-lens: {message}", file=sys.stderr)
        return 2
    store = store_for(args.database)
    if args.list:
        for entry in store.names():
            print(f"{entry['name']}: {entry['examples'] - entry['not_a_tile']} tiles of {entry['faces']} faces, "
                  f"{entry['not_a_tile']} boxes on no tile")
        return 0
    if not args.name:
        return fail("name the tile set to teach (or --list the sets taught)")
    if args.forget:
        store.delete(args.name)
        print(f"forgot the tile set {args.name!r}")
        return 0
    if not args.photos:
        return fail("give the photos to teach the set from")
    from .image_input import ScanError, read_image
    from .recognizer import load_recognizer
    try:
        recognizer = load_recognizer(args.model)
    except Exception as error:
        return fail(f"cannot load the tile recogniser: {error}")
    status = 0
    for photo in args.photos:
        try:
            image = read_image(photo)
            labels = None if args.layout else label_examples(Path(photo), image.shape[1], image.shape[0],
                                                             Path(args.labels) if args.labels else None)
            if labels is None and not args.layout:
                raise TileSetError("no label file for it (give --labels, or --layout for a photo of one of "
                                   "each tile in order)")
            kept = teach(store, recognizer, args.name, image, labels, source=Path(photo).name)
        except (ScanError, TileSetError) as error:
            print(f"{photo}: {error}")
            status = 1
            continue
        print(f"{photo}: {kept['faces']} tiles and {kept['not_a_tile']} boxes on no tile taught to {args.name!r}")
    return status
