"""Vision: the tile recogniser, detections -> hand layout, camera capture."""

# what installs the packages the app leaves out: torch, torchvision, ultralytics, onnx (for
# training, `export`, and reading with PyTorch on a GPU)
TRAIN_EXTRA = "pip install 'mahjong-lens[train]'"
