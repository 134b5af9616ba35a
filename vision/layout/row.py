"""Stage 2, one row: each box turned back into the tile's extent along the row, which says
which tiles lie sideways and how wide the gaps are; the groups the gaps make; the reading
direction."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from mahjong_lens.rules.tiles import plain, sort_key

from ..detections import TileDetection
from .rows import _fit_line, _is_wall
from .sets import _could_be_meld, _is_definite_meld, _is_set, _partition_one_reread
from .thresholds import (BACK, DEFAULT_RATIO, GAP_THRESHOLD, GAP_TREND_RANGE, GOOD_CONDITION, MIN_CONDITION,
                         SIDEWAYS_FACTOR, STRONG_SIDEWAYS, TILE_LENGTH)


@dataclass
class _Row:
    indices: list[int]           # reading order
    direction: np.ndarray        # unit vector of reading order
    centre: np.ndarray
    sideways: set[int]
    groups: list[list[int]]      # split at the gaps, reading order
    wall: bool = False
    direction_from: str = "image"
    conditioned: bool = True     # the boxes can tell sideways tiles (the row is not near a diagonal)


@dataclass
class _Extents:
    sideways: set[int]           # detection indices
    gaps: list[float]            # between neighbours in order, in tile widths
    ratios: list[float]          # along/across of each tile (empty when the boxes cannot tell)
    strength: dict[int, float]   # how far past the row's usual shape a sideways tile is


def _extents(detections: Sequence[TileDetection], order: list[int], u: np.ndarray,
             ratio_reference: float | None, upright: set[int] = frozenset(),
             turned: set[int] = frozenset()) -> _Extents:
    """Which tiles of a row lie sideways, and the gaps between neighbours (in tile widths).

    An axis-aligned box of a tile rotated by θ is W = a|cos| + b|sin|, H = a|sin| + b|cos|
    with a, b the tile's extents along and across the row; solving for a, b gives each
    tile's shape in the row's frame. ``upright``: tiles known not to lie sideways;
    ``turned``: tiles known to (from the recogniser's rotation).
    """
    c, s = abs(float(u[0])), abs(float(u[1]))
    det = c * c - s * s
    W = np.array([detections[i].width for i in order])
    H = np.array([detections[i].height for i in order])
    t = np.array([float(np.dot(detections[i].center, u)) for i in order])
    n = len(order)
    sideways: set[int] = set()
    strength: dict[int, float] = {}
    ratios: list[float] = []
    if abs(det) >= MIN_CONDITION:
        along = np.maximum((c * W - s * H) / det, 1e-3)
        across = np.maximum((c * H - s * W) / det, 1e-3)
        ratio = along / across
        if abs(det) >= GOOD_CONDITION:
            ratios = [float(r) for r in ratio]
        # the usual shape changes along a row seen in perspective: compare each tile with the trend
        if n >= 3 or ratio_reference is None:
            reference = np.exp(_theil_sen(t, np.log(ratio), t))
        else:
            reference = np.full(n, ratio_reference)
        for k in range(n):
            if ratio[k] > reference[k] * SIDEWAYS_FACTOR and order[k] not in upright:
                sideways.add(k)
                strength[order[k]] = float(ratio[k] / reference[k])
    rest = np.array([k for k in range(n) if k not in sideways and order[k] not in turned] or list(range(n)))
    if abs(det) >= GOOD_CONDITION:
        width = _trend(t[rest], along[rest], t)
        height = _trend(t[rest], across[rest], t)
    else:
        # the inversion above amplifies noise here: take the width from the box with the
        # usual shape of a tile assumed instead
        r = ratio_reference or DEFAULT_RATIO
        estimate = (W / (c + s / r) + H / (s + c / r)) / 2
        width = _trend(t[rest], estimate[rest], t)
        if n >= 4:  # most neighbours touch: the spacing bounds the width
            width = np.minimum(width, float(np.median(np.diff(t))))
        height = width * TILE_LENGTH
    if abs(det) < MIN_CONDITION:
        # near the diagonal boxes of upright and sideways tiles look alike: use the spacing
        w0 = float(np.median(width))
        spacing = np.diff(t)
        sideways = {k for k in _sideways_from_spacing(spacing / w0 - 1.0, (TILE_LENGTH - 1.0) / 2)
                    if order[k] not in upright}
        strength = {order[k]: SIDEWAYS_FACTOR for k in sideways}
    for k in range(n):
        if order[k] in turned:
            sideways.add(k)
            strength.setdefault(order[k], STRONG_SIDEWAYS)
    extent = np.where([k in sideways for k in range(n)], height, width)
    gaps = [float((t[k + 1] - t[k] - (extent[k] + extent[k + 1]) / 2) / ((width[k] + width[k + 1]) / 2))
            for k in range(n - 1)]
    return _Extents({order[k] for k in sideways}, gaps, ratios, strength)


def _theil_sen(t: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A straight-line trend of values along t, robust to a few outliers (Theil-Sen);
    the median alone for fewer than four points."""
    if len(t) < 4 or np.ptp(t) == 0:
        return np.full(len(at), float(np.median(values)))
    i, j = np.triu_indices(len(t), 1)
    dt = t[j] - t[i]
    keep = np.abs(dt) > 1e-9
    slope = float(np.median((values[j] - values[i])[keep] / dt[keep]))
    intercept = float(np.median(values - slope * t))
    return slope * at + intercept


def _trend(t: np.ndarray, values: np.ndarray, at: np.ndarray) -> np.ndarray:
    """A tile dimension along the row (perspective shrinks far tiles), kept within what was measured."""
    return np.clip(_theil_sen(t, values, at), 0.6 * values.min(), 1.4 * values.max())


def _sideways_from_spacing(excess: np.ndarray, sideways_excess: float) -> set[int]:
    """Sideways tiles from centre spacing alone (rows near the diagonal).

    A sideways tile pushes each neighbour away by half the difference of a tile's
    height and width; a run of such wide spacings is covered by the fewest tiles.
    """
    if len(excess) == 0:
        return set()
    base = float(np.median(excess))
    wide = [k for k in range(len(excess))
            if base + 0.5 * sideways_excess < excess[k] < base + sideways_excess + GAP_THRESHOLD]
    out: set[int] = set()
    k = 0
    while k < len(wide):
        run = [wide[k]]
        while k + 1 < len(wide) and wide[k + 1] == run[-1] + 1:
            k += 1
            run.append(wide[k])
        if len(run) >= 2:  # pairs (p, p+1), (p+1, p+2): the shared tile p+1
            out.update(range(run[0] + 1, run[-1] + 1, 2))
        else:  # one wide pair: the tile that is not followed by another close neighbour
            p = run[0]
            out.add(p + 1 if p + 1 == len(excess) or excess[p + 1] > base + GAP_THRESHOLD else p)
        k += 1
    return out


def _sortedness(tiles: list[str]) -> int:
    """How many neighbours are in ascending order minus how many descend."""
    faces = [t for t in tiles if t != BACK]
    score = 0
    for x, y in zip(faces, faces[1:]):
        kx, ky = sort_key(x), sort_key(y)
        score += (kx < ky) - (kx > ky)
    return score


def _split(order: list[int], gaps: list[float]) -> list[list[int]]:
    """Split a row at the gaps clearly wider than the spacing of the tiles around them.

    The usual spacing is a straight-line trend along the row (robust to the few real
    gaps): a row seen in perspective, or laid loosely, drifts along its length.
    """
    if not order:
        return []
    groups = [[order[0]]]
    if len(gaps) >= 5:
        position = np.arange(len(gaps), dtype=float)
        base = np.clip(_theil_sen(position, np.array(gaps), position), *GAP_TREND_RANGE)
    elif len(gaps) >= 3:  # too few for a trend: the median gap, robust to one real gap
        base = np.full(len(gaps), float(np.clip(np.median(gaps), *GAP_TREND_RANGE)))
    else:
        base = np.zeros(len(gaps))
    for k, gap in enumerate(gaps):
        if gap > base[k] + GAP_THRESHOLD:
            groups.append([])
        groups[-1].append(order[k + 1])
    return groups


def _build_row(indices: list[int], detections: Sequence[TileDetection], ratio_reference: float | None,
               up: np.ndarray | None = None) -> _Row:
    """Order a row, find its sideways tiles and gaps, and choose its reading direction."""
    centres = np.array([detections[i].center for i in indices], dtype=float)
    centre, u = _fit_line(centres)
    if len(indices) == 1:
        d = detections[indices[0]]
        u = np.array([1.0, 0.0]) if d.width >= d.height else np.array([0.0, 1.0])
    # image default: left to right, or top to bottom for a row standing upright
    if (abs(u[0]) >= abs(u[1]) and u[0] < 0) or (abs(u[0]) < abs(u[1]) and u[1] < 0):
        u = -u
    order = sorted(indices, key=lambda i: float(np.dot(detections[i].center, u)))
    # the recogniser's rotation says which tiles lie sideways wherever the row lies
    known = {i: _lies_along(detections[i], u) for i in indices if detections[i].rotation is not None}
    upright = {i for i, along in known.items() if not along}
    turned = {i for i, along in known.items() if along}
    ext = _extents(detections, order, u, ratio_reference, upright, turned)
    groups = _split(order, ext.gaps)
    # a called tile lies in a meld; a tile that only looks a little sideways outside any
    # set of three or four is an upright tile seen at a slant
    conditioned = abs(u[0] ** 2 - u[1] ** 2) >= GOOD_CONDITION
    weak = {i for i in ext.sideways
            if i not in known and not (conditioned and ext.strength.get(i, 0.0) >= STRONG_SIDEWAYS) and
            not _could_be_meld(next(g for g in groups if i in g), detections, ext.sideways)}
    if weak:
        ext = _extents(detections, order, u, ratio_reference, upright | weak, turned)
        groups = _split(order, ext.gaps)
    sideways = ext.sideways
    row = _Row(order, u, centre, sideways, groups, wall=_is_wall(indices, detections),
               conditioned=conditioned or len(indices) < 2 or len(known) == len(indices))
    tiles_up = _tiles_up(detections, [i for i in order if i in upright], u)
    decided = (float(np.dot([-tiles_up[1], tiles_up[0]], u)) < 0, "tile rotation") if tiles_up is not None \
        else _reading_direction(row, detections, up)
    if decided is not None:
        flip, reason = decided
        row.direction_from = reason
        if flip:
            row.direction = -u
            row.indices = order[::-1]
            row.groups = [g[::-1] for g in groups[::-1]]
    return row


def _lies_along(d: TileDetection, u: np.ndarray) -> bool:
    """Whether a tile whose rotation is known lies sideways in a row along u (its top points
    along the row, not across it)."""
    top = d.top
    return top is not None and abs(float(np.dot(top, u))) > math.cos(math.radians(45))


def _tiles_up(detections: Sequence[TileDetection], upright: list[int], u: np.ndarray) -> np.ndarray | None:
    """Where the upright tiles of a row point (away from their player), from the recogniser's
    rotations; None unless at least two agree on a direction across the row."""
    tops = np.array([detections[i].top for i in upright], dtype=float).reshape(-1, 2)
    if len(tops) < 2:
        return None
    mean = tops.mean(axis=0)
    if float(np.hypot(*mean)) < 0.5:  # they disagree (tiles of two players in one row?)
        return None
    up = mean - float(np.dot(mean, u)) * u  # across the row
    norm = float(np.hypot(*up))
    return up / norm if norm > 0.5 else None


def _reading_direction(row: _Row, detections: Sequence[TileDetection],
                       up: np.ndarray | None) -> tuple[bool, str] | None:
    """(flip?, reason), or None to keep the image's own left-to-right."""
    u = row.direction
    if up is not None:
        # the player's right, for a player whose tiles point "up" (at the table's centre)
        right = np.array([-up[1], up[0]])
        return (float(np.dot(right, u)) < 0, "table")
    if row.wall:
        return None
    definite = [k for k, g in enumerate(row.groups) if _is_definite_meld(g, detections, row.sideways)]
    if definite and len(row.groups) > 1:
        # the melds lie at the player's right: the end whose run of meld-shaped groups
        # holds the surely declared ones
        shaped = [k in definite or (len(g) in (3, 4) and _is_set(g, detections)) for k, g in enumerate(row.groups)]
        right = next((k for k in range(len(shaped) - 1, -1, -1) if not shaped[k]), -1)
        left = next((k for k in range(len(shaped)) if not shaped[k]), len(shaped))
        at_right = any(k > right for k in definite)
        at_left = any(k < left for k in definite)
        if at_right != at_left:
            return (at_left, "melds")
        # else the side the declared melds lie on, counted in groups and in tiles alike (a meld
        # split at its called tile is several groups; a winning tile apart is one tile)
        by_groups, by_tiles = _meld_side(row, definite)
        if by_groups * by_tiles > 0:
            return (by_groups < 0, "melds")
    singles = [k for k, g in enumerate(row.groups) if len(g) == 1 and not detections[g[0]].face_down]
    if len(singles) == 1 and len(row.groups) > 1 and singles[0] in (0, len(row.groups) - 1):
        return (singles[0] == 0, "winning tile")
    tiles = [detections[i].tile for g in row.groups if len(g) > 2 or len(row.groups) == 1 for i in g]
    score = _sortedness(tiles)
    if abs(score) >= 2:
        return (score < 0, "sorted tiles")
    return _weak_meld_side(row, detections, definite)


def _meld_side(row: _Row, melds: Sequence[int]) -> tuple[float, float]:
    """How far past the row's middle its groups `melds` lie, summed, counted in groups and in
    tiles (positive: towards the row's end)."""
    middle = (len(row.groups) - 1) / 2
    by_groups = sum(k - middle for k in melds)
    starts = np.cumsum([0] + [len(g) for g in row.groups])
    middle = (starts[-1] - 1) / 2
    by_tiles = sum(starts[k] + (len(row.groups[k]) - 1) / 2 - middle for k in melds)
    return float(by_groups), float(by_tiles)


def _weak_meld_side(row: _Row, detections: Sequence[TileDetection],
                    definite: Sequence[int]) -> tuple[bool, str] | None:
    """Where nothing surer says which end of a row the melds lie at (the player's right): the
    side the declared melds lie on counted in groups or in tiles, where one count is even and
    the other is not; else, melds shown by gaps alone, the end whose piece splits into sets
    (one misread tile allowed) where the other end's does not (`definite`: the row's groups
    that are surely declared melds).  The same hand turned a quarter then reads the same
    (synthetic seed 2000, its boxes turned: 31 -> 33 of the 33 unturned)."""
    if len(row.groups) < 2:
        return None
    if definite:
        by_groups, by_tiles = _meld_side(row, definite)
        if (by_groups == 0) != (by_tiles == 0):
            return (by_groups + by_tiles < 0, "melds, one count")
    ends = [len(g) >= 3 and _partition_one_reread(g, detections) is not None
            for g in (row.groups[0], row.groups[-1])]
    if ends[0] != ends[1]:
        return (ends[0], "sets at one end")
    return None
