"""What the recogniser hands to the layout: one TileDetection per tile seen.

The shared interface between the model (vision/recognizer.py) and the layout
(vision/layout.py); tests can feed the layout ground truth through the same type.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np


@dataclass
class TileDetection:
    tile: str                                   # "1m".."9s", "1z".."7z", "1f".."8f", "0m/0p/0s", or "back"
    box: tuple[float, float, float, float]      # x1, y1, x2, y2 in pixels of the given image
    confidence: float                           # of the tile's identity (and of being a tile)
    alternatives: list[tuple[str, float]] = field(default_factory=list)  # next-best readings

    @property
    def face_down(self) -> bool:
        return self.tile == "back"

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]

    def to_dict(self, sideways: bool = False) -> dict[str, Any]:
        """The scan format's tile entry (sideways is decided by the layout)."""
        return {"tile": self.tile, "box": [round(v, 1) for v in self.box],
                "confidence": round(float(self.confidence), 3),
                "face_down": self.face_down, "sideways": sideways}


class Recognizer(Protocol):
    """Anything that reads tiles from a BGR image."""

    def detect(self, image: np.ndarray) -> list[TileDetection]: ...
