"""The reading drawn on the photo: each tile's box in the colour of its role, its face named."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from mahjong_lens.rules.tiles import WIND_NAMES, is_red, tile_face, tile_label

from .scan_result import ScanResult

ROLE_COLOURS = {"concealed": (60, 180, 60), "win": (40, 40, 230), "meld": (220, 120, 30),
                "dora": (200, 40, 200), "dead_wall": (140, 140, 140), "flower": (0, 140, 255),
                "unassigned": (0, 200, 230)}


# what a question asks, in a few words under the hand (the page and `scan` ask it in full)
QUESTION_CAPTIONS = {"win_tile": "which tile won?", "missing_win_tile": "a tile out of the photo?",
                     "kong_in_row": "a kong?", "red_five": "a red five?", "win_way": "self-drawn or a discard?",
                     "not_won": "did it win?"}


def label_lines(tile: str) -> list[str]:
    """A tile's short name (rules.tiles.tile_label) in the lines drawn on it: what is printed on
    the tile, then its word ("5", "dots"; "red 5", "dots"; "East"; a flower's word first: "Autumn",
    "3"). Read one after the other, they are the short name."""
    face, word = tile_face(tile)
    if not face or not face.isdigit():
        return [tile_label(tile)]
    if tile[1] == "f":
        return [word, face]
    return [f"red {face}" if is_red(tile) else face, word]


def hand_caption(entry) -> str:
    """The words under a hand on the photo: its seat and score, or what stands in its place."""
    seat = f"{WIND_NAMES[entry.seat]}: " if entry.seat in WIND_NAMES else ""
    if entry.result and entry.result.get("valid") and not entry.question:
        return f"{seat}{entry.result['points']} points"
    if entry.question:
        return f"{seat}{QUESTION_CAPTIONS.get(entry.question, 'a question: see the page')}"
    return f"{seat}not scored"


def annotate(image: np.ndarray, scan: ScanResult, scores: bool = True) -> np.ndarray:
    """The photo with every tile boxed and named, melds and dora indicators outlined, and
    under each hand its score (scores=False: boxes only, as the shared camera stream, whose
    viewers each score it in their own situation)."""
    import cv2
    out = image.copy()
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    tiles = scan.tiles
    sizes = [min(t.detection.width, t.detection.height) for t in tiles] or [40]
    unit = max(float(np.median(sizes)), 8.0)
    thick = max(1, int(round(unit / 40)))
    font = max(0.3, unit / 110)

    def union(indices: Iterable[int]) -> tuple[int, int, int, int] | None:
        boxes = [tiles[i].detection.box for i in indices if 0 <= i < len(tiles)]
        if not boxes:
            return None
        pad = unit * 0.12
        return (int(min(b[0] for b in boxes) - pad), int(min(b[1] for b in boxes) - pad),
                int(max(b[2] for b in boxes) + pad), int(max(b[3] for b in boxes) + pad))

    groups: dict[tuple[int, int], list[int]] = {}
    for i, t in enumerate(tiles):
        if t.role == "meld":
            groups.setdefault((t.hand, t.meld), []).append(i)
    for indices in groups.values():
        box = union(indices)
        if box:
            cv2.rectangle(out, box[:2], box[2:], ROLE_COLOURS["meld"], thick * 2)
    dora = [i for i, t in enumerate(tiles) if t.role == "dora"]
    box = union(dora)
    if box:
        cv2.rectangle(out, box[:2], box[2:], ROLE_COLOURS["dora"], thick * 2)
        cv2.putText(out, "dora", (box[0], max(12, box[1] - 4)), cv2.FONT_HERSHEY_SIMPLEX, font,
                    ROLE_COLOURS["dora"], thick, cv2.LINE_AA)
    for i, t in enumerate(tiles):
        x1, y1, x2, y2 = (int(round(v)) for v in t.detection.box)
        colour = ROLE_COLOURS.get(t.role or "unassigned", (0, 200, 230))
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick * (2 if t.role == "win" else 1))
        lines = label_lines(t.tile)
        if t.doubtful:
            lines[-1] += "?"
            cv2.rectangle(out, (x1 - thick * 2, y1 - thick * 2), (x2 + thick * 2, y2 + thick * 2),
                          (0, 140, 255), thick)
        # on the tile's own top, inside its box, as narrow as the tile: beside or above it a
        # label would lie on the next tile, or on the tile behind in a hand laid in two rows
        ty = y1
        for text in lines:
            scale = font
            (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
            if tw > x2 - x1 - 2:
                scale = font * (x2 - x1 - 2) / tw
                (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
            ty += th + 3
            cv2.rectangle(out, (x1, ty - th - 3), (x1 + tw + 2, ty + base - 1), (255, 255, 255), -1)
            cv2.putText(out, text, (x1 + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)
    for entry in scan.hands if scores else []:
        box = union(entry.tiles)
        if not box:
            continue
        text = hand_caption(entry)
        y = min(out.shape[0] - 4, box[3] + int(unit * 0.6))
        cv2.putText(out, text, (box[0], y), cv2.FONT_HERSHEY_SIMPLEX, font * 1.2, (0, 0, 0), thick + 2,
                    cv2.LINE_AA)
        cv2.putText(out, text, (box[0], y), cv2.FONT_HERSHEY_SIMPLEX, font * 1.2, (255, 255, 255), thick,
                    cv2.LINE_AA)
    return out
