"""The shipped tile recogniser: a one-class YOLO tile detector, then a YOLO crop classifier.

``load_recognizer()`` reads ``models/tile_detector.pt`` and ``models/tile_classifier.pt``
(see models/README.md for how they were trained and how well they read).  The detector
finds every tile, whatever its face; each box is cut out with a small margin, padded to a
square, and all crops of a photo are classified in one batch.  The classifier was trained
on crops in all four rotations, so sideways and upside-down tiles read too.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from datasets.classes import CLASS_NAMES
from vision.detections import TileDetection

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DETECTOR_FILE = "tile_detector.pt"
CLASSIFIER_FILE = "tile_classifier.pt"
CLASSIFIER_SIZE = 96   # crop size of the shipped classifier; a model says its own in its train args
CROP_MARGIN = 0.08
TILE_RATIO = 4 / 3   # long side / short side of a tile face
STRETCHED = 2.2      # a box longer than this times its width is not a tile's true shape


def square_crop(image: np.ndarray, box: tuple[float, float, float, float], margin: float = CROP_MARGIN,
                size: int = CLASSIFIER_SIZE) -> np.ndarray:
    """The tile in `box` with a margin, padded to a square (so a centre crop cuts nothing
    off the face) and resized to size x size.  Training cuts its crops with this too."""
    import cv2
    h, w = image.shape[:2]
    x1, y1, x2, y2 = box
    mx, my = (x2 - x1) * margin, (y2 - y1) * margin
    x1, y1 = max(0, int(round(x1 - mx))), max(0, int(round(y1 - my)))
    x2, y2 = min(w, int(round(x2 + mx))), min(h, int(round(y2 + my)))
    crop = image[y1:max(y2, y1 + 1), x1:max(x2, x1 + 1)]
    ch, cw = crop.shape[:2]
    # A box far longer than any tile (a photo stretched to a square, as screen captures in
    # the real sets are) is squeezed back to a sideways tile's shape: padding it instead
    # would leave the face a thin strip.
    if cw > STRETCHED * ch:
        crop = cv2.resize(crop, (max(1, round(ch * TILE_RATIO)), ch), interpolation=cv2.INTER_AREA)
    elif ch > STRETCHED * cw:
        crop = cv2.resize(crop, (cw, max(1, round(cw * TILE_RATIO))), interpolation=cv2.INTER_AREA)
    ch, cw = crop.shape[:2]
    side = max(ch, cw)
    top, left = (side - ch) // 2, (side - cw) // 2
    padded = cv2.copyMakeBorder(crop, top, side - ch - top, left, side - cw - left,
                                cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return cv2.resize(padded, (size, size), interpolation=cv2.INTER_AREA)


class TwoStageRecognizer:
    """Reads tiles from a BGR image (implements vision.detections.Recognizer)."""

    def __init__(self, detector_path: Path, classifier_path: Path, imgsz: int = 416,
                 conf: float = 0.35, iou: float = 0.6, device: str | None = None,
                 rotations: int = 4) -> None:
        os.environ.setdefault("YOLO_OFFLINE", "1")  # never let ultralytics reach the network
        import torch
        from ultralytics import YOLO
        self.device = device or ("cuda:0" if torch.cuda.is_available() else "cpu")
        self.imgsz, self.conf, self.iou = imgsz, conf, iou
        self.rotations = rotations  # test-time views per crop (1: no averaging)
        self.detector = YOLO(str(detector_path), task="detect")
        classifier = YOLO(str(classifier_path), task="classify")
        self.classifier = classifier.model.float().eval().to(self.device)
        names = classifier.names
        self.class_names = [names[i] for i in range(len(names))]
        unknown = set(self.class_names) - set(CLASS_NAMES)
        if unknown:
            raise ValueError(f"classifier {classifier_path} has unknown classes {sorted(unknown)}")
        self.crop_size = int(getattr(classifier.model, "args", {}).get("imgsz", CLASSIFIER_SIZE)) \
            if isinstance(getattr(classifier.model, "args", None), dict) else CLASSIFIER_SIZE

    def boxes(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The detector's tile boxes (N x 4, x1y1x2y2 pixels) and their confidences."""
        result = self.detector.predict(image, imgsz=self.imgsz, conf=self.conf, iou=self.iou,
                                       device=self.device, verbose=False, max_det=300)[0]
        return (result.boxes.xyxy.cpu().numpy().astype(np.float32),
                result.boxes.conf.cpu().numpy().astype(np.float32))

    def classify(self, crops: list[np.ndarray]) -> np.ndarray:
        """Class probabilities (N x classes) for square BGR crops, averaged over the crop
        turned by 0, 90, 180 and 270 degrees (the classifier learnt every turn, so the
        average is steadier than one look: +4 points on held-out crops)."""
        if not crops:
            return np.zeros((0, len(self.class_names)), np.float32)
        batch = np.stack(crops)
        views = np.concatenate([np.rot90(batch, k, axes=(1, 2)) for k in range(self.rotations)])
        probabilities = self._forward(views)
        return probabilities.reshape(self.rotations, len(crops), -1).mean(0)

    def _forward(self, batch: np.ndarray) -> np.ndarray:
        import torch
        batch = batch[..., ::-1]  # BGR -> RGB, as ultralytics trains
        tensor = torch.from_numpy(np.ascontiguousarray(batch.transpose(0, 3, 1, 2))).float().div_(255)
        with torch.inference_mode():
            output = self.classifier(tensor.to(self.device))
        if isinstance(output, (tuple, list)):
            output = output[0]
        probabilities = output.float().cpu().numpy()
        if probabilities.min() < 0 or abs(probabilities.sum(1).mean() - 1) > 1e-3:
            probabilities = torch.softmax(torch.from_numpy(probabilities), 1).numpy()
        return probabilities

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise ValueError("detect() needs a BGR colour image (height x width x 3)")
        boxes, box_conf = self.boxes(image)
        crops = [square_crop(image, tuple(box), CROP_MARGIN, self.crop_size) for box in boxes]
        probabilities = self.classify(crops)
        detections = []
        for box, det_conf, probs in zip(boxes, box_conf, probabilities):
            order = np.argsort(probs)[::-1]
            best = int(order[0])
            detections.append(TileDetection(
                tile=self.class_names[best],
                box=tuple(float(v) for v in box),
                confidence=float(det_conf * probs[best]),
                alternatives=[(self.class_names[int(k)], float(probs[k])) for k in order[1:4]],
            ))
        return detections


def load_recognizer(path: str | None = None) -> TwoStageRecognizer:
    """The shipped recogniser, or the one in folder `path` (holding tile_detector.pt and
    tile_classifier.pt).  Each call loads the weights afresh; keep the instance."""
    folder = Path(path) if path else MODELS_DIR
    if folder.is_file():
        folder = folder.parent
    detector, classifier = folder / DETECTOR_FILE, folder / CLASSIFIER_FILE
    missing = [str(p) for p in (detector, classifier) if not p.exists()]
    if missing:
        raise FileNotFoundError(
            f"no tile recogniser weights: {', '.join(missing)} missing "
            "(train them with `mahjong-lens train`, see models/README.md)")
    return TwoStageRecognizer(detector, classifier)
