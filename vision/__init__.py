"""Vision: the tile recogniser, detections -> hand layout, camera capture."""
