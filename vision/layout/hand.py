"""Stage 3, a hand: a row's groups (and the rows of melds beside it) read as concealed
tiles, melds and the winning tile; what stops it from being scored, in words."""
from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from mahjong_lens.rules.hand import SetType
from mahjong_lens.rules.tiles import plain, sort_key, tile_name

from ..detections import TileDetection
from .model import HandLayout, MeldLayout
from .row import _Row
from .sets import (_all_backs_kong, _concealed_kong, _could_be_meld, _is_definite_meld, _is_set,
                   _meld_type, _one_tile_reread, _partition, _partition_known_melds, _partition_one_reread,
                   _peel, likeliest_set, likeliest_win)
from .thresholds import BACK, BLANK_WHITE_RATIO

WHITE_DRAGON = "5z"


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
        split = _partition(g, detections, sideways, reread=called >= 2) \
            if called >= 2 or (called and len(g) > 4) else None
        if split is None and called and len(g) > 4:
            split = _peel(g, detections, sideways)
        for part in split or [g]:
            if _is_definite_meld(part, detections, sideways) or (split and len(part) in (3, 4) and
                                                                 _is_set(part, detections)) \
                    or _all_backs_kong(part, detections):
                definite.add(len(groups))
            groups.append(part)

    definite = _join_split_melds(groups, definite, primary.conditioned, detections, sideways)
    win_group = None
    # a lone tile after a declared meld that makes sets with the tiles after it is a piece of a
    # meld, no winning tile
    singles = [k for k, g in enumerate(groups)
               if len(g) == 1 and (not detections[g[0]].face_down or _blank_white(detections[g[0]]))
               and g[0] not in sideways
               and not (any(j in definite for j in range(k)) and _melds_from(groups, k, detections, sideways))]
    if win_tile is not None:
        singles = [k for k in singles if plain(detections[groups[k][0]].tile) == plain(win_tile)]
    if len(singles) == 1:
        win_group = singles[0]
    elif len(singles) > 1:
        win_group = max(singles)  # the lone tile nearest the end of the concealed tiles
    lone_tiles = [groups[k][0] for k in singles]  # said below, where one of them stays the winning tile
    meld_groups = set(definite)
    # short of a winning count, a lone tile apart is no winning tile and may be the only
    # concealed tile, beside four melds
    in_hand = groups + [g for r in rows if r is not primary for g in r.groups]
    waiting = sum(map(len, in_hand)) - sum(len(g) == 4 and (_is_set(g, detections) or _all_backs_kong(g, detections))
                                           for g in in_hand) <= 13
    if (gap_melds or not primary.conditioned) and win_tile is None:
        win_group = _melds_split_after_lone(groups, meld_groups, singles, win_group, detections)
        in_melds = {i for k in meld_groups for i in groups[k]}
        lone_tiles = [i for i in lone_tiles if i not in in_melds]
    if gap_melds or not primary.conditioned:
        # undecorated sets set apart after the concealed tiles are declared melds (when a photo
        # marks calls with sideways tiles, such groups are only the player's grouping, unless
        # the row lies near a diagonal, where a sideways tile cannot be told from its box)
        for k in range(len(groups) - 1, -1, -1):
            if k == win_group or k in meld_groups:
                continue
            others = sum(len(g) for j, g in enumerate(groups) if j not in meld_groups and j not in (k, win_group))
            if others < 1 and not (waiting and win_group is not None):
                break  # a concealed tile stays (with four melds, the one the hand waits on)
            if _is_set(groups[k], detections):
                meld_groups.add(k)
            elif len(groups[k]) >= 6 and (split := _partition_one_reread(groups[k], detections)):
                # several sets laid without a gap between them (one misread tile taking a next
                # choice: ``_meld`` re-reads it)
                groups[k:k + 1] = split
                meld_groups = {j + len(split) - 1 if j > k else j for j in meld_groups}
                meld_groups.update(range(k, k + len(split)))
                if win_group is not None and win_group > k:
                    win_group += len(split) - 1
            else:
                break
    # no concealed tile is laid after a declared meld, nor between the winning tile set apart
    # and the declared melds: a set there is a meld whose called tile the boxes did not show
    # lying sideways
    for k in range(1, len(groups)):
        after_meld = k - 1 in meld_groups and any(j in definite for j in range(k))
        after_win = win_group is not None and win_group < k and any(j in definite for j in range(k + 1, len(groups)))
        if (after_meld or after_win) and k not in meld_groups and k != win_group and \
                len(groups[k]) in (3, 4) and _is_set(groups[k], detections):
            meld_groups.add(k)
    win_group = _melds_between_declared(groups, meld_groups, definite, win_group, detections, sideways)
    win_group = _melds_past_declared(groups, meld_groups, definite, win_group, detections, sideways)
    if win_group is not None and all(k in meld_groups for k in range(len(groups)) if k != win_group):
        win_group = None  # the one tile beside four melds is the tile they wait on, not a winning tile
    if win_group is not None and waiting and len(lone_tiles) > 1:
        # short of a winning count with several tiles apart: a hand laid loosely (or in two rows,
        # apart where they meet) by a player who did not win, no winning tile set apart
        win_group = None
    if win_group is not None and len(lone_tiles) > 1:
        problems.append(f"several tiles lie apart ({_describe(lone_tiles, detections)}); "
                        f"{_named(detections[groups[win_group][0]].tile)}, nearest the end of the hand, "
                        "was taken as the winning tile")
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
    for meld in melds:
        if meld.reread:
            problems.append(f"{_describe(meld.reread, detections)} read as "
                            f"{and_list([_named(meld.tiles[meld.indices.index(i)]) for i in meld.reread])} "
                            f"to make the {meld.type} they are laid in: check "
                            f"{'it' if len(meld.reread) == 1 else 'them'}")
    # a face-down tile at an end of the concealed tiles is no tile of the hand (a revealed hand
    # shows backs only in a concealed kong): a wall tile, or felt read as a back
    while concealed_indices and detections[concealed_indices[-1]].face_down and \
            not _blank_white(detections[concealed_indices[-1]]):
        problems.append("a face-down tile at the end of the hand was left out of it")
        concealed_indices.pop()
    while concealed_indices and detections[concealed_indices[0]].face_down and \
            not _blank_white(detections[concealed_indices[0]]):
        problems.append("a face-down tile at the start of the hand was left out of it")
        concealed_indices.pop(0)
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


def _join_split_melds(groups: list[list[int]], definite: set[int], conditioned: bool,
                      detections: Sequence[TileDetection], sideways: set[int]) -> set[int]:
    """Join, in place, the pieces of melds split at a called tile; returns the declared melds
    (indices into the groups) as they now lie."""
    # a called tile the boxes did not show lying sideways still widens the gaps beside it,
    # splitting its meld: pieces at the end that make a set together are one meld (near a
    # diagonal, where no sideways tile can be seen, always; elsewhere where the splits are
    # narrower than the gap that sets the first piece apart, so a pair laid apart from the
    # concealed tiles keeps its winning tile)
    k = len(groups) - 1
    while k > 0:
        parts, first = None, k
        for first in (k - 1, k - 2):  # two pieces, or three (both sides of the called tile split)
            if first < 0 or any(len(g) >= 3 for g in groups[first + 1:k + 1]):
                break
            joined = [i for g in groups[first:k + 1] for i in g]
            if len(joined) in (3, 4) and _is_set(joined, detections) and \
                    (not conditioned or _split_by_called_tile(groups, first, k, definite, detections)):
                parts = [joined]
            elif len(joined) == 3 and first - 1 in definite and likeliest_set(joined, detections) is not None:
                parts = [joined]  # past a declared meld, a misread tile too (``_meld`` re-reads it)
            elif len(joined) == 3 and conditioned and _one_tile_reread(joined, detections) and \
                    _split_by_called_tile(groups, first, k, definite, detections):
                parts = [joined]  # split at its called tile, one tile misread
            elif first == k - 1 and first >= 1 and len(joined) >= 6:
                # sets laid close after the concealed tiles, one split at its called tile
                parts = _partition(joined, detections, sideways)
            if parts:
                break
        if not parts and k >= 2 and len(groups[k - 1]) < 3 <= len(groups[k]) and \
                len(groups[k - 1]) + len(groups[k]) >= 6 and any(i in sideways for i in groups[k - 1]):
            # sets laid close, the first split off at its called tile (seen lying sideways)
            first = k - 1
            parts = _partition(groups[first] + groups[k], detections, sideways)
        if parts:
            groups[first:k + 1] = parts
            shift = len(parts) - (k + 1 - first)
            definite = {j + shift if j > k else j for j in definite if not first < j <= k}
            if conditioned:  # the split says a called tile lies there: declared melds
                definite.update(range(first, first + len(parts)))
            k = first
        k -= 1
    return definite


def _melds_split_after_lone(groups: list[list[int]], meld_groups: set[int], singles: list[int],
                            win_group: int | None, detections: Sequence[TileDetection]) -> int | None:
    """Split, in place, the pieces after the first tile set apart past the concealed tiles into
    melds where they make sets only when joined: a photo that shows melds by gaps alone, whose
    gaps here split the sets (at called tiles the boxes show standing), not the player's grouping.
    Returns the winning tile's group: that tile set apart, where they do."""
    first = next((k for k in singles if k >= 1), None)
    if first is None or any(k > first for k in meld_groups):
        return win_group
    rest = groups[first + 1:]
    run = [i for g in rest for i in g]
    if len(rest) < 2 or len(run) < 6 or all(len(g) in (3, 4) and _is_set(g, detections) for g in rest):
        return win_group
    parts = _partition(run, detections, set())
    if parts is None:
        return win_group
    groups[first + 1:] = parts
    meld_groups.update(range(first + 1, first + 1 + len(parts)))
    return first


def _melds_between_declared(groups: list[list[int]], meld_groups: set[int], definite: set[int],
                            win_group: int | None, detections: Sequence[TileDetection],
                            sideways: set[int]) -> int | None:
    """Split, in place, the pieces lying between two melds, one of them declared, into melds
    (a player lays no concealed tile between melds: such pieces are a meld split at a called
    tile the boxes did not show lying sideways); returns the winning tile's group as it now lies."""
    k = 0
    while k < len(groups):
        if k in meld_groups or k == win_group:
            k += 1
            continue
        end = k
        while end < len(groups) and end not in meld_groups and end != win_group:
            end += 1
        run = [i for g in groups[k:end] for i in g]
        between = k - 1 in meld_groups and end in meld_groups and (k - 1 in definite or end in definite)
        parts = _partition_known_melds(run, detections, sideways) if between and len(run) >= 3 else None
        if parts:
            shift = len(parts) - (end - k)
            groups[k:end] = parts
            moved = {j + shift if j >= end else j for j in meld_groups}
            meld_groups.clear()
            meld_groups.update(moved | set(range(k, k + len(parts))))
            moved = {j + shift if j >= end else j for j in definite}
            definite.clear()
            definite.update(moved)
            if win_group is not None and win_group >= end:
                win_group += shift
            end = k + len(parts)
        k = end
    return win_group


def _melds_past_declared(groups: list[list[int]], meld_groups: set[int], definite: set[int],
                         win_group: int | None, detections: Sequence[TileDetection],
                         sideways: set[int]) -> int | None:
    """Split, in place, the pieces past the declared melds into melds; returns the winning
    tile's group as it now lies (None where it was one of those pieces)."""
    # past a declared meld every tile is a meld's: the pieces at the end of the row that make
    # no set split into sets, a misread tile taking its next choice (``_meld`` re-reads it)
    # (a lone tile among them too: a winning tile set apart lies before the melds or after all)
    end = len(groups) - 1 if win_group == len(groups) - 1 else len(groups)
    last = end
    while last > 0 and last - 1 not in meld_groups:
        last -= 1
    run = [i for g in groups[last:end] for i in g]
    concealed_before = any(j not in meld_groups and j != win_group for j in range(last))
    if definite and min(definite) < last and len(run) >= 3 and concealed_before:
        parts = _partition_known_melds(run, detections, sideways)
        if parts:
            if win_group is not None and last <= win_group < end:
                win_group = None
            elif win_group is not None and win_group >= end:
                win_group += len(parts) - (end - last)
            groups[last:end] = parts
            meld_groups.update(range(last, last + len(parts)))
    return win_group


def _split_by_called_tile(groups: list[list[int]], first: int, last: int, definite: set[int],
                          detections: Sequence[TileDetection]) -> bool:
    """Whether groups first .. last, each short of a set, are pieces of one meld: they follow a
    declared meld, or lie closer together (centre to centre) than the first lies to the group
    before it (a split inside a meld, not a gap a player left)."""
    if first < 1 or len(groups[first]) >= 3:
        return False
    if first - 1 in definite:
        return True
    before = _centre_distance(groups[first - 1][-1], groups[first][0], detections)
    return all(_centre_distance(groups[k - 1][-1], groups[k][0], detections) < before
               for k in range(first + 1, last + 1))


def _melds_from(groups: list[list[int]], k: int, detections: Sequence[TileDetection], sideways: set[int]) -> bool:
    """Whether the tiles of groups k onwards split into sets, a misread tile taking a next choice."""
    run = [i for g in groups[k:] for i in g]
    return len(run) >= 3 and _partition_known_melds(run, detections, sideways) is not None


def _centre_distance(i: int, j: int, detections: Sequence[TileDetection]) -> float:
    return float(np.hypot(*np.subtract(detections[i].center, detections[j].center)))


def _meld(group: list[int], detections: Sequence[TileDetection], sideways: set[int]) -> MeldLayout:
    tiles = [detections[i].tile for i in group]
    concealed = _concealed_kong(group, detections) is not None or _all_backs_kong(group, detections)
    reread: list[int] = []
    if _meld_type(tiles) == "?":  # a meld is a set: a misread tile's face is among its next choices
        better = likeliest_set(group, detections)
        if better is not None:
            reread = [i for i, old, new in zip(group, tiles, better) if old != new]
            tiles = better
    return MeldLayout(type=_meld_type(tiles), open=not concealed, tiles=tiles, indices=list(group),
                      sideways=[i for i in group if i in sideways], reread=reread)


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


def _blank_white(d: TileDetection) -> bool:
    """Read face down, with the White dragon for its next choice (``BLANK_WHITE_RATIO``)."""
    faces = [(t, c) for t, c in d.alternatives if t != BACK]
    return d.face_down and bool(faces) and faces[0][0] == WHITE_DRAGON and \
        float(faces[0][1]) >= BLANK_WHITE_RATIO * max(d.face_sureness, 1e-6)


def blank_white_dragons(hand: HandLayout, detections: Sequence[TileDetection]
                        ) -> tuple[list[int], list[TileDetection]]:
    """Read as the White dragon each tile read face down among the hand's face-up concealed
    tiles (its winning tile included) whose next choice that is (``BLANK_WHITE_RATIO``): a
    revealed hand shows backs only in a concealed kong, and many sets print that dragon
    blank.  Noted, and the tiles marked (``hand.reread``); returns those tiles (to ask about)
    and the detections as the rest of the layout should see them, those tiles the dragon."""
    found = [i for i in hand.concealed_indices if _blank_white(detections[i])]
    if hand.win_index is not None and hand.win_index not in hand.concealed_indices \
            and _blank_white(detections[hand.win_index]):
        found.append(hand.win_index)
    if not found:
        return [], list(detections)
    for position, i in enumerate(hand.concealed_indices):
        if i in found:
            hand.concealed[position] = WHITE_DRAGON
    if hand.win_index in found:
        hand.win_tile = WHITE_DRAGON
    hand.reread += [i for i in found if i not in hand.reread]
    hand.problems.append(f"{_describe(found, detections)} among the face-up tiles read as the White dragon "
                         "(blank in many sets): check it")
    seen = list(detections)
    for i in found:
        d = detections[i]
        seen[i] = dataclasses.replace(d, tile=WHITE_DRAGON, alternatives=[(BACK, float(d.face_sureness))] + [
            (t, c) for t, c in d.alternatives if t != WHITE_DRAGON])
    return found, seen


def reread_to_win(hand: HandLayout, detections: Sequence[TileDetection]) -> list[int]:
    """Re-read a revealed hand that reads as no win where its tiles' next choices complete it
    (``likeliest_win``): taken when one re-reading stands out, noted and marked either way.
    Returns the detections to ask about."""
    meld_tiles = [t for m in hand.melds for t in m.hand_tiles]
    found = likeliest_win(hand.concealed_indices, meld_tiles, detections)
    if found is None:
        return []
    changes, unique = found
    old = _describe(list(changes), detections)
    new = and_list([_named(t) for t in changes.values()])
    if not unique:
        hand.problems.append(f"the hand reads as no win; it would win with {old} read as {new}, "
                             "among other readings: check the marked tiles")
        return list(changes)
    for position, i in enumerate(hand.concealed_indices):
        if i in changes:
            hand.concealed[position] = changes[i]
    if hand.win_index in changes:
        hand.win_tile = changes[hand.win_index]
    hand.reread += [i for i in changes if i not in hand.reread]
    hand.problems.append(f"{old} read as {new}, which makes the hand a win: "
                         f"check {'it' if len(changes) == 1 else 'them'}")
    return list(changes)
