"""mahjong-lens: the command line that ties rules, vision, datasets and the web app together."""
__version__ = "0.1.0"

# what installs the packages the app leaves out: torch, torchvision, ultralytics, onnx (for
# training, `export`, and reading with PyTorch on a GPU)
TRAIN_EXTRA = "pip install 'mahjong-lens[train]'"
