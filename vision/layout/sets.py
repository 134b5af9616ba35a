"""Which tiles make a set: the chow, pung or kong a group of tiles reads as, how a run of
tiles splits into sets, a concealed kong shown with two backs.  Used by the row stage (is a
group set apart a meld?) and the hand stage (which groups are melds)."""
from __future__ import annotations

from collections import Counter
from itertools import combinations, product
from typing import Callable, Sequence

from mahjong_lens.rules.decompose import is_complete
from mahjong_lens.rules.hand import SetType
from mahjong_lens.rules.rode_draak import irregular_limit_hand
from mahjong_lens.rules.tiles import plain, sort_key, to_counts

from ..detections import TileDetection
from .thresholds import BACK, CLOSE_REREAD, MAX_WIN_REREADS, MIN_REREAD_RATIO, REREAD_CHOICES


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


def _partition(group: list[int], detections: Sequence[TileDetection], sideways: set[int],
               reread: bool = False) -> list[list[int]] | None:
    """Split a run of tiles into consecutive sets of three or four, each with at most one
    sideways tile (melds laid too close to each other); None if there is no such split.
    ``reread``: where the tiles as read split into no sets, a piece with exactly one sideways
    tile may also be a set by its tiles' next choices (``likeliest_set``): a called tile
    marks a meld, and a meld is a set."""
    def is_meld(chunk: list[int]) -> bool:
        return (_is_set(chunk, detections) or _all_backs_kong(chunk, detections)) and \
            sum(i in sideways for i in chunk) <= 1
    found = _split_into(group, is_meld)
    if found is None and reread and any(i in sideways for i in group):
        return _partition_reread(group, detections, sideways)
    return found


def _partition_reread(group: list[int], detections: Sequence[TileDetection],
                      sideways: set[int], any_piece: bool = False) -> list[list[int]] | None:
    """``_partition`` where a piece with one sideways tile may be a set by re-reading
    (``any_piece``: any piece of three, where every piece is known to be a meld)."""
    def may_be_meld(chunk: list[int]) -> bool:
        called = sum(i in sideways for i in chunk)
        return called <= 1 and (_is_set(chunk, detections) or _all_backs_kong(chunk, detections)) or \
            (called == 1 or any_piece and called == 0 and len(chunk) == 3) and \
            likeliest_set(chunk, detections) is not None
    return _split_into(group, may_be_meld)


def _partition_one_reread(group: list[int], detections: Sequence[TileDetection]) -> list[list[int]] | None:
    """``_partition`` of a run set apart where the photo shows melds by gaps alone (no tile lies
    sideways): the sets as read, or every piece but one a set as read and that one a set by one
    misread tile's next choice.  Loose concealed tiles would make "melds" by more re-readings
    (synthetic hands turned a quarter: a hand laid loosely lost its 9 tiles to three)."""
    found = _partition(group, detections, set())
    if found is not None:
        return found
    found = _partition_reread(group, detections, set(), any_piece=True)
    if found is None:
        return None
    reread = [piece for piece in found if not _is_set(piece, detections)]
    return found if len(reread) == 1 and _one_tile_reread(reread[0], detections) else None


def _partition_known_melds(group: list[int], detections: Sequence[TileDetection],
                           sideways: set[int]) -> list[list[int]] | None:
    """``_partition`` of tiles that are all melds' (past a declared meld): the sets as read,
    else with any piece of three a set by a misread tile's next choice."""
    return _partition(group, detections, sideways) or \
        _partition_reread(group, detections, sideways, any_piece=True)


def _split_into(group: list[int], fits: Callable[[list[int]], bool]) -> list[list[int]] | None:
    """Consecutive pieces of three or four tiles that each fit (at each end the first size that
    fits), or None."""
    best: dict[int, list[list[int]] | None] = {0: []}
    for end in range(1, len(group) + 1):
        best[end] = None
        for size in (3, 4):
            start = end - size
            if start < 0 or best.get(start) is None:
                continue
            chunk = group[start:end]
            if fits(chunk):
                best[end] = best[start] + [chunk]  # type: ignore[operator]
                break
    return best[len(group)]


def _peel(group: list[int], detections: Sequence[TileDetection], sideways: set[int]) -> list[list[int]] | None:
    """Melds with a sideways tile laid against the concealed tiles without a gap: take them off
    the end (or the start) of the group. Returns the pieces in row order (the melds taken off
    the start, the rest, the melds taken off the end), or None when no meld comes off."""
    front: list[list[int]] = []
    back: list[list[int]] = []
    rest = list(group)
    for from_end in (True, False):
        while len(rest) > 3 and any(i in sideways for i in rest):
            for size in (3, 4):
                chunk = rest[-size:] if from_end else rest[:size]
                if any(i in sideways for i in chunk) and _is_set(chunk, detections):
                    if from_end:
                        back.insert(0, chunk)
                        rest = rest[:-size]
                    else:
                        front.append(chunk)
                        rest = rest[size:]
                    break
            else:
                break
    if not front and not back:
        return None
    return front + ([rest] if rest else []) + back


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


def likeliest_set(group: Sequence[int], detections: Sequence[TileDetection]) -> list[str] | None:
    """A group that must be a set (a called meld) but whose readings make none: the likeliest
    reading that does, from each tile's reading and its alternatives (the recogniser's next
    choices); None when no choice makes a set.  A misread tile's true face is most often the
    recogniser's second or third choice."""
    if len(group) not in (3, 4) or any(detections[i].face_down for i in group):
        return None
    choices = []
    for i in group:
        d = detections[i]
        options = [(d.tile, max(d.face_sureness, 1e-6))] + [(t, max(float(c), 1e-6)) for t, c in d.alternatives
                                                             if t[1:] != "f" and t != BACK]
        choices.append(options[:REREAD_CHOICES])
    best, best_score = None, 0.0
    for combination in product(*choices):
        tiles = [t for t, _ in combination]
        if _meld_type(tiles) == "?":
            continue
        score = 1.0
        for _, p in combination:
            score *= p
        if score > best_score:
            best, best_score = tiles, score
    return best


def _one_tile_reread(group: Sequence[int], detections: Sequence[TileDetection]) -> bool:
    """Whether tiles that make no set as read make one with a single tile taking a next choice."""
    better = likeliest_set(group, detections)
    return better is not None and sum(detections[i].tile != t for i, t in zip(group, better)) == 1


def complete_anywhere(counts: Sequence[int]) -> bool:
    """Whether concealed counts (melds aside) make a complete hand under some rule set: sets
    and a pair, seven pairs, thirteen orphans, or a Rode Draak irregular limit hand."""
    return is_complete(counts) or (sum(counts) == 14 and irregular_limit_hand(counts) is not None)


def likeliest_win(concealed: Sequence[int], meld_tiles: Sequence[str],
                  detections: Sequence[TileDetection]) -> tuple[dict[int, str], bool] | None:
    """A hand of a winning count (sets of three and a pair) whose readings make no complete hand
    under any rule set: the likeliest re-reading of at most ``MAX_WIN_REREADS`` of its
    concealed tiles, each from the recogniser's next choices, that completes it, with at most
    four of a tile, melds' tiles counted.  Returns ({detection index: new face}, unique) where
    ``unique`` says no other re-reading comes within ``CLOSE_REREAD`` of it; None when the hand
    wins as read, has no winning count, or no likely re-reading completes it.

    A player lays out a revealed winning hand to be scored: when it reads as no win, a misread
    tile is likelier than a false Mahjong, and the true face is most often the recogniser's
    second or third choice (the page still asks about every re-read tile)."""
    concealed = [i for i in concealed if detections[i].tile != BACK and detections[i].tile[1:] != "f"]
    if len(concealed) % 3 != 2:
        return None
    faces = [plain(detections[i].tile) for i in concealed]
    held = Counter(faces) + Counter(plain(t) for t in meld_tiles if t != BACK)
    if complete_anywhere(tuple(to_counts(faces))):
        return None
    options: list[list[tuple[str, float]]] = []
    for i in concealed:
        d = detections[i]
        sure = max(d.face_sureness, 1e-6)
        options.append([(t, float(c) / sure) for t, c in d.alternatives[:REREAD_CHOICES - 1]
                        if t[1:] != "f" and t != BACK and plain(t) != plain(d.tile)
                        and float(c) / sure >= MIN_REREAD_RATIO])
    found: list[tuple[float, dict[int, str]]] = []
    for size in range(1, MAX_WIN_REREADS + 1):
        for positions in combinations(range(len(concealed)), size):
            for choice in product(*(options[p] for p in positions)):
                trial = list(faces)
                for p, (tile, _) in zip(positions, choice):
                    trial[p] = plain(tile)
                counts = held.copy()
                for p, (tile, _) in zip(positions, choice):
                    counts[faces[p]] -= 1
                    counts[plain(tile)] += 1
                if max(counts.values()) > 4 or not complete_anywhere(tuple(to_counts(trial))):
                    continue
                likelihood = 1.0
                for _, ratio in choice:
                    likelihood *= ratio
                found.append((likelihood, {concealed[p]: tile for p, (tile, _) in zip(positions, choice)}))
    if not found:
        return None
    found.sort(key=lambda pair: -pair[0])
    best = found[0]
    unique = len(found) == 1 or found[1][0] < CLOSE_REREAD * best[0]
    return best[1], unique
