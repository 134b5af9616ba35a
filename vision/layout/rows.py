"""Stage 1, rows: tiles linked to the neighbours along their direction, chains joined into rows."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from mahjong_lens.rules.tiles import plain

from ..detections import TileDetection
from .thresholds import JOIN_DISTANCE, LINE_TOLERANCE, LINK_DISTANCE, PAIR_ANGLE, PIECE_ANGLE, TILE_ASPECT


def _box_growth(angle: float, aspect: float = TILE_ASPECT) -> float:
    """Area of the axis-aligned box of a rotated tile over the tile's own area."""
    c, s = abs(math.cos(angle)), abs(math.sin(angle))
    return (aspect * c + s) * (aspect * s + c) / aspect


def _axis_angle(vectors: np.ndarray) -> float:
    """The mean direction of undirected vectors (angles mod 180°), via doubled angles."""
    angles = np.arctan2(vectors[:, 1], vectors[:, 0])
    return 0.5 * math.atan2(float(np.sin(2 * angles).sum()), float(np.cos(2 * angles).sum()))


def _angle_between(a: float, b: float) -> float:
    """Difference of two axis angles (mod 180°), 0..90°, in radians."""
    d = abs(a - b) % math.pi
    return min(d, math.pi - d)


def _fit_line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(centre, unit direction) of the total-least-squares line through points."""
    centre = points.mean(axis=0)
    if len(points) < 2:
        return centre, np.array([1.0, 0.0])
    _, _, vt = np.linalg.svd(points - centre, full_matrices=False)
    return centre, vt[0] / np.linalg.norm(vt[0])


class _Geometry:
    """Centres, sizes and local directions of all detections."""

    def __init__(self, detections: Sequence[TileDetection]):
        self.n = len(detections)
        self.centres = np.array([d.center for d in detections], dtype=float).reshape(-1, 2)
        self.widths = np.array([max(d.width, 1e-3) for d in detections], dtype=float)
        self.heights = np.array([max(d.height, 1e-3) for d in detections], dtype=float)
        diff = self.centres[:, None, :] - self.centres[None, :, :]
        self.dist = np.hypot(diff[..., 0], diff[..., 1])
        np.fill_diagonal(self.dist, np.inf)
        self.direction = np.zeros(self.n)
        for i in range(self.n):
            if self.n < 2:
                break
            nearest = self.dist[i].min()
            # the neighbours along the row: about as near as the nearest (both sides)
            close = np.where(self.dist[i] <= nearest * 1.15)[0]
            self.direction[i] = _axis_angle(self.centres[close] - self.centres[i])
        # a tile's size (the root of its area) with the growth of a rotated box undone
        growth = np.array([_box_growth(a) for a in self.direction])
        self.size = np.sqrt(self.widths * self.heights / growth)


class _UnionFind:
    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int) -> None:
        self.parent[self.find(i)] = self.find(j)

    def groups(self) -> list[list[int]]:
        out: dict[int, list[int]] = {}
        for i in range(len(self.parent)):
            out.setdefault(self.find(i), []).append(i)
        return list(out.values())


def _is_wall(indices: Sequence[int], detections: Sequence[TileDetection]) -> bool:
    """A row mostly of face-down tiles: the dead wall (a concealed kong has only two)."""
    backs = sum(detections[i].face_down for i in indices)
    return backs >= 3 and backs >= len(indices) - backs


def find_rows(detections: Sequence[TileDetection]) -> list[list[int]]:
    """Group detections into rows of tiles lying in a line (unordered within a row)."""
    return _rows_and_stacked(detections)[0]


def _rows_and_stacked(detections: Sequence[TileDetection]) -> tuple[list[list[int]], dict[int, int]]:
    """The rows, and the tiles laid across a row on a tile of their face (each a row of its
    own): {such a tile: the tile it lies on}."""
    if not detections:
        return [], {}
    geo = _Geometry(detections)
    links = _UnionFind(geo.n)
    tolerance = math.radians(20)
    reach = LINK_DISTANCE * (geo.size[:, None] + geo.size[None, :]) / 2
    for i, j in zip(*np.nonzero(np.triu(geo.dist <= reach, 1))):
        v = geo.centres[j] - geo.centres[i]
        angle = math.atan2(v[1], v[0])
        if _angle_between(angle, geo.direction[i]) < tolerance and \
                _angle_between(angle, geo.direction[j]) < tolerance:
            links.union(int(i), int(j))
    # the fourth tile of an added kong, laid across the row against the called tile, would
    # take the called tile's place in its row: keep it apart until the rows are joined
    pieces = links.groups()
    outers = _stacked_outers(pieces, geo, detections)
    pieces = [p for p in ([i for i in piece if i not in outers] for piece in pieces) if p]
    # join collinear pieces across the gaps between melds, and the tiles set apart,
    # nearest first; only the pairs that involve a joined row are measured again
    rows = dict(enumerate(pieces))
    gaps: dict[tuple[int, int], float] = {}

    def measure(a: int, b: int) -> None:
        gap = _join_gap(rows[a], rows[b], geo, detections)
        if gap is not None:
            gaps[(min(a, b), max(a, b))] = gap
    keys = list(rows)
    for x in range(len(keys)):
        for y in range(x + 1, len(keys)):
            measure(keys[x], keys[y])
    while gaps:
        a, b = min(gaps, key=gaps.get)
        rows[a] = rows[a] + rows.pop(b)
        gaps = {k: v for k, v in gaps.items() if a not in k and b not in k}
        for other in rows:
            if other != a:
                measure(a, other)
    out = list(rows.values())
    # pairs still linked to each other alone, now that the rows around them are whole
    late = _stacked_outers(out, geo, detections)
    out = [r for r in ([i for i in row if i not in late] for row in out) if r]
    outers.update(late)
    for inner in sorted(set(outers.values())):
        # a called tile between the tiles of its meld is not joined as a piece (the pieces would
        # interleave): put it in the place it fills
        if [inner] not in out:
            continue
        longer = [r for r in out if len(r) >= 2]
        fits = [(off, n) for n, r in enumerate(longer) if (off := _off_row(r, inner, geo)) is not None]
        if fits:
            out.remove([inner])
            longer[min(fits)[1]].append(inner)
    return out + [[o] for o in sorted(outers)], outers


def _stacked_outers(pieces: list[list[int]], geo: _Geometry,
                    detections: Sequence[TileDetection]) -> dict[int, int]:
    """Tiles laid across a row against a tile of the same face (the fourth tile of an added
    kong on its called tile): {that tile: the tile it lies against}.

    Of two such tiles, the inner one continues a row of linked tiles (or fills a place in
    it) and the outer one lies across that row and does not.
    """
    piece_of = {i: tuple(p) for p in pieces for i in p}
    out: dict[int, int] = {}
    for a, b in zip(*np.nonzero(np.triu(np.ones((geo.n, geo.n), bool), 1))):
        a, b = int(a), int(b)
        da, db = detections[a], detections[b]
        if da.face_down or db.face_down or da.tile[1:] == "f" or plain(da.tile) != plain(db.tile) or \
                geo.dist[a, b] > 1.3 * min(geo.size[a], geo.size[b]) or a in out or b in out or \
                a not in piece_of or b not in piece_of:
            continue
        best = None
        for inner, outer in ((a, b), (b, a)):
            if len(piece_of[outer]) > 2:
                continue  # linked along a row of its own: not laid across one
            for piece in pieces:
                row = [i for i in piece if i != outer and i != inner]
                if len(row) < 2:
                    continue
                if inner in piece:
                    off = 0.0
                else:
                    fit = _off_row(row, inner, geo)
                    if fit is None:
                        continue
                    off = fit
                # a called pung: two more of the face beside the inner tile
                alike = sum(plain(detections[k].tile) == plain(da.tile) and
                            geo.dist[inner, k] < 2.6 * geo.size[inner] for k in row)
                _, u = _fit_line(geo.centres[row])
                v = geo.centres[outer] - geo.centres[inner]
                outer_off = _off_row(row, outer, geo)
                if alike >= 2 and abs(float(np.dot(v, u))) < 0.5 * float(np.hypot(*v)) and \
                        (outer_off is None or outer_off > off + 0.2) and (best is None or off < best[0]):
                    best = (off, inner, outer)
        if best is not None:
            out[best[2]] = best[1]
    return out


def _off_row(row: list[int], tile: int, geo: _Geometry) -> float | None:
    """How far (in tile sizes) a tile lies off a row's line when it fills a place in the row
    (within it, in a gap, or just beyond an end); None when it does not."""
    size = float(np.median(geo.size[row]))
    centre, u = _fit_line(geo.centres[row])
    v = geo.centres[tile] - centre
    off = abs(float(np.dot(v, [-u[1], u[0]]))) / size
    along = (geo.centres[row] - centre) @ u
    t = float(np.dot(v, u))
    if off > LINE_TOLERANCE or t < along.min() - 1.6 * size or t > along.max() + 1.6 * size:
        return None
    if np.abs(along - t).min() < 0.6 * size:  # a place already taken
        return None
    return off


def _join_gap(a: list[int], b: list[int], geo: _Geometry,
              detections: Sequence[TileDetection]) -> float | None:
    """The gap (in tile sizes) between two collinear pieces of a row, None if they are not."""
    if len(a) == 1 and len(b) == 1:
        return None  # two lone tiles say nothing about a line
    size = float(np.median(geo.size[a + b]))
    reach = (JOIN_DISTANCE + 1.5) * size
    ca, cb = geo.centres[a].mean(axis=0), geo.centres[b].mean(axis=0)
    if float(np.hypot(*(ca - cb))) > reach + (len(a) + len(b)) * 1.2 * size or \
            geo.dist[np.ix_(a, b)].min() > reach:
        return None  # too far apart to be one row
    if _is_wall(a, detections) != _is_wall(b, detections) and min(len(a), len(b)) > 1:
        return None
    union = a + b
    points = geo.centres[union]
    size = float(np.median(geo.size[union]))
    centre, u = _fit_line(points)
    # each piece must run along the line; a pair's direction is rough (two centres a tile
    # apart swing by degrees with a few pixels: a called tile lying sideways sits off the
    # line), but a pair across the line is a tile laid on another (an added kong)
    for piece in (a, b):
        if len(piece) >= 2:
            _, piece_u = _fit_line(geo.centres[piece])
            limit = PIECE_ANGLE if len(piece) >= 3 else PAIR_ANGLE
            if _angle_between(math.atan2(piece_u[1], piece_u[0]), math.atan2(u[1], u[0])) > math.radians(limit):
                return None
    normal = np.array([-u[1], u[0]])
    if np.abs((points - centre) @ normal).max() > LINE_TOLERANCE * size:
        return None
    ta = np.sort((geo.centres[a] - centre) @ u)
    tb = np.sort((geo.centres[b] - centre) @ u)
    gap = max(tb[0] - ta[-1], ta[0] - tb[-1])
    if gap < -0.5 * size:  # interleaved pieces are not one row laid out along a line
        return None
    gap = max(gap, 0.0) / size
    return gap if gap <= JOIN_DISTANCE else None
