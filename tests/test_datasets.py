"""Tests of the training data: class list, synthetic photos, the real/synthetic mix, one training step."""

from __future__ import annotations

import argparse
import importlib.util
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from mahjong_lens.datasets import real, synth
from mahjong_lens.datasets.art import default_art_dir, load_styles
from mahjong_lens.vision.classes import (
    CANONICAL_NAMES,
    CLASS_NAMES,
    FLOWERS,
    NUM_CLASSES,
    class_index,
    class_name,
    tiles_to_notation,
)

ART = default_art_dir()
needs_art = pytest.mark.skipif(not ART.is_dir(), reason=f"no tile art at {ART} (set MAHJONG_LENS_DATA)")


@pytest.fixture(scope="module")
def styles():
    if not ART.is_dir():
        pytest.skip(f"no tile art at {ART}")
    return load_styles([ART])


def _synth_args(out: Path, **kw) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    synth.configure_parser(p)
    argv = ["--out", str(out)]
    for k, v in kw.items():
        argv += [f"--{k.replace('_', '-')}"] + ([] if v is True else [str(v)])
    return p.parse_args(argv)


# --------------------------------------------------------------------------- classes


def test_class_list():
    assert NUM_CLASSES == len(CLASS_NAMES) == 46
    assert CLASS_NAMES[:9] == tuple(f"{n}m" for n in range(1, 10))
    assert CLASS_NAMES[27:34] == tuple(f"{n}z" for n in range(1, 8))
    assert CLASS_NAMES[34:42] == FLOWERS and CANONICAL_NAMES == CLASS_NAMES[:42]
    assert CLASS_NAMES[42:] == ("0m", "0p", "0s", "back")
    for i, n in enumerate(CLASS_NAMES):
        assert class_index(n) == i and class_name(i) == n
    with pytest.raises(KeyError):
        class_index("10m")
    assert tiles_to_notation(["2m", "3m", "0p", "5z", "5z"]) == "23m0p55z"
    assert tiles_to_notation([]) == ""


def test_real_data_yaml_agrees_with_class_list():
    yaml = pytest.importorskip("yaml")
    p = ART.parent / "real" / "riichi-tray" / "data.yaml"
    if not p.exists():
        pytest.skip("no shared real data")
    names = yaml.safe_load(p.read_text())["names"]
    names = [names[i] for i in sorted(names)] if isinstance(names, dict) else names
    assert tuple(names) == CANONICAL_NAMES


# --------------------------------------------------------------------------- synthetic photos


@needs_art
def test_same_seed_same_files(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert synth.run(_synth_args(a, count=6, seed=7, size=192, workers=1, quiet=True)) == 0
    assert synth.run(_synth_args(b, count=6, seed=7, size=192, workers=2, quiet=True)) == 0
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.parent.name in ("images", "labels", "meta"))
    assert len(files) == 18
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f
    c = tmp_path / "c"
    synth.run(_synth_args(c, count=2, seed=8, size=192, workers=1, quiet=True))
    assert (c / "labels" / "synth_s8_000000.txt").read_bytes() != (a / "labels" / "synth_s7_000000.txt").read_bytes()
    # the data set around the images
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load((a / "data.yaml").read_text())
    assert data["nc"] == 46 and [data["names"][i] for i in range(46)] == list(CLASS_NAMES)
    train = (a / "train.txt").read_text().split()
    val = (a / "val.txt").read_text().split()
    assert len(train) + len(val) == 6 and not set(train) & set(val)
    sheet = cv2.imread(str(a / "contact_sheet.png"))
    assert sheet is not None and sheet.shape[0] >= 400


@needs_art
def test_render_scene_is_deterministic(styles):
    img1, boxes1 = synth.render_scene(np.random.default_rng(3), 160, styles=styles)
    img2, boxes2 = synth.render_scene(np.random.default_rng(3), 160, styles=styles)
    assert img1.shape == (160, 160, 3) and img1.dtype == np.uint8
    assert np.array_equal(img1, img2) and boxes1 == boxes2


@needs_art
def test_every_label_inside_the_image_on_a_visible_tile(styles):
    n_boxes = 0
    for i in range(36):
        kind = synth.KINDS[i % 4]
        res = synth.render_scene_full(np.random.default_rng(1000 + i), (256, 224), styles=styles, kind=kind)
        h, w = res.image.shape[:2]
        assert (w, h) == (256, 224)
        for b in res.boxes:
            k = res.tiles.index(b)
            x1, y1, x2, y2 = b.box
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h, b
            ix1, iy1, ix2, iy2 = int(x1), int(y1), int(x2), int(y2)
            sub = res.ids[iy1:iy2, ix1:ix2]
            ident = np.count_nonzero(sub == 2 * k + 3)  # the tile's own face (or back) shows
            body = np.count_nonzero((sub == 2 * k + 2) | (sub == 2 * k + 3))
            assert ident >= synth.MIN_FACE_PX, b
            assert body >= 0.2 * (x2 - x1) * (y2 - y1), b  # the box is around this tile, not beside it
            # the box is tight: the tile touches all four sides of it
            rows = np.nonzero(((sub == 2 * k + 2) | (sub == 2 * k + 3)).any(axis=1))[0]
            cols = np.nonzero(((sub == 2 * k + 2) | (sub == 2 * k + 3)).any(axis=0))[0]
            assert rows[0] == 0 and cols[0] == 0 and rows[-1] == sub.shape[0] - 1 and cols[-1] == sub.shape[1] - 1
            assert b.visible >= synth.MIN_VISIBLE
            assert (b.tile == "back") == b.face_down and b.cls == class_index(b.tile)
            line = b.yolo(w, h).split()
            assert int(line[0]) == b.cls and all(0 <= float(v) <= 1 for v in line[1:])
        n_boxes += len(res.boxes)
    assert n_boxes > 300


@needs_art
def test_class_balance(styles):
    counts: Counter = Counter()
    for i in range(300):
        _, boxes = synth.render_scene(np.random.default_rng([42, i]), 224, styles=styles)
        counts.update(b.tile for b in boxes)
    total = sum(counts.values())
    assert total > 2000
    assert not [n for n in CLASS_NAMES if counts[n] == 0]  # every class, flowers and red fives too
    assert min(counts[f] for f in FLOWERS) >= 5
    assert counts["back"] / total < 0.3
    for n in CLASS_NAMES:
        if n != "back":
            assert counts[n] / total < 0.06, (n, counts[n] / total)
    for n in ("0m", "0p", "0s"):
        assert counts[n] >= 10, (n, counts[n])


@needs_art
def test_styles_only_draw_what_they_have(styles):
    fluffy = [s for s in styles if s.name == "fluffy_regular"]
    post = [s for s in styles if s.name == "gnome_postmodern"]
    if not fluffy or not post:
        pytest.skip("style missing")
    seen: Counter = Counter()
    for i in range(12):
        for st in (fluffy[0], post[0]):
            _, boxes = synth.render_scene(np.random.default_rng(i), 128, styles=[st], kind=("scatter", "tray")[i % 2])
            seen.update((st.name, b.tile) for b in boxes)
    assert not any(seen[("fluffy_regular", f)] for f in FLOWERS)
    assert seen[("gnome_postmodern", "5z")] == 0
    assert sum(seen[("gnome_postmodern", f)] for f in FLOWERS) > 0


@needs_art
def test_scene_metadata_describes_the_hand(styles):
    checked = 0
    for seed in range(80):
        res = synth.render_scene_full(np.random.default_rng(seed), 192, styles=styles, kind="hand")
        hand = res.meta["hands"][0]
        mine = [t for t in res.tiles if t.player == 0 and t.group in ("concealed", "win")]
        mine.sort(key=lambda t: t.index)
        assert tiles_to_notation([t.face for t in mine]) == hand["concealed"]
        wins = [t for t in mine if t.group == "win"]
        assert len(wins) == (1 if hand["win_tile"] else 0)
        if wins:
            assert wins[0].face == hand["win_tile"] and wins[0].index == len(mine) - 1
        n_meld_tiles = 0
        for mi, meld in enumerate(hand["melds"]):
            tiles = [t for t in res.tiles if t.player == 0 and t.group == "meld" and t.meld == mi]
            n_meld_tiles += min(len(tiles), 3)
            assert len(tiles) == len(meld["tiles"].rstrip("mpsz"))
            if meld["open"]:
                assert 1 <= sum(t.sideways for t in tiles) <= 2
            else:  # a concealed kong: ends turned face down, nothing sideways
                assert not any(t.sideways for t in tiles)
                assert sum(t.face_down for t in tiles) in (2, 4)
        assert len(mine) + n_meld_tiles == 13 + (1 if hand["win_tile"] else 0)
        dora = [t for t in res.tiles if t.group == "dora"]
        if res.meta["dead_wall"]:
            assert [t.face for t in sorted(dora, key=lambda t: t.index)] == res.meta["dead_wall"]["dora_indicators"]
            assert all(t.tile == "back" for t in res.tiles if t.group == "dead_wall" and t.labelled)
            assert all(not t.face_down for t in dora if t.labelled)
        checked += 1
    assert checked == 80


@needs_art
def test_speed_at_640(styles):
    rng = np.random.default_rng(5)
    synth.render_scene(rng, 640, styles=styles)  # warm the caches
    import time

    t0 = time.process_time()
    for i in range(10):
        synth.render_scene(np.random.default_rng(i), 640, styles=styles)
    per_image = (time.process_time() - t0) / 10
    assert per_image < 0.1  # >= 10/s even on a loaded test machine; the CLI reports the real rate


# --------------------------------------------------------------------------- the mix


def _fake_source(root: Path, split_sets: dict[str, list[str]]) -> None:
    for split, names in split_sets.items():
        base = root / split if split else root
        (base / "images").mkdir(parents=True, exist_ok=True)
        (base / "labels").mkdir(parents=True, exist_ok=True)
        for n in names:
            cv2.imwrite(str(base / "images" / n), np.zeros((8, 8, 3), np.uint8))
            (base / "labels" / (Path(n).stem + ".txt")).write_text("3 0.5 0.5 0.2 0.3\n")


def test_photo_group():
    assert real.photo_group("hand_001_jpg.rf.50c25d7942ab3b1ae4639caefb451d81.jpg") == "hand_001_jpg"
    assert real.photo_group("a/b/IMG_1.jpg") == "IMG_1"


def test_mix_keeps_copies_of_a_photo_together(tmp_path):
    src = tmp_path / "real"
    photos = [f"p{i:02d}_jpg.rf.{h}.jpg" for i in range(40) for h in ("aa", "bb", "cc")]
    _fake_source(src / "tray", {"train": photos, "valid": ["v1_jpg.rf.x.jpg", "v2_jpg.rf.y.jpg"]})
    # a second source holding some of the same photos, and a source without splits
    _fake_source(src / "other", {"train": [f"p0{i}_jpg.rf.zz.jpg" for i in range(5)], "valid": ["v1_jpg.rf.q.jpg"]})
    _fake_source(src / "plain", {"": [f"q{i}_jpg.rf.{h}.jpg" for i in range(30) for h in "ab"]})
    (src / "crops" / "images").mkdir(parents=True)  # no labels: not a source
    out = tmp_path / "mix"
    p = argparse.ArgumentParser()
    real.configure_parser(p)
    assert real.run(p.parse_args(["--out", str(out), "--real", str(src), "--seed", "3"])) == 0
    train = (out / "train.txt").read_text().split()
    val = (out / "val.txt").read_text().split()
    g_train = {real.photo_group(x) for x in train}
    g_val = {real.photo_group(x) for x in val}
    assert not g_train & g_val
    assert {"v1_jpg", "v2_jpg"} <= g_val  # the published validation photos stay validation
    assert not any("/tray/p" in x for x in val)  # a source with valid/ gives no training photo to val
    plain_val = [x for x in val if "/plain/" in x]
    assert 0 < len({real.photo_group(x) for x in plain_val}) < 30
    # a photo two sources hold comes from the first of them only (sources of a folder in name order)
    assert sum("/other/p0" in x for x in train) == 5
    assert not any(f"/tray/p0{i}_" in x for x in train + val for i in range(5))
    assert sum("/tray/p" in x for x in train) == 35 * 3
    for line in train + val:  # ultralytics finds every image and its label through the links
        img = out / line[2:]
        lab = Path(str(img).replace("/images/", "/labels/")).with_suffix(".txt")
        assert img.is_symlink() and img.resolve().is_file() and lab.resolve().is_file()
        assert src in img.resolve().parents
    assert not any(p.is_file() and not p.is_symlink() and p.suffix == ".jpg" for p in out.rglob("*"))
    # the split is fixed: the same again, and another seed splits 'plain' differently
    before = (out / "val.txt").read_text()
    real.write_mix(out, [src], seed=3)
    assert (out / "val.txt").read_text() == before
    other = real.write_mix(tmp_path / "mix2", [src], seed=4)
    assert other["val_groups"] != real.write_mix(out, [src], seed=3)["val_groups"]


@needs_art
def test_mix_with_a_synthetic_set(tmp_path):
    syn = tmp_path / "syn"
    synth.generate(syn, 5, seed=1, size=96, workers=1, progress=False, sheet=False)
    src = tmp_path / "tray"
    _fake_source(src, {"train": ["a_jpg.rf.1.jpg"], "valid": ["b_jpg.rf.1.jpg"]})
    s = real.write_mix(tmp_path / "mix", [src], [syn], real_repeat=3)
    train = (tmp_path / "mix" / "train.txt").read_text().split()
    assert train.count("./images/tray/a_jpg.rf.1.jpg") == 3
    syn_lines = [x for x in train if x.startswith("./images/synth/")]
    assert len(syn_lines) == 4  # every image but the one synth put in val
    for line in syn_lines:
        assert (tmp_path / "mix" / line[2:]).resolve().is_file()
        assert (tmp_path / "mix" / line[2:].replace("images/", "labels/", 1)).with_suffix(".txt").resolve().is_file()
    assert s["val_images"] == 1


# --------------------------------------------------------------------------- one training step


@needs_art
@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is None, reason="ultralytics not installed")
def test_one_ultralytics_training_step(tmp_path, monkeypatch):
    monkeypatch.setenv("YOLO_OFFLINE", "1")  # never reach for the network (no weights, no fonts)
    monkeypatch.chdir(tmp_path)
    data = tmp_path / "syn"
    synth.generate(data, 8, seed=2, size=128, workers=1, progress=False, sheet=False, val_every=4)
    from ultralytics import YOLO

    model = YOLO("yolo11n.yaml")  # built from scratch: no pretrained weights anywhere
    model.train(data=str(data / "data.yaml"), epochs=1, imgsz=64, batch=4, workers=0, device="cpu", amp=False,
                plots=False, pretrained=False, val=False, project=str(tmp_path / "runs"), name="t", exist_ok=True,
                verbose=False, mosaic=0.0)
    weights = tmp_path / "runs" / "t" / "weights" / "last.pt"
    assert weights.is_file() and weights.stat().st_size > 100_000
    assert YOLO(str(weights)).names == dict(enumerate(CLASS_NAMES))
    assert not list(tmp_path.glob("*.pt"))  # nothing downloaded into the working folder


def test_screen_capture_tiles_fill_the_stretched_picture(styles):
    for index in range(6):
        image, boxes = synth.render_screen_capture(synth.scene_rng(5, index), 640, styles=styles)
        assert image.shape == (640, 640, 3)
        assert 5 <= len(boxes) <= 14
        # one column (or row) of tiles, each spanning the picture across, in order
        column = boxes[0].box[2] - boxes[0].box[0] > 500
        across = [(b.box[0], b.box[2]) if column else (b.box[1], b.box[3]) for b in boxes]
        along = [b.box[1] if column else b.box[0] for b in boxes]
        assert all(lo == 0 and hi > 500 for lo, hi in across)
        assert along == sorted(along)
        for b in boxes:
            assert b.tile == CLASS_NAMES[b.cls] and b.tile != "back"
            x1, y1, x2, y2 = (int(v) for v in b.box)
            assert image[y1:y2, x1:x2].std() > 10  # a face is drawn there, not empty cloth


def test_screen_captures_write_yolo_samples(tmp_path, styles):
    written = synth.generate_screen_captures(tmp_path, 3, seed=2, art_dirs=[ART])
    labels = sorted((tmp_path / "labels").glob("*.txt"))
    assert len(labels) == 3 and len(list((tmp_path / "images").glob("*.jpg"))) == 3
    rows = [line.split() for f in labels for line in f.read_text().splitlines()]
    assert len(rows) == written
    assert all(0 <= int(r[0]) < NUM_CLASSES and 0 < float(r[3]) <= 1 for r in rows)


def test_synth_cli_writes_screen_captures_reproducibly(tmp_path, capsys, styles):
    for name in ("a", "b"):
        assert synth.main(["--screens", "--out", str(tmp_path / name), "--count", "2", "--seed", "5",
                           "--art", str(ART)]) == 0
    assert "2 screen captures" in capsys.readouterr().out
    first = sorted((tmp_path / "a" / "labels").glob("*.txt"))
    assert [f.name for f in first] == ["screen_s5_000000.txt", "screen_s5_000001.txt"]
    assert all(f.read_text() == (tmp_path / "b" / "labels" / f.name).read_text() and f.read_text() for f in first)
    assert synth.main(["--screens", "--out", str(tmp_path / "c"), "--count", "1",
                       "--art", str(tmp_path / "no-art")]) == 2


def test_progress_into_a_log_writes_a_line_per_tenth():
    import io
    from mahjong_lens.datasets.synth import Progress
    log = io.StringIO()  # not a terminal: no bars rewritten in place
    bar = Progress(200, "synth", stream=log)
    for _ in range(200):
        bar.update()
    lines = log.getvalue().splitlines()
    assert len(lines) == 10 and "\r" not in log.getvalue()
    assert lines[0].startswith("synth [") and " 20/200 " in lines[0] and " 200/200 " in lines[-1]
    quiet = io.StringIO()
    Progress(5, "synth", stream=quiet, enabled=False).update(5)
    assert quiet.getvalue() == ""


def test_progress_on_a_terminal_rewrites_one_line():
    import io
    from mahjong_lens.datasets.synth import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    bar = Progress(3, "synth", stream=screen)
    for _ in range(3):
        bar.update()
    assert screen.getvalue().count("\n") == 1 and screen.getvalue().startswith("\rsynth [")


def test_the_camera_effects_drawn_are_recorded_and_change_nothing():
    from mahjong_lens.datasets import render
    picture = np.random.default_rng(0).integers(0, 255, (96, 128, 3), dtype=np.uint8)
    ids = np.zeros((96, 128), np.uint16)
    seen = []
    for seed in range(40):
        plain = render.apply_light(np.random.default_rng(seed), picture, ids, 40.0)
        applied: dict = {}
        recorded = render.apply_light(np.random.default_rng(seed), picture, ids, 40.0, applied)
        assert np.array_equal(plain, recorded)  # recording draws nothing more
        assert set(applied) == {"blur", "blur_px", "zoom", "noise"} and applied["noise"] > 0
        assert (applied["blur"] == "none") == (applied["blur_px"] == 0)
        seen.append(applied["blur"])
    assert {"none", "focus", "shake"} <= set(seen)  # every kind of blur turns up in 40 photos


@needs_art
def test_a_scenes_meta_says_which_effects_it_was_given(styles):
    scene = synth.render_scene_full(synth.scene_rng(2000, 3), 320, styles=styles, kind="hand")
    assert scene.meta["effects"]["blur"] in ("none", "focus", "shake")
    clean = synth.render_scene_full(synth.scene_rng(2000, 3), 320, styles=styles, kind="hand", effects=False)
    assert clean.meta["effects"] == {}
