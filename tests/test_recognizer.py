"""The recogniser's plumbing and the evaluation's arithmetic (no training here).

The metric tests use hand-made boxes whose answers are worked out in the comments; the
model test loads the committed weights (skipped when models/ has none yet).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from extras import needs_train
from mahjong_lens.vision.classes import CLASS_NAMES
from mahjong_lens.vision.detections import TileDetection
from mahjong_lens.training.evaluate import PEER_NAMES, Truth, iou, score_image
from mahjong_lens.vision.recognizer import (CLASSIFIER_FILE, DETECTOR_FILE, MODELS_DIR, classifier_files, load_recognizer,
                               square_crop)
from mahjong_lens.datasets.real import is_dev_photo, photo_source
from mahjong_lens.vision.classes import read_yolo_labels
from mahjong_lens.training.train import one_class_label_text, photo_name


def det(tile: str, box, confidence: float = 0.9) -> TileDetection:
    return TileDetection(tile, tuple(float(v) for v in box), confidence)


# ----------------------------------------------------------------------- IoU

def test_iou_of_half_overlapping_boxes():
    # [0,10]x[0,10] and [5,15]x[0,10]: intersection 5*10 = 50, union 100+100-50 = 150
    assert iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(50 / 150)


def test_iou_of_disjoint_and_identical_boxes():
    assert iou((0, 0, 10, 10), (10, 0, 20, 10)) == 0.0  # touching edges share no area
    assert iou((2, 3, 7, 9), (2, 3, 7, 9)) == pytest.approx(1.0)


# ------------------------------------------------------------- image scoring

def test_all_tiles_read_right_is_exact():
    truths = [Truth("1m", (0, 0, 10, 14)), Truth("7z", (12, 0, 22, 14))]
    score = score_image([det("7z", (12, 0, 22, 14)), det("1m", (1, 0, 11, 14))], truths)
    # second detection: IoU of [1,11] with [0,10] over height 14 = 9*14 / (140+140-126) = 0.818
    assert (score.labelled, score.detected, score.correct) == (2, 2, 2)
    assert score.exact


def test_wrong_face_counts_as_confusion_not_correct():
    truths = [Truth("3p", (0, 0, 10, 14)), Truth("4p", (20, 0, 30, 14))]
    score = score_image([det("3p", (0, 0, 10, 14)), det("5p", (20, 0, 30, 14))], truths)
    # one correct of two labels (recall 1/2) and of two detections (precision 1/2)
    assert score.correct == 1 and score.detected == 2 and score.labelled == 2
    assert score.confusions == [("4p", "5p")]
    assert not score.exact


def test_a_red_five_read_on_a_label_of_its_five_is_read_right():
    # the labelled photos' classes have no red five: a set's red five is labelled "5m"
    truths = [Truth("5m", (0, 0, 10, 14)), Truth("5p", (20, 0, 30, 14)), Truth("0s", (40, 0, 50, 14))]
    score = score_image([det("0m", (0, 0, 10, 14)), det("0s", (20, 0, 30, 14)),
                         det("5s", (40, 0, 50, 14))], truths)
    # 0m on 5m is right; 0s on 5p is another suit; a label that names the red five wants it
    assert score.correct == 1 and sorted(score.confusions) == [("0s", "5s"), ("5p", "0s")]


def test_a_hand_read_with_a_red_five_is_its_labelled_hand():
    from mahjong_lens.training.evaluate import as_labelled
    read = Counter({"0m": 1, "5m": 1, "1p": 1})
    assert as_labelled(read, Counter({"5m": 2, "1p": 1})) == Counter({"5m": 2, "1p": 1})
    # where the labels do name red fives, the reading is compared as it is
    assert as_labelled(read, Counter({"0m": 1, "5m": 1, "1p": 1})) == read
    assert as_labelled(Counter({"0m": 1}), Counter({"0m": 1, "5p": 1})) == Counter({"0m": 1})


def test_low_overlap_is_a_miss_and_a_false_detection():
    truths = [Truth("9s", (0, 0, 10, 10))]
    # IoU of [6,16] with [0,10] = 4*10 / (100+100-40) = 0.25 < 0.5
    score = score_image([det("9s", (6, 0, 16, 10))], truths)
    assert score.correct == 0 and score.missed == ["9s"] and score.detected == 1


def test_duplicate_detection_claims_a_label_once():
    truths = [Truth("2s", (0, 0, 10, 10))]
    score = score_image([det("2s", (0, 0, 10, 10), 0.9), det("2s", (0, 0, 10, 9), 0.8)], truths)
    # the more confident one takes the label; the second is a false detection: precision 1/2
    assert score.correct == 1 and score.detected == 2 and not score.exact


def test_unlabelled_bonus_tiles_can_be_ignored():
    truths = [Truth("1m", (0, 0, 10, 10))]
    found = [det("1m", (0, 0, 10, 10)), det("5f", (50, 50, 60, 60))]
    assert score_image(found, truths).detected == 2
    ignored = score_image(found, truths, ignore_unlabelled=("5f",))
    assert ignored.detected == 1 and ignored.exact


def test_errors_are_told_apart_by_kind():
    from mahjong_lens.training.evaluate import FALSE_KINDS, UNREAD_KINDS
    truths = [Truth("1m", (0, 0, 10, 10)),     # read as 2m
              Truth("3m", (20, 0, 30, 10)),    # its box 4 px off: IoU 60/140, below 0.5
              Truth("5m", (40, 0, 50, 10)),    # labelled twice: one box for both
              Truth("5m", (40, 0, 50, 10.5)),
              Truth("7m", (60, 0, 70, 10)),    # no box
              Truth("9m", (80, 0, 90, 10))]    # read right, and a second box on it
    found = [det("2m", (0, 0, 10, 10), 0.9), det("3m", (24, 0, 34, 10), 0.9),
             det("5m", (40, 0, 50, 10), 0.9), det("9m", (80, 0, 90, 10), 0.9),
             det("9m", (81, 0, 90, 10), 0.5), det("1p", (200, 0, 210, 10), 0.9)]
    score = score_image(found, truths)
    assert iou(found[1].box, truths[1].box) == pytest.approx(60 / 140)  # 0.3 <= IoU < 0.5
    unread = {(t.tile, kind, read) for t, kind, read in score.unread}
    assert unread == {("1m", UNREAD_KINDS[0], "2m"), ("3m", UNREAD_KINDS[1], ""),
                      ("5m", UNREAD_KINDS[2], ""), ("7m", UNREAD_KINDS[3], "")}
    false = sorted((d.tile, kind) for d, kind in score.false)
    assert false == sorted([("2m", FALSE_KINDS[0]), ("3m", FALSE_KINDS[1]), ("9m", FALSE_KINDS[2]),
                            ("1p", FALSE_KINDS[3])])
    # every label not read right and every false reading is told once
    assert len(score.unread) == score.labelled - score.correct
    assert len(score.false) == score.detected - score.correct


def test_an_ignored_unlabelled_bonus_tile_is_no_false_reading():
    truths = [Truth("1m", (0, 0, 10, 10))]
    score = score_image([det("1m", (0, 0, 10, 10)), det("5f", (50, 50, 60, 60))], truths,
                        ignore_unlabelled=("5f",))
    assert score.false == [] and score.unread == []


def test_eval_counts_and_draws_errors_by_kind(tmp_path: Path):
    import cv2
    from mahjong_lens.training.evaluate import FALSE_KINDS, UNREAD_KINDS, ErrorGallery, evaluate, format_errors
    images, labels = tmp_path / "images", tmp_path / "labels"
    images.mkdir(), labels.mkdir()
    image = np.full((100, 200, 3), 60, np.uint8)
    image[10:40, 10:30] = 255    # a bright tile, labelled: read right (1m)
    image[10:40, 100:120] = 255  # a bright tile nobody labelled: a reading on no label
    cv2.imwrite(str(images / "a.png"), image)
    # the first tile, and a second label where nothing bright is: no box
    (labels / "a.txt").write_text("0 0.1 0.25 0.1 0.3\n1 0.8 0.7 0.1 0.3\n")
    gallery = ErrorGallery(size=40)
    scores, _, records = evaluate(_BrightPatchReader(), [("test", images / "a.png", labels / "a.txt")],
                                  progress=False, gallery=gallery)
    assert scores["all"].unread == {UNREAD_KINDS[3]: 1} and scores["all"].false == {FALSE_KINDS[3]: 1}
    assert records[0]["unread"] == [["2m", UNREAD_KINDS[3], ""]] and records[0]["false"] == [["1m", FALSE_KINDS[3]]]
    assert "unread    1: 0 / 0 / 0 / 1   false    1: 0 / 0 / 0 / 1" in format_errors(scores)
    # the gallery holds the two errors: the false reading's picture shows the bright tile, its box red
    thumbs = {kind: pictures for kind, pictures in gallery.pictures.items() if pictures}
    assert set(thumbs) == {UNREAD_KINDS[3], FALSE_KINDS[3]}
    false_thumb, caption, name = thumbs[FALSE_KINDS[3]][0]
    assert caption == "read 1m" and name == "a"
    assert false_thumb[20, 20].tolist() == [255, 255, 255]  # the tile, at the picture's centre
    assert (np.all(false_thumb == (40, 40, 220), axis=2)).any()
    path = tmp_path / "errors.png"
    gallery.draw(path, "test")
    drawn = cv2.imread(str(path))
    assert drawn is not None and (np.all(drawn == (40, 40, 220), axis=2)).any()


def test_eval_reports_recall_by_the_tiles_size(tmp_path: Path):
    import cv2
    from mahjong_lens.training.evaluate import evaluate, recall_by_size, size_band, tile_size
    assert tile_size((0, 0, 20, 30), 320, 240) == 40  # short side 20 px of 320: 40 at 640
    assert [size_band(s) for s in (10, 16, 31.9, 47, 48)] == ["< 16 px", "16-24 px", "24-32 px", "32-48 px", ">= 48 px"]
    image = np.full((160, 640, 3), 90, np.uint8)
    truths = []
    for k, width in enumerate((12, 20, 40, 60)):  # four tiles, small to large; the 20 px one unread
        x = 20 + 150 * k
        if width != 20:
            image[20:20 + 2 * width, x:x + width] = 240
        truths.append((x, width))
    images, labels = tmp_path / "images", tmp_path / "labels"
    images.mkdir(), labels.mkdir()
    cv2.imwrite(str(images / "a.png"), image)
    (labels / "a.txt").write_text("".join(f"0 {(x + w / 2) / 640:.6f} {(20 + w) / 160:.6f} {w / 640:.6f} {2 * w / 160:.6f}\n"
                                          for x, w in truths))
    _, _, records = evaluate(_BrightPatchReader(), [("test", images / "a.png", labels / "a.txt")], progress=False)
    bands = recall_by_size(records)
    assert list(bands) == ["< 16 px", "16-24 px", "24-32 px", "32-48 px", ">= 48 px"]
    assert bands == {"< 16 px": (1, 1), "16-24 px": (1, 0), "24-32 px": (0, 0), "32-48 px": (1, 1), ">= 48 px": (1, 1)}


def test_recall_by_size_is_drawn_as_bars_as_tall_as_the_recall(tmp_path: Path):
    import cv2
    from mahjong_lens.training.evaluate import draw_recall_by_size
    path = tmp_path / "bars.png"
    draw_recall_by_size({"< 16 px": (4, 1), "16-24 px": (0, 0), "24-32 px": (10, 10)}, path, "test")
    chart = cv2.imread(str(path))
    bar_pixels = np.all(chart == (200, 120, 40), axis=2)
    columns = [x for x in range(chart.shape[1]) if bar_pixels[:, x].any()]
    assert columns == list(range(20, 111)) + list(range(130, 221))  # two bands with tiles, the empty one left out
    first, second = bar_pixels[:, 20:110].sum(axis=0).max(), bar_pixels[:, 130:220].sum(axis=0).max()
    assert abs(first / second - 0.25) < 0.02  # recall 1/4 against 10/10


class _BrightPatchReader:
    """A stand-in recogniser: every bright patch of the picture is a 1m, its box exact."""

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        import cv2
        count, _, stats, _ = cv2.connectedComponentsWithStats((image[..., 0] > 200).astype(np.uint8))
        return [TileDetection("1m", (float(x), float(y), float(x + w), float(y + h)), 0.9)
                for x, y, w, h, _ in stats[1:count]]


def test_eval_reads_hand_rows_again_turned_a_quarter(tmp_path: Path):
    import cv2
    from mahjong_lens.training.evaluate import TURNED, evaluate, turned_quarter
    image = np.full((200, 300, 3), 90, np.uint8)
    truths = []
    for k in range(5):  # five upright tiles side by side, not square: tight labels
        x = 40 + 34 * k
        image[60:100, x:x + 30] = 240
        truths.append(Truth("1m", (x, 60, x + 30, 100)))
    view, turned_truths = turned_quarter(image, truths)
    assert view.shape == (300, 200, 3)
    assert [len(score_image(_BrightPatchReader().detect(view), turned_truths).missed)] == [0]
    images = tmp_path / "images"
    images.mkdir()
    cv2.imwrite(str(images / "hand_001_jpg.rf.a.png"), image)
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "hand_001_jpg.rf.a.txt").write_text(
        "".join(f"0 {(t.box[0] + 15) / 300:.6f} 0.4 0.1 0.2\n" for t in truths))
    items = [("chinese-mixed/hand-rows", images / "hand_001_jpg.rf.a.png", tmp_path / "labels" / "hand_001_jpg.rf.a.txt")]
    scores, _, records = evaluate(_BrightPatchReader(), items, progress=False, turned=True)
    turned_source = "chinese-mixed/hand-rows" + TURNED
    assert scores[turned_source].images == 1 and scores[turned_source].recall == 1.0
    assert scores["all"].images == 1  # the turned view is reported apart, not in "all"
    assert [r["source"] for r in records] == ["chinese-mixed/hand-rows", turned_source]


def test_photos_labelled_all_one_face_are_reported_apart(tmp_path: Path):
    import cv2
    from mahjong_lens.training.evaluate import SUSPECT, evaluate, one_tile_labels
    row = [Truth("1p", (10 + 30 * k, 10, 40 + 30 * k, 50)) for k in range(14)]
    assert one_tile_labels(row)
    assert not one_tile_labels(row[:4])                      # four of a tile: a set has them
    assert not one_tile_labels(row[:13] + [Truth("2p", (400, 10, 430, 50))])
    assert not one_tile_labels([Truth("back", t.box) for t in row])  # a wall face down
    images, labels = tmp_path / "images", tmp_path / "labels"
    images.mkdir(), labels.mkdir()
    image = np.full((100, 500, 3), 90, np.uint8)
    for k in range(10):
        image[20:60, 10 + 40 * k:40 + 40 * k] = 240
    items = []
    for name, classes in (("IMG_1_JPG.rf.a", [9] * 10), ("IMG_2_JPG.rf.b", [0] * 9 + [1])):
        cv2.imwrite(str(images / f"{name}.png"), image)
        (labels / f"{name}.txt").write_text("".join(
            f"{c} {(25 + 40 * k) / 500:.5f} 0.4 {30 / 500:.5f} 0.4\n" for k, c in enumerate(classes)))
        items.append(("chinese-mixed/tray", images / f"{name}.png", labels / f"{name}.txt"))
    scores, confusions, _ = evaluate(_BrightPatchReader(), items, progress=False)
    assert confusions == {("2m", "1m"): 1}  # not the ten 1p of the mislabelled photo
    # the reader says 1m everywhere: the all-1p photo is reported apart, "all" keeps both
    assert scores["chinese-mixed/tray"].images == 1 and scores["chinese-mixed/tray"].correct == 9
    assert scores["chinese-mixed/tray" + SUSPECT].images == 1
    assert scores["all"].images == 2


def test_peer_honour_names_map_to_ours():
    # the peer reads Japanese honour names; East..North are 1z..4z, white/green/red 5z..7z
    assert [PEER_NAMES[n] for n in ("tou", "nan", "sha", "pe", "haku", "hatsu", "chun")] == \
        ["1z", "2z", "3z", "4z", "5z", "6z", "7z"]


# ----------------------------------------------------------- label handling

def test_labels_collapse_to_one_tile_class(tmp_path: Path):
    label = tmp_path / "a.txt"
    label.write_text("33 0.5 0.5 0.1 0.2\n4 0.25 0.75 0.05 0.06\n\n")
    rows = read_yolo_labels(label)
    assert [r[0] for r in rows] == [33, 4]
    assert one_class_label_text(rows) == ("0 0.500000 0.500000 0.100000 0.200000\n"
                                          "0 0.250000 0.750000 0.050000 0.060000\n")


def test_augmented_copies_share_their_photo_and_split():
    a = "hand_017_jpg.rf.50c25d7942ab3b1ae4639caefb451d81.jpg"
    b = "hand_017_jpg.rf.b482ed91783e24e088ce247953ace8e3.jpg"
    assert photo_name(a) == photo_name(b) == "hand_017_jpg"
    assert is_dev_photo(a) == is_dev_photo(b)  # never one copy in training, one held out
    assert photo_source(a) == "hand-rows"
    assert photo_source("IMG_20231014_jpg.rf.0.jpg") == "tray"
    assert photo_source("367362342_966412384458625_1506370883166840771_n_jpg.rf.0.jpg") == "single-tiles"


def test_rotated_copies_are_told_by_their_square_label_boxes():
    from mahjong_lens.training.evaluate import inflated_labels
    upright = [Truth("1m", (10 + 30 * k, 10, 40 + 30 * k, 50)) for k in range(14)]  # 30 x 40 faces
    tilted = [Truth("1m", (10 + 30 * k, 10, 48 + 30 * k, 50)) for k in range(14)]   # 38 x 40 boxes
    assert not inflated_labels(upright)
    assert inflated_labels(tilted)
    assert not inflated_labels(tilted[:3])  # too few tiles to judge


def test_square_crop_pads_a_tall_box_without_cutting_it():
    image = np.zeros((100, 100, 3), np.uint8)
    image[10:50, 20:40] = 255  # a white 20 x 40 tile
    crop = square_crop(image, (20, 10, 40, 50), margin=0.0, size=40)
    # 20 wide x 40 high padded to 40 x 40: white in the middle 20 columns, grey borders
    assert crop.shape == (40, 40, 3)
    assert crop[:, 10:30].min() == 255
    assert (crop[:, :10] == 114).all() and (crop[:, 30:] == 114).all()


def test_square_crop_squeezes_a_stretched_box_back_to_a_standing_tile():
    # a screen capture of a column of tiles stretched to a square: one tile 640 wide, 60 high
    image = np.zeros((60, 640, 3), np.uint8)
    image[:, :320] = 255
    crop = square_crop(image, (0, 0, 640, 60), margin=0.0, size=64)
    grey = (crop == 114).all(axis=2)
    # squeezed to a standing 3:4 tile the face fills the middle 3/4 of the square, grey
    # left and right; padded as it is, it would fill a strip 1/10 high
    assert 0.2 < grey.mean() < 0.3
    assert grey[:, :6].all() and grey[:, -6:].all() and not grey[:, 10:54].any()
    # both halves of the face survive, side by side
    assert crop[:, 10:30].mean() > 200 and crop[:, 34:54].mean() < 60


def test_square_crop_squeezes_a_row_capture_back_to_a_standing_tile_too():
    # a row of tiles stretched to a square: one tile 60 wide, 640 high, top half white
    image = np.zeros((640, 60, 3), np.uint8)
    image[:320] = 255
    crop = square_crop(image, (0, 0, 60, 640), margin=0.0, size=64)
    grey = (crop == 114).all(axis=2)
    assert 0.2 < grey.mean() < 0.3 and grey[:, :6].all() and grey[:, -6:].all()
    assert crop[:28, 10:54].mean() > 200 and crop[36:, 10:54].mean() < 60


def test_square_crop_keeps_a_sideways_tile_as_it_is():
    image = np.zeros((100, 100, 3), np.uint8)
    image[10:40, 10:50] = 255  # 40 x 30: a tile turned sideways, not stretched
    crop = square_crop(image, (10, 10, 50, 40), margin=0.0, size=40)
    assert crop[5:35].min() == 255 and (crop[:5] == 114).all()


def test_stretch_is_judged_from_the_boxes_shape():
    from mahjong_lens.vision.recognizer import unstretch_scale
    tiles = np.array([[0, 0, 30, 40], [30, 0, 60, 40], [60, 0, 90, 40]], np.float32)
    assert unstretch_scale(tiles) is None  # standing tiles
    assert unstretch_scale(tiles[:, [1, 0, 3, 2]]) is None  # lying tiles
    assert unstretch_scale(np.zeros((0, 4), np.float32)) is None
    row = np.array([[0, 0, 30, 400], [30, 0, 60, 400]], np.float32)  # a row stretched up and down
    assert unstretch_scale(row) == pytest.approx((1.0, 0.1))  # back to 30 x 40
    column = np.array([[0, 0, 400, 30], [0, 30, 400, 60]], np.float32)  # a column stretched wide
    assert unstretch_scale(column) == pytest.approx((0.05625, 1.0))  # back to 22.5 x 30, standing


def test_a_stretched_photo_is_looked_at_again_scaled_back():
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    looked_at = []

    def look(image: np.ndarray, size: int | None = None, conf: float | None = None):
        looked_at.append(image.shape[:2])
        height, width = image.shape[:2]
        # tiles a tenth of the width and as tall as the photo, as in a row stretched to a square
        boxes = np.array([[x, 0, x + width / 10, height] for x in np.arange(0, width, width / 10)], np.float32)
        return boxes, np.full(len(boxes), 0.9, np.float32)

    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)  # no weights: the detector is faked
    reader._look, reader.turned_look, reader.imgsz = look, True, 416
    boxes, confidences = reader.boxes(np.zeros((640, 640, 3), np.uint8))
    assert looked_at[0] == (640, 640)
    assert looked_at[1] == (85, 640)  # height squeezed until the 64 px wide boxes stand 4:3
    assert len(looked_at) == 2  # the second look finds tiles of a tile's shape: no third
    # the boxes of the second look, in the photo's own pixels
    assert boxes[0] == pytest.approx([0, 0, 64, 640], abs=0.5) and len(confidences) == 10


def test_the_detector_looks_again_at_lying_tiles_turned_a_quarter():
    """Where the tiles lie across the picture (a hand running up it), the detector looks at
    the photo turned a quarter too: a tile only that look finds is added, in the photo's own
    pixels; its box over a tile the first look found is not.  Standing tiles: one look."""
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    looked_at = []
    lying = np.array([[100, 20, 140, 50]], np.float32)

    def look(image: np.ndarray, size: int | None = None, conf: float | None = None):
        looked_at.append(image.shape[:2])
        if image.shape[:2] == (100, 200):  # as given: one tile, lying, at x 100-140
            return first, np.array([0.9], np.float32)
        # turned (200 x 100): the same tile a little shifted, and a tile at x 10-40 of the photo
        return (np.array([[22, 62, 48, 99], [20, 160, 60, 190]], np.float32),
                np.array([0.95, 0.6], np.float32))

    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)  # no weights: the detector is faked
    reader._look, reader.turned_look, reader.imgsz = look, True, 416
    first = lying
    boxes, confidences = reader.boxes(np.zeros((100, 200, 3), np.uint8))
    assert looked_at == [(100, 200), (200, 100)]
    assert boxes.tolist() == [[100, 20, 140, 50], [10, 20, 40, 60]]
    assert confidences.tolist() == pytest.approx([0.9, 0.6])
    looked_at.clear()
    first = np.array([[100, 20, 130, 60]], np.float32)  # a standing tile
    assert len(reader.boxes(np.zeros((100, 200, 3), np.uint8))[0]) == 1 and len(looked_at) == 1
    looked_at.clear()
    first = np.array([[0, 20, 150, 50]], np.float32)  # stretched: looked at again scaled back instead
    reader.boxes(np.zeros((100, 200, 3), np.uint8))
    assert looked_at[:2] == [(100, 200), (100, 30)]  # squeezed to stand 4:3 first, not turned
    looked_at.clear()
    first, reader.turned_look = lying, False
    assert len(reader.boxes(np.zeros((100, 200, 3), np.uint8))[0]) == 1 and len(looked_at) == 1


def test_small_tiles_are_looked_at_again_closer():
    """Where the first look's tiles are small (a camera over a whole table) or it finds
    none, the detector looks again at CLOSE_LOOK_SIZE and that look's boxes are kept."""
    from mahjong_lens.vision.recognizer import CLOSE_LOOK_SIZE, SMALL_TILE, TwoStageRecognizer, small_tiles
    looked_at = []
    small = np.array([[100, 100, 120, 126], [130, 100, 150, 126]], np.float32)  # 20 px in 1280: 10 px
    closer = np.array([[100, 100, 120, 126], [130, 100, 150, 126], [160, 100, 180, 126]], np.float32)

    def look(image: np.ndarray, size: int | None = None, conf: float | None = None):
        looked_at.append(size)
        if size == CLOSE_LOOK_SIZE:
            return closer, np.full(len(closer), 0.8, np.float32)
        return first, np.full(len(first), 0.8, np.float32)

    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)
    reader._look, reader.turned_look, reader.imgsz = look, False, 416
    photo = np.zeros((960, 1280, 3), np.uint8)
    first = small
    boxes, confidences = reader.boxes(photo)
    assert looked_at == [None, CLOSE_LOOK_SIZE] and len(boxes) == len(confidences) == 3
    looked_at.clear()
    first = np.zeros((0, 4), np.float32)  # nothing found: closer too
    assert len(reader.boxes(photo)[0]) == 3 and looked_at == [None, CLOSE_LOOK_SIZE]
    looked_at.clear()
    first = small * 4  # 80 px in 1280: 40 px in 640, a hand photographed close: one look
    assert len(reader.boxes(photo)[0]) == 2 and looked_at == [None]
    looked_at.clear()
    reader.imgsz = CLOSE_LOOK_SIZE  # a detector that already looks at 640 px: no second look
    first = small
    assert len(reader.boxes(photo)[0]) == 2 and looked_at == [None]
    # the threshold is on the median short side, in the photo scaled to 640 px
    side = SMALL_TILE * 2  # in a 1280 px photo
    assert small_tiles(np.array([[0, 0, side - 2, 100]], np.float32), 1280, 960)
    assert not small_tiles(np.array([[0, 0, side + 2, 100]], np.float32), 1280, 960)


class _FakeClassifier:
    """Reads every crop as one class, and notes the crops it was given."""

    def __init__(self, tile: str, names: list[str]) -> None:
        self.probs = np.array([[1.0 if name == tile else 0.0 for name in names]], np.float32)
        self.seen: list[np.ndarray] = []

    def probabilities(self, batch: np.ndarray) -> np.ndarray:
        self.seen.append(batch.copy())
        return np.repeat(self.probs, len(batch), axis=0)


def test_two_classifiers_share_each_crops_four_turns_and_are_averaged():
    """With a second classifier, the first reads each crop upright and upside down, the
    second lying either way (no more work than one classifier's four turns), and the four
    readings are averaged."""
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    names = ["1m", "2m", "3m"]
    first, second = _FakeClassifier("1m", names), _FakeClassifier("2m", names)
    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)  # no weights: the classifiers are faked
    reader.classifiers, reader.class_names, reader.rotations = [first, second], names, 4
    crop = np.zeros((4, 4, 3), np.uint8)
    crop[0, 0] = 255  # a mark in the top left corner tells the turns apart
    crops = [crop, np.zeros_like(crop)]
    probabilities = reader.classify(crops)
    assert probabilities.shape == (2, 3)
    assert probabilities.tolist() == [[0.5, 0.5, 0.0]] * 2
    # each read 2 turns of the 2 crops in one batch: the first turns 0 and 2, the second 1 and 3
    assert [len(c.seen) for c in (first, second)] == [1, 1] and len(first.seen[0]) == 4
    assert np.array_equal(first.seen[0][0], crop)
    assert np.array_equal(first.seen[0][2], np.rot90(crop, 2))
    assert np.array_equal(second.seen[0][0], np.rot90(crop, 1))
    assert np.array_equal(second.seen[0][2], np.rot90(crop, 3))
    # one classifier reads all four turns
    reader.classifiers = [first]
    first.seen.clear()
    assert reader.classify(crops).tolist() == [[1.0, 0.0, 0.0]] * 2 and len(first.seen[0]) == 8


class _BrightnessClassifier:
    """Reads a bright crop as 1m (runner-up: no tile) and a dark one as no tile."""

    names = ["1m", "2m", "back", "none"]

    def probabilities(self, batch: np.ndarray) -> np.ndarray:
        bright = batch.reshape(len(batch), -1).mean(axis=1) > 127
        return np.array([[0.7, 0.05, 0.05, 0.2] if b else [0.05, 0.05, 0.3, 0.6] for b in bright], np.float32)


def _given_boxes(reader, boxes: np.ndarray, confidences: np.ndarray) -> None:
    """A recogniser's detector faked: it finds `boxes` at `confidences`, and nothing weaker."""
    reader.boxes = lambda _image, conf=None: (boxes, confidences)
    reader.boxes_and_weak = lambda _image, conf=None: (boxes, confidences, np.zeros((0, 4), np.float32),
                                                        np.zeros(0, np.float32))


def test_a_box_read_as_no_tile_is_dropped_and_never_offered_as_a_reading():
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)  # no weights: detector and classifier faked
    classifier = _BrightnessClassifier()
    reader.classifiers, reader.class_names, reader.rotations, reader.crop_size = \
        [classifier], classifier.names, 4, 32
    image = np.zeros((100, 200, 3), np.uint8)
    image[20:60, 20:50] = 255  # a tile; the second box lies on the dark table
    boxes = np.array([[20, 20, 50, 60], [120, 20, 150, 60]], np.float32)
    _given_boxes(reader, boxes, np.array([0.9, 0.8], np.float32))
    found = reader.detect(image)
    assert [d.tile for d in found] == ["1m"] and found[0].box == (20.0, 20.0, 50.0, 60.0)
    assert "none" not in [tile for tile, _ in found[0].alternatives]
    assert found[0].face_confidence == pytest.approx(0.7)


class _ContrastClassifier:
    """Sure of a crop with a bright tile on it (1m at 0.9), unsure of a grey one (1m at 0.4)."""

    names = ["1m", "2m", "3m"]

    def probabilities(self, batch: np.ndarray) -> np.ndarray:
        sure = batch.reshape(len(batch), -1).max(axis=1) > 200
        return np.array([[0.9, 0.05, 0.05] if s else [0.4, 0.3, 0.3] for s in sure], np.float32)


def test_a_box_neither_the_detector_nor_the_classifiers_believe_in_is_dropped():
    from mahjong_lens.vision.recognizer import UNSURE_BOX, TwoStageRecognizer
    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)
    classifier = _ContrastClassifier()
    reader.classifiers, reader.class_names, reader.rotations, reader.crop_size = \
        [classifier], classifier.names, 4, 32
    image = np.full((100, 300, 3), 90, np.uint8)
    image[20:60, 20:50] = 255  # a clear tile; the other boxes lie on grey
    boxes = np.array([[20, 20, 50, 60], [60, 20, 90, 60], [100, 20, 130, 60]], np.float32)  # side by side
    weak, strong = UNSURE_BOX[0] - 0.05, UNSURE_BOX[0] + 0.05
    # a clear face with a weak box stays; a grey face stays only with a strong box
    _given_boxes(reader, boxes, np.array([weak, weak, strong], np.float32))
    assert [d.box[0] for d in reader.detect(image)] == [20.0, 100.0]
    reader.unsure_box = None  # the gate can be turned off
    assert len(reader.detect(image)) == 3


def test_a_sure_box_whose_face_no_classifier_can_name_is_dropped():
    from mahjong_lens.vision.recognizer import NAMELESS_FACE, read_boxes
    names = ["1m", "2m", "3m", "4m", "5m", "6m", "7m"]
    spread = np.full(7, (1 - NAMELESS_FACE + 0.04) / 6)  # no face named: the best a little under the floor
    spread[3] = NAMELESS_FACE - 0.04
    named = np.array([0.05, 0.05, 0.05, 0.6, 0.05, 0.1, 0.1])
    boxes = np.array([[0, 0, 30, 40], [40, 0, 70, 40]], np.float32)
    found = read_boxes(boxes, np.array([0.9, 0.9], np.float32), np.stack([spread, named]), names)
    # a book spine the detector is sure of (0.9) but read at under 0.2 goes; the named tile stays
    assert [(d.tile, d.box[0]) for d in found] == [("4m", 40.0)]
    assert len(read_boxes(boxes, np.array([0.9, 0.9], np.float32), np.stack([spread, named]), names,
                          nameless_face=0.0)) == 2


HALF_NAMES = ["2p", "3p", "4p", "5p", "6z", "7z", "1s", "none"]


def _reading(first: str, second: str | None = None, p_first: float = 0.9) -> np.ndarray:
    """Class probabilities over HALF_NAMES: `first` at p_first, the rest on `second`."""
    probs = np.full(len(HALF_NAMES), 0.0, np.float32)
    probs[HALF_NAMES.index(first)] = p_first
    probs[HALF_NAMES.index(second or "7z")] += 1 - p_first
    return probs


def _join(boxes, box_conf, readings, union_reads: str, union_p: float = 0.99):
    """joined_halves over `boxes`, every union crop read as `union_reads`; the crops are the
    box indices, to see which were kept."""
    from mahjong_lens.vision.recognizer import joined_halves
    image = np.full((200, 400, 3), 120, np.uint8)
    read_unions = lambda crops: np.stack([_reading(union_reads, p_first=union_p)] * len(crops))  # noqa: E731
    return joined_halves(image, np.array(boxes, np.float32), np.array(box_conf, np.float32),
                         np.stack(readings), list(range(len(boxes))), HALF_NAMES, read_unions, 32)


# a row of three tiles 40 x 54, and a fourth tile boxed in two halves, top and bottom
ROW = [[0, 0, 40, 54], [42, 0, 82, 54], [84, 0, 124, 54]]
TOP, BOTTOM = [126, 0, 166, 32], [126, 24, 166, 54]


def test_a_tile_boxed_in_two_halves_is_read_as_one_box():
    readings = [_reading("5p")] * 3 + [_reading("2p", "4p", 0.9), _reading("2p", "4p", 0.8)]
    boxes, conf, probs, crops = _join(ROW + [TOP, BOTTOM], [0.9, 0.9, 0.9, 0.45, 0.4], readings, "4p")
    assert boxes.tolist() == ROW + [[126, 0, 166, 54]]     # the union of the halves
    assert conf.tolist() == pytest.approx([0.9, 0.9, 0.9, 0.45])
    assert HALF_NAMES[int(np.argmax(probs[-1]))] == "4p" and len(crops) == 4 and crops[:3] == [0, 1, 2]


def test_halves_stay_apart_where_the_union_is_no_sure_tile_they_could_be():
    readings = [_reading("5p")] * 3 + [_reading("2p", "4p"), _reading("2p", "4p")]
    halves = ROW + [TOP, BOTTOM]
    assert len(_join(halves, [0.9] * 3 + [0.4, 0.4], readings, "4p", 0.85)[0]) == 5  # unsure (the real ones: 0.96+)
    assert len(_join(halves, [0.9] * 3 + [0.4, 0.4], readings, "1s")[0]) == 5   # a face neither half could be
    assert len(_join(halves, [0.9] * 3 + [0.4, 0.4], readings, "none")[0]) == 5
    # both boxes sure of their faces: two tiles, not halves
    assert len(_join(halves, [0.9] * 3 + [0.8, 0.8], readings, "4p")[0]) == 5


def test_two_neighbours_of_one_face_overlapping_in_a_diagonal_row_stay_two():
    # a diagonal row's boxes overlap; the union of two 6z reads 6z: the faces of both halves
    left, right = [126, 0, 166, 54], [136, 8, 176, 62]
    readings = [_reading("5p")] * 3 + [_reading("6z", "7z", 0.95), _reading("6z", "7z", 0.95)]
    assert len(_join(ROW + [left, right], [0.9] * 3 + [0.45, 0.45], readings, "6z")[0]) == 5
    # a second box over a tile's lower half, inside it, is one tile with it
    whole, lower = [126, 0, 166, 54], [128, 26, 164, 54]
    readings[3:] = [_reading("4p", "2p", 0.87), _reading("4p", "2p", 0.7)]
    assert _join(ROW + [whole, lower], [0.9] * 3 + [0.45, 0.4], readings, "4p")[0].tolist() == ROW + [whole]


def test_a_standing_tiles_top_and_face_are_one_tile_however_sure_the_detector_is():
    # the blue mat's big 4p: a box over its top and the upper part of its face (a 2p's
    # pattern) and one over its face, one above the other at one width, both fairly sure
    top, face = [126, 0, 166, 36], [126, 20, 166, 56]
    readings = [_reading("5p")] * 3 + [_reading("2p", "4p", 0.89), _reading("4p", "2p", 0.97)]
    boxes, _, probs, _ = _join(ROW + [top, face], [0.9] * 3 + [0.66, 0.64], readings, "4p")
    assert boxes.tolist() == ROW + [[126, 0, 166, 56]] and HALF_NAMES[int(np.argmax(probs[-1]))] == "4p"
    # two whole tiles in a block, each read for sure, or both read as one face, stay two
    sure = [_reading("2p", "4p", 0.995), _reading("4p", "2p", 0.999)]
    assert len(_join(ROW + [top, face], [0.9] * 3 + [0.66, 0.64], readings[:3] + sure, "4p")[0]) == 5
    alike = [_reading("4p", "2p", 0.9), _reading("4p", "2p", 0.95)]
    assert len(_join(ROW + [top, face], [0.9] * 3 + [0.66, 0.64], readings[:3] + alike, "4p")[0]) == 5
    # one above the other at one width; not one box twice, a row's neighbours side by side at
    # one height, nor a diagonal row's
    from mahjong_lens.vision.recognizer import stacked_boxes
    assert stacked_boxes(np.array(top), np.array(face)) and not stacked_boxes(np.array(top), np.array(top))
    assert not stacked_boxes(np.array([0, 0, 40, 54]), np.array([20, 1, 60, 55]))
    assert not stacked_boxes(np.array([0, 0, 40, 54]), np.array([20, 20, 60, 74]))


KONG_NAMES = ["5m", "6m", "2f", "back", "none"]


def _kong_row(readings: list[tuple[str, str | None]], shift_last: float = 0.0):
    """with_kong_backs over a row of tiles 40 x 54, 42 px apart, each read (likeliest, next);
    `shift_last` moves the last box down by that many pixels."""
    from mahjong_lens.vision.recognizer import read_boxes, with_kong_backs
    boxes = np.array([[42 * k, 0, 42 * k + 40, 54] for k in range(len(readings))], np.float32)
    boxes[-1, [1, 3]] += shift_last
    probabilities = np.zeros((len(readings), len(KONG_NAMES)), np.float32)
    for k, (first, second) in enumerate(readings):
        probabilities[k, KONG_NAMES.index(first)] = 0.7
        probabilities[k, KONG_NAMES.index(second or "2f")] += 0.3
    conf = np.full(len(readings), 0.6, np.float32)
    detections = read_boxes(boxes, conf, probabilities, KONG_NAMES)
    return detections, with_kong_backs(detections, boxes, conf, probabilities, KONG_NAMES)[0]


def test_a_concealed_kongs_back_taken_for_no_tile_is_read_face_down():
    # the classifiers took one of the kong's backs for no tile (back its next choice)
    kept, read = _kong_row([("none", "back"), ("5m", None), ("5m", None), ("back", None)])
    assert [d.tile for d in kept] == ["5m", "5m", "back"]
    assert sorted(d.tile for d in read) == ["5m", "5m", "back", "back"]
    restored = [d for d in read if d not in kept][0]
    assert restored.box == (0.0, 0.0, 40.0, 54.0)
    assert restored.face_sureness == pytest.approx(1.0) and restored.confidence == pytest.approx(0.6)
    # both backs taken for no tile
    assert sorted(d.tile for d in _kong_row([("none", "back"), ("5m", None), ("5m", None), ("none", "back")])[1]) \
        == ["5m", "5m", "back", "back"]


def test_no_tile_is_left_so_where_it_makes_no_concealed_kong():
    cases = [
        [("none", "back"), ("5m", None), ("6m", None), ("back", None)],   # two faces: no kong
        [("none", "back"), ("5m", None), ("5m", None), ("6m", None)],     # no back on the other side
        [("none", "2f"), ("5m", None), ("5m", None), ("back", None)],     # a flower its likeliest face
        [("none", "back"), ("5m", None), ("5m", None)],                   # nothing after the pair
    ]
    for readings in cases:
        kept, read = _kong_row(readings)
        assert read == kept, readings
    # the other back off the row's line (half a tile down): no kong's
    kept, read = _kong_row([("back", None), ("5m", None), ("5m", None), ("none", "back")], shift_last=27)
    assert read == kept
    # a second box, taken for no tile, on a tile read (a 6m where the back would lie)
    from mahjong_lens.vision.recognizer import read_boxes, with_kong_backs
    boxes = np.array([[0, 0, 40, 54], [42, 0, 82, 54], [84, 0, 124, 54], [126, 0, 166, 54], [127, 1, 167, 55]],
                     np.float32)
    probabilities = np.zeros((5, len(KONG_NAMES)), np.float32)
    for k, (first, second) in enumerate([("back", "2f"), ("5m", "2f"), ("5m", "2f"), ("6m", "2f"), ("none", "back")]):
        probabilities[k, KONG_NAMES.index(first)], probabilities[k, KONG_NAMES.index(second)] = 0.7, 0.3
    conf = np.full(5, 0.6, np.float32)
    kept = read_boxes(boxes, conf, probabilities, KONG_NAMES)
    assert with_kong_backs(kept, boxes, conf, probabilities, KONG_NAMES) == (kept, set())


def test_two_whole_tiles_overlapping_are_no_halves_of_one():
    from mahjong_lens.vision.recognizer import half_box_pairs
    readings = np.stack([_reading("5p")] * 3 + [_reading("2p", "4p")] * 2)
    apart = [[126, 0, 166, 54], [150, 0, 190, 54]]   # overlapping 0.4 of a tile: together 64 px wide
    assert half_box_pairs(np.array(ROW + apart, np.float32), np.array([0.9] * 3 + [0.4, 0.4], np.float32),
                          readings, HALF_NAMES) == []
    pairs = half_box_pairs(np.array(ROW + [TOP, BOTTOM], np.float32), np.array([0.9] * 3 + [0.4, 0.4], np.float32),
                           readings, HALF_NAMES)
    assert [(i, j, union.tolist(), round(inside, 2), top_and_face) for i, j, union, inside, top_and_face in pairs] == \
        [(3, 4, [126, 0, 166, 54], 0.27, False)]  # 8 px of the 30 px lower half lie in the upper; both read 2p


class _DotCounter:
    """Reads a crop by its dark dots: four a 4p, two a 2p (unsure, a 4p next), else a 5p."""

    names = ["2p", "4p", "5p", "none"]

    def probabilities(self, batch: np.ndarray) -> np.ndarray:
        import cv2
        rows = []
        for crop in batch:
            dots = cv2.connectedComponents((crop.min(axis=2) < 60).astype(np.uint8))[0] - 1
            rows.append([0.0, 0.95, 0.05, 0.0] if dots == 4 else [0.85, 0.1, 0.05, 0.0] if dots == 2
                        else [0.0, 0.05, 0.95, 0.0])
        return np.array(rows, np.float32)


def test_the_recogniser_reports_a_tile_boxed_in_two_halves_as_one():
    import cv2
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)
    reader.classifiers, reader.class_names, reader.rotations, reader.crop_size = \
        [_DotCounter()], _DotCounter.names, 4, 48
    reader.unsure_box = None
    image = np.full((100, 260, 3), 90, np.uint8)
    for left in (20, 70, 120, 170):
        image[20:60, left:left + 30] = 255
    for left in (20, 70, 120):  # three 5p
        for x, y in ((7, 8), (23, 8), (15, 20), (7, 32), (23, 32)):
            cv2.circle(image, (left + x, 20 + y), 3, (20, 20, 20), -1)
    for x, y in ((178, 28), (192, 28), (178, 52), (192, 52)):  # a 4p: two dots in each half
        cv2.circle(image, (x, y), 3, (20, 20, 20), -1)
    tiles = [[20, 20, 50, 60], [70, 20, 100, 60], [120, 20, 150, 60]]
    halves = [[170, 20, 200, 44], [170, 36, 200, 60]]
    boxes = np.array(tiles + halves, np.float32)
    _given_boxes(reader, boxes, np.array([0.9, 0.9, 0.9, 0.45, 0.45], np.float32))
    found = sorted(reader.detect(image), key=lambda d: d.box[0])
    assert [d.tile for d in found] == ["5p", "5p", "5p", "4p"]
    assert found[-1].box == (170.0, 20.0, 200.0, 60.0)
    # the detector sure of both boxes: two tiles, as it says
    _given_boxes(reader, boxes, np.full(5, 0.9, np.float32))
    assert [d.tile for d in sorted(reader.detect(image), key=lambda d: d.box[0])] == ["5p"] * 3 + ["2p", "2p"]


def test_tiles_lie_where_a_share_of_the_boxes_is_wider_than_tall():
    from mahjong_lens.vision.recognizer import tiles_lie
    standing, lying = [0, 0, 30, 40], [0, 0, 40, 30]
    assert tiles_lie(np.array([lying] * 14, np.float32))                  # a hand running up the photo
    assert tiles_lie(np.array([standing] * 26 + [lying] * 26, np.float32))  # a table: two players lie
    assert not tiles_lie(np.array([standing] * 13 + [lying], np.float32))  # one called tile turned
    assert not tiles_lie(np.zeros((0, 4), np.float32))


def test_a_weak_box_around_a_found_tile_and_part_of_its_neighbour_is_dropped():
    from mahjong_lens.vision.recognizer import without_covering_boxes
    tile, neighbour = [100, 0, 130, 40], [131, 0, 161, 40]
    around = [95, -5, 150, 45]   # the tile and half its neighbour: IoU with the tile 0.44, under NMS's 0.5
    boxes = np.array([tile, neighbour, around], np.float32)
    kept, confidences = without_covering_boxes(boxes, np.array([0.6, 0.6, 0.4], np.float32))
    assert kept.tolist() == [tile, neighbour] and confidences.tolist() == pytest.approx([0.6, 0.6])
    # only a weaker box is dropped for holding another
    kept, _ = without_covering_boxes(boxes, np.array([0.3, 0.6, 0.4], np.float32))
    assert kept.tolist() == [tile, neighbour, around]
    # neighbours that touch or overlap a little are no cover
    row = np.array([[30 * k, 0, 30 * k + 32, 40] for k in range(5)], np.float32)
    assert len(without_covering_boxes(row, np.linspace(0.9, 0.5, 5).astype(np.float32))[0]) == 5


def test_a_second_look_adds_only_sure_boxes_where_the_first_found_nothing():
    from mahjong_lens.vision.recognizer import NEW_BOX_CONF, NEW_BOX_IOU, added_boxes
    first = np.array([[0, 0, 30, 40], [100, 0, 130, 40]], np.float32)
    more = np.array([[2, 0, 32, 40],       # the first tile again: IoU 0.88
                     [118, 0, 148, 40],    # half over the second: IoU 0.25, above the limit
                     [200, 0, 230, 40],    # a tile of its own
                     [300, 0, 330, 40]],   # another, the detector unsure of it
                    np.float32)
    boxes, confidences = added_boxes(first, np.array([0.5, 0.5], np.float32), more,
                                     np.array([0.9, 0.9, 0.6, 0.4], np.float32))
    assert NEW_BOX_IOU < 0.25 and 0.4 < NEW_BOX_CONF <= 0.6
    assert boxes.tolist() == [[0, 0, 30, 40], [100, 0, 130, 40], [200, 0, 230, 40]]
    assert confidences.tolist() == pytest.approx([0.5, 0.5, 0.6])
    assert len(added_boxes(first[:0], np.zeros(0, np.float32), more, np.ones(4, np.float32))[0]) == 4



def test_a_tile_the_detector_nearly_missed_is_added_where_it_lies_among_the_tiles_found():
    """A box the detector was less sure of than its threshold is a tile where it lies among the
    tiles found, clear of them and of the photo's edge, and the classifiers read a face in it
    surely, and a face a plain patch looks like (a back, the White dragon) only very surely
    (``WEAK_BOX_*``): the blue mat's three tiles without a box lay so."""
    from mahjong_lens.vision.recognizer import (WEAK_BOX_FACE, WEAK_BOX_INSIDE, WEAK_BOX_NEAR, WEAK_BOX_SIZE,
                                                with_weak_boxes)
    names = list(CLASS_NAMES) + ["none"]
    image = np.zeros((300, 300, 3), np.uint8)
    found = np.array([[100 + 45 * k, 100, 140 + 45 * k, 154] for k in range(3)], np.float32)  # a row of three
    found_probs = np.zeros((3, len(names)), np.float32)
    found_probs[:, names.index("1m")] = 1.0
    weak = np.array([[235, 100, 275, 154],    # the row's fourth tile: read 7p at 0.9 -> added
                     [145, 160, 185, 214],    # below the second, read 7p at 0.6: not sure enough
                     [190, 160, 230, 214],    # below the third, read as a back: felt or a shadow
                     [100, 160, 140, 214],    # below the first, read 5z at 0.95: a pale patch of the cloth
                     [100, 40, 140, 94],      # above the first, read 5z at 0.995: a White dragon -> added
                     [250, 230, 290, 284],    # far from every tile found (a book on a shelf)
                     [120, 100, 140, 154],    # the right half of a tile found: part of it
                     [240, 10, 260, 150],     # a strip two tiles and a half long, beside the row
                     [256, 100, 300, 154]],   # cut by the photo's edge
                    np.float32)
    weak_conf = np.full(len(weak), 0.3, np.float32)
    assert 68 <= WEAK_BOX_NEAR * 54 < 143 and WEAK_BOX_INSIDE < 1.0 and 0.6 < WEAK_BOX_FACE <= 0.9
    assert 140 / 54 > WEAK_BOX_SIZE[1] and 20 / 40 <= WEAK_BOX_SIZE[0]
    asked = []

    def classify(crops):
        asked.append(len(crops))
        probs = np.zeros((len(crops), len(names)), np.float32)
        for row, (face, sure) in zip(probs, [("7p", 0.9), ("7p", 0.6), ("back", 0.95), ("5z", 0.95), ("5z", 0.995)]):
            row[names.index(face)] = sure
            row[names.index("none")] = 1 - sure
        return probs

    boxes, confidences, probabilities, crops = with_weak_boxes(
        image, found, np.full(3, 0.8, np.float32), found_probs, [image[:2, :2]] * 3, weak, weak_conf,
        names, classify, 32)
    assert asked == [5]  # only the five boxes among the tiles, clear of them, are read at all
    assert boxes.tolist() == found.tolist() + [[235, 100, 275, 154], [100, 40, 140, 94]]
    assert confidences.tolist() == pytest.approx([0.8, 0.8, 0.8, 0.3, 0.3])
    assert [names[int(np.argmax(p))] for p in probabilities[3:]] == ["7p", "5z"] and len(crops) == 5
    # beside a tile read face down (a dead wall's indicator, stacked tiles half hidden): left
    # to the boxes the detector is sure of
    walled = found_probs.copy()
    walled[0] = 0.0
    walled[0, names.index("back")] = 1.0
    asked.clear()
    boxes, _, _, _ = with_weak_boxes(image, found, np.full(3, 0.8, np.float32), walled, [image[:2, :2]] * 3,
                                     weak[:1], weak_conf[:1], names, classify, 32)
    assert asked == [1] and len(boxes) == 4  # the fourth lies 3 steps from the back: still added
    boxes, _, _, _ = with_weak_boxes(image, found, np.full(3, 0.8, np.float32), walled, [image[:2, :2]] * 3,
                                     np.array([[55, 100, 95, 154]], np.float32), weak_conf[:1], names, classify, 32)
    assert len(boxes) == 3  # one step before the back: not
    # nothing found, nothing to lie among: no weak box is a tile
    nothing = np.zeros((0, 4), np.float32)
    assert len(with_weak_boxes(image, nothing, np.zeros(0, np.float32), np.zeros((0, len(names)), np.float32),
                               [], weak, weak_conf, names, classify, 32)[0]) == 0


def test_a_lone_box_neither_stage_is_sure_of_is_the_room_not_a_tile():
    """Tiles lie together; a box far from every other that the detector and classifiers
    together are unsure of is dropped (``LONE_BOX_*``: a power bank on the shelf read 1p).
    Sure of it, or near the others, it stays."""
    from mahjong_lens.vision.recognizer import LONE_BOX_CONF, LONE_BOX_DISTANCE, without_lone_unsure_boxes
    row = [TileDetection("1m", (100 + 45 * k, 100, 140 + 45 * k, 154), 0.8) for k in range(4)]
    far = (500, 100, 540, 154)  # 290 px from the row's last tile: over 5 tile lengths
    assert 290 / 54 >= LONE_BOX_DISTANCE > 1.0
    unsure = TileDetection("1p", far, LONE_BOX_CONF - 0.05)
    sure = TileDetection("1p", far, LONE_BOX_CONF + 0.05)
    beside = TileDetection("1p", (280, 100, 320, 154), LONE_BOX_CONF - 0.05)  # next in the row
    assert without_lone_unsure_boxes(row + [unsure]) == row
    assert without_lone_unsure_boxes(row + [sure]) == row + [sure]
    assert without_lone_unsure_boxes(row + [beside]) == row + [beside]
    # two boxes: no median tile to measure by, nothing dropped
    assert without_lone_unsure_boxes(row[:1] + [unsure]) == row[:1] + [unsure]

def test_the_detector_hands_over_the_boxes_below_its_threshold_apart():
    """One look at the photo gives the boxes at the detector's threshold (``boxes``, as before)
    and, apart, those down to WEAK_BOX_CONF; a threshold asked for gives no weak boxes."""
    from mahjong_lens.vision.recognizer import DETECTOR_CONF, WEAK_BOX_CONF, TwoStageRecognizer, crops_read
    thresholds = []

    def look(image: np.ndarray, size: int | None = None, conf: float | None = None):
        thresholds.append(conf)
        boxes = np.array([[100, 20, 130, 60], [140, 20, 170, 60], [180, 20, 210, 60]], np.float32)
        confidences = np.array([0.9, 0.3, 0.2], np.float32)
        keep = confidences >= (conf if conf is not None else DETECTOR_CONF)
        return boxes[keep], confidences[keep]

    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)  # no weights: the detector is faked
    reader._look, reader.turned_look, reader.imgsz = look, False, 640
    photo = np.zeros((240, 320, 3), np.uint8)
    boxes, confidences, weak, weak_conf = reader.boxes_and_weak(photo)
    assert thresholds == [WEAK_BOX_CONF] and WEAK_BOX_CONF <= 0.3 < DETECTOR_CONF
    assert boxes.tolist() == [[100, 20, 130, 60]] and weak.tolist() == [[140, 20, 170, 60]]
    assert weak_conf.tolist() == pytest.approx([0.3])
    assert reader.boxes(photo)[0].tolist() == [[100, 20, 130, 60]]
    thresholds.clear()
    boxes, _, weak, _ = reader.boxes_and_weak(photo, conf=0.1)
    assert thresholds == [0.1] and len(boxes) == 3 and len(weak) == 0
    # the weak box read as a tile for sure joins the boxes read; the models' readings alone do not
    names = list(CLASS_NAMES)
    reader.class_names, reader.crop_size = names, 32

    def classify(crops):
        probs = np.zeros((len(crops), len(names)), np.float32)
        probs[:, names.index("3s")] = 0.95
        return probs

    reader.classify = classify
    assert len(crops_read(reader, photo)[0]) == 2
    assert len(crops_read(reader, photo, join_halves=False)[0]) == 1


# ------------------------------------------------------------------ the model

def _art_row() -> np.ndarray | None:
    """A 640 px photo-like image: fourteen art tiles in a row on a green cloth."""
    import cv2
    from mahjong_lens.datasets.art import default_art_dir
    art = default_art_dir() / "fluffy_regular"  # $MAHJONG_LENS_DATA/art or ../shared/data/art
    names = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "1z", "5z", "5z"]
    image = np.full((640, 640, 3), (40, 110, 30), np.uint8)
    for k, name in enumerate(names):
        tile = cv2.imread(str(art / f"{name}.png"), cv2.IMREAD_UNCHANGED)
        if tile is None:
            return None
        if tile.shape[2] == 4:
            alpha = tile[:, :, 3:] / 255
            tile = (tile[:, :, :3] * alpha + 235 * (1 - alpha)).astype(np.uint8)
        tile = cv2.resize(tile, (40, 54))
        image[290:344, 20 + 43 * k:60 + 43 * k] = tile
    return image


@pytest.mark.skipif(not (MODELS_DIR / DETECTOR_FILE).exists() or not (MODELS_DIR / CLASSIFIER_FILE).exists(),
                    reason=f"no PyTorch weights (.pt) in {MODELS_DIR}: a clone holds them, a plain install the ONNX exports only")
def test_shipped_recognizer_reads_tiles_of_the_right_type():
    image = _art_row()
    if image is None:
        pytest.skip("tile art not available")
    recognizer = load_recognizer()
    found = recognizer.detect(image)
    assert len(found) >= 7  # most of the fourteen tiles are found
    for d in found:
        assert isinstance(d, TileDetection) and d.tile in CLASS_NAMES
        assert 0.0 <= d.confidence <= 1.0
        assert 0 <= d.box[0] < d.box[2] <= 640 and 0 <= d.box[1] < d.box[3] <= 640
        assert len(d.alternatives) == 3
        # the face's own probability, on the alternatives' scale; confidence also weighs the box
        assert d.alternatives[0][1] <= d.face_confidence <= 1.0 and d.confidence <= d.face_confidence
        assert all(a[1] <= b[1] for a, b in zip(d.alternatives[1:], d.alternatives))
    # the boxes lie on the row of tiles (y 290..344)
    assert all(270 < d.center[1] < 364 for d in found)
    # NMS at IoU 0.45: a second box nearly half over a tile is a duplicate and goes
    assert all(iou(a.box, b.box) < 0.45 for k, a in enumerate(found) for b in found[k + 1:])


@pytest.fixture(scope="module")
def exported_models(tmp_path_factory) -> Path:
    """A copy of the shipped weights with fresh ONNX exports beside them."""
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    import shutil
    from mahjong_lens.vision.recognizer import export_onnx
    if not (MODELS_DIR / DETECTOR_FILE).exists() or not (MODELS_DIR / CLASSIFIER_FILE).exists():
        pytest.skip("no trained weights in models/ yet")
    folder = tmp_path_factory.mktemp("models")
    names = [DETECTOR_FILE] + [path.name for path in classifier_files(MODELS_DIR)]
    for name in names:
        shutil.copy(MODELS_DIR / name, folder / name)
    written = export_onnx(folder)
    assert sorted(p.name for p in written) == sorted(Path(name).stem + ".onnx" for name in names)
    return folder


def test_the_onnx_exports_read_as_the_pytorch_weights_do(exported_models: Path, capsys):
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    image = _art_row()
    if image is None:
        pytest.skip("tile art not available")
    fast = load_recognizer(str(exported_models))
    classifiers = classifier_files(exported_models)  # the second one too, if shipped
    plain = TwoStageRecognizer(exported_models / DETECTOR_FILE, classifiers, onnx=False)
    assert len(fast.classifiers) == len(classifiers)
    assert (fast.backend, plain.backend) == ("+".join(["onnx"] * (1 + len(classifiers))),
                                             "+".join(["torch"] * (1 + len(classifiers))))
    capsys.readouterr()
    for photo in (image, image[100:580]):  # square, and wide (letterboxed alike)
        ours, theirs = fast.detect(photo), plain.detect(photo)
        assert [d.tile for d in ours] == [d.tile for d in theirs] and len(ours) >= 7
        for a, b in zip(ours, theirs):
            assert np.allclose(a.box, b.box, atol=1.0) and abs(a.confidence - b.confidence) < 0.02
    assert capsys.readouterr().out == ""  # nothing on stdout: `scan --json` stays JSON


def test_a_stale_onnx_export_is_not_used(exported_models: Path, tmp_path: Path):
    import shutil
    import onnx
    from mahjong_lens.vision.recognizer import ONNX_SOURCE_KEY
    for name in ("tile_detector", "tile_classifier"):
        shutil.copy(exported_models / f"{name}.pt", tmp_path / f"{name}.pt")
        shutil.copy(exported_models / f"{name}.onnx", tmp_path / f"{name}.onnx")
    graph = onnx.load(str(tmp_path / "tile_classifier.onnx"))
    next(p for p in graph.metadata_props if p.key == ONNX_SOURCE_KEY).value = "0" * 64  # other weights
    onnx.save(graph, str(tmp_path / "tile_classifier.onnx"))
    with pytest.warns(UserWarning, match="was not exported from tile_classifier.pt"):
        recognizer = load_recognizer(str(tmp_path))
    assert recognizer.backend == "onnx+torch"


@needs_train
def test_only_a_classifier_is_published_as_the_second_one(tmp_path: Path, capsys):
    import argparse
    from mahjong_lens.training.train import configure_parser, run
    parser = argparse.ArgumentParser()
    configure_parser(parser)
    args = parser.parse_args(["--stage", "detector", "--second", "--work", str(tmp_path)])
    assert run(args) == 2
    assert "--second is for the classifier" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing generated, nothing trained


def test_missing_weights_raise_a_clear_error(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="model files .* are not in"):
        load_recognizer(str(tmp_path))


# ------------------------------------------------------------------ training sets

def _fake_data_dir(root: Path) -> Path:
    """A data folder with two labelled 'photos' (one of them a development photo) and the
    shared tile art linked in."""
    import cv2
    from mahjong_lens.datasets.art import default_art_dir
    art = default_art_dir()
    if not art.is_dir():
        pytest.skip("no shared tile art (set MAHJONG_LENS_DATA)")
    root.mkdir(parents=True)
    (root / "art").symlink_to(art)
    images = root / "real" / "chinese-mixed" / "train" / "images"
    labels = images.parent / "labels"
    images.mkdir(parents=True), labels.mkdir()
    names = ["hand_001_jpg.rf.a.jpg"] + [f"hand_{n:03d}_jpg.rf.a.jpg" for n in range(2, 60)
                                         if is_dev_photo(f"hand_{n:03d}_jpg.rf.a.jpg")][:1]
    for name in names:
        image = np.full((200, 200, 3), 90, np.uint8)
        image[50:110, 40:85] = 240
        cv2.imwrite(str(images / name), image)
        (labels / (Path(name).stem + ".txt")).write_text("0 0.3125 0.4 0.225 0.3\n")  # a 1m
    return root


def test_classifier_training_set_holds_real_art_and_screen_crops(tmp_path: Path):
    from mahjong_lens.training.train import prepare_classifier_data
    data = _fake_data_dir(tmp_path / "data")
    root = prepare_classifier_data(data, tmp_path / "work", art_copies=1, screen_count=2, size=48)
    train, val = root / "train", root / "val"
    real = list((train / "1m").glob("real*.png"))
    assert len(real) == 1 and len(list((val / "1m").glob("*.png"))) == 1  # the dev photo goes to val
    screens = list(train.glob("*/screen*.png"))
    assert screens, "screen-capture crops are part of the training set"
    import cv2
    crop = cv2.imread(str(screens[0]))
    assert crop.shape == (48, 48, 3)
    # squeezed back to a tile's shape, not padded into a thin strip
    assert (crop == 114).all(axis=2).mean() < 0.4
    assert list(train.glob("1z/art_*.png")) and list(train.glob("back/art_*.png"))


def test_boxes_on_no_tile_become_a_class_of_their_own_only_when_asked_for(tmp_path: Path):
    import cv2
    from mahjong_lens.training.train import prepare_classifier_data
    data = _fake_data_dir(tmp_path / "data")
    asked: list[list] = []

    def not_a_tile(image: np.ndarray, labels: list) -> list:
        asked.append(labels)
        return [(140.0, 140.0, 180.0, 190.0)]  # the dark table below the tile

    plain = prepare_classifier_data(data, tmp_path / "plain", art_copies=0, size=32)
    assert not (plain / "train" / "none").exists()  # an empty folder would still make a class
    root = prepare_classifier_data(data, tmp_path / "work", art_copies=0, size=32, not_a_tile=not_a_tile)
    train = sorted((root / "train" / "none").glob("*.png"))
    assert len(train) == 4 and len(list((root / "val" / "none").glob("*.png"))) == 1  # four turns; dev once
    assert all((cv2.imread(str(path)) < 120).all() for path in train)  # cut from the dark table
    # it is given each photo's labels in pixels (the 1m at 0.3125 0.4 0.225 0.3 of 200 px)
    assert asked[0] == [pytest.approx((40.0, 50.0, 85.0, 110.0))]


@needs_train
def test_a_classifier_grows_a_class_keeping_what_it_learnt(tmp_path: Path):
    import torch
    from ultralytics.nn.tasks import ClassificationModel
    from mahjong_lens.training.train import with_new_class
    model = ClassificationModel("yolo11n-cls.yaml", nc=3, verbose=False).eval()
    model.names = {0: "1m", 1: "2m", 2: "back"}
    weights = tmp_path / "small.pt"
    torch.save({"model": model, "ema": None}, weights)
    grown = with_new_class(weights, "none", tmp_path / "grown.pt")
    wider = torch.load(grown, map_location="cpu", weights_only=False)["model"].eval()
    assert wider.names == {0: "1m", 1: "2m", 2: "back", 3: "none"}
    x = torch.rand(2, 3, 64, 64)
    with torch.no_grad():
        before, after = model(x), wider(x)
    before = before[0] if isinstance(before, (tuple, list)) else before
    after = after[0] if isinstance(after, (tuple, list)) else after
    assert after.shape == (2, 4)
    # the known classes keep their odds against each other; the new one starts least likely
    assert torch.allclose(after[:, :3] / after[:, :3].sum(1, keepdim=True), before, atol=1e-5)
    assert with_new_class(grown, "none", tmp_path / "again.pt") == grown  # already there
    with pytest.raises(ValueError, match="alphabetical"):
        with_new_class(weights, "aaa", tmp_path / "bad.pt")  # would not come last


def test_boxes_on_no_tile_are_those_read_face_down_or_no_tile_where_nothing_is_labelled():
    """The examples of NOT_A_TILE: boxes read `back`, or already read as no tile by a reader
    that knows the class (it drops them, so they are taken before it does), on no label."""
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    from mahjong_lens.training.train import faces_down_on_no_label
    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)
    reader.class_names = ["1m", "back", "none"]
    found = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10], [60, 0, 70, 10]], np.float32)
    probabilities = np.array([[0.1, 0.8, 0.1],    # back, on no label: kept
                              [0.1, 0.2, 0.7],    # no tile, on no label: kept
                              [0.1, 0.8, 0.1],    # back, but labelled: a label says what it is
                              [0.9, 0.05, 0.05]],  # a tile nobody labelled: not an example
                             np.float32)
    reader.readings = lambda image: (found, np.full(4, 0.9, np.float32), probabilities)
    labels = [(40.0, 0.0, 50.0, 10.0)]
    boxes = faces_down_on_no_label(reader)(np.zeros((10, 80, 3), np.uint8), labels)
    assert boxes == [(0.0, 0.0, 10.0, 10.0), (20.0, 0.0, 30.0, 10.0)]


def test_crops_and_boxes_on_no_tile_share_one_look_at_each_photo():
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    from mahjong_lens.training.train import crop_detector, faces_down_on_no_label, once_per_photo
    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)
    reader.class_names = ["1m", "back", "none"]
    looked = []
    found = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], np.float32)
    probabilities = np.array([[0.9, 0.05, 0.05], [0.1, 0.2, 0.7]], np.float32)

    def readings(image):
        looked.append(image)
        return found, np.full(2, 0.9, np.float32), probabilities
    reader.readings = readings
    shared = once_per_photo(reader)
    detector, not_a_tile = crop_detector(reader, shared), faces_down_on_no_label(reader, shared)
    first, second = np.zeros((10, 40, 3), np.uint8), np.zeros((10, 40, 3), np.uint8)
    for photo in (first, second):
        assert detector(photo).tolist() == found.tolist()
        assert not_a_tile(photo, []) == [(20.0, 0.0, 30.0, 10.0)]
    assert len(looked) == 2 and looked[0] is first and looked[1] is second  # one look a photo


@needs_train
def test_not_a_tile_needs_the_recogniser_to_cut_crops_with(tmp_path: Path, capsys):
    import argparse
    from mahjong_lens.training.train import configure_parser, run
    parser = argparse.ArgumentParser()
    configure_parser(parser)
    assert run(parser.parse_args(["--stage", "classifier", "--not-a-tile", "--work", str(tmp_path)])) == 2
    assert "--not-a-tile is for the classifier stage, with --crop-detector" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_real_crops_can_be_weighed_more_in_other_turns(tmp_path: Path):
    from mahjong_lens.training.train import prepare_classifier_data
    data = _fake_data_dir(tmp_path / "data")
    root = prepare_classifier_data(data, tmp_path / "work", art_copies=0, size=32, real_copies=3)
    crops = sorted(p.stem for p in (root / "train" / "1m").glob("real*.png"))
    assert len(crops) == 3 and len({name.rsplit("_", 1)[1] for name in crops}) == 3  # three turns
    assert len(list((root / "val" / "1m").glob("*.png"))) == 1  # the development crop once


def test_rare_classes_get_more_copies_towards_the_median():
    from collections import Counter
    from mahjong_lens.training.train import rare_class_copies
    counts = Counter({0: 600, 1: 620, 2: 580, 3: 600, 4: 610, 5: 590, 30: 200, 31: 100, 32: 10})
    copies = rare_class_copies(counts)
    assert copies[0] == copies[1] == copies[2] == 1
    assert copies[30] == 3 and copies[31] == 4 and copies[32] == 4  # at most 4
    assert rare_class_copies(Counter()) == {}


def test_slanted_crop_shows_the_tile_turned_with_its_bounding_box():
    import cv2
    from mahjong_lens.training.train import slanted_crop
    image = np.full((300, 300, 3), 40, np.uint8)
    image[100:200, 120:180] = 255                     # a white tile, 60 x 100, upright
    straight = slanted_crop(image, (120, 100, 180, 200), 0.0, 0.0, 64)
    turned = slanted_crop(image, (120, 100, 180, 200), 30.0, 0.0, 64)
    assert straight.shape == turned.shape == (64, 64, 3)
    # upright: the padded square holds the tile and grey padding, no table
    assert (straight == 40).all(axis=2).mean() < 0.01
    # turned 30 degrees, the crop is the bounding box of the slanted tile: table shows in
    # its corners, the tile's white fills less, and the middle stays white
    white = (turned > 200).all(axis=2)
    assert (turned == 40).all(axis=2).mean() > 0.1
    assert white.mean() < (straight > 200).all(axis=2).mean()
    assert white[28:36, 28:36].all()
    # the crop of a photo's corner tile does not fail (padding fills what is outside)
    assert slanted_crop(image, (0, 0, 40, 60), -20.0, 0.1, 32).shape == (32, 32, 3)


def test_slanted_and_balanced_real_copies_are_all_written(tmp_path: Path):
    from mahjong_lens.training.train import prepare_classifier_data
    data = _fake_data_dir(tmp_path / "data")
    root = prepare_classifier_data(data, tmp_path / "work", art_copies=0, size=32, real_copies=2,
                                   slant=15.0, balance=True)
    # one class only, so it is its own median: two copies, distinct files, not overwritten
    crops = sorted(p.stem for p in (root / "train" / "1m").glob("real*.png"))
    assert len(crops) == 2 and len(set(crops)) == 2


def test_classifier_training_set_leaves_out_rotated_copies_with_inflated_boxes(tmp_path: Path):
    import cv2
    from mahjong_lens.training.train import prepare_classifier_data
    data = _fake_data_dir(tmp_path / "data")
    images = data / "real" / "chinese-mixed" / "train" / "images"
    # two copies of one training photo: six tiles upright (3:4 boxes), and a tilted copy whose
    # boxes came out square and too large
    for name, (bw, bh) in (("hand_090_jpg.rf.b.jpg", (0.06, 0.08)), ("hand_090_jpg.rf.c.jpg", (0.09, 0.09))):
        assert not is_dev_photo(name)
        cv2.imwrite(str(images / name), np.full((400, 400, 3), 200, np.uint8))
        rows = "".join(f"{k + 1} {0.15 + 0.1 * k:.2f} 0.5 {bw} {bh}\n" for k in range(6))  # 2m..7m
        (images.parent / "labels" / (Path(name).stem + ".txt")).write_text(rows)
    # scattered single tiles with square boxes: each box still holds one tile, kept
    name = "7_n_jpg.rf.d.jpg"
    cv2.imwrite(str(images / name), np.full((400, 400, 3), 200, np.uint8))
    (images.parent / "labels" / "7_n_jpg.rf.d.txt").write_text(
        "".join(f"8 {0.1 + 0.15 * k:.2f} 0.5 0.09 0.09\n" for k in range(6)))  # 9m
    root = prepare_classifier_data(data, tmp_path / "work", art_copies=0, size=32)
    for tile in ("2m", "3m", "4m", "5m", "6m", "7m"):
        assert len(list((root / "train" / tile).glob("real*.png"))) == 1, tile
    assert len(list((root / "train" / "9m").glob("real*.png"))) + len(list((root / "val" / "9m").glob("*.png"))) == 6


def test_labels_snap_to_the_detector_box_on_their_tile():
    from mahjong_lens.training.train import snap_to_detector
    tile_a, tile_b, far = (0, 0, 30, 40), (30, 0, 60, 40), (200, 200, 230, 240)
    shifted = (10, 0, 40, 40)  # a label slid a third of a tile off tile A, onto B
    assert snap_to_detector([shifted, (100, 100, 130, 140)], [tile_b, tile_a, far]) == [tile_a, None]
    # two labels over one box: the closer takes it, the other keeps nothing
    assert snap_to_detector([(2, 0, 32, 40), tile_a], [tile_a]) == [None, tile_a]
    assert snap_to_detector([tile_a], []) == [None]


def test_hard_examples_are_the_tiles_the_reader_gets_wrong_on_its_own_boxes():
    from mahjong_lens.training.train import hard_examples
    names = ["1m", "2m", "3m", "back"]
    labels = [("1m", (0, 0, 30, 40)), ("2m", (30, 0, 60, 40)), ("3m", (60, 0, 90, 40)),
              ("back", (90, 0, 120, 40)), ("1m", (300, 0, 330, 40))]
    # the reader's boxes: on the first four tiles (the second shifted a little), none on the fifth
    found = np.array([(0, 0, 30, 40), (33, 0, 63, 40), (60, 0, 90, 40), (90, 0, 120, 40)], np.float32)
    probabilities = np.array([
        [0.9, 0.05, 0.05, 0.0],   # 1m read right and sure: not hard
        [0.1, 0.3, 0.6, 0.0],     # 2m read 3m: hard
        [0.2, 0.35, 0.45, 0.0],   # 3m read right but unsure (below 0.5): hard
        [0.0, 0.0, 0.1, 0.9]])    # back read right: not hard
    paired, hard = hard_examples(labels, found, probabilities, names)
    assert paired == 4  # the fifth tile has no box: the detector's miss, not the classifier's
    assert [tile for tile, _ in hard] == ["2m", "3m"]
    assert hard[0][1] == (33.0, 0.0, 63.0, 40.0)  # cut where the reader looked, not at the label
    # a box only half on its tile (IoU below 0.5) teaches nothing
    paired, hard = hard_examples([("2m", (30, 0, 60, 40))], np.array([(45, 0, 75, 40)], np.float32),
                                 probabilities[1:2], names)
    assert (paired, hard) == (0, [])
    assert hard_examples(labels, found, probabilities, names, sure=0.3)[1] == [("2m", (33.0, 0.0, 63.0, 40.0))]


@needs_train
def test_hard_crops_never_come_from_a_benchmark_seed(tmp_path: Path, capsys):
    from mahjong_lens.training import train
    parser = __import__("argparse").ArgumentParser()
    train.configure_parser(parser)
    args = parser.parse_args(["--stage", "classifier", "--work", str(tmp_path), "--hard-scenes", "5",
                              "--hard-seed", "2000", "--resume", "--data", str(tmp_path / "data")])
    assert train.run(args) == 2
    assert "--hard-seed 2000 is a benchmark's seed" in capsys.readouterr().err
    assert not (tmp_path / "classifier-data").exists()  # refused before any data is prepared


def test_classifier_crops_can_be_cut_at_the_detector_boxes(tmp_path: Path):
    import cv2
    from mahjong_lens.training.train import prepare_classifier_data
    data = _fake_data_dir(tmp_path / "data")
    images = data / "real" / "chinese-mixed" / "train" / "images"
    # a turned copy of a row of six tiles, labelled with inflated (square, too large) boxes
    name = "hand_090_jpg.rf.c.jpg"
    assert not is_dev_photo(name)
    photo = np.full((400, 400, 3), 200, np.uint8)
    tight = [(int(400 * (0.15 + 0.1 * k - 0.03)), 184, int(400 * (0.15 + 0.1 * k + 0.03)), 216) for k in range(6)]
    for x1, y1, x2, y2 in tight:
        photo[y1:y2, x1:x2] = 250
    cv2.imwrite(str(images / name), photo)
    (images.parent / "labels" / "hand_090_jpg.rf.c.txt").write_text(
        "".join(f"{k + 1} {0.15 + 0.1 * k:.2f} 0.5 0.09 0.09\n" for k in range(6)))  # 2m..7m

    def detector(image: np.ndarray) -> np.ndarray:
        # the tight tiles of the turned copy; nothing in the other photos
        return np.array(tight if (image == 250).any() else [], np.float32).reshape(-1, 4)

    without = prepare_classifier_data(data, tmp_path / "plain", art_copies=0, size=32)
    assert not list((without / "train" / "2m").glob("real*.png"))  # inflated boxes: left out
    root = prepare_classifier_data(data, tmp_path / "snapped", art_copies=0, size=32, detector=detector)
    for tile in ("2m", "3m", "4m", "5m", "6m", "7m"):
        crops = list((root / "train" / tile).glob("real*.png"))
        assert len(crops) == 1, tile
        # cut at the tight, standing box, so padded at its sides to a square (the square
        # label box would need no padding)
        assert (cv2.imread(str(crops[0])) == 114).all(axis=2).mean() > 0.1
    # the 1m photos, where the detector finds nothing, keep their labelled boxes
    assert len(list((root / "train" / "1m").glob("real*.png"))) == 1


def test_detector_training_set_is_one_class_with_screens(tmp_path: Path):
    from mahjong_lens.training.train import prepare_detector_data
    data = _fake_data_dir(tmp_path / "data")
    yaml = prepare_detector_data(data, tmp_path / "work", screen_count=2)
    root = yaml.parent
    train_labels = sorted((root / "labels" / "train").glob("*.txt"))
    assert len(list((root / "labels" / "val").glob("*.txt"))) == 1
    assert len(train_labels) == 3  # one real photo, two screen captures
    rows = [line.split() for f in train_labels for line in f.read_text().splitlines()]
    assert rows and all(r[0] == "0" for r in rows)
    assert "names:\n  0: tile" in yaml.read_text()


def test_turned_labels_follow_the_picture_turned_a_quarter():
    from mahjong_lens.training.train import turn_labels
    image = np.zeros((100, 200, 3), np.uint8)
    image[10:40, 120:150] = 255  # a box at x 120-150, y 10-40 of a 200 x 100 picture
    rows = [(3, 135 / 200, 25 / 100, 30 / 200, 30 / 100)]
    for turns in (1, 2, 3):
        turned = np.rot90(image, turns)
        th, tw = turned.shape[:2]
        _, cx, cy, w, h = turn_labels(rows, turns)[0]
        ys, xs = np.nonzero(turned[..., 0])
        # the label is the white patch's box in the turned picture, to the pixel
        assert abs(cx * tw - (xs.min() + xs.max() + 1) / 2) < 1e-6 and abs(w * tw - (xs.max() + 1 - xs.min())) < 1e-6
        assert abs(cy * th - (ys.min() + ys.max() + 1) / 2) < 1e-6 and abs(h * th - (ys.max() + 1 - ys.min())) < 1e-6
    assert turn_labels(rows, 4) == [pytest.approx(row) for row in rows]


def test_turned_boxes_follow_the_picture_and_three_turns_turn_them_back():
    from mahjong_lens.vision.detections import turned_boxes
    image = np.zeros((100, 200, 3), np.uint8)
    image[10:40, 120:150] = 255  # a box at x 120-150, y 10-40 of a 200 x 100 picture
    box = np.array([[120, 10, 150, 40]])
    for turns in (1, 2, 3):
        ys, xs = np.nonzero(np.rot90(image, turns)[..., 0])
        assert turned_boxes(box, 200, 100, turns).tolist() == [[xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]]
    once = turned_boxes(box, 200, 100, 1)  # now in a 100 x 200 picture
    assert turned_boxes(once, 100, 200, 3).tolist() == box.tolist()


def test_detector_training_set_can_hold_quarter_turned_hand_rows(tmp_path: Path):
    import cv2
    from mahjong_lens.training.train import prepare_detector_data
    data = _fake_data_dir(tmp_path / "data")
    images = data / "real" / "chinese-mixed" / "train" / "images"
    # a scattered single-tile photo is not turned (only tiles standing side by side are) ...
    cv2.imwrite(str(images / "7_n_jpg.rf.d.jpg"), np.full((200, 200, 3), 90, np.uint8))
    (images.parent / "labels" / "7_n_jpg.rf.d.txt").write_text("8 0.5 0.5 0.1 0.1\n")
    # ... but one whose labels lay out as a hand on the table is
    hand = [CLASS_NAMES.index(t) for t in "1m 2m 3m 4p 5p 6p 7s 8s 9s 2z 2z 2z 5z 5z".split()]
    cv2.imwrite(str(images / "8_n_jpg.rf.e.jpg"), np.full((200, 400, 3), 90, np.uint8))
    (images.parent / "labels" / "8_n_jpg.rf.e.txt").write_text(
        "".join(f"{c} {(30 + 25 * k) / 400:.4f} 0.5 {22 / 400:.4f} 0.15\n" for k, c in enumerate(hand)))
    root = prepare_detector_data(data, tmp_path / "work", turned=True).parent
    turned = sorted((root / "images" / "train").glob("turned*"))
    assert len(turned) == 2 and sum("8_n_jpg" in t.name for t in turned) == 1
    turned = [t for t in turned if "hand_001" in t.name]
    assert len(turned) == 1  # the dev photo stays out
    picture = cv2.imread(str(turned[0]))
    _, cx, cy, w, h = map(float, (root / "labels" / "train" / (turned[0].stem + ".txt")).read_text().split())
    # the tile (the bright patch of the fake photo) is where the turned label says
    x1, y1 = int(round((cx - w / 2) * 200)), int(round((cy - h / 2) * 200))
    x2, y2 = int(round((cx + w / 2) * 200)), int(round((cy + h / 2) * 200))
    assert picture[y1 + 2:y2 - 2, x1 + 2:x2 - 2].min() > 200
    assert picture.mean() < 120  # and the rest is the dark table


def test_a_model_is_read_at_the_size_it_was_trained_at():
    from mahjong_lens.vision.recognizer import trained_size

    class Metadata:
        custom_metadata_map = {"imgsz": "[512, 512]"}

    class Session:  # an onnxruntime session of an ultralytics export
        def get_modelmeta(self):
            return Metadata()

    class Checkpointed:  # an ultralytics YOLO model loaded from a .pt
        ckpt = {"train_args": {"imgsz": 320}}

    assert trained_size(Checkpointed(), Session()) == 512
    assert trained_size(Checkpointed()) == 320
    assert trained_size(object(), default=416) == 416


def test_photos_whose_labels_lay_out_as_a_hand_are_reported_as_hands(tmp_path: Path):
    import cv2
    from mahjong_lens.training.evaluate import HAND_ROW, TURNED, evaluate, lays_out_as_hand
    faces = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2z 2z 2z 5z 5z".split()
    row = [Truth(face, (20 + 32 * k, 40, 50 + 32 * k, 80)) for k, face in enumerate(faces)]
    assert lays_out_as_hand(row)
    assert not lays_out_as_hand(row[:9])  # too few for a hand
    # nine tiles and three seasons beside them: twelve tiles, not a hand (each bonus tile
    # counted once: a hand's detections already hold its flowers)
    seasons = [Truth(face, (20 + 32 * k, 40, 50 + 32 * k, 80)) for k, face in zip(range(9, 12), ("5f", "6f", "7f"))]
    assert not lays_out_as_hand(row[:9] + seasons)
    assert lays_out_as_hand(row[:10] + seasons)
    grid = [Truth(face, (20 + 60 * (k % 3), 20 + 90 * (k // 3), 60 + 60 * (k % 3), 75 + 90 * (k // 3)))
            for k, face in enumerate(faces[:9])]
    assert not lays_out_as_hand(grid)  # a grid of tiles: rows of three
    images, labels = tmp_path / "images", tmp_path / "labels"
    images.mkdir(), labels.mkdir()
    image = np.full((120, 500, 3), 90, np.uint8)
    items = []
    for name, truths in (("1_2_n_jpg.rf.a", row), ("3_4_n_jpg.rf.b", row[:9])):
        cv2.imwrite(str(images / f"{name}.png"), image)
        (labels / f"{name}.txt").write_text("".join(
            f"{CLASS_NAMES.index(t.tile)} {(t.box[0] + t.box[2]) / 1000:.5f} {(t.box[1] + t.box[3]) / 240:.5f} "
            f"{(t.box[2] - t.box[0]) / 500:.5f} {(t.box[3] - t.box[1]) / 120:.5f}\n" for t in truths))
        items.append(("chinese-mixed/single-tiles", images / f"{name}.png", labels / f"{name}.txt"))
    scores, _, _ = evaluate(_BrightPatchReader(), items, progress=False, turned=True)
    assert scores["chinese-mixed/single-tiles" + HAND_ROW].images == 1
    assert scores["chinese-mixed/single-tiles"].images == 1
    assert scores["chinese-mixed/single-tiles" + HAND_ROW + TURNED].images == 1
    assert scores["all"].images == 2


class _FixedReader:
    """A stand-in recogniser that reads whatever it was given, photo after photo."""

    def __init__(self, readings: list[list[TileDetection]]) -> None:
        self.readings = list(readings)

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        return self.readings.pop(0)


def test_eval_counts_hands_read_exactly_apart_from_the_tiles_around_them(tmp_path: Path):
    import cv2
    from mahjong_lens.training.evaluate import HAND_ROW, evaluate, format_table, hand_read_exactly, reference_hand
    faces = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2z 2z 2z 5z 5z".split()
    row = [Truth(face, (20 + 32 * k, 200, 50 + 32 * k, 240)) for k, face in enumerate(faces)]
    discard = TileDetection("9p", (300, 20, 330, 60), 0.9)  # on the table, not labelled
    hand = [TileDetection(t.tile, t.box, 0.9) for t in row]
    assert reference_hand(row, hand_rows=False) == Counter(faces)
    assert reference_hand(row[:9], hand_rows=False) is None      # no hand: not a hand photo
    assert reference_hand(row[:9], hand_rows=True) == Counter(faces[:9])  # a hand_* photo: every label
    assert hand_read_exactly(hand + [discard], Counter(faces))
    misread = [TileDetection("3m" if k == 0 else d.tile, d.box, 0.9) for k, d in enumerate(hand)]
    assert not hand_read_exactly(misread, Counter(faces))

    images, labels = tmp_path / "images", tmp_path / "labels"
    images.mkdir(), labels.mkdir()
    items = []
    for name in ("1_2_n_jpg.rf.a", "3_4_n_jpg.rf.b"):
        cv2.imwrite(str(images / f"{name}.png"), np.full((300, 500, 3), 90, np.uint8))
        (labels / f"{name}.txt").write_text("".join(
            f"{CLASS_NAMES.index(t.tile)} {(t.box[0] + t.box[2]) / 1000:.5f} {(t.box[1] + t.box[3]) / 600:.5f} "
            f"{(t.box[2] - t.box[0]) / 500:.5f} {(t.box[3] - t.box[1]) / 300:.5f}\n" for t in row))
        items.append(("chinese-mixed/single-tiles", images / f"{name}.png", labels / f"{name}.txt"))
    # the first photo: the hand right and a discard besides (not exact box by box);
    # the second: one tile of the hand misread
    scores, _, records = evaluate(_FixedReader([hand + [discard], misread]), items, progress=False)
    source = scores["chinese-mixed/single-tiles" + HAND_ROW]
    assert (source.images, source.exact, source.hands, source.hands_exact) == (2, 0, 2, 1)
    assert [r["hand_read_exactly"] for r in records] == [True, False]
    assert source.to_dict()["hands_read_exactly"] == 1
    table = format_table("ours", scores)
    assert "hands read" in table.splitlines()[1] and "1/2" in table


def test_eval_counts_the_hands_of_rotated_copies_too(tmp_path: Path):
    """Roboflow's rotated copies of hand rows have inflated (square) labels, so their boxes
    are reported apart; their hands, compared as multisets of tiles, are still counted."""
    import cv2
    from mahjong_lens.training.evaluate import ROTATED, evaluate
    faces = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2z 2z 2z 5z 5z".split()
    row = [Truth(face, (20 + 34 * k, 200, 54 + 34 * k, 234)) for k, face in enumerate(faces)]  # square
    images, labels = tmp_path / "images", tmp_path / "labels"
    images.mkdir(), labels.mkdir()
    cv2.imwrite(str(images / "hand_001_jpg.rf.b.png"), np.full((300, 500, 3), 90, np.uint8))
    (labels / "hand_001_jpg.rf.b.txt").write_text("".join(
        f"{CLASS_NAMES.index(t.tile)} {(t.box[0] + t.box[2]) / 1000:.5f} {(t.box[1] + t.box[3]) / 600:.5f} "
        f"{(t.box[2] - t.box[0]) / 500:.5f} {(t.box[3] - t.box[1]) / 300:.5f}\n" for t in row))
    item = ("chinese-mixed/hand-rows", images / "hand_001_jpg.rf.b.png", labels / "hand_001_jpg.rf.b.txt")
    tight = [TileDetection(t.tile, (t.box[0] + 4, t.box[1], t.box[2] - 4, t.box[3]), 0.9) for t in row]
    scores, _, _ = evaluate(_FixedReader([tight]), [item], progress=False)
    rotated = scores["chinese-mixed/hand-rows" + ROTATED]
    assert (rotated.images, rotated.hands, rotated.hands_exact) == (1, 1, 1)


# ------------------------------------------------------------------ photos outside train/

def _valid_photo(data: Path, name: str, label: str = "4 0.5 0.5 0.2 0.3\n") -> str:
    """A labelled photo in chinese-mixed/valid (a 5m at the centre); its path relative to `data`."""
    import cv2
    images = data / "real" / "chinese-mixed" / "valid" / "images"
    (images.parent / "labels").mkdir(parents=True, exist_ok=True)
    images.mkdir(parents=True, exist_ok=True)
    photo = np.full((200, 200, 3), 90, np.uint8)
    photo[70:130, 80:120] = 240
    photo[10:40, 10:40] = 20  # a dark thing of a tile's size nobody labelled (a die)
    cv2.imwrite(str(images / name), photo)
    (images.parent / "labels" / (Path(name).stem + ".txt")).write_text(label)
    return f"real/chinese-mixed/valid/images/{name}"


def test_a_photo_list_names_photos_with_labels_and_refuses_a_missing_one(tmp_path: Path):
    from mahjong_lens.datasets.real import read_photo_list
    relative = _valid_photo(tmp_path, "IMG_2742_JPG.rf.x.jpg")
    listing = tmp_path / "list.txt"
    listing.write_text(f"# the new set\n\n{relative}  # first half\n")
    assert read_photo_list(listing, tmp_path) == [tmp_path / relative]
    listing.write_text(f"{relative}\nreal/chinese-mixed/valid/images/IMG_9999.jpg\n")
    with pytest.raises(FileNotFoundError, match=r"list.txt:2: no photo with labels"):
        read_photo_list(listing, tmp_path)


def test_listed_photos_outside_train_are_all_training_crops_weighed_more(tmp_path: Path):
    import cv2
    from mahjong_lens.training.train import ALSO_TRAIN_WEIGHT, prepare_classifier_data
    data = _fake_data_dir(tmp_path / "data")
    # a name the development split would take: listed, it is a training photo all the same
    name = next(f"IMG_{n}_JPG.rf.x.jpg" for n in range(2700, 2900) if is_dev_photo(f"IMG_{n}_JPG.rf.x.jpg"))
    photo = data / _valid_photo(data, name)

    def detector(image: np.ndarray) -> np.ndarray:
        # the labelled tile, and the die where the listed photo has no label
        found = [(80, 70, 120, 130)] + ([(10, 10, 40, 40)] if (image == 20).all(axis=2).any() else [])
        return np.array(found, np.float32)

    def read_face_down(image: np.ndarray, labels: list) -> list:
        # the reader reads the die face down in the listed photo, nothing in the others
        return [(10.0, 10.0, 40.0, 40.0)] if (image == 20).all(axis=2).any() else []

    root = prepare_classifier_data(data, tmp_path / "work", art_copies=0, size=32, detector=detector,
                                   real_copies=2, not_a_tile=read_face_down, also_train=[photo])
    fives = list((root / "train" / "5m").glob("real*.png"))
    assert len(fives) == 2 * ALSO_TRAIN_WEIGHT  # weighed more than the photos of train/
    assert not list((root / "val" / "5m").glob("*.png"))
    none = sorted((root / "train" / "none").glob("*.png"))
    assert len(none) == 4 and all((cv2.imread(str(p)) < 60).mean() > 0.5 for p in none)  # the die, four turns
    assert not list((root / "val" / "none").glob("*.png"))
    # without the list the valid/ photo is no part of training
    plain = prepare_classifier_data(data, tmp_path / "plain", art_copies=0, size=32, detector=detector,
                                    not_a_tile=read_face_down)
    assert not list((plain / "train" / "5m").glob("real*.png"))


def test_the_evaluation_leaves_out_the_photos_the_model_trained_on(tmp_path: Path, capsys, monkeypatch):
    import argparse
    from mahjong_lens.training import evaluate as evaluation
    from mahjong_lens.vision import recognizer
    from mahjong_lens.vision.recognizer import ALSO_TRAINED_FILE, also_trained_on
    seen = _valid_photo(tmp_path, "IMG_2742_JPG.rf.x.jpg")
    unseen = _valid_photo(tmp_path, "IMG_2761_JPG.rf.y.jpg")
    model = tmp_path / "model"
    model.mkdir()
    assert also_trained_on(model) == set()
    (model / ALSO_TRAINED_FILE).write_text(f"# trained on\n{Path(seen).name}\n")
    assert also_trained_on(model) == {Path(seen).name}
    measured: list[list[str]] = []

    def evaluate(reader, items, **kwargs):
        measured.append([image.name for _, image, _ in items])
        return {}, Counter(), []
    monkeypatch.setattr(recognizer, "load_recognizer", lambda path=None: _BrightPatchReader())
    monkeypatch.setattr(evaluation, "evaluate", evaluate)
    monkeypatch.setattr(evaluation, "format_table", lambda *a: "")
    monkeypatch.setattr(evaluation, "format_errors", lambda *a: "")
    args = argparse.Namespace(data=[str(tmp_path / "real")], model=str(model), dev=False, peer=False, limit=0,
                              out=str(tmp_path / "out"), conf=None, iou=None, turned=False)
    assert evaluation.run(args) == 0
    assert measured == [[Path(unseen).name]]
    assert "1 photos left out: the model trained on them" in capsys.readouterr().out


@needs_train
def test_the_photos_trained_on_are_published_with_the_weights(tmp_path: Path, monkeypatch, capsys):
    import argparse
    from mahjong_lens.training import train
    from mahjong_lens.vision.recognizer import also_trained_on
    data = tmp_path / "data"
    relative = _valid_photo(data, "IMG_2742_JPG.rf.x.jpg")
    listing = tmp_path / "list.txt"
    listing.write_text(relative + "\n")
    models = tmp_path / "models"
    models.mkdir()
    (models / "also_trained_on.txt").write_text("IMG_0001_JPG.rf.z.jpg\n")  # an earlier run's photo
    given: dict = {}

    def prepare(data_dir, work, **kwargs):
        given.update(kwargs)
        return work / "classifier-data"
    monkeypatch.setattr(train, "MODELS_DIR", models)
    monkeypatch.setattr(train, "prepare_classifier_data", prepare)
    monkeypatch.setattr(train, "_train", lambda *a, **k: tmp_path / "weights")
    monkeypatch.setattr(train, "publish", lambda weights, name: models / name)
    parser = argparse.ArgumentParser()
    train.configure_parser(parser)
    args = parser.parse_args(["--stage", "classifier", "--data", str(data), "--work", str(tmp_path / "work"),
                              "--also-train", str(listing)])
    assert train.run(args) == 0
    assert given["also_train"] == [data / relative]
    # the eval leaves out this run's photos and the earlier run's alike
    assert also_trained_on(models) == {"IMG_2742_JPG.rf.x.jpg", "IMG_0001_JPG.rf.z.jpg"}
    # a list naming a photo that is not there stops the run before any training
    given.clear()
    listing.write_text("real/chinese-mixed/valid/images/gone.jpg\n")
    assert train.run(args) == 2
    assert "list.txt:1: no photo with labels" in capsys.readouterr().err and not given
    listing.unlink()
    assert train.run(args) == 2 and "--also-train" in capsys.readouterr().err


def test_every_box_off_the_labels_of_a_fully_labelled_set_is_no_tile():
    """A set labelled to the last tile in view (--with-set): whatever the reader reads where no
    label is (a book spine read as 1s) is an example of no tile; a box on a label is not,
    nor one that mostly covers a label (a tile half hidden behind it)."""
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    from mahjong_lens.training.train import boxes_on_no_label
    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)
    reader.class_names = ["1s", "back", "none"]
    found = np.array([[0, 0, 10, 10], [40, 0, 50, 10], [44, 0, 54, 10], [60, 0, 70, 10]], np.float32)
    reader.readings = lambda image: (found, np.full(4, 0.9, np.float32), np.full((4, 3), 1 / 3, np.float32))
    labels = [(40.0, 0.0, 50.0, 10.0)]
    boxes = boxes_on_no_label(reader)(np.zeros((10, 80, 3), np.uint8), labels)
    assert boxes == [(0.0, 0.0, 10.0, 10.0), (60.0, 0.0, 70.0, 10.0)]
    assert len(boxes_on_no_label(reader)(np.zeros((10, 80, 3), np.uint8), [])) == 4


def test_a_fully_labelled_set_can_teach_the_detectors_weaker_boxes_as_no_tile():
    """--set-conf: the boxes on no label come from a look of their own at a lower threshold
    (a book spine the detector is 0.2 sure of is an example too), not from the shared look."""
    from mahjong_lens.vision.recognizer import TwoStageRecognizer
    from mahjong_lens.training.train import boxes_on_no_label
    reader = TwoStageRecognizer.__new__(TwoStageRecognizer)
    reader.class_names = ["1s", "back", "none"]
    sure = np.array([[0, 0, 10, 10], [40, 0, 50, 10]], np.float32)
    weak = np.array([[20, 0, 30, 10]], np.float32)
    asked: list = []

    def boxes(image, conf=None):
        asked.append(conf)
        found = sure if conf is None or conf >= 0.35 else np.concatenate([sure, weak])
        return found, np.full(len(found), 0.9, np.float32)
    reader.boxes = boxes
    reader.readings = lambda image: (*boxes(image), np.full((2, 3), 1 / 3, np.float32))
    labels = [(40.0, 0.0, 50.0, 10.0)]
    image = np.zeros((10, 80, 3), np.uint8)
    assert boxes_on_no_label(reader)(image, labels) == [(0.0, 0.0, 10.0, 10.0)]
    assert boxes_on_no_label(reader, conf=0.1)(image, labels) == [(0.0, 0.0, 10.0, 10.0), (20.0, 0.0, 30.0, 10.0)]
    assert asked[-1] == 0.1

def test_a_named_sets_photos_teach_no_tile_from_every_box_off_their_labels(tmp_path: Path):
    import cv2
    from mahjong_lens.training.train import ALSO_TRAIN_WEIGHT, prepare_classifier_data
    data = _fake_data_dir(tmp_path / "data")
    images = data / "real" / "riichi-bluemat" / "train" / "images"
    (images.parent / "labels").mkdir(parents=True), images.mkdir()
    photo = np.full((200, 200, 3), 90, np.uint8)
    photo[70:130, 80:120] = 240  # the labelled 5m
    photo[10:40, 10:40] = 30     # a book spine nobody labelled
    cv2.imwrite(str(images / "set_1.jpg"), photo)
    (images.parent / "labels" / "set_1.txt").write_text("4 0.5 0.5 0.2 0.3\n")

    def detector(image: np.ndarray) -> np.ndarray:
        return np.array([(80, 70, 120, 130)] + ([(10, 10, 40, 40)] if (image == 30).all(axis=2).any() else []),
                        np.float32)

    def off_labels(image: np.ndarray, labels: list) -> list:
        return [tuple(map(float, b)) for b in detector(image) if not any(b[0] < l[2] and l[0] < b[2] for l in labels)]

    root = prepare_classifier_data(data, tmp_path / "work", art_copies=0, size=32, detector=detector,
                                   set_photos=[images / "set_1.jpg"], off_labels=off_labels,
                                   not_a_tile=lambda image, labels: [])
    assert len(list((root / "train" / "5m").glob("real*.png"))) == ALSO_TRAIN_WEIGHT
    none = list((root / "train" / "none").glob("*.png"))
    assert len(none) == 4 and all((cv2.imread(str(p)) < 60).mean() > 0.5 for p in none)  # the spine, four turns


def test_a_box_many_tiles_long_is_no_tile_but_a_row_of_tall_tiles_stays():
    from mahjong_lens.vision.recognizer import _without_long_boxes
    row = [TileDetection("1m", (40.0 * k, 100.0, 40.0 * k + 36.0, 150.0), 0.8) for k in range(8)]
    edge = TileDetection("2s", (0.0, 160.0, 320.0, 200.0), 0.1, face_confidence=0.2)  # a tray's edge
    sideways = TileDetection("3p", (330.0, 110.0, 395.0, 150.0), 0.7)  # a called tile, lying
    kept = _without_long_boxes(row + [edge, sideways])
    assert edge not in kept and sideways in kept and len(kept) == 9
    # a photo stretched tall: every box long, none dropped; too few boxes to judge: none dropped
    stretched = [TileDetection("1m", (40.0 * k, 0.0, 40.0 * k + 36.0, 250.0), 0.8) for k in range(6)]
    assert _without_long_boxes(stretched) == stretched
    assert _without_long_boxes(row[:3] + [edge]) == row[:3] + [edge]


def test_a_back_read_on_bare_felt_is_dropped_and_a_real_back_is_kept():
    """The classifiers take plain felt for a plain back (the blue mat, an empty red table): a
    box read face down whose middle has the colour of the table around the tiles is no tile;
    a back of another colour stays, and a face is never judged by its colour."""
    from mahjong_lens.vision.recognizer import without_felt_backs
    image = np.zeros((400, 600, 3), np.uint8)
    image[:] = (160, 120, 40)                          # blue felt
    image[50:130, 50:110] = (60, 170, 230)             # a yellow back lying face down
    image[50:130, 150:210] = (235, 240, 240)           # an ivory face
    felt_back = TileDetection("back", (300.0, 200.0, 360.0, 280.0), 0.6)
    felt_face = TileDetection("2s", (400.0, 200.0, 460.0, 280.0), 0.6)
    detections = [TileDetection("back", (50.0, 50.0, 110.0, 130.0), 0.9),
                  TileDetection("1m", (150.0, 50.0, 210.0, 130.0), 0.9), felt_back, felt_face]
    kept = without_felt_backs(image, detections)
    assert felt_back not in kept and [d.tile for d in kept] == ["back", "1m", "2s"]
    # a photo the tiles fill leaves no table to compare with: nothing is dropped
    assert without_felt_backs(image[50:130, 50:110].copy(), [TileDetection("back", (0.0, 0.0, 60.0, 80.0), 0.9)])
    # a back the caller vouches for (a concealed kong's) stays whatever its colour
    assert felt_back in without_felt_backs(image, detections, keep={2})


def test_a_concealed_kongs_backs_stay_in_the_tables_colour():
    """A green back on a green table: the felt rule would drop it, but two backs flanking two
    tiles of one face are a concealed kong's (``with_kong_backs`` says which)."""
    from mahjong_lens.vision.recognizer import detections_of
    names = KONG_NAMES
    image = np.zeros((300, 400, 3), np.uint8)
    image[:] = (40, 120, 40)                                   # green felt; the backs the same green
    boxes = np.array([[100, 100, 140, 154], [142, 100, 182, 154], [184, 100, 224, 154], [226, 100, 266, 154]],
                     np.float32)
    image[100:154, 142:224] = (235, 240, 240)                  # the two face-up tiles
    probabilities = np.zeros((4, len(names)), np.float32)
    for k, tile in enumerate(["back", "5m", "5m", "back"]):
        probabilities[k, names.index(tile)] = 0.9
        probabilities[k, names.index("2f")] = 0.1
    conf = np.full(4, 0.7, np.float32)
    assert [d.tile for d in detections_of(image, boxes, conf, probabilities, names)] == ["back", "5m", "5m", "back"]
    # one such back alone, beside a single tile, is felt
    lone = detections_of(image, boxes[[0, 1]], conf[:2], probabilities[[0, 1]], names)
    assert [d.tile for d in lone] == ["5m"]


def test_an_efficientnet_lite0_export_reads_crops_as_a_yolo_classifier_does(tmp_path: Path):
    """`vision.lite_classifier`'s export stands in for a YOLO classifier's ONNX file: the
    recogniser's CropClassifier finds its classes and crop size in the metadata, gets one
    probability row per crop that sums to 1, and the pooled features a taught set compares."""
    pytest.importorskip("efficientnet_lite_pytorch")
    pytest.importorskip("onnxruntime")
    from mahjong_lens.training.lite_classifier import export, tile_net
    from mahjong_lens.vision.recognizer import CropClassifier
    from mahjong_lens.vision.tile_sets import NOT_A_TILE
    classes = sorted(["1m", "2m", "5z", NOT_A_TILE])
    onnx_file = export(None, tmp_path / "tile_classifier.onnx", model=tile_net(len(classes), pretrained=False),
                       classes=classes)
    classifier = CropClassifier(onnx_file.with_suffix(".pt"), "cpu")  # no .pt beside: the export is the model
    assert classifier.class_names == classes and classifier.crop_size == 96
    crops = np.random.default_rng(0).integers(0, 255, (3, 96, 96, 3), dtype=np.uint8)
    probabilities = classifier.probabilities(crops)
    assert probabilities.shape == (3, len(classes))
    assert np.allclose(probabilities.sum(1), 1, atol=1e-4) and probabilities.min() >= 0
    assert classifier.gives_features and classifier.features(crops).shape == (3, 1280)
