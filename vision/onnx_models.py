"""The shipped YOLO exports run on onnxruntime alone: no torch, no ultralytics.

The app (scan, serve, camera) reads with these; ultralytics is needed only to train, to
export and to read with PyTorch on a GPU (the `[train]` extra).  Pre- and post-processing
follow ultralytics' predictor step for step, so the boxes are those that
``YOLO(detector.onnx).predict`` gives (a test compares them where ultralytics is installed):

- ``letterbox``: the photo scaled so that its long side is the model's size, padded to a
  multiple of the stride (the exports are dynamic, so no square padding), grey 114;
- ``non_max_suppression``: one class, candidates above `conf`, greedy NMS at `iou`;
- boxes scaled back to the photo and clipped to it.
"""
from __future__ import annotations

import ast
import hashlib
import warnings
from pathlib import Path

import numpy as np

# an ONNX export records the checksum of the .pt it was made from, so a stale export
# (weights retrained, ONNX not re-exported) is never used in their place
ONNX_SOURCE_KEY = "mahjong_lens_source_sha256"
FEATURES_OUTPUT = "features"  # a classifier export's second output: each crop's pooled features
PAD_VALUE = 114     # ultralytics' letterbox grey
MAX_NMS = 30000     # candidates NMS looks at, the likeliest first (ultralytics' max_nms)


class ExportError(RuntimeError):
    """An ONNX export that cannot be used; the message says what to do."""


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def open_session(exported: Path):
    """An onnxruntime CPU session of `exported`."""
    import onnxruntime
    options = onnxruntime.SessionOptions()
    # no busy-waiting threads after a run: they would take the cores from the next model's
    # run (two classifiers read in turn took 0.086 s for what one reads in 0.041 s)
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(exported), options, providers=["CPUExecutionProvider"])


def onnx_session(weights: Path):
    """An onnxruntime session of the ONNX export for `weights` (a .pt or the .onnx itself),
    or None: no export there, onnxruntime not installed, or the export is of other weights
    than the .pt beside it.  Where there is no .pt (an install that ships only the exports)
    the export is the model."""
    weights = Path(weights)
    exported = weights.with_suffix(".onnx")
    if not exported.exists():
        return None
    try:
        session = open_session(exported)
    except ImportError:
        return None
    source = weights.with_suffix(".pt")
    if source.exists() and metadata(session).get(ONNX_SOURCE_KEY) != file_sha256(source):
        warnings.warn(f"{exported} was not exported from {source.name} (re-run `mahjong-lens "
                      "export`); using the PyTorch weights", stacklevel=2)
        return None
    return session


def metadata(session) -> dict[str, str]:
    return dict(session.get_modelmeta().custom_metadata_map)


def set_metadata(graph, values: dict[str, str]) -> None:
    """Write `values` into an `onnx` ModelProto's metadata, in place: a key it already has
    gets the new value (an export stamped again keeps one entry per key)."""
    entries = {p.key: p for p in graph.metadata_props}
    for key, value in values.items():
        entry = entries.get(key) or graph.metadata_props.add()
        entry.key, entry.value = key, value


def export_size(session, default: int) -> int:
    """The image size the exported model was trained at (its `imgsz` metadata)."""
    size = metadata(session).get("imgsz")
    if not size:
        return default
    size = ast.literal_eval(size)
    return int(max(size) if isinstance(size, (list, tuple)) else size)


def export_names(session) -> list[str]:
    """The class names of an exported model, in its output order."""
    names = metadata(session).get("names")
    if not names:
        raise ExportError("the ONNX export names no classes (re-run `mahjong-lens export`)")
    table = ast.literal_eval(names)
    return [str(table[i]) for i in range(len(table))]


def letterbox(image: np.ndarray, size: int, stride: int = 32) -> tuple[np.ndarray, tuple[float, float], tuple[int, int]]:
    """`image` (BGR) scaled so that it fits `size` x `size` and padded to a multiple of
    `stride` on each side (centred); with the (x, y) gain and the (left, top) padding."""
    import cv2
    height, width = image.shape[:2]
    ratio = min(size / height, size / width)
    new_width, new_height = max(round(width * ratio), 1), max(round(height * ratio), 1)
    pad_x, pad_y = np.mod(size - new_width, stride) / 2, np.mod(size - new_height, stride) / 2
    if (width, height) != (new_width, new_height):
        image = cv2.resize(image, (new_width, new_height), interpolation=cv2.INTER_LINEAR)
    top, bottom = round(pad_y - 0.1), round(pad_y + 0.1)
    left, right = round(pad_x - 0.1), round(pad_x + 0.1)
    image = cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3)
    return image, (new_width / width, new_height / height), (left, top)


def to_tensor(images: np.ndarray) -> np.ndarray:
    """BGR uint8 images (N x H x W x 3) -> the RGB float N x 3 x H x W in 0..1 YOLO takes."""
    return np.ascontiguousarray(images[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Indices of the boxes (x1y1x2y2) kept by greedy non-maximum suppression, the most
    confident first: a box goes when it overlaps a kept one by more than `iou`."""
    order = np.argsort(-scores, kind="stable")
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    keep = []
    while order.size:
        best, rest = order[0], order[1:]
        keep.append(best)
        width = np.minimum(boxes[best, 2], boxes[rest, 2]) - np.maximum(boxes[best, 0], boxes[rest, 0])
        height = np.minimum(boxes[best, 3], boxes[rest, 3]) - np.maximum(boxes[best, 1], boxes[rest, 1])
        inter = np.clip(width, 0, None) * np.clip(height, 0, None)
        overlap = inter / (areas[best] + areas[rest] - inter + 1e-12)
        order = rest[overlap <= iou]
    return np.asarray(keep, dtype=np.int64)


class OnnxDetector:
    """A one-class YOLO detector export: photo in, boxes (N x 4, x1y1x2y2 in the photo's
    pixels) and confidences out."""

    def __init__(self, session, default_size: int) -> None:
        self.session = session
        self.input_name = session.get_inputs()[0].name
        self.imgsz = export_size(session, default_size)
        self.stride = int(metadata(session).get("stride", 32))

    def predict(self, image: np.ndarray, size: int | None = None, conf: float = 0.25, iou: float = 0.45,
                max_det: int = 300) -> tuple[np.ndarray, np.ndarray]:
        size = size or self.imgsz
        padded, (gain_x, gain_y), (left, top) = letterbox(image, size, self.stride)
        output = self.session.run(None, {self.input_name: to_tensor(padded[None])})[0][0]  # (4 + classes) x anchors
        scores = output[4:].max(axis=0)
        candidates = scores > conf
        xywh, scores = output[:4, candidates].T, scores[candidates]
        if len(scores) > MAX_NMS:
            likeliest = np.argsort(-scores, kind="stable")[:MAX_NMS]
            xywh, scores = xywh[likeliest], scores[likeliest]
        boxes = np.concatenate([xywh[:, :2] - xywh[:, 2:] / 2, xywh[:, :2] + xywh[:, 2:] / 2], axis=1)
        kept = nms(boxes, scores, iou)[:max_det]
        boxes, scores = boxes[kept], scores[kept]
        boxes = (boxes - np.array([left, top, left, top], np.float32)) / np.array([gain_x, gain_y, gain_x, gain_y],
                                                                                  np.float32)
        height, width = image.shape[:2]
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
        return boxes.astype(np.float32), scores.astype(np.float32)
