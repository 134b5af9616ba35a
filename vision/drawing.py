"""The reading drawn on the photo: each tile's box in the colour of its role, its face named."""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from mahjong_lens.rules.tiles import tile_name

from .scan_result import ScanResult

ROLE_COLOURS = {"concealed": (60, 180, 60), "win": (40, 40, 230), "meld": (220, 120, 30),
                "dora": (200, 40, 200), "dead_wall": (140, 140, 140), "flower": (0, 140, 255),
                "unassigned": (0, 200, 230)}


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
        label = t.tile if t.tile != "back" else "--"
        if t.doubtful:
            label += "?"
            cv2.rectangle(out, (x1 - thick * 2, y1 - thick * 2), (x2 + thick * 2, y2 + thick * 2),
                          (0, 140, 255), thick)
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
        ty = y1 - 3 if y1 - th - 3 > 0 else y2 + th + 3
        cv2.rectangle(out, (x1, ty - th - 2), (x1 + tw + 2, ty + base - 1), (255, 255, 255), -1)
        cv2.putText(out, label, (x1 + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, font, colour, thick, cv2.LINE_AA)
    for entry in scan.hands if scores else []:
        box = union(entry.tiles)
        if not box:
            continue
        if entry.result and entry.result.get("valid"):
            text = f"{entry.seat or ''} {entry.result['points']} points".strip()
        elif entry.result:
            text = f"{entry.seat or ''} not scored".strip()
        else:
            text = f"{entry.seat or ''} ?".strip()
        y = min(out.shape[0] - 4, box[3] + int(unit * 0.6))
        cv2.putText(out, text, (box[0], y), cv2.FONT_HERSHEY_SIMPLEX, font * 1.2, (0, 0, 0), thick + 2,
                    cv2.LINE_AA)
        cv2.putText(out, text, (box[0], y), cv2.FONT_HERSHEY_SIMPLEX, font * 1.2, (255, 255, 255), thick,
                    cv2.LINE_AA)
    return out
