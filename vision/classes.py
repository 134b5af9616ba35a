"""The one class list of the tile recogniser, and the YOLO label rows written in it.

Indices 0-41 are the canonical classes of ``../shared/data/README.md`` (so the
real labelled photos there stay valid as they are); 42-45 extend them with the
red fives and a face-down tile.
"""

from __future__ import annotations

from mahjong_lens.rules.tiles import format_tiles

from pathlib import Path
from typing import Iterable

SUITS = ("m", "p", "s")

CANONICAL_NAMES: tuple[str, ...] = (
    tuple(f"{n}{s}" for s in SUITS for n in range(1, 10))
    + tuple(f"{n}z" for n in range(1, 8))
    + tuple(f"{n}f" for n in range(1, 9))
)
EXTRA_NAMES: tuple[str, ...] = ("0m", "0p", "0s", "back")
CLASS_NAMES: tuple[str, ...] = CANONICAL_NAMES + EXTRA_NAMES

NUM_CLASSES = len(CLASS_NAMES)
BACK = "back"
#: A class of the crop classifier only, never a tile of a label or a hand: a box the detector
#: put on no tile (an empty tray slot, a die, felt); the recogniser drops such a box
NOT_A_TILE = "none"
RED_FIVES = ("0m", "0p", "0s")
HONOURS = tuple(f"{n}z" for n in range(1, 8))
FLOWERS = tuple(f"{n}f" for n in range(1, 9))
#: The 34 kinds of an ordinary set (four copies each in play).
PLAYING_TILES: tuple[str, ...] = CANONICAL_NAMES[:34]
#: Every name that shows a face (everything but ``back``).
FACE_NAMES: tuple[str, ...] = CLASS_NAMES[:-1]

_INDEX = {name: i for i, name in enumerate(CLASS_NAMES)}

assert len(CANONICAL_NAMES) == 42 and NUM_CLASSES == 46


def class_index(name: str) -> int:
    """Index of a tile name (``"5p"``, ``"0s"``, ``"back"``); KeyError if unknown."""
    try:
        return _INDEX[name]
    except KeyError:
        raise KeyError(f"unknown tile class {name!r}") from None


def class_name(index: int) -> str:
    """Name of a class index."""
    if not 0 <= index < NUM_CLASSES:
        raise IndexError(f"class index {index} out of range 0..{NUM_CLASSES - 1}")
    return CLASS_NAMES[index]


def is_red_five(name: str) -> bool:
    return name in RED_FIVES


def plain_five(name: str) -> str:
    """``0m`` -> ``5m``; any other name unchanged."""
    return f"5{name[1]}" if name in RED_FIVES else name


def names_dict() -> dict[int, str]:
    """``{index: name}`` as written under ``names:`` in a data.yaml."""
    return dict(enumerate(CLASS_NAMES))


def tiles_to_notation(tiles: Iterable[str]) -> str:
    """Tile names in hand-format notation, runs sharing a suit letter.

    ``["2m", "3m", "0p", "5z"] -> "23m0p5z"``. Order is kept; ``back`` is not a
    tile of a hand and raises ValueError.
    """
    tiles = list(tiles)
    for t in tiles:
        if len(t) != 2 or t == BACK or t not in _INDEX:
            raise ValueError(f"not a tile face: {t!r}")
    return format_tiles(tiles, sort=False)  # the one notation writer


# ------------------------------------------------------------------ YOLO labels in these classes

def read_yolo_labels(path: Path) -> list[tuple[int, float, float, float, float]]:
    """Rows (class, cx, cy, w, h) of a YOLO label file; a missing file means no tiles."""
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 5:
                rows.append((int(parts[0]), *map(float, parts[1:5])))
    return rows


def pixel_box(row: tuple[int, float, float, float, float], width: int, height: int) -> tuple[float, float, float, float]:
    """The x1y1x2y2 pixel box of a YOLO label row (class, cx, cy, w, h normalised)."""
    _, cx, cy, bw, bh = row
    return ((cx - bw / 2) * width, (cy - bh / 2) * height, (cx + bw / 2) * width, (cy + bh / 2) * height)
