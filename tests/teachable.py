"""A recogniser with the model's inner parts (boxes, classify, a classifier's features) but no
model: it reads fixed faces at fixed boxes, and its "features" are each crop's mean colour, so
a tile set taught on it can tell an ivory tile from a red book spine (tests of vision.tile_sets)."""
from __future__ import annotations

import numpy as np

from mahjong_lens.vision.detections import TileDetection


class TeachableFake:
    unsure_box = None
    crop_size = 32

    def __init__(self, readings: list[tuple[str, tuple[float, float, float, float]]]):
        self.readings = list(readings)
        self.class_names = sorted({tile for tile, _ in readings} | {"back", "7z"})
        self.classifiers = [self]

    def boxes(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([box for _, box in self.readings], np.float32).reshape(-1, 4),
                np.full(len(self.readings), 0.9, np.float32))

    def classify(self, crops: list[np.ndarray]) -> np.ndarray:
        probabilities = np.zeros((len(crops), len(self.class_names)), np.float32)
        for row, (tile, _) in enumerate(self.readings[:len(crops)]):
            probabilities[row, self.class_names.index(tile)] = 0.9
            probabilities[row, self.class_names.index("back")] += 0.1
        return probabilities

    def features(self, batch: np.ndarray) -> np.ndarray:
        return batch.reshape(len(batch), -1, 3).mean(axis=1).astype(np.float32) + 1.0

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        return [TileDetection(tile, box, 0.9, face_confidence=0.9) for tile, box in self.readings]
