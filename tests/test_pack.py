"""`mahjong-lens pack`: the compact copy of the training data a lent GPU machine trains on, and
the stand-in for polars that training uses there."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from mahjong_lens.datasets import pack as packing


def _photo(path: Path, width: int, height: int, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    noise = np.random.default_rng(seed).integers(0, 255, (height, width, 3), dtype=np.uint8)
    cv2.imwrite(str(path), noise)


def _labelled(folder: Path, name: str, width: int, height: int, seed: int) -> None:
    _photo(folder / "images" / f"{name}.jpg", width, height, seed)
    (folder / "labels").mkdir(parents=True, exist_ok=True)
    (folder / "labels" / f"{name}.txt").write_text(f"{seed % 40} 0.5 0.5 0.1 0.2\n")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A shared-data folder in miniature: two sets, a photo of valid/ listed for
    --also-train, single-tile photos, one style of art (RGBA faces)."""
    root = tmp_path / "data"
    for k in range(3):
        _labelled(root / "real" / "chinese-mixed" / "train", f"photo{k}", 800, 600, k)
    _labelled(root / "real" / "riichi-tray" / "train", "tray0", 640, 640, 7)
    _labelled(root / "real" / "chinese-mixed" / "valid", "IMG_1_JPG.rf.x", 640, 480, 9)
    (root / "also.txt").write_text("# listed\nreal/chinese-mixed/valid/images/IMG_1_JPG.rf.x.jpg\n")
    _photo(root / "real" / "crops" / "images" / "1.jpg", 240, 320, 11)
    (root / "real" / "crops" / "labels.csv").write_text("image,tile\n1.jpg,8f\n")
    for face in ("1m", "1p", "1z"):
        rgba = np.full((400, 300, 4), 255, np.uint8)
        rgba[:10, :, 3] = 0  # a transparent edge, which the art keeps
        (root / "art" / "style1").mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(root / "art" / "style1" / f"{face}.png"), rgba)
    return root


def test_pack_writes_the_training_layout_smaller(data: Path, tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    sizes = packing.pack(data, out, sets=("chinese-mixed", "riichi-tray"), every={"chinese-mixed": 2},
                         side=256, quality=60, art_side=100, also_train=data / "also.txt", progress=lambda _: None)
    packed = sorted(p.name for p in (out / "real" / "chinese-mixed" / "train" / "images").iterdir())
    assert packed == ["photo0.webp", "photo2.webp"]  # every second photo, names kept
    assert sorted(p.name for p in (out / "real" / "chinese-mixed" / "train" / "labels").iterdir()) == \
        ["photo0.txt", "photo2.txt"]
    image = cv2.imread(str(out / "real" / "chinese-mixed" / "train" / "images" / "photo0.webp"))
    assert image.shape[:2] == (192, 256)  # long side 256, the shape kept
    assert (out / "real" / "chinese-mixed" / "train" / "labels" / "photo0.txt").read_text() == "0 0.5 0.5 0.1 0.2\n"
    # a photo the list names keeps its name (and its folder), so `train --also-train` finds it
    listed = out / "real" / "chinese-mixed" / "valid" / "images" / "IMG_1_JPG.rf.x.jpg"
    assert cv2.imread(str(listed)).shape[:2] == (192, 256)
    assert (out / "real" / "chinese-mixed" / "valid" / "labels" / "IMG_1_JPG.rf.x.txt").exists()
    assert (out / "real" / "crops" / "labels.csv").read_text() == "image,tile\n1.jpg,8f\n"
    assert max(cv2.imread(str(out / "real" / "crops" / "images" / "1.jpg")).shape[:2]) == 128
    face = cv2.imread(str(out / "art" / "style1" / "1m.png"), cv2.IMREAD_UNCHANGED)
    assert face.shape == (100, 75, 4) and face[0, 0, 3] == 0  # smaller, transparency kept
    assert set(sizes) == {"chinese-mixed", "riichi-tray", "also-train", "crops", "art"}
    on_disk = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert sum(sizes.values()) == on_disk


def test_packed_photos_are_what_training_reads(data: Path, tmp_path: Path) -> None:
    from mahjong_lens.training.train import real_images
    out = tmp_path / "bundle"
    packing.pack(data, out, sets=("chinese-mixed", "riichi-tray"), progress=lambda _: None)
    names = [p.name for p in real_images(out, "train")]
    assert names == ["photo0.webp", "photo1.webp", "photo2.webp", "tray0.webp"]


def _args(data: Path, out: Path, **changes) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    packing.configure_parser(parser)
    args = parser.parse_args(["--data", str(data), "--out", str(out), "--sets", "chinese-mixed"])
    for key, value in changes.items():
        setattr(args, key, value)
    return args


def test_pack_over_its_budget_fails_and_says_what_to_change(data: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "bundle"
    assert packing.run(_args(data, out, budget=0.001)) == 1
    assert "over the 0.0 MiB budget" in capsys.readouterr().err
    assert "chinese-mixed" in (out / "PACKED.txt").read_text()  # what was written is said
    assert packing.run(_args(data, out, budget=10.0)) == 0


def test_pack_refuses_bad_settings(data: Path, tmp_path: Path, capsys) -> None:
    assert packing.run(_args(data, tmp_path / "b", every=["chinese-mixed"])) == 2
    assert "SET=N" in capsys.readouterr().err
    assert packing.run(_args(data, tmp_path / "b", every=["chinese-mixed=0"])) == 2
    assert packing.run(_args(tmp_path / "nowhere", tmp_path / "b")) == 2
    assert "no photos" in capsys.readouterr().err


def test_travelling_size_counts_the_tree_but_not_the_pack(tmp_path: Path) -> None:
    import subprocess
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / ".gitignore").write_text("ignored/\n")
    (repo / "tracked.bin").write_bytes(b"x" * 2**20)
    (repo / "ignored").mkdir()
    (repo / "ignored" / "big.bin").write_bytes(b"x" * 3 * 2**20)
    (repo / "bundle").mkdir()
    (repo / "bundle" / "pack.bin").write_bytes(b"x" * 2 * 2**20)
    whole = packing.travelling_mib(repo)
    assert whole == pytest.approx(3.0, abs=0.01)  # tracked + untracked, not the ignored
    assert packing.travelling_mib(repo, repo / "bundle") == pytest.approx(1.0, abs=0.01)
    assert packing.travelling_mib(tmp_path / "not-a-repo") == 0.0


def test_polars_stand_in_reads_ultralytics_results(monkeypatch) -> None:
    from mahjong_lens.training import train
    monkeypatch.setitem(sys.modules, "polars", None)  # as on the GPU machines: import fails
    with pytest.raises(ImportError):
        import polars  # noqa: F401
    train.polars_stand_in()
    import polars
    columns = polars.read_csv(b"epoch,time,metrics/mAP50(B)\n1,16.9,0.93\n2,33.1,0.95\n",
                              infer_schema_length=None).to_dict(as_series=False)
    assert columns == {"epoch": [1.0, 2.0], "time": [16.9, 33.1], "metrics/mAP50(B)": [0.93, 0.95]}


def test_polars_stand_in_leaves_a_real_polars_alone(monkeypatch) -> None:
    from mahjong_lens.training import train
    real = pytest.importorskip("polars")
    train.polars_stand_in()
    assert sys.modules["polars"] is real


def test_training_runs_in_bf16_on_a_gpu_and_full_precision_on_a_cpu():
    from mahjong_lens.training.train import training_precision
    # ultralytics' fp16 would first fetch yolo26n.pt to check itself; bf16 needs no check
    assert training_precision("0") == "bf16" and training_precision("cuda:0", "bf16") == "bf16"
    assert training_precision("0", "fp32") is False
    assert training_precision("cpu") is False and training_precision("cpu", "bf16") is False


def test_a_list_naming_a_missing_photo_is_refused_before_anything_is_written(data: Path, tmp_path: Path, capsys):
    listing = tmp_path / "listing.txt"
    listing.write_text("real/chinese-mixed/valid/images/no-such-photo.jpg\n")
    out = tmp_path / "bundle"
    assert packing.run(_args(data, out, also_train=str(listing))) == 2
    assert "no photo with labels at" in capsys.readouterr().err and not out.exists()


def test_a_folder_holding_other_files_is_never_emptied(data: Path, tmp_path: Path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert packing.run(_args(data, out)) == 2
    assert "notes.txt, which no pack wrote" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "keep me"
    packed = tmp_path / "bundle"
    assert packing.run(_args(data, packed)) == 0 and packing.run(_args(data, packed)) == 0  # a pack is replaced
