"""What the recogniser hands to the layout: one TileDetection per tile seen.

The shared interface between the model (vision/recognizer.py) and the layout
(vision/layout.py); tests can feed the layout ground truth through the same type.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np


@dataclass
class TileDetection:
    tile: str                                   # "1m".."9s", "1z".."7z", "1f".."8f", "0m/0p/0s", or "back"
    box: tuple[float, float, float, float]      # x1, y1, x2, y2 in pixels of the given image
    confidence: float                           # of the tile's identity (and of being a tile)
    alternatives: list[tuple[str, float]] = field(default_factory=list)  # next-best readings
    # degrees the tile is turned clockwise in the image from upright (the top of its face
    # towards the top of the image): 0, 90 (top to the right), 180, 270, or anything between;
    # None when the recogniser does not say (the layout then reads the boxes' shapes)
    rotation: float | None = None
    # the probability of this face given that a tile is there (the classifier's own, on the
    # same scale as `alternatives`); None when the recogniser does not say
    face_confidence: float | None = None

    @property
    def face_down(self) -> bool:
        return self.tile == "back"

    @property
    def face_sureness(self) -> float:
        """How sure the reading of the face is: `face_confidence` when the recogniser gives
        it, else `confidence` (what doubt is judged on)."""
        return self.face_confidence if self.face_confidence is not None else self.confidence

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def top(self) -> tuple[float, float] | None:
        """The unit vector (image coordinates, y down) from the tile's centre towards the top
        of its face, when the rotation is known."""
        if self.rotation is None:
            return None
        a = math.radians(self.rotation)
        return (math.sin(a), -math.cos(a))

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    def to_dict(self, sideways: bool = False) -> dict[str, Any]:
        """The scan format's tile entry (sideways is decided by the layout)."""
        out = {"tile": self.tile, "box": [round(v, 1) for v in self.box],
               "confidence": round(float(self.confidence), 3),
               "face_down": self.face_down, "sideways": sideways}
        if self.rotation is not None:  # only when the recogniser gave it (an added field)
            out["rotation"] = round(float(self.rotation), 1)
        if self.face_confidence is not None:
            out["face_confidence"] = round(float(self.face_confidence), 3)
        return out


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two x1y1x2y2 boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def pair_by_iou(firsts: Sequence[Sequence[float]], seconds: Sequence[Sequence[float]],
                min_iou: float) -> dict[int, int]:
    """Boxes of two lists paired greedily, the most overlapping pairs first (IoU at least
    `min_iou`), each box in one pair at most: {index in firsts: index in seconds}."""
    pairs = sorted(((iou(a, b), i, j) for i, a in enumerate(firsts) for j, b in enumerate(seconds)),
                   reverse=True)
    paired: dict[int, int] = {}
    taken: set[int] = set()
    for overlap, i, j in pairs:
        if overlap < min_iou:
            break
        if i not in paired and j not in taken:
            paired[i] = j
            taken.add(j)
    return paired


def turned_boxes(boxes: np.ndarray, width: float, height: float, quarter_turns: int = 1) -> np.ndarray:
    """Boxes (N x 4, x1y1x2y2) of a picture `width` x `height` where they lie in the picture
    turned by ``np.rot90(picture, quarter_turns)`` (counter-clockwise; 3 turns back what 1
    turned).  A quarter turn moves an axis-aligned box to an axis-aligned box, so the boxes
    stay exact; with width = height = 1 it turns normalised boxes (YOLO labels)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    for _ in range(quarter_turns % 4):
        x1, y1, x2, y2 = boxes.T  # a point (x, y) goes to (y, width - x)
        boxes = np.stack([y1, width - x2, y2, width - x1], axis=1)
        width, height = height, width
    return boxes


class Recognizer(Protocol):
    """Anything that reads tiles from a BGR image."""

    def detect(self, image: np.ndarray) -> list[TileDetection]: ...
