"""The benchmark scripts' own arithmetic (they are run by hand, not in CI)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record(image: str, source: str, labelled: int, detected: int, correct: int) -> dict:
    return {"image": image, "source": source, "labelled": labelled, "detected": detected,
            "correct": correct, "exact": labelled == detected == correct}


def test_eval_figures_split_by_photo_name_add_up():
    group = _load("eval_by_group")
    records = [_record("IMG_2745.jpg", "cm/tray", 10, 12, 8), _record("IMG_2023.jpg", "cm/tray", 20, 20, 20),
               _record("IMG_2750.jpg", "cm/tray", 10, 10, 10), _record("hand_1.jpg", "cm/hand-rows", 14, 14, 14)]
    figures = group.group_figures(records, r"^IMG_27", "new set")
    new, rest, tray = figures["cm/tray: new set"], figures["cm/tray: the rest"], figures["cm/tray"]
    assert (new["images"], new["labelled"], new["correct"], new["exact"]) == (2, 20, 18, 1)
    assert new["recall"] == pytest.approx(0.9) and new["precision"] == pytest.approx(18 / 22)
    assert rest["recall"] == 1.0 and tray["labelled"] == new["labelled"] + rest["labelled"]
    # a source with no matching photo is not split
    assert "cm/hand-rows: the rest" not in figures and figures["cm/hand-rows"]["images"] == 1


def test_eval_by_group_says_what_it_cannot_read(tmp_path: Path, capsys):
    group = _load("eval_by_group")
    assert group.main([str(tmp_path / "missing.json"), "--pattern", "x"]) == 2
    report = tmp_path / "eval.json"
    report.write_text(json.dumps({"ours": {"images": [_record("IMG_2745.jpg", "cm/tray", 4, 4, 4)]}}))
    assert group.main([str(report), "--pattern", "(unclosed"]) == 2
    assert "cannot use" in capsys.readouterr().err
    assert group.main([str(report), "--pattern", "^IMG"]) == 0
    assert "cm/tray" in capsys.readouterr().out


def test_the_real_hands_benchmark_tells_a_hand_that_could_win_from_one_that_cannot():
    from collections import Counter
    from mahjong_lens.rules.tiles import parse_tiles
    could_win = _load("scan_real_hands").could_win
    tiles = lambda text: Counter(parse_tiles(text))  # noqa: E731
    assert could_win(tiles("123m456p789s111z55z"))             # complete as it lies
    assert could_win(tiles("123m456p789s111z5z"))              # one tile short: asked which
    assert could_win(tiles("1111m456p789s111z55z"))            # a kong laid in the row
    assert could_win(tiles("19m19p19s1234567z1z"))             # thirteen orphans
    assert could_win(tiles("123m456p789s111z55z1f"))           # a flower is no part of it
    assert not could_win(tiles("147m258p369s12345z"))          # fourteen odd tiles: no win
    assert not could_win(tiles("147m258p369s1234z"))           # thirteen, one short of nothing


SYNTHETIC_OUTPUT = """synthetic hands in clear view (seed 2000, camera >= 55 deg above the table)
                              hands  tiles right  read exactly
  all                            60    34  56.7%     33  55.0%
  elevation < 70 deg             28    15  53.6%     14  50.0%
  with melds                     40    22  55.0%     21  52.5%
tiles of the hands found: recall 0.895 (750/838), precision 0.954 (750/786)
"""

REAL_OUTPUT = """hand photos: 68
hand read exactly (tiles of the hand found = the labelled hand): 54/68 = 0.794
the same, flowers and seasons aside (none scores them): 59/68 = 0.868
the same against every label (discards labelled too):  48/68 = 0.706
"""


def test_the_model_comparison_reads_the_benchmarks_figures():
    compare = _load("compare_models")
    assert compare.synthetic_figures(SYNTHETIC_OUTPUT) == {"hands": 60, "exact": 33, "melds": 21}
    assert compare.synthetic_figures("no table here") == {}
    assert compare.real_hand_figures(REAL_OUTPUT) == {"hands": 68, "exact": 54, "flowers aside": 59}


def test_the_model_comparison_marks_every_figure_the_candidate_drops():
    compare = _load("compare_models")
    source = {"images": 33, "recall": 0.978, "precision": 0.961, "exact": 24}
    baseline = {"eval": {"riichi-bluemat": source, "all": dict(source, images=381, exact=305)},
                "synthetic seed 2000": {"hands": 60, "exact": 33, "melds": 21}}
    candidate = {"eval": {"riichi-bluemat": dict(source, precision=0.975, exact=26),  # better
                          "all": dict(source, images=381, exact=304)},                # one photo fewer
                 "synthetic seed 2000": {"hands": 60, "exact": 40, "melds": 20}}      # melds drop
    table = {row[0]: row for row in compare.rows(baseline, candidate)}
    bluemat = table["riichi-bluemat valid/"]
    assert bluemat[1:4] == ("0.978 / 0.961, 24/33", "0.978 / 0.975, 26/33", ">= 0.97 (issue 31)")
    assert not bluemat[4]
    assert table["valid/ all"][4]
    synthetic = table["synthetic seed 2000 (exact, melds)"]
    assert synthetic[1:3] == ("33 / 21 of 60", "40 / 20 of 60") and synthetic[4]
    assert "48 of 60" in synthetic[3]


def test_the_model_comparison_needs_weights_to_compare(tmp_path, capsys):
    compare = _load("compare_models")
    (tmp_path / "empty").mkdir()
    assert compare.main(["--candidate", str(tmp_path / "empty"), "--work", str(tmp_path / "work")]) == 2
    assert "holds none of tile_detector.pt" in capsys.readouterr().err


def test_the_synthetic_benchmark_reads_given_boxes_as_the_recogniser_would():
    import numpy as np
    benchmark = _load("scan_synthetic_hands")
    names = ["1m", "2m", "none"]

    class Reader:  # classifiers that call a box 1m where its crop is bright, else no tile
        class_names, crop_size, unsure_box = names, 32, (0.5, 0.5)

        @staticmethod
        def classify(crops):
            return np.array([[0.9, 0.1, 0.0] if crop.mean() > 128 else [0.0, 0.05, 0.95] for crop in crops],
                            np.float32)

    image = np.zeros((200, 300, 3), np.uint8)
    image[20:80, 20:60] = 255  # a bright tile; the second box lies on dark felt
    found = benchmark.read_given_boxes(Reader, image, [(20, 20, 60, 80), (150, 100, 190, 160)])
    assert [(d.tile, tuple(round(v) for v in d.box)) for d in found] == [("1m", (20, 20, 60, 80))]
    assert found[0].confidence == pytest.approx(0.9 * 0.9)


def test_the_synthetic_benchmark_says_how_a_scan_ends_for_the_player():
    from mahjong_lens.rules.tiles import parse_tiles
    from mahjong_lens.vision.detections import TileDetection
    from mahjong_lens.vision.scan import scan_detections
    benchmark = _load("scan_synthetic_hands")
    tiles = parse_tiles("123m456p789s55z111z")

    def scanned(doubtful_at=None):
        found = [TileDetection(t, (60.0 + 70 * k, 150.0, 126.0 + 70 * k, 240.0), 0.9,
                               face_confidence=0.5 if k == doubtful_at else 0.99) for k, t in enumerate(tiles)]
        return scan_detections(found, 1200, 400, {"self_drawn": True, "win_tile": "1z"}, "rode-draak")

    everywhere = [(0, 0, 1200, 400)]
    meta = {"concealed": "123m456p789s55z111z", "melds": [], "win_tile": "1z"}
    truth = benchmark.true_result(meta, "rode-draak")
    assert truth["valid"]
    assert benchmark.outcome(scanned(), everywhere, truth) == "right score"
    other = benchmark.true_result({**meta, "concealed": "123m456p789s55z222z", "win_tile": "2z"}, "rode-draak")
    assert other["valid"] and other["points"] != truth["points"]
    assert benchmark.outcome(scanned(), everywhere, other) == "wrong score, nothing marked"
    assert benchmark.outcome(scanned(doubtful_at=0), everywhere, other) == "wrong score, tile marked"
    assert benchmark.outcome(scanned(), [(5000, 5000, 5001, 5001)], truth) == "no score"  # the hand not found
    dead = benchmark.true_result({**meta, "concealed": "147m258p369s1234z5z", "win_tile": "5z"}, "rode-draak")
    assert not dead["valid"]
    assert benchmark.outcome(scanned(), [(5000, 5000, 5001, 5001)], dead) == "no score, as the hand has none"
