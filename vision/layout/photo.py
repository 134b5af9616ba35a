"""Stage 4, the photo: hands, their melds, the dead wall and dora indicators, strays; the table's order."""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import Sequence

import numpy as np

from mahjong_lens.rules.hand import SetType
from mahjong_lens.rules.tiles import plain, sort_key, tile_name

from ..detections import TileDetection, iou
from .hand import _hand_from_rows, _loose_tiles, blank_white_dragons, hand_problems, reread_to_win
from .model import HandLayout, Layout, MeldLayout
from .row import _Row, _build_row, _extents
from .rows import _UnionFind, _angle_between, _box_growth, _fit_line, _is_wall, _rows_and_stacked
from .sets import _all_backs_kong, _is_set, _meld_type
from .thresholds import (BACK, CLOSE_ALTERNATIVE, DOUBTFUL_FACE, DUPLICATE_CONFIDENCE, DUPLICATE_IOU,
                         DUPLICATE_OVERLAP, MAX_HAND_TILES, MIN_FULL_HAND, MIN_HAND_TILES, SQUEEZED_MIN_ROW,
                         SQUEEZED_SPACING, STACKED_ANGLE, STACKED_PITCH)


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
    rows, duplicates = _without_duplicates(rows, detections, ratio_reference)

    def build(indices: list[int], up: np.ndarray | None = None) -> _Row:
        return _build_row(indices, detections, ratio_reference, up)

    # the stages: rows sorted into walls and candidates, discards set aside, hands grouped
    # with the rows of melds beside them, each hand read, the dead wall and dora indicators
    walls, candidates, unassigned = _sort_rows(rows, detections, build)
    built = {id(r): build(r) for r in candidates}
    discards = _ponds([built[id(r)] for r in candidates if not set(r) <= stacked_tiles], detections)
    unassigned.extend(discards)
    unassigned.extend(duplicates)
    candidates = [r for r in candidates if not set(r) & set(discards)]
    groups, leftovers = _group_hands(candidates, built, detections)
    strays: list[int] = []  # lone tiles, off every row
    for r in leftovers:
        if len(r) == 4 and all(detections[i].face_down for i in r):
            walls.append(r)
        elif len(r) == 1:
            strays.extend(r)
        else:
            unassigned.extend(r)

    # each hand read from its rows, turned as the table says (every player faces its centre)
    ups = _table_ups([built[id(g[0])] for g in groups])
    hand_rows = [_joined([build(r, up) if up is not None else built[id(r)] for r in g], detections)
                 for g, up in zip(groups, ups)]
    all_sideways = set().union(*(row.sideways for g in hand_rows for row in g)) if hand_rows else set()
    if gap_melds is None:
        gap_melds = not all_sideways
    hands = [_hand_from_rows(g, detections, gap_melds, win_tile) for g in hand_rows]
    unassigned.extend(_place_strays(strays, hands, detections, win_tile))
    asked: list[int] = []
    for hand in hands:
        blanks, seen = blank_white_dragons(hand, detections)  # seen: the hand's detections as now read
        asked += blanks + reread_to_win(hand, seen)
        hand.errors.extend(hand_problems(hand, seen))
        all_sideways.update(s for m in hand.melds for s in m.sideways)
    hands = _table_order(hands)
    # a tile re-read to make its meld a set is asked about, like any unsure reading
    doubtful += [i for hand in hands for m in hand.melds for i in m.reread if i not in doubtful]
    doubtful += [i for i in asked if i not in doubtful]

    dora_indices, dead_wall = _dead_wall(region, walls, detections, build, problems)
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


def _sort_rows(rows: list[list[int]], detections: Sequence[TileDetection], build: Callable[[list[int]], _Row]
               ) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """Rows of backs (walls; a row of four backs may be a concealed kong, kept as a candidate),
    rows that may be (part of) a hand, and tiles of neither (the live wall, a standing hand)."""
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
    return walls, candidates, unassigned


def _group_hands(candidates: list[list[int]], built: dict, detections: Sequence[TileDetection]
                 ) -> tuple[list[list[list[int]]], list[list[int]]]:
    """Hands: the longest rows (flowers aside), each with the shorter rows of melds laid beside
    or in front of it; and the rows left over."""
    groups: list[list[list[int]]] = []
    distance: dict[int, float] = {}
    leftovers: list[list[int]] = []
    # a hand laid in two rows is one candidate, as long as both together (it must not lose
    # its rows to a longer row of other tiles nearby)
    pairs = _stacked_pairs(candidates, built, detections)
    paired = {id(r) for pair in pairs for r in pair}
    units = [list(pair) for pair in pairs] + [[r] for r in candidates if id(r) not in paired]
    # the longest first, flowers aside: they are set apart beside the melds, not a hand's tiles
    for unit in sorted(units, key=lambda u: _hand_tiles(u, detections), reverse=True):
        if len(unit) == 2:
            groups.append(unit)
            distance[id(unit[1])] = 0.0
            continue
        r = unit[0]
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
            tiles = _hand_tiles(group, detections)
            # one row of loose tiles, or two laid one behind the other (a hand in two rows)
            if tiles <= MAX_HAND_TILES and (len(loose) <= 1 or len(loose) == 2 and
                                            _stacked(built[id(loose[0])], built[id(loose[1])], detections)):
                break
            pool = group[1:] if len(loose) <= 1 else [r for r in group[1:] if r in loose] or group[1:]
            farthest = max(pool, key=lambda r: distance[id(r)])
            group.remove(farthest)
            leftovers.append(farthest)
    sizes = [sum(len(r) for r in g) for g in groups]
    if any(s >= MIN_FULL_HAND for s in sizes):  # short rows beside real hands are discards or strays
        leftovers += [r for g, s in zip(groups, sizes) if s < MIN_FULL_HAND for r in g]
        groups = [g for g, s in zip(groups, sizes) if s >= MIN_FULL_HAND]
    return groups, leftovers


def _hand_tiles(rows: list[list[int]], detections: Sequence[TileDetection]) -> int:
    """The tiles of rows that count towards a hand: flowers and seasons aside."""
    return sum(detections[i].tile[1:] != "f" for r in rows for i in r)


def _stacked_pairs(candidates: list[list[int]], built: dict, detections: Sequence[TileDetection]
                   ) -> list[tuple[list[int], list[int]]]:
    """Rows of loose tiles laid one behind the other that together hold a hand's tiles (13 to
    MAX_HAND_TILES), each row in one pair at most, the closest pairs first."""
    def faces(r: list[int]) -> int:
        return sum(detections[i].tile[1:] != "f" and not detections[i].face_down for i in r)
    loose = [r for r in candidates if faces(r) >= 3 and _loose_tiles(built[id(r)], detections)]
    found = []
    for k, a in enumerate(loose):
        for b in loose[k + 1:]:
            ra, rb = built[id(a)], built[id(b)]
            # a concealed kong's backs are tiles of the hand too
            if 13 <= _hand_tiles([a, b], detections) <= MAX_HAND_TILES and _stacked(ra, rb, detections):
                # the nearest across the rows first (their centres along the rows may lie apart)
                found.append((_pitch_and_overlap(ra, rb, detections)[0], a, b))
    pairs: list[tuple[list[int], list[int]]] = []
    used: set[int] = set()
    for _, a, b in sorted(found, key=lambda item: item[0]):
        if id(a) not in used and id(b) not in used:
            pairs.append((a, b))
            used.update((id(a), id(b)))
    return pairs


def _stacked(a: _Row, b: _Row, detections: Sequence[TileDetection]) -> bool:
    """Two rows laid one behind the other: parallel, a tile's length or two apart, side by side
    along the row (a hand laid out in two rows, or its sets in blocks of two rows)."""
    if _angle_between(math.atan2(a.direction[1], a.direction[0]), math.atan2(b.direction[1], b.direction[0])) \
            > math.radians(STACKED_ANGLE):
        return False
    size = (_tile_size(detections, a.indices, a) + _tile_size(detections, b.indices, b)) / 2
    pitch, overlap = _pitch_and_overlap(a, b, detections)
    return STACKED_PITCH[0] * size < pitch < STACKED_PITCH[1] * size and overlap > 0


def _pitch_and_overlap(a: _Row, b: _Row, detections: Sequence[TileDetection]) -> tuple[float, float]:
    """How far row b lies from row a across a's direction, and how far the two overlap along
    it (negative: the gap between their ends), in pixels."""
    normal = np.array([-a.direction[1], a.direction[0]])
    pitch = abs(float(np.dot(b.centre - a.centre, normal)))
    along_a = [float(np.dot(np.array(detections[i].center) - a.centre, a.direction)) for i in a.indices]
    along_b = [float(np.dot(np.array(detections[i].center) - a.centre, a.direction)) for i in b.indices]
    return pitch, min(max(along_a), max(along_b)) - max(min(along_a), min(along_b))


def _joined(rows: list[_Row], detections: Sequence[TileDetection]) -> list[_Row]:
    """A hand's rows with its two rows of loose tiles laid one behind the other joined into one
    row: the far one first (its groups, then the near one's; the one that ends in sets last),
    read as one row of concealed tiles."""
    loose = [r for r in rows if _loose_tiles(r, detections)]
    if len(loose) != 2 or not _stacked(loose[0], loose[1], detections):
        return rows
    a, b = loose
    if float(np.dot(b.direction, a.direction)) < 0:  # read the second the same way as the first
        b = _Row(b.indices[::-1], -b.direction, b.centre, b.sideways, [g[::-1] for g in b.groups[::-1]],
                 b.wall, b.direction_from, b.conditioned)
    up = np.array([a.direction[1], -a.direction[0]])  # towards the far side of the table, for a player reading left to right
    first, then = (a, b) if float(np.dot(a.centre - b.centre, up)) > 0 else (b, a)
    if _trailing_sets(first, detections) > _trailing_sets(then, detections):
        first, then = then, first  # melds laid at the end of a row go last, where melds are looked for
    row = _Row(first.indices + then.indices, first.direction, (first.centre + then.centre) / 2,
               first.sideways | then.sideways, first.groups + then.groups, False, first.direction_from,
               first.conditioned and then.conditioned)
    return [row] + [r for r in rows if r is not loose[0] and r is not loose[1]]


def _trailing_sets(row: _Row, detections: Sequence[TileDetection]) -> int:
    """How many tiles of sets (or a kong laid with backs) end a row, flowers aside."""
    count = 0
    for group in reversed(row.groups):
        faces = [i for i in group if detections[i].tile[1:] != "f"]
        if not faces:
            continue
        if len(faces) not in (3, 4) or not (_is_set(faces, detections) or _all_backs_kong(faces, detections)):
            break
        count += len(faces)
    return count


def _dead_wall(region: list[int], walls: list[list[int]], detections: Sequence[TileDetection],
               build: Callable[[list[int]], _Row], problems: list[str]) -> tuple[list[int], list[int]]:
    """The dora indicators and the dead wall: the marked region's tiles, or the face-up tiles
    of the rows of backs."""
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
    return dora_indices, dead_wall


def _holds_meld(row: _Row, detections: Sequence[TileDetection]) -> bool:
    """Face-up tiles in a row of backs that make a meld (a called tile, or a run of three
    or four that is a set), or two alike between two backs (a concealed kong shown with two
    face down): melds, perhaps beside a concealed kong laid all face down, not a dead wall.
    (Two concealed kongs side by side hold as many backs as faces: synthetic seeds 6000 and
    8000 lost both such hands to the dead wall.)"""
    if any(not detections[i].face_down for i in row.sideways):
        return True
    run: list[int] = []
    after_back = False  # whether the run began right after a back
    for i in row.indices + [-1]:
        if i >= 0 and not detections[i].face_down:
            run.append(i)
            continue
        if len(run) >= 3 and any(_is_set(run[k:k + size], detections)
                                 for size in (3, 4) for k in range(len(run) - size + 1)):
            return True
        if len(run) == 2 and after_back and i >= 0 and \
                plain(detections[run[0]].tile) == plain(detections[run[1]].tile):
            return True
        run, after_back = [], i >= 0
    return False


def _without_duplicates(rows: list[list[int]], detections: Sequence[TileDetection],
                        ratio_reference: float | None) -> tuple[list[list[int]], list[int]]:
    """The rows less their second boxes: of two neighbours in a row that overlap by more than
    ``DUPLICATE_OVERLAP`` of a tile's width, the less confident.  Tiles in a row lie side by
    side, so such a pair is one tile found twice, or a box across two tiles (the detector's
    NMS lets through boxes that overlap a tile by less than IoU 0.45).  Returns the rows and
    the boxes dropped."""
    kept_rows, dropped = [], []
    for row in rows:
        row = list(row)
        while len(row) >= 3:
            centres = np.array([detections[i].center for i in row], dtype=float)
            _, u = _fit_line(centres)
            order = sorted(row, key=lambda i: float(np.dot(detections[i].center, u)))
            gaps = _extents(detections, order, u, ratio_reference).gaps
            # the boxes must overlap too: the gaps of a row stretched out of shape say little
            pairs = []
            for k, gap in enumerate(gaps):
                first, second = detections[order[k]], detections[order[k + 1]]
                if gap < -DUPLICATE_OVERLAP and iou(first.box, second.box) >= DUPLICATE_IOU:
                    pairs.append((order[k] if first.confidence < second.confidence else order[k + 1], gap))
            weak = [(i, gap) for i, gap in pairs if detections[i].confidence < DUPLICATE_CONFIDENCE]
            if weak:
                weaker = min(weak, key=lambda pair: pair[1])[0]
            else:
                weaker = _squeezed_box(order, detections, u)
                if weaker is None:
                    break
            row.remove(weaker)
            dropped.append(weaker)
        kept_rows.append(row)
    return kept_rows, dropped


def _squeezed_box(order: list[int], detections: Sequence[TileDetection], u: np.ndarray) -> int | None:
    """A box squeezed between two neighbours of a row: its centre lies much nearer to both
    than the tiles beyond them lie to theirs (``SQUEEZED_SPACING``; the nearest spacings,
    as perspective and sideways tiles change it along a row, and no more than the row's
    median, as they may be gaps), so it sits across two tiles that have boxes of their own.
    None where there is none."""
    if len(order) < SQUEEZED_MIN_ROW:
        return None
    t = np.array([float(np.dot(detections[i].center, u)) for i in order])
    spacing = np.diff(t)
    usual = float(np.median(spacing))  # beyond may be a gap: no more than the row's usual

    def squeezed_at(k: int) -> bool:
        beyond = [spacing[j] for j in (k - 2, k + 1) if 0 <= j < len(spacing)]
        return max(spacing[k - 1], spacing[k]) < SQUEEZED_SPACING * min(*beyond, usual)

    squeezed = [k for k in range(1, len(order) - 1) if squeezed_at(k)]
    if not squeezed:
        return None
    return order[min(squeezed, key=lambda k: spacing[k - 1] + spacing[k])]


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
            pitch, overlap = _pitch_and_overlap(ra, rb, detections)
            if pitch < 1.35 * size and overlap > -0.5 * size:
                links.union(a, b)
    out: list[int] = []
    for block in links.groups():
        tiles = [i for k in block for i in short[k].indices]
        # two rows of 13 tiles or more are a hand with its melds laid in a row before it
        # (its own row short by the melds' tiles): a pond's first two rows hold 12 at most;
        # nor are two rows a pond that make a hand with the melds laid beside them
        playing = sum(detections[i].tile[1:] != "f" for i in tiles)
        if len(block) == 2 and playing >= 13:
            continue
        loose = [short[k] for k in block if not _meld_row(short[k], detections)]
        loose_tiles = sum(detections[i].tile[1:] != "f" for r in loose for i in r.indices)
        if 1 <= len(loose) <= 2 and loose_tiles >= MIN_FULL_HAND and 13 <= playing + _melds_beside(
                [short[k] for k in block], [r for r in rows if all(r is not short[k] for k in block)],
                detections) <= MAX_HAND_TILES:
            continue
        if len(block) >= 2:
            out.extend(tiles)
    return out


def _meld_row(row: _Row, detections: Sequence[TileDetection]) -> bool:
    """A row of three or four tiles (flowers aside) that is a set or holds a sideways tile: a meld."""
    faces = [i for i in row.indices if detections[i].tile[1:] != "f"]
    return len(faces) in (3, 4) and bool(row.sideways or _is_set(faces, detections))


def _melds_beside(block: list[_Row], others: list[_Row], detections: Sequence[TileDetection]) -> int:
    """The tiles of the melds (rows of three or four that make a set, or hold a sideways tile)
    laid within a few tiles of a block of rows."""
    near = np.array([detections[i].center for r in block for i in r.indices], dtype=float)
    size = float(np.median([_tile_size(detections, r.indices, r) for r in block]))
    count = 0
    for r in others:
        if not _meld_row(r, detections):
            continue
        faces = [i for i in r.indices if detections[i].tile[1:] != "f"]
        centres = np.array([detections[i].center for i in faces], dtype=float)
        if float(np.min(np.hypot(*(centres[:, None, :] - near[None, :, :]).transpose(2, 0, 1)))) < 3.5 * size:
            count += len(faces)
    return count


def _companion(row: _Row, groups: list[list[list[int]]], built: dict,
               detections: Sequence[TileDetection]) -> tuple[int, float] | None:
    """The hand a row of melds may belong to (parallel and close), and how far it lies
    from that hand's main row, in tile sizes.  A hand with tiles enough to be one goes before a
    nearer short row (a row of discards between the hand and its melds)."""
    best, best_key = None, None
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
            short = _hand_tiles(group, detections) < MIN_FULL_HAND
            if best_key is None or (short, far) < best_key:
                best, best_key = (k, far), (short, far)
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
                    # it brings the hand to a winning count and no other tile was set apart (a
                    # misread tile may keep the hand from completing: the re-reading mends that)
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
