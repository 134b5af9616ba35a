"""Training and measuring the tile recogniser: ``train`` (both stages, resumable, exported to
ONNX), ``evaluate`` (the ``eval`` command), the EfficientNet-Lite0 classifier tried beside the
YOLO one, and the same training on a lent GPU machine (``device_train.sh``). Training imports
the reader (``mahjong_lens.vision``) and the data (``mahjong_lens.datasets``); neither imports
training."""
