"""From tile detections to the hands a player laid out: pure geometry, no model.

A hand on the table is a row of tiles: the concealed tiles, the winning tile set a
little apart at the end, and the declared sets (melds) set apart after them, a
called tile turned sideways, a concealed kong shown with its two outer tiles face
down. The dead wall is a row of face-down tiles with the dora indicators turned
face up. A photo of a table at the end of a game holds four such hands, one on
each side, each turned to face its player.

Everything here works from the detections' axis-aligned boxes, so it must not
care how the photo is rotated:

1. rows: each tile's local direction comes from its nearest neighbours (tiles
   touch along a row, rows lie further apart than a tile is wide); tiles are
   linked to neighbours that lie along both tiles' directions, and the chains
   that result are joined into rows when they lie on one line;
2. along a row, each box is turned back into the tile's extent along and across
   the row (an axis-aligned box of a rotated rectangle), which says which tiles
   lie sideways and how wide the gaps between tiles are, relative to the tile
   width there (so perspective, which shrinks far tiles, does not matter);
3. gaps split a row into groups: melds, the set-apart winning tile, the rest.

The reading direction of a row (which end is the player's left) is not in a
box. It comes, in order, from the table (four hands: each player's tiles point
at the table's centre), the melds (they lie at the right end), the winning tile
set apart (at the end), how sorted the tiles are (players sort their hands),
and last the image's own left-to-right.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from mahjong_lens.rules.hand import SetType
from mahjong_lens.rules.tiles import plain, sort_key, tile_name

from .detections import TileDetection

BACK = "back"
#: Width / height of an upright tile face; only used to undo the box growth of a
#: rotated tile when estimating its size, so a rough value is enough.
TILE_ASPECT = 0.75
#: Along/across shape of an upright tile's box in a photo (face plus some of its body)
#: when no well-conditioned row of the photo measures it.
DEFAULT_RATIO = 0.7
#: Height over width of a tile.
TILE_LENGTH = 1.35
#: Boxes tell the shape of a tile reliably in rows this far from the diagonal (|cos 2θ|).
GOOD_CONDITION = 0.7
#: A gap between two tiles, relative to the tile width, above which they are "set apart"
#: (on top of the row's usual spacing).
GAP_THRESHOLD = 0.13
#: A tile lies sideways when its along/across extent ratio exceeds the row's usual
#: ratio by this factor (an upright 3:4 tile turned sideways changes it by 16/9).
SIDEWAYS_FACTOR = 1.25
#: ... and surely sideways, wherever it lies, beyond this factor.
STRONG_SIDEWAYS = 1.6
#: Below this |cos 2θ| (a row within ~10° of the diagonal) the boxes say nothing about
#: a tile's shape and the spacing between centres is used instead.
MIN_CONDITION = 0.3
#: Tiles are linked into a row when their centres are closer than this many tile sizes.
LINK_DISTANCE = 1.9
#: Collinear pieces of a row are joined across gaps up to this many tile sizes.
JOIN_DISTANCE = 4.0
#: How far (in tile sizes) a tile may lie off its row's line.
LINE_TOLERANCE = 0.45
#: The most tiles one hand can hold (14 plus one per kong).
MAX_HAND_TILES = 18
#: A reading is doubtful when its runner-up scores at least this share of its confidence.
CLOSE_ALTERNATIVE = 0.75
#: A reading whose face is less probable than this (the classifier's own probability, when
#: the recogniser gives it) is doubtful: on the development hand rows this asks about all 24
#: misread tiles and 78 of 587 right ones; detector x face confidence below 0.5 asked about
#: 23 and 184 (a small tile's box is rarely sure, whatever its face).
DOUBTFUL_FACE = 0.9
#: Rows with fewer tiles than this are not a hand on their own.
MIN_HAND_TILES = 5
#: When some hand in the photo has this many tiles, smaller clusters are strays or discards.
MIN_FULL_HAND = 8


@dataclass
class MeldLayout:
    """A declared set as laid out: its detections in reading order."""

    type: SetType | str       # chow, pung or kong; "?" when the tiles make no set
    open: bool                # False only for a concealed kong (two face-down tiles)
    tiles: list[str]          # the faces read, "back" for a face-down tile
    indices: list[int]        # detection indices, reading order
    sideways: list[int] = field(default_factory=list)

    @property
    def hand_tiles(self) -> list[str]:
        """The tiles of the set, the face-down tiles of a concealed kong filled in."""
        faces = [t for t in self.tiles if t != BACK]
        if self.type == SetType.KONG and faces and len(faces) < 4:
            return faces + [plain(faces[0])] * (4 - len(faces))
        return faces


@dataclass
class HandLayout:
    """One player's hand: its rows' tiles split into concealed tiles and melds."""

    indices: list[int]                 # every detection of the hand, in reading order
    concealed: list[str]               # reading order, the winning tile included
    concealed_indices: list[int]
    melds: list[MeldLayout]
    win_tile: str | None = None
    win_index: int | None = None       # detection index of the tile set apart as the winning tile
    flowers: list[int] = field(default_factory=list)  # flowers and seasons shown beside the hand
    centre: tuple[float, float] = (0.0, 0.0)
    direction: tuple[float, float] = (1.0, 0.0)  # reading direction, image coordinates
    direction_from: str = "image"      # what decided the reading direction
    problems: list[str] = field(default_factory=list)  # notes: what was assumed
    errors: list[str] = field(default_factory=list)    # what stops the hand from being scored
    # the concealed row's line (a point and its direction), where lone tiles are looked for
    line: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @property
    def tile_count(self) -> int:
        return len(self.concealed) + sum(len(m.tiles) for m in self.melds)

    @property
    def kong_count(self) -> int:
        return sum(m.type == SetType.KONG for m in self.melds)

    def reading(self) -> tuple[list[str], str | None, list[tuple[str, bool, str]]]:
        """What the hand holds, whatever the order it was read in: sorted concealed tiles,
        the winning tile, and the melds as sorted (type, open, tiles); the form of
        datasets.synth.expected_reading, so a layout can be checked against a scene."""
        melds = sorted((m.type, m.open, "".join(sorted(m.hand_tiles))) for m in self.melds)
        return sorted(self.concealed), self.win_tile, melds


@dataclass
class Layout:
    hands: list[HandLayout]
    dora_indicators: list[str]
    dora_indices: list[int]
    dead_wall: list[int]               # the dead wall's detections (indicators included)
    unassigned: list[int]              # detections that belong to no hand and no wall
    doubtful: list[int]                # low-confidence readings: the page should ask
    sideways: list[int]
    rows: list[list[int]]              # every row found, reading order (for drawing and debugging)
    problems: list[str] = field(default_factory=list)

    def role(self, index: int) -> tuple[str, int | None, int | None]:
        """(role, hand number, meld number) of a detection."""
        for h, hand in enumerate(self.hands):
            if index == hand.win_index:
                return "win", h, None
            if index in hand.concealed_indices:
                return "concealed", h, None
            for m, meld in enumerate(hand.melds):
                if index in meld.indices:
                    return "meld", h, m
            if index in hand.flowers:
                return "flower", h, None
        if index in self.dora_indices:
            return "dora", None, None
        if index in self.dead_wall:
            return "dead_wall", None, None
        return "unassigned", None, None


# --------------------------------------------------------------------------- geometry

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
    for piece in (a, b):
        if len(piece) >= 2:
            _, piece_u = _fit_line(geo.centres[piece])
            if _angle_between(math.atan2(piece_u[1], piece_u[0]), math.atan2(u[1], u[0])) > math.radians(12):
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


# --------------------------------------------------------------------------- one row

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
        base = np.clip(_theil_sen(position, np.array(gaps), position), -0.4, 0.3)
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


def _could_be_meld(group: list[int], detections: Sequence[TileDetection], sideways: set[int]) -> bool:
    """A group that can hold called tiles: a set of three or four, or several sets laid close."""
    if len(group) in (3, 4):
        return _is_set(group, detections)
    return len(group) >= 6 and _partition(group, detections, sideways) is not None


def _is_definite_meld(group: list[int], detections: Sequence[TileDetection], sideways: set[int]) -> bool:
    """A set-apart group that is surely declared: a sideways (called) tile, or a concealed kong."""
    if len(group) not in (3, 4):
        return False
    return any(i in sideways for i in group) or _concealed_kong(group, detections) is not None


def _concealed_kong(group: list[int], detections: Sequence[TileDetection]) -> str | None:
    """The tile of a concealed kong shown with two face-down tiles, else None."""
    if len(group) != 4:
        return None
    faces = [detections[i].tile for i in group if not detections[i].face_down]
    if len(faces) != 2 or plain(faces[0]) != plain(faces[1]):
        return None
    return plain(faces[0])


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
        middle = (len(row.groups) - 1) / 2
        position = sum(k - middle for k in definite)
        if position != 0:
            return (position < 0, "melds")
    singles = [k for k, g in enumerate(row.groups) if len(g) == 1 and not detections[g[0]].face_down]
    if len(singles) == 1 and len(row.groups) > 1 and singles[0] in (0, len(row.groups) - 1):
        return (singles[0] == 0, "winning tile")
    tiles = [detections[i].tile for g in row.groups if len(g) > 2 or len(row.groups) == 1 for i in g]
    score = _sortedness(tiles)
    if abs(score) >= 2:
        return (score < 0, "sorted tiles")
    return None


# --------------------------------------------------------------------------- a hand

def _meld_type(tiles: list[str]) -> str:
    faces = [plain(t) for t in tiles if t != BACK]
    if len(tiles) == 4 and len(set(faces)) <= 1 and (len(faces) >= 2 or len(faces) == 0):
        return SetType.KONG
    if len(tiles) == 3 and len(faces) == 3:
        if len(set(faces)) == 1:
            return SetType.PUNG
        ordered = sorted(faces, key=sort_key)
        if ordered[0][1] in "mps" and len({f[1] for f in faces}) == 1 and \
                [int(f[0]) for f in ordered] == list(range(int(ordered[0][0]), int(ordered[0][0]) + 3)):
            return SetType.CHOW
    return "?"


def _is_set(group: Sequence[int], detections: Sequence[TileDetection]) -> bool:
    """Three or four tiles that make a chow, pung or kong (a kong may show two backs)."""
    tiles = [detections[i].tile for i in group]
    if BACK in tiles:
        return _concealed_kong(list(group), detections) is not None
    return _meld_type(tiles) != "?"


def _all_backs_kong(group: Sequence[int], detections: Sequence[TileDetection]) -> bool:
    return len(group) == 4 and all(detections[i].face_down for i in group)


def _partition(group: list[int], detections: Sequence[TileDetection], sideways: set[int]) -> list[list[int]] | None:
    """Split a run of tiles into consecutive sets of three or four, each with at most one
    sideways tile (melds laid too close to each other); None if there is no such split."""
    best: dict[int, list[list[int]] | None] = {0: []}
    for end in range(1, len(group) + 1):
        best[end] = None
        for size in (3, 4):
            start = end - size
            if start < 0 or best.get(start) is None:
                continue
            chunk = group[start:end]
            if (_is_set(chunk, detections) or _all_backs_kong(chunk, detections)) and \
                    sum(i in sideways for i in chunk) <= 1:
                best[end] = best[start] + [chunk]  # type: ignore[operator]
                break
    return best[len(group)]


def _peel(group: list[int], detections: Sequence[TileDetection], sideways: set[int]) -> tuple[list[int], list[list[int]]]:
    """Melds with a sideways tile laid against the concealed tiles without a gap: take them off
    the end (or the start) of the group. Returns the rest and the melds."""
    melds: list[list[int]] = []
    rest = list(group)
    for from_end in (True, False):
        while len(rest) > 3 and any(i in sideways for i in rest):
            for size in (3, 4):
                chunk = rest[-size:] if from_end else rest[:size]
                if any(i in sideways for i in chunk) and _is_set(chunk, detections):
                    melds.append(chunk)
                    rest = rest[:-size] if from_end else rest[size:]
                    break
            else:
                break
    return rest, melds


def _describe(indices: Sequence[int], detections: Sequence[TileDetection]) -> str:
    """Tiles as a player names them ('the East, the 3 of dots and a face-down tile'): the
    page marks them on the photo, so no numbers are needed."""
    return and_list([_named(detections[i].tile) for i in indices])


def _named(tile: str) -> str:
    return "a face-down tile" if tile == BACK else f"the {tile_name(tile)}"


def and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _loose_tiles(row: _Row, detections: Sequence[TileDetection]) -> int:
    """Tiles of a row that are not in set-apart groups shaped like melds."""
    groups = [[i for i in g if detections[i].tile[1:] != "f"] for g in row.groups]  # flowers aside
    tiles = [i for g in groups for i in g]
    if len(tiles) >= 3 and _partition(tiles, detections, row.sideways) is not None:
        return 0  # sets laid one after another, whatever the gaps say
    return sum(len(g) for g in groups
               if g and not (_could_be_meld(g, detections, row.sideways) or _all_backs_kong(g, detections)))


def _hand_from_rows(rows: list[_Row], detections: Sequence[TileDetection],
                    gap_melds: bool, win_tile: str | None) -> HandLayout:
    """Split a hand's row(s) into concealed tiles, the winning tile, melds and flowers.

    The row with the most tiles outside meld-shaped groups holds the concealed tiles;
    any other row (laid in front of or beside it) holds melds only.
    """
    problems: list[str] = []
    errors: list[str] = []
    sideways = set().union(*(r.sideways for r in rows))
    flowers = [i for r in rows for i in r.indices if detections[i].tile[1:] == "f"]
    for r in rows:  # flowers and seasons are shown beside the melds; they are no part of a set
        r.groups = [[i for i in g if i not in flowers] for g in r.groups]
        r.groups = [g for g in r.groups if g]
    primary = max(rows, key=lambda r: (_loose_tiles(r, detections), len(r.indices)))
    for r in rows:  # companions read the same way as the hand
        if r is not primary and float(np.dot(r.direction, primary.direction)) < 0:
            r.direction, r.indices, r.groups = -r.direction, r.indices[::-1], [g[::-1] for g in r.groups[::-1]]

    # the primary row: melds against the concealed tiles are peeled off first
    groups: list[list[int]] = []
    definite: set[int] = set()
    for g in primary.groups:
        called = sum(i in sideways for i in g)
        split = _partition(g, detections, sideways) if called >= 2 or (called and len(g) > 4) else None
        if split is None and called and len(g) > 4:
            rest, peeled = _peel(g, detections, sideways)
            split = ([rest] if rest else []) + peeled if peeled else None
        for part in split or [g]:
            if _is_definite_meld(part, detections, sideways) or (split and len(part) in (3, 4) and
                                                                 _is_set(part, detections)) \
                    or _all_backs_kong(part, detections):
                definite.add(len(groups))
            groups.append(part)

    if not primary.conditioned:
        # near a diagonal an unseen called tile widens the gaps beside it: pieces at the end
        # that make a set together are one meld
        k = len(groups) - 1
        while k > 0:
            joined = groups[k - 1] + groups[k]
            if len(groups[k]) < 3 and len(joined) in (3, 4) and _is_set(joined, detections):
                groups[k - 1:k + 1] = [joined]
                definite = {j - 1 if j > k else j for j in definite if j != k}
            k -= 1
    win_group = None
    singles = [k for k, g in enumerate(groups)
               if len(g) == 1 and not detections[g[0]].face_down and g[0] not in sideways]
    if win_tile is not None:
        singles = [k for k in singles if plain(detections[groups[k][0]].tile) == plain(win_tile)]
    if len(singles) == 1:
        win_group = singles[0]
    elif len(singles) > 1:
        win_group = max(singles)  # the lone tile nearest the end of the concealed tiles
        problems.append(f"several tiles lie apart ({_describe([groups[k][0] for k in singles], detections)}); "
                        f"{_named(detections[groups[win_group][0]].tile)}, nearest the end of the hand, "
                        "was taken as the winning tile")
    meld_groups = set(definite)
    if gap_melds or not primary.conditioned:
        # undecorated sets set apart after the concealed tiles are declared melds (when a photo
        # marks calls with sideways tiles, such groups are only the player's grouping, unless
        # the row lies near a diagonal, where a sideways tile cannot be told from its box)
        for k in range(len(groups) - 1, -1, -1):
            if k == win_group or k in meld_groups:
                continue
            remaining = sum(len(g) for j, g in enumerate(groups) if j not in meld_groups and j != k)
            if remaining < 2:
                break
            if _is_set(groups[k], detections):
                meld_groups.add(k)
            elif len(groups[k]) >= 6 and (split := _partition(groups[k], detections, set())):
                # several sets laid without a gap between them
                groups[k:k + 1] = split
                meld_groups = {j + len(split) - 1 if j > k else j for j in meld_groups}
                meld_groups.update(range(k, k + len(split)))
                if win_group is not None and win_group > k:
                    win_group += len(split) - 1
            else:
                break
    melds: list[MeldLayout] = []
    concealed_indices: list[int] = []
    for k, group in enumerate(groups):
        if k in meld_groups:
            melds.append(_meld(group, detections, sideways))
        else:
            concealed_indices.extend(group)
    for r in rows:
        if r is primary:
            continue
        groups_of_row = r.groups
        if not all(len(g) in (3, 4) and (_is_set(g, detections) or _all_backs_kong(g, detections))
                   for g in groups_of_row):
            # a row of melds only: split it by the tiles when its gaps do not split it into sets
            whole = _partition([i for g in r.groups for i in g], detections, sideways)
            groups_of_row = whole or groups_of_row
        for group in groups_of_row:
            parts = [group] if len(group) in (3, 4) else (_partition(group, detections, sideways) or [group])
            for part in parts:
                if len(part) in (3, 4):
                    melds.append(_meld(part, detections, sideways))
                else:
                    errors.append(f"{_describe(part, detections)} lie beside the hand but are not a "
                                  "set of three or four")
                    concealed_indices.extend(part)
    win_index = groups[win_group][0] if win_group is not None else None
    if win_index is None and win_tile is not None:
        # given by the user, not set apart: the last copy in the hand
        copies = [i for i in concealed_indices if plain(detections[i].tile) == plain(win_tile)]
        win_index = copies[-1] if copies else None
    all_indices = [i for r in rows for i in r.indices]
    centre = np.mean([detections[i].center for i in all_indices], axis=0)
    hand = HandLayout(
        indices=all_indices,
        concealed=[detections[i].tile for i in concealed_indices],
        concealed_indices=concealed_indices,
        melds=melds,
        win_tile=detections[win_index].tile if win_index is not None else None,
        win_index=win_index,
        flowers=flowers,
        centre=(float(centre[0]), float(centre[1])),
        direction=(float(primary.direction[0]), float(primary.direction[1])),
        direction_from=primary.direction_from,
        problems=problems,
        errors=errors,
        line=(primary.centre, primary.direction),
    )
    return hand


def _meld(group: list[int], detections: Sequence[TileDetection], sideways: set[int]) -> MeldLayout:
    tiles = [detections[i].tile for i in group]
    concealed = _concealed_kong(group, detections) is not None or _all_backs_kong(group, detections)
    return MeldLayout(type=_meld_type(tiles), open=not concealed, tiles=tiles, indices=list(group),
                      sideways=[i for i in group if i in sideways])


def hand_problems(hand: HandLayout, detections: Sequence[TileDetection]) -> list[str]:
    """What stops a hand from being scored as laid out (sentences), beyond the tile count."""
    out = []
    for meld in hand.melds:
        if meld.type == SetType.KONG and not any(t != BACK for t in meld.tiles):
            out.append("a concealed kong lies with all four tiles face down: turn up the two middle "
                       "ones so it can be read")
        elif meld.type == "?":
            out.append(f"{_describe(meld.indices, detections)} are laid out as a meld but do not make a "
                       "chow, pung or kong")
    stray = [i for i in hand.concealed_indices if i in {s for m in hand.melds for s in m.sideways}]
    if stray:
        out.append(f"{_describe(stray, detections)} lies sideways but is not in a set apart from the hand")
    hidden = [i for i in hand.concealed_indices if detections[i].face_down]
    if hidden:
        count = "a face-down tile lies" if len(hidden) == 1 else f"{len(hidden)} face-down tiles lie"
        out.append(f"{count} among the concealed tiles: turn {'it' if len(hidden) == 1 else 'them'} "
                   "face up (only a concealed kong shows tiles face down)")
    return out


# --------------------------------------------------------------------------- the photo

def is_doubtful(d: TileDetection, min_confidence: float = 0.5,
                min_face_confidence: float = DOUBTFUL_FACE) -> bool:
    """Whether the page should ask about a reading: its face is not probable enough
    (`face_confidence`, or `confidence` when the recogniser gives no face probability), or
    the runner-up comes close."""
    sure = d.face_sureness
    least = min_face_confidence if d.face_confidence is not None else min_confidence
    return sure < least or any(alt != d.tile and alt_sure >= CLOSE_ALTERNATIVE * sure
                               for alt, alt_sure in d.alternatives[:1])


def find_layout(detections: Sequence[TileDetection], *, win_tile: str | None = None,
                dora_region: Sequence[float] | None = None, min_confidence: float = 0.5,
                min_face_confidence: float = DOUBTFUL_FACE, gap_melds: bool | None = None) -> Layout:
    """The hands, dead wall and dora indicators laid out in a photo.

    ``win_tile``: the winning tile when the user gives it (otherwise the tile set apart).
    ``dora_region``: x1, y1, x2, y2 of a region the user marked; its face-up tiles are
    the dora indicators. ``min_confidence``, ``min_face_confidence``: below these a reading
    is doubtful (``is_doubtful``). ``gap_melds``: whether undecorated sets set apart at the
    end of a hand are declared melds; by default, only when no tile in the photo lies
    sideways (a photo that marks calls with sideways tiles marks all of them).
    """
    detections = list(detections)
    doubtful = [i for i, d in enumerate(detections) if is_doubtful(d, min_confidence, min_face_confidence)]
    problems: list[str] = []
    region: list[int] = []
    if dora_region is not None:
        x1, y1, x2, y2 = dora_region
        region = [i for i, d in enumerate(detections) if x1 <= d.center[0] <= x2 and y1 <= d.center[1] <= y2]
    rest = [i for i in range(len(detections)) if i not in region]
    found, stacked = _rows_and_stacked([detections[i] for i in rest])
    rows = [[rest[i] for i in row] for row in found]
    stacked_tiles = {rest[i] for i in stacked}
    ratio_reference = _global_ratio(rows, detections)

    def build(indices: list[int], up: np.ndarray | None = None) -> _Row:
        return _build_row(indices, detections, ratio_reference, up)

    walls, candidates, unassigned = [], [], []
    for r in rows:
        backs = sum(detections[i].face_down for i in r)
        if _is_wall(r, detections):
            if len(r) == 4 and backs == 4 or _holds_meld(build(r), detections):
                candidates.append(r)  # perhaps a concealed kong shown all face down
            elif len(r) <= 8:
                walls.append(r)
            else:
                unassigned.extend(r)  # a standing hand seen from behind, or the live wall
        else:
            candidates.append(r)
    built = {id(r): build(r) for r in candidates}
    discards = _ponds([built[id(r)] for r in candidates if not set(r) <= stacked_tiles], detections)
    unassigned.extend(discards)
    candidates = [r for r in candidates if not set(r) & set(discards)]

    # hands: the longest rows, each with the shorter rows of melds laid beside or in front of it
    groups: list[list[list[int]]] = []
    distance: dict[int, float] = {}
    leftovers: list[list[int]] = []
    for r in sorted(candidates, key=len, reverse=True):
        near = _companion(built[id(r)], groups, built, detections) if len(r) >= 2 else None
        if near is not None:
            groups[near[0]].append(r)
            distance[id(r)] = near[1]
        elif len(r) >= MIN_HAND_TILES and not all(detections[i].face_down for i in r):
            groups.append([r])
        else:
            leftovers.append(r)
    # a hand holds at most 18 tiles and one row of loose (non-meld) tiles: the rows
    # farthest from it go first (a row of discards nearby, another player's melds)
    for group in groups:
        while len(group) > 1:
            loose = [r for r in group if _loose_tiles(built[id(r)], detections)]
            tiles = sum(detections[i].tile[1:] != "f" for r in group for i in r)
            if tiles <= MAX_HAND_TILES and len(loose) <= 1:
                break
            pool = group[1:] if len(loose) <= 1 else [r for r in group[1:] if r in loose] or group[1:]
            farthest = max(pool, key=lambda r: distance[id(r)])
            group.remove(farthest)
            leftovers.append(farthest)
    sizes = [sum(len(r) for r in g) for g in groups]
    if any(s >= MIN_FULL_HAND for s in sizes):  # short rows beside real hands are discards or strays
        leftovers += [r for g, s in zip(groups, sizes) if s < MIN_FULL_HAND for r in g]
        groups = [g for g, s in zip(groups, sizes) if s >= MIN_FULL_HAND]
    strays: list[int] = []  # lone tiles, off every row
    for r in leftovers:
        if len(r) == 4 and all(detections[i].face_down for i in r):
            walls.append(r)
        elif len(r) == 1:
            strays.extend(r)
        else:
            unassigned.extend(r)

    ups = _table_ups([built[id(g[0])] for g in groups])
    hand_rows = [[build(r, up) if up is not None else built[id(r)] for r in g] for g, up in zip(groups, ups)]
    all_sideways = set().union(*(row.sideways for g in hand_rows for row in g)) if hand_rows else set()
    if gap_melds is None:
        gap_melds = not all_sideways
    hands = [_hand_from_rows(g, detections, gap_melds, win_tile) for g in hand_rows]
    unassigned.extend(_place_strays(strays, hands, detections, win_tile))
    for hand in hands:
        hand.errors.extend(hand_problems(hand, detections))
        all_sideways.update(s for m in hand.melds for s in m.sideways)
    hands = _table_order(hands)

    dora_indices: list[int] = []
    dead_wall: list[int] = []
    if region:
        dora_indices = sorted((i for i in region if not detections[i].face_down),
                              key=lambda i: detections[i].center[0])
        dead_wall = list(region)
    for wall in walls:
        row = build(wall)
        dead_wall.extend(row.indices)
        if not region:
            dora_indices.extend(i for i in row.indices if not detections[i].face_down)
    if len([w for w in walls if any(not detections[i].face_down for i in w)]) > 1 and not region:
        problems.append(f"{len(walls)} rows of face-down tiles were found; the dora indicators of all of "
                        "them were taken")
    return Layout(
        hands=hands,
        dora_indicators=[detections[i].tile for i in dora_indices],
        dora_indices=dora_indices,
        dead_wall=dead_wall,
        unassigned=sorted(set(unassigned)),
        doubtful=doubtful,
        sideways=sorted(all_sideways),
        rows=[built[id(r)].indices if id(r) in built else r for r in rows],
        problems=problems,
    )


def _holds_meld(row: _Row, detections: Sequence[TileDetection]) -> bool:
    """Face-up tiles in a row of backs that make a meld (a called tile, or a run of three
    or four that is a set): a concealed kong laid all face down beside a meld, not a dead wall."""
    if any(not detections[i].face_down for i in row.sideways):
        return True
    run: list[int] = []
    for i in row.indices + [-1]:
        if i >= 0 and not detections[i].face_down:
            run.append(i)
            continue
        if len(run) >= 3 and any(_is_set(run[k:k + size], detections)
                                 for size in (3, 4) for k in range(len(run) - size + 1)):
            return True
        run = []
    return False


def _global_ratio(rows: list[list[int]], detections: Sequence[TileDetection]) -> float | None:
    """The usual along/across ratio of upright tiles in the photo's well-conditioned rows."""
    ratios: list[float] = []
    for r in rows:
        if len(r) < 3 or _is_wall(r, detections):
            continue
        _, u = _fit_line(np.array([detections[i].center for i in r], dtype=float))
        ratios.extend(_extents(detections, r, u, None).ratios)
    return float(np.median(ratios)) if ratios else None


def _tile_size(detections: Sequence[TileDetection], indices: Sequence[int], row: "_Row") -> float:
    growth = _box_growth(math.atan2(row.direction[1], row.direction[0]))
    return float(np.median([math.sqrt(detections[i].width * detections[i].height / growth) for i in indices]))


def _ponds(rows: list[_Row], detections: Sequence[TileDetection]) -> list[int]:
    """Discards: short rows stacked against each other in a block (a pond), not a hand."""
    short = [r for r in rows if len(r.indices) <= 7]
    sizes = [_tile_size(detections, r.indices, r) for r in short]
    angles = [math.atan2(r.direction[1], r.direction[0]) for r in short]
    links = _UnionFind(len(short))
    for a in range(len(short)):
        for b in range(a + 1, len(short)):
            ra, rb = short[a], short[b]
            size = (sizes[a] + sizes[b]) / 2
            if float(np.hypot(*(rb.centre - ra.centre))) > (len(ra.indices) + len(rb.indices) + 2) * size:
                continue
            if _angle_between(angles[a], angles[b]) > math.radians(10):
                continue
            normal = np.array([-ra.direction[1], ra.direction[0]])
            pitch = abs(float(np.dot(rb.centre - ra.centre, normal)))
            ta = [float(np.dot(np.array(detections[i].center) - ra.centre, ra.direction)) for i in ra.indices]
            tb = [float(np.dot(np.array(detections[i].center) - ra.centre, ra.direction)) for i in rb.indices]
            overlap = min(max(ta), max(tb)) - max(min(ta), min(tb))
            if pitch < 1.35 * size and overlap > -0.5 * size:
                links.union(a, b)
    out: list[int] = []
    for block in links.groups():
        tiles = [i for k in block for i in short[k].indices]
        # two rows of 13 tiles or more are a hand with its melds laid in a row before it
        # (its own row short by the melds' tiles): a pond's first two rows hold 12 at most
        if len(block) == 2 and sum(detections[i].tile[1:] != "f" for i in tiles) >= 13:
            continue
        if len(block) >= 2:
            out.extend(tiles)
    return out


def _companion(row: _Row, groups: list[list[list[int]]], built: dict,
               detections: Sequence[TileDetection]) -> tuple[int, float] | None:
    """The hand a row of melds may belong to (parallel and close), and how far it lies
    from that hand's main row, in tile sizes."""
    best = None
    for k, group in enumerate(groups):
        main = built[id(group[0])]
        # a short row's direction is rough (a called tile shifts its line)
        tolerance = math.radians(15 if len(row.indices) >= MIN_HAND_TILES else 30)
        if _angle_between(math.atan2(row.direction[1], row.direction[0]),
                          math.atan2(main.direction[1], main.direction[0])) > tolerance:
            continue
        size = _tile_size(detections, main.indices, main)
        normal = np.array([-main.direction[1], main.direction[0]])
        offset = abs(float(np.dot(row.centre - main.centre, normal)))
        along = [float(np.dot(np.array(detections[i].center) - main.centre, main.direction)) for i in main.indices]
        ends = [float(np.dot(np.array(detections[i].center) - main.centre, main.direction)) for i in row.indices]
        outside = max(min(along) - max(ends), min(ends) - max(along), 0.0)
        if offset < 3.0 * size and outside < 3.5 * size:
            far = (offset + outside) / size
            if best is None or far < best[1]:
                best = (k, far)
    return best


def _place_strays(strays: list[int], hands: list[HandLayout], detections: Sequence[TileDetection],
                  win_tile: str | None) -> list[int]:
    """Lone tiles off the rows: the fourth tile of an added kong (laid on the called tile,
    across the row), or the winning tile laid in front of the hand. Returns the rest."""
    left = []
    for i in strays:
        d = detections[i]
        if len([j for j in strays if j == i]) != 1 or any(i in h.indices for h in hands):
            continue
        centre = np.array(d.center)
        # on a meld first, whichever hand it is: a tile laid across a pung is its fourth
        placed = any(_add_to_kong(i, hand, detections, *_hand_frame(hand, detections)[1:]) for hand in hands)
        for hand in hands if not placed else []:
            line_centre, u, size = _hand_frame(hand, detections)
            # a hand that holds all its tiles takes no more: a tile beside it is a discard
            full = hand.tile_count >= 14 + hand.kong_count
            if not d.face_down and d.tile[1:] != "f" and not full and \
                    (win_tile is None or hand.win_index is not None or plain(win_tile) == plain(d.tile)):
                v = centre - line_centre
                across = abs(float(np.dot(v, [-u[1], u[0]])))
                along = float(np.dot(v, u))
                extent = max(abs(float(np.dot(np.array(detections[k].center) - line_centre, u)))
                             for k in hand.indices)
                # beside the hand, or just beyond one end of it (set apart off the row's line)
                if across < 2.5 * size and abs(along) < extent + 0.5 * size or \
                        across < 1.0 * size and abs(along) < extent + 3.0 * size:
                    # a lone tile by the hand is one of its tiles; it is the winning tile when
                    # it completes the hand and no other tile was set apart
                    hand.concealed.append(d.tile)
                    hand.concealed_indices.append(i)
                    hand.indices.append(i)
                    if hand.win_index is None and hand.tile_count == 14 + hand.kong_count:
                        hand.win_tile, hand.win_index = d.tile, i
                    placed = True
                    break
        if not placed:
            left.append(i)
    return left


def _hand_frame(hand: HandLayout, detections: Sequence[TileDetection]) -> tuple[np.ndarray, np.ndarray, float]:
    """A point on the hand's concealed row, the row's direction, and the hand's tile size."""
    line_centre, u = hand.line if hand.line is not None else (np.array(hand.centre), np.array(hand.direction))
    size = float(np.median([math.sqrt(detections[k].width * detections[k].height) for k in hand.indices]))
    return line_centre, u, size


def _add_to_kong(i: int, hand: HandLayout, detections: Sequence[TileDetection], u: np.ndarray,
                 size: float) -> bool:
    """Lay a lone tile on the pung it lies against, across the row (an added kong); True if it was.

    The tile it touches is the called one, turned sideways; near a diagonal a box cannot show
    that, so any tile of a pung of the same face will do. Three alike among the concealed tiles
    with a fourth laid across one of them are a called pung too.
    """
    d = detections[i]
    if d.face_down or d.tile[1:] == "f":
        return False
    centre = np.array(d.center)
    normal = np.array([-u[1], u[0]])

    def across(j: int) -> bool:
        v = centre - np.array(detections[j].center)
        distance = float(np.hypot(*v))
        return distance < 1.6 * size and abs(float(np.dot(v, normal))) > 0.7 * distance

    same = plain(d.tile)
    for meld in hand.melds:
        if len(meld.tiles) != 3 or meld.type != SetType.PUNG or plain(meld.tiles[0]) != same:
            continue
        partner = next((j for j in meld.sideways if across(j)), None)
        if partner is None:
            partner = next((j for j in meld.indices if across(j)), None)
        if partner is None:
            continue
        meld.tiles.append(d.tile)
        meld.indices.append(i)
        meld.sideways.extend(j for j in (partner, i) if j not in meld.sideways)
        meld.type = _meld_type(meld.tiles)
        hand.indices.append(i)
        return True
    # three alike side by side among the concealed tiles, the fourth across one of them
    order = hand.concealed_indices
    for k in range(len(order) - 2):
        run = order[k:k + 3]
        if all(plain(detections[j].tile) == same for j in run) and any(across(j) for j in run) and \
                hand.win_index not in run:
            partner = next(j for j in run if across(j))
            meld = MeldLayout(type=SetType.KONG, open=True, tiles=[detections[j].tile for j in run] + [d.tile],
                              indices=run + [i], sideways=[partner, i])
            hand.melds.append(meld)
            hand.concealed_indices = order[:k] + order[k + 3:]
            hand.concealed = [detections[j].tile for j in hand.concealed_indices]
            hand.indices.append(i)
            return True
    return False


def _table_ups(mains: list[_Row]) -> list[np.ndarray | None]:
    """Each hand's "up" (towards the table's centre) when hands face several ways, else None."""
    if len(mains) < 2:
        return [None] * len(mains)
    angles = [math.atan2(r.direction[1], r.direction[0]) for r in mains]
    if max(_angle_between(a, b) for a in angles for b in angles) < math.radians(45):
        return [None] * len(mains)
    table_centre = np.mean([r.centre for r in mains], axis=0)
    ups: list[np.ndarray | None] = []
    for r in mains:
        normal = np.array([-r.direction[1], r.direction[0]])
        if float(np.dot(table_centre - r.centre, normal)) < 0:
            normal = -normal
        ups.append(normal)
    return ups


def _table_order(hands: list[HandLayout]) -> list[HandLayout]:
    """Hands from the one nearest the bottom of the photo, then counter-clockwise
    (the turn order: each next seat sits to the right of the previous player)."""
    if len(hands) < 2:
        return hands
    centre = np.mean([h.centre for h in hands], axis=0)

    def angle(h: HandLayout) -> float:
        # image y points down: bottom is +90°, going on to the right side (0°), then the top
        # (the bottom seat is anything within 45 degrees of straight down)
        a = math.degrees(math.atan2(h.centre[1] - centre[1], h.centre[0] - centre[0]))
        return (90.0 - a + 45.0) % 360.0
    return sorted(hands, key=angle)


def copies_problem(tiles: Sequence[tuple[int, str]]) -> tuple[str, list[int]] | None:
    """A sentence and the detections involved when more than four copies of a tile were read."""
    counts = Counter(plain(t) for _, t in tiles if t != BACK and t[1] != "f")
    for tile, count in sorted(counts.items(), key=lambda kv: sort_key(kv[0])):
        if count > 4:
            involved = [i for i, t in tiles if t != BACK and plain(t) == tile]
            return (f"{count} copies of the {tile_name(tile)} were read; a set has four, so at least "
                    "one of them is misread (they are marked on the photo)", involved)
    return None
