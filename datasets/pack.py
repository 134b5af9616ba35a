"""A compact copy of the training data, small enough to travel to a lent GPU machine.

A lent machine receives the repository's working tree and at most 64 MiB with it; the
repository itself is about 37 MB (the shipped weights), and ``../shared/data`` (about 150 MB)
does not travel.  ``mahjong-lens pack --out .bundle/data`` writes the part of it that training
reads, in the same layout (``real/SET/train/images|labels``, ``real/crops``, ``art/STYLE``), so
``MAHJONG_LENS_DATA=.bundle/data mahjong-lens train ...`` there runs the same lines as here:

- real photos with their long side at most ``--side`` px (the detector trains at 416) as WebP,
  every ``--every``-th photo of a set where one is given (the development photos stay so by
  name: ``datasets.real.is_dev_photo``);
- the photos listed for ``train --also-train`` (a tile set only valid/ holds), the same way;
- the single-tile photos of ``real/crops``;
- the tile art at ``--art-side`` px (a face in a 640 px scene is under 100 px; the art is
  drawn at about 400), as PNG with its transparency.

The synthetic scenes are not packed: the GPU machine renders them from the art.  What is
written, and its size against ``--budget``, is printed and kept in ``PACKED.txt``.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from mahjong_lens.datasets.art import default_data_dir
from mahjong_lens.datasets.real import IMAGE_EXTS

# the sets `train` reads (training.train.REAL_SETS and the --with-set a run names)
DEFAULT_SETS = ("chinese-mixed", "riichi-tray", "riichi-bluemat")
# what one call to a lent GPU machine carries: the working tree that git does not ignore and
# the ignored paths named to carry (the pack, the wheels)
CARRIED_MIB = 64.0
MARGIN_MIB = 2.0  # for the commits between packing and the call
REPO = Path(__file__).resolve().parent.parent
PACK_CONTENTS = {"real", "art", "PACKED.txt"}  # what a pack writes at its top


def travelling_mib(repo: Path = REPO, out: Path | None = None) -> float:
    """MiB of `repo`'s working tree that travels to a GPU machine without being named: the
    tracked files and those git does not ignore (0 outside a git checkout), less `out`."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=repo, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return 0.0
    inside = (out.resolve(),) if out is not None else ()
    total = 0
    for name in filter(None, listed.decode().split("\0")):
        path = (repo / name).resolve()
        if path.is_file() and not any(path.is_relative_to(folder) for folder in inside):
            total += path.stat().st_size
    return total / 2**20


def folder_mib(folder: Path) -> float:
    """MiB of the files under `folder` (0 where there is none)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20 if folder.is_dir() else 0.0


def shrunk(image: np.ndarray, side: int) -> np.ndarray:
    """`image` with its long side at most `side` px (never enlarged)."""
    scale = side / max(image.shape[:2])
    if scale >= 1:
        return image
    return cv2.resize(image, (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale))),
                      interpolation=cv2.INTER_AREA)


def write_photo(source: Path, images_out: Path, side: int, quality: int, same_name: bool = False) -> int:
    """The photo at `source` written shrunk as WebP into `images_out` (`same_name`: as a JPEG
    under its own name, for a list that names it), its YOLO label file (if any) into the
    ``labels`` folder beside; returns the bytes written (0: an unreadable photo)."""
    image = cv2.imread(str(source))
    if image is None:
        return 0
    if same_name:
        ok, data = cv2.imencode(".jpg", shrunk(image, side), [cv2.IMWRITE_JPEG_QUALITY, 75])
        name = source.name
    else:
        ok, data = cv2.imencode(".webp", shrunk(image, side), [cv2.IMWRITE_WEBP_QUALITY, quality])
        name = source.stem + ".webp"
    if not ok:
        return 0
    images_out.mkdir(parents=True, exist_ok=True)
    (images_out / name).write_bytes(data.tobytes())
    written = len(data)
    label = source.parent.parent / "labels" / (source.stem + ".txt")
    if label.exists():
        labels_out = images_out.parent / "labels"
        labels_out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(label, labels_out / label.name)
        written += label.stat().st_size
    return written


def pack(data_dir: Path, out: Path, sets: tuple[str, ...] = DEFAULT_SETS, every: dict[str, int] | None = None,
         side: int = 512, quality: int = 65, art_side: int = 160, also_train: Path | None = None,
         progress: Callable[[str], None] = print) -> dict[str, int]:
    """Write the compact copy of `data_dir` into `out` (a previous pack there is replaced);
    returns bytes per part."""
    from .real import read_photo_list  # the list as `train --also-train` reads it
    every = every or {}
    listed = read_photo_list(also_train, data_dir) if also_train is not None else []  # before anything is written
    if out.exists():
        # a previous pack is replaced; a folder holding anything else is never emptied
        foreign = sorted(p.name for p in out.iterdir() if p.name not in PACK_CONTENTS) if out.is_dir() else [out.name]
        if foreign:
            raise ValueError(f"{out} holds {', '.join(foreign[:3])}, which no pack wrote: "
                             "give an empty or new folder (or a previous pack's)")
        shutil.rmtree(out)
    sizes: dict[str, int] = {}
    started = time.time()
    for name in sets:
        photos = sorted(p for p in (data_dir / "real" / name / "train" / "images").glob("*")
                        if p.suffix.lower() in IMAGE_EXTS)
        if not photos:
            raise FileNotFoundError(f"no photos in {data_dir / 'real' / name / 'train' / 'images'}")
        photos = photos[::every.get(name, 1)]
        total = 0
        for n, photo in enumerate(photos, 1):
            total += write_photo(photo, out / "real" / name / "train" / "images", side, quality)
            if n % 200 == 0 or n == len(photos):
                progress(f"pack: {name} {n}/{len(photos)} photos, {total / 2**20:.1f} MiB ({time.time() - started:.0f} s)")
        sizes[name] = total
    if also_train is not None:
        total = 0
        for photo in listed:
            total += write_photo(photo, out / photo.parent.relative_to(data_dir), side, quality, same_name=True)
        sizes["also-train"] = total
        progress(f"pack: {len(listed)} --also-train photos, {total / 2**20:.1f} MiB")
    crops = data_dir / "real" / "crops"
    if (crops / "labels.csv").exists():
        (out / "real" / "crops" / "images").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(crops / "labels.csv", out / "real" / "crops" / "labels.csv")
        total = (crops / "labels.csv").stat().st_size
        for photo in sorted((crops / "images").glob("*")):
            image = cv2.imread(str(photo))
            if image is None:
                continue
            # labels.csv names each photo: the name is kept, the file is a smaller JPEG
            ok, data = cv2.imencode(".jpg", shrunk(image, 128), [cv2.IMWRITE_JPEG_QUALITY, 80])
            (out / "real" / "crops" / "images" / photo.name).write_bytes(data.tobytes())
            total += len(data)
        sizes["crops"] = total
        progress(f"pack: single-tile photos {total / 2**20:.1f} MiB")
    total = 0
    for style in sorted(p for p in (data_dir / "art").glob("*") if p.is_dir()):
        for face in sorted(style.glob("*.png")):
            image = cv2.imread(str(face), cv2.IMREAD_UNCHANGED)
            if image is None:
                continue
            ok, data = cv2.imencode(".png", shrunk(image, art_side), [cv2.IMWRITE_PNG_COMPRESSION, 9])
            (out / "art" / style.name).mkdir(parents=True, exist_ok=True)
            (out / "art" / style.name / face.name).write_bytes(data.tobytes())
            total += len(data)
    sizes["art"] = total
    progress(f"pack: tile art {total / 2**20:.1f} MiB")
    return sizes


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", default=str(default_data_dir()), help="the shared data folder")
    parser.add_argument("--out", required=True, help="folder to write (new, empty or a previous pack, which is replaced), e.g. .bundle/data")
    parser.add_argument("--sets", nargs="+", default=list(DEFAULT_SETS), help="real sets whose train/ to pack")
    parser.add_argument("--every", nargs="*", default=["chinese-mixed=2"], metavar="SET=N",
                        help="keep every N-th photo of a set (default: chinese-mixed=2)")
    parser.add_argument("--side", type=int, default=512, help="long side of the packed photos, px")
    parser.add_argument("--quality", type=int, default=65, help="WebP quality of the packed photos")
    parser.add_argument("--art-side", type=int, default=160, help="long side of the packed tile art, px")
    parser.add_argument("--also-train", default=None,
                        help="a `train --also-train` list whose photos to pack too "
                             "(e.g. datasets/also_train_red_table_set.txt)")
    parser.add_argument("--budget", type=float, default=None,
                        help="MiB the pack may take; default: what a call to the GPU machine carries "
                             f"({CARRIED_MIB} MiB) less the working tree that travels and {MARGIN_MIB} MiB to spare")


def run(args: argparse.Namespace) -> int:
    data_dir, out = Path(args.data), Path(args.out)
    try:
        every = {name: int(count) for name, count in (item.split("=", 1) for item in args.every)}
    except ValueError:
        print(f"pack: --every takes SET=N, got {' '.join(args.every)}", file=sys.stderr)
        return 2
    if any(count < 1 for count in every.values()) or args.side < 32 or not 1 <= args.quality <= 100:
        print("pack: --every N >= 1, --side >= 32 and --quality 1-100", file=sys.stderr)
        return 2
    try:
        sizes = pack(data_dir, out, tuple(args.sets), every, args.side, args.quality, args.art_side,
                     Path(args.also_train) if args.also_train else None)
    except (FileNotFoundError, ValueError) as error:
        print(f"pack: {error}", file=sys.stderr)
        return 2
    total = sum(sizes.values()) / 2**20
    summary = [f"packed from {data_dir}: side {args.side} px, WebP quality {args.quality}, art {args.art_side} px, "
               f"every {' '.join(args.every) or '1'}"]
    summary += [f"  {part:<16} {size / 2**20:6.1f} MiB" for part, size in sizes.items()]
    if args.budget is None:
        tree, wheels = travelling_mib(REPO, out), folder_mib(REPO / ".whl")
        budget = CARRIED_MIB - tree - wheels - MARGIN_MIB
        summary.append(f"  {'total':<16} {total:6.1f} MiB of {budget:.1f}: a call carries {CARRIED_MIB:g} MiB, "
                       f"the working tree is {tree:.1f}, the wheels in .whl {wheels:.1f}, {MARGIN_MIB:g} to spare")
    else:
        budget = args.budget
        summary.append(f"  {'total':<16} {total:6.1f} MiB of a {budget:g} MiB budget")
    (out / "PACKED.txt").write_text("\n".join(summary) + "\n")
    print("\n".join(summary))
    if total > budget:
        print(f"pack: {total:.1f} MiB is over the {budget:.1f} MiB budget: raise --every, lower --side "
              f"or --quality", file=sys.stderr)
        return 1
    return 0
