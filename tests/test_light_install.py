"""The app runs on the ONNX exports through onnxruntime alone (the plain install): scanning
and serving import neither torch nor ultralytics, read as the shipped readings, and a
command that needs the `[train]` extra says so in one sentence."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mahjong_lens.datasets.art import default_data_dir
from mahjong_lens.vision.onnx_models import letterbox, nms
from mahjong_lens.vision.recognizer import MODELS_DIR, load_recognizer

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
HEAVY = ("torch", "torchvision", "ultralytics")
needs_exports = pytest.mark.skipif(not (MODELS_DIR / "tile_detector.onnx").exists(),
                                   reason="no ONNX exports in models/")


def _run_python(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    # outside the source tree, the installed package (plain or editable) is imported
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)


@needs_exports
def test_scanning_a_photo_imports_neither_torch_nor_ultralytics(tmp_path: Path):
    import cv2
    photo = np.full((480, 640, 3), (40, 110, 30), np.uint8)
    cv2.rectangle(photo, (200, 200), (240, 254), (235, 235, 235), -1)  # something tile-like
    cv2.imwrite(str(tmp_path / "photo.png"), photo)
    code = f"""
import sys
from mahjong_lens.cli import main
rc = main(["scan", "photo.png", "--json"])
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
print("HEAVY", heavy, "RC", rc, file=sys.stderr)
"""
    done = _run_python(code, tmp_path)
    assert "HEAVY [] RC" in done.stderr, done.stderr[-2000:]
    scan = json.loads(done.stdout.splitlines()[0])
    assert scan["image"] == "photo.png" and "tiles" in scan


@needs_exports
def test_the_page_scans_without_torch_or_ultralytics(tmp_path: Path):
    import cv2
    photo = np.full((300, 400, 3), (40, 110, 30), np.uint8)
    cv2.imwrite(str(tmp_path / "photo.jpg"), photo)
    code = """
import io, sys
from mahjong_lens.webui.app import create_app
app = create_app({"TESTING": True, "DATABASE": "records.db"})
client = app.test_client()
with open("photo.jpg", "rb") as f:
    answer = client.post("/api/scan", data={"image": (io.BytesIO(f.read()), "photo.jpg")},
                         content_type="multipart/form-data")
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "torchvision", "ultralytics"))
print("STATUS", answer.status_code, "HEAVY", heavy)
"""
    done = _run_python(code, tmp_path)
    assert "HEAVY []" in done.stdout, done.stdout[-1000:] + done.stderr[-2000:]
    assert "STATUS 200" in done.stdout


@needs_exports
def test_onnx_alone_reads_as_the_shipped_readings():
    """Readings of real `valid/` photos recorded with the shipped models read through
    ultralytics, before the app ran on onnxruntime alone: the same tiles, the same boxes."""
    recorded = json.loads((FIXTURES / "shipped_readings.json").read_text())
    data = default_data_dir()
    photos = [(data / item["photo"], item["tiles"]) for item in recorded["photos"]]
    photos = [(path, tiles) for path, tiles in photos if path.exists()]
    if not photos:
        pytest.skip("the shared real photos are not here (set MAHJONG_LENS_DATA)")
    import cv2
    reader = load_recognizer()
    assert set(reader.backend.split("+")) == {"onnx"}
    from mahjong_lens.vision.recognizer import crops_read, read_boxes
    for path, tiles in photos:
        # the models' boxes and class probabilities read as they were when recorded (the
        # unsure-box gate then 0.4, no felt rule: both came at stop 40, after the recording; no
        # tile boxed in two halves joined: stop 44)
        boxes, box_conf, probabilities, _ = crops_read(reader, cv2.imread(str(path)), join_halves=False)
        found = read_boxes(boxes, box_conf, probabilities, reader.class_names, (0.4, 0.5))
        found = sorted(found, key=lambda d: (round(d.box[0], 1), round(d.box[1], 1)))
        assert [d.tile for d in found] == [tile for tile, _ in tiles], path.name
        boxes = np.array([d.box for d in found])
        assert np.abs(boxes - np.array([box for _, box in tiles])).max() <= 0.06, path.name


@needs_exports
def test_a_folder_of_onnx_exports_alone_is_a_recogniser(tmp_path: Path):
    """A plain install ships the exports without the PyTorch weights: they are the model."""
    for path in MODELS_DIR.glob("*.onnx"):
        shutil.copy(path, tmp_path / path.name)
    reader = load_recognizer(str(tmp_path))
    assert set(reader.backend.split("+")) == {"onnx"} and len(reader.classifiers) >= 1
    assert reader.class_names == load_recognizer().class_names


def test_letterbox_keeps_the_aspect_and_pads_to_the_stride():
    photo = np.zeros((480, 640, 3), np.uint8)
    padded, gain, (left, top) = letterbox(photo, 416)
    # 640 -> 416 (gain 0.65), 480 -> 312, padded up to 320: 4 rows above and below
    assert padded.shape == (320, 416, 3) and gain == pytest.approx((0.65, 0.65)) and (left, top) == (0, 4)
    assert padded[0, 0].tolist() == [114, 114, 114] and padded[4, 0].tolist() == [0, 0, 0]
    tall = np.zeros((1000, 300, 3), np.uint8)
    padded, gain, (left, top) = letterbox(tall, 640)
    assert padded.shape == (640, 192, 3) and (left, top) == (0, 0)  # 192 = 300 * 0.64, a multiple of 32


def test_nms_keeps_the_likeliest_of_overlapping_boxes():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10], [0, 0, 10, 5]], np.float32)
    scores = np.array([0.8, 0.9, 0.7, 0.6], np.float32)
    # box 1 beats box 0 (IoU 90/110 = 0.82); box 3 overlaps box 1 by 45/(100+50-45) = 0.43 < 0.45
    assert nms(boxes, scores, 0.45).tolist() == [1, 2, 3]
    assert nms(boxes, scores, 0.4).tolist() == [1, 2]
    assert nms(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), 0.45).tolist() == []


@needs_exports
def test_the_onnx_detector_finds_what_ultralytics_finds_on_the_same_export():
    """Pre- and post-processing of our own against ultralytics' predictor on the same ONNX
    file: the same boxes to the pixel, square, wide, tall and at the closer look's size."""
    pytest.importorskip("ultralytics")
    from tests.test_recognizer import _art_row
    from mahjong_lens.vision.recognizer import quiet_ultralytics, ultralytics_yolo
    image = _art_row()
    if image is None:
        pytest.skip("tile art not available")
    reader = load_recognizer()
    theirs = ultralytics_yolo()(str(MODELS_DIR / "tile_detector.onnx"), task="detect")
    for photo in (image, image[100:580], np.ascontiguousarray(np.rot90(image[100:580]))):
        for size in (416, 640):
            ours, our_conf = reader.detector.predict(photo, size, conf=0.35, iou=0.45)
            with quiet_ultralytics():
                result = theirs.predict(photo, imgsz=size, conf=0.35, iou=0.45, device="cpu", verbose=False)[0]
            boxes = result.boxes.xyxy.numpy()
            assert len(ours) == len(boxes) >= 10
            order_ours, order_theirs = np.lexsort(ours.T[::-1]), np.lexsort(boxes.T[::-1])
            assert np.abs(ours[order_ours] - boxes[order_theirs]).max() < 0.01
            assert np.abs(our_conf[order_ours] - result.boxes.conf.numpy()[order_theirs]).max() < 1e-4


def test_a_command_that_needs_the_train_extra_says_which_to_install(tmp_path: Path):
    """Without torch and ultralytics (hidden here), `export` and `train` answer one sentence."""
    code = """
import sys
for name in ("torch", "torchvision", "ultralytics", "onnx"):
    sys.modules[name] = None  # as if not installed: importing it raises ImportError
import importlib.util
real_find_spec = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name.split(".")[0] in ("torch", "ultralytics", "onnx") \\
    else real_find_spec(name, *a)
from mahjong_lens.cli import main
print("RC", main(["export", "--model", "nowhere"]))
print("RC", main(["train", "--stage", "detector", "--work", "work"]))
"""
    done = _run_python(code, tmp_path)
    assert done.stdout.split() == ["RC", "2", "RC", "2"], done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert lines == [f"mahjong-lens: '{command}' needs PyTorch and ultralytics, which the plain install "
                     "leaves out: pip install 'mahjong-lens[train]'" for command in ("export", "train")]
    assert not (tmp_path / "work").exists()  # nothing generated before the refusal
