"""The training mix: real labelled photos and synthetic sets, with a fixed validation split.

``mahjong-lens mix --real ../shared/data/real/riichi-tray --real ../shared/data/real/chinese-mixed
--synth runs/synth --out runs/mix`` writes a folder that ultralytics trains on
(``data.yaml``, ``train.txt``, ``val.txt``) without copying a single photo: real
images and their labels are symlinked under ``OUT/images/<source>/`` and
``OUT/labels/<source>/`` (so label caches are written there, never into the
shared data), synthetic sets are linked as whole folders.

The validation split is fixed per photo, not per file: Roboflow exports hold up
to three augmented copies of a photo (``<stem>_jpg.rf.<hash>.jpg``), and the two
shared sets even hold the same photos, so every file is grouped by the part of
its name before ``.rf.``. A group is validation if any of its files sits in a
source's published ``valid/`` (or ``val/``) folder, or, for sources without one
(or with ``--val-fraction``), if a seeded hash of the group falls below the
fraction. ``test/`` folders are kept out of the mix altogether. A photo that
several sources hold is taken from the first source that names it only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from mahjong_lens.vision.classes import NUM_CLASSES

IMAGE_EXTS = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
VAL_SPLITS = ("valid", "val", "validation")
TRAIN_SPLITS = ("train",)
HELD_OUT_SPLITS = ("test",)
DEFAULT_VAL_FRACTION = 0.15  # for sources that come without a validation folder


def photo_group(filename: str) -> str:
    """The photo a file was made from: the name before ``.rf.`` (Roboflow), else its stem."""
    name = os.path.basename(filename)
    if ".rf." in name:
        return name.split(".rf.", 1)[0]
    return os.path.splitext(name)[0]


# every DEV_EVERY-th original photo (by a hash of its name) is kept out of training: the
# recogniser's own development set, whatever the split the source came with
DEV_EVERY = 10


def photo_source(image_name: str) -> str:
    """Which kind of photo this is; the evaluation reports each source on its own."""
    name = Path(image_name).name
    if name.startswith("hand_"):
        return "hand-rows"
    if name.startswith("IMG_") or name[:8].isdigit() and name[8:9] == "_":
        return "tray"
    if name.startswith("Screenshot"):
        return "screenshot"
    if "_n_jpg" in name:
        return "single-tiles"
    return "other"


def is_dev_photo(image_name: str) -> bool:
    digest = hashlib.md5(photo_group(image_name).encode()).hexdigest()
    return int(digest, 16) % DEV_EVERY == 0


def inflated_boxes(sizes: Sequence[tuple[float, float]]) -> bool:
    """Whether a photo's tile boxes (width, height pairs) are the upright boxes of tilted
    tiles: Roboflow's rotated copies keep a box around each rotated box, so a tile's box
    comes out nearly square and larger than the tile (holding parts of its neighbours). A
    tile's face is 3:4; boxes whose median short/long side is above 0.88 are inflated."""
    if len(sizes) < 5:
        return False
    return statistics.median(min(w, h) / max(w, h, 1e-6) for w, h in sizes) > 0.88


def group_fraction(seed: int, group: str) -> float:
    """A fixed number in [0, 1) for a photo group (the same on every machine and run)."""
    h = hashlib.sha1(f"{seed}:{group}".encode()).hexdigest()
    return int(h[:12], 16) / float(1 << 48)


@dataclass(frozen=True)
class RealImage:
    source: str
    split: str  # train | val | (none) for a source without splits
    image: Path
    label: Path | None

    @property
    def group(self) -> str:
        return photo_group(self.image.name)


def _images_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTS) if folder.is_dir() else []


def _label_for(image: Path, labels_dir: Path) -> Path | None:
    p = labels_dir / (image.stem + ".txt")
    return p if p.exists() else None


def find_sources(paths: Iterable[Path]) -> dict[str, Path]:
    """Real sources under the given folders: a folder with ``images/`` or split folders is one
    source; any other folder is searched one level down (e.g. ``../shared/data/real``)."""
    out: dict[str, Path] = {}

    def labelled(p: Path) -> bool:
        return (p / "images").is_dir() and (p / "labels").is_dir()

    def is_source(p: Path) -> bool:
        return labelled(p) or any(labelled(p / s) for s in TRAIN_SPLITS + VAL_SPLITS)

    for p in paths:
        p = Path(p).expanduser().resolve()
        if not p.is_dir():
            raise FileNotFoundError(f"no such folder: {p}")
        cands = [p] if is_source(p) else sorted(c for c in p.iterdir() if c.is_dir() and is_source(c))
        if not cands:
            raise FileNotFoundError(f"no labelled images (images/ + labels/) under {p}")
        for c in cands:
            name = c.name
            k = 2
            while name in out and out[name] != c:
                name = f"{c.name}-{k}"
                k += 1
            out[name] = c
    return out


def list_source(name: str, root: Path) -> list[RealImage]:
    """Every labelled image of one source with the split it was published in."""
    items: list[RealImage] = []
    splits = [(s, "train") for s in TRAIN_SPLITS] + [(s, "val") for s in VAL_SPLITS]
    found = False
    for folder, split in splits:
        d = root / folder
        if (d / "images").is_dir():
            found = True
            for img in _images_in(d / "images"):
                items.append(RealImage(name, split, img, _label_for(img, d / "labels")))
    if not found and (root / "images").is_dir():
        for img in _images_in(root / "images"):
            items.append(RealImage(name, "", img, _label_for(img, root / "labels")))
    return items


def split_groups(items: Sequence[RealImage], seed: int, val_fraction: float | None) -> dict[str, str]:
    """Photo group -> "train" or "val" for every group of the given images."""
    groups: dict[str, set[str]] = defaultdict(set)
    has_val: dict[str, bool] = defaultdict(bool)
    for it in items:
        groups[it.group].add(it.source)
        if it.split == "val":
            has_val[it.source] = True
    published_val = {it.group for it in items if it.split == "val"}
    out = {}
    for g, sources in groups.items():
        if g in published_val:
            out[g] = "val"
            continue
        if val_fraction is not None:
            frac = val_fraction
        elif all(has_val[s] for s in sources):
            frac = 0.0
        else:
            frac = DEFAULT_VAL_FRACTION
        out[g] = "val" if group_fraction(seed, g) < frac else "train"
    return out


def _link(target: Path, link: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        if link.is_symlink() and os.readlink(link) == str(target):
            return
        if link.is_dir() and not link.is_symlink():
            raise FileExistsError(f"{link} is a folder, not a link")
        link.unlink()
    os.symlink(target, link)


def _synth_lists(root: Path) -> tuple[list[str], list[str]]:
    """Image names (relative to ``root/images``) of a synthetic set's train and val lists."""

    def read(p: Path) -> list[str]:
        out = []
        for line in p.read_text().splitlines():
            line = line.strip()
            if not line:
                continue
            rel = Path(line[2:] if line.startswith("./") else line)
            if rel.is_absolute():
                rel = rel.relative_to(root)
            parts = rel.parts
            out.append(str(Path(*parts[1:])) if parts and parts[0] == "images" else str(rel))
        return out

    if (root / "train.txt").exists():
        train = read(root / "train.txt")
        val = read(root / "val.txt") if (root / "val.txt").exists() else []
        return [t for t in train if t not in set(val)], val
    imgs = sorted(str(p.relative_to(root / "images")) for p in (root / "images").rglob("*") if p.suffix.lower() in IMAGE_EXTS)
    return imgs, []


def write_mix(
    out: Path,
    real: Sequence[Path] = (),
    synth: Sequence[Path] = (),
    *,
    seed: int = 0,
    val_fraction: float | None = None,
    real_repeat: int = 1,
    synth_limit: int | None = None,
    synth_val: bool = False,
    keep_duplicates: bool = False,
) -> dict:
    """Assemble the training mix in ``out``; returns the summary also written to ``split.json``."""
    from .synth import write_data_yaml  # noqa: PLC0415

    out = Path(out).expanduser().resolve()
    out.mkdir(parents=True, exist_ok=True)
    sources = find_sources(real) if real else {}
    items: list[RealImage] = []
    owner: dict[str, str] = {}  # photo group -> the first source that holds it
    for name, root in sources.items():
        for it in list_source(name, root):
            if it.label is None:
                continue  # an image without a label file is no training data
            first = owner.setdefault(it.group, name)
            if first != name and not keep_duplicates:
                continue
            items.append(it)
    split = split_groups(items, seed, val_fraction)
    train: list[str] = []
    val: list[str] = []
    stats: dict[str, Counter] = defaultdict(Counter)
    for it in items:
        rel = Path("images") / it.source / it.image.name
        _link(it.image, out / rel)
        _link(it.label, out / "labels" / it.source / (it.image.stem + ".txt"))  # type: ignore[arg-type]
        which = split[it.group]
        (val if which == "val" else train).extend([f"./{rel.as_posix()}"] * (1 if which == "val" else real_repeat))
        stats[it.source][f"{which}_images"] += 1
    for name in sources:
        groups = {it.group for it in items if it.source == name}
        stats[name]["train_photos"] = sum(split[g] == "train" for g in groups)
        stats[name]["val_photos"] = sum(split[g] == "val" for g in groups)
    synth_names = []
    for k, s in enumerate(synth):
        s = Path(s).expanduser().resolve()
        if not (s / "images").is_dir():
            raise FileNotFoundError(f"no synthetic set (images/, labels/) in {s}")
        name = f"synth{k}" if len(synth) > 1 else "synth"
        synth_names.append(name)
        _link(s / "images", out / "images" / name)
        _link(s / "labels", out / "labels" / name)
        s_train, s_val = _synth_lists(s)
        if synth_limit is not None:
            s_train = s_train[:synth_limit]
        train += [f"./images/{name}/{p}" for p in s_train]
        if synth_val:
            val += [f"./images/{name}/{p}" for p in s_val]
        stats[name]["train_images"] = len(s_train)
        stats[name]["val_images"] = len(s_val) if synth_val else 0
    if not train:
        raise ValueError("the mix has no training images")
    if not val:
        val = train[: max(1, len(train) // 20)]
        print("mix: no validation images; using a few training images as val", file=sys.stderr)
    (out / "train.txt").write_text("\n".join(train) + "\n")
    (out / "val.txt").write_text("\n".join(val) + "\n")
    write_data_yaml(out / "data.yaml", out, "train.txt", "val.txt")
    summary = {
        "out": str(out),
        "seed": seed,
        "val_fraction": val_fraction,
        "real_repeat": real_repeat,
        "sources": {n: str(p) for n, p in sources.items()},
        "synthetic": synth_names,
        "train_images": len(train),
        "val_images": len(val),
        "per_source": {k: dict(v) for k, v in stats.items()},
        "nc": NUM_CLASSES,
        "val_groups": sorted(g for g, w in split.items() if w == "val"),
    }
    (out / "split.json").write_text(json.dumps(summary, indent=1))
    return summary


# --------------------------------------------------------------------------- CLI


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``mahjong-lens mix``."""
    parser.description = "Assemble a training mix (data.yaml) from real labelled photos and synthetic sets."
    parser.add_argument("--out", required=True, type=Path, help="output folder (links and lists only)")
    parser.add_argument("--real", type=Path, action="append", default=[],
                        help="a real source (train/ valid/ or images/ labels/), or a folder of sources; repeatable")
    parser.add_argument("--synth", type=Path, action="append", default=[], help="a folder written by `synth`; repeatable")
    parser.add_argument("--seed", type=int, default=0, help="seed of the validation split (default 0)")
    parser.add_argument("--val-fraction", type=float, default=None,
                        help="share of photo groups held out for validation in every source "
                             f"(default: published valid/ folders, {DEFAULT_VAL_FRACTION} where a source has none)")
    parser.add_argument("--real-repeat", type=int, default=1, help="list each real training image N times")
    parser.add_argument("--synth-limit", type=int, default=None, help="at most N synthetic training images per set")
    parser.add_argument("--synth-val", action="store_true", help="add the synthetic sets' val images to val")
    parser.add_argument("--keep-duplicates", action="store_true",
                        help="keep a photo that several sources hold in each of them")


def run(args: argparse.Namespace) -> int:
    """Run ``mahjong-lens mix``; returns the exit code."""
    if not args.real and not args.synth:
        print("mix: give at least one --real or --synth folder", file=sys.stderr)
        return 2
    if args.val_fraction is not None and not 0 <= args.val_fraction < 1:
        print("mix: --val-fraction must be in [0, 1)", file=sys.stderr)
        return 2
    try:
        s = write_mix(args.out, args.real, args.synth, seed=args.seed, val_fraction=args.val_fraction,
                      real_repeat=max(1, args.real_repeat), synth_limit=args.synth_limit, synth_val=args.synth_val,
                      keep_duplicates=args.keep_duplicates)
    except (FileNotFoundError, FileExistsError, ValueError) as e:
        print(f"mix: {e}", file=sys.stderr)
        return 2
    for name, st in s["per_source"].items():
        parts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(st.items()))
        print(f"{name}: {parts}")
    print(f"wrote {s['out']}/data.yaml: {s['train_images']} training, {s['val_images']} validation images")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mahjong-lens mix")
    configure_parser(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())


def label_path_for(image: Path) -> Path:
    return image.parent.parent / "labels" / (image.stem + ".txt")


def read_photo_list(listing: Path, data_dir: Path) -> list[Path]:
    """The photos named in `listing`, one path per line relative to `data_dir` (`#` starts a
    comment).  A missing photo or label file is an error: a list that silently shrank would
    train on less than its card says."""
    photos: list[Path] = []
    for number, line in enumerate(Path(listing).read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        photo = Path(line) if Path(line).is_absolute() else data_dir / line
        if not photo.exists() or not label_path_for(photo).exists():
            raise FileNotFoundError(f"{listing}:{number}: no photo with labels at {photo}")
        photos.append(photo)
    return photos
