"""Hand decomposition: every arrangement of a hand into sets and a pair, and waits.

The one home of "how can these tiles be read".  Scorers get every arrangement
(with the group that the winning tile completed) and choose the best one.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from .hand import Hand, SetType
from .tiles import NUM_KINDS, TERMINAL_AND_HONOUR_KINDS, kind, kind_tile, plain, to_counts

_Set = tuple[SetType, int]  # (chow or pung, first kind index)


@dataclass(frozen=True)
class Group:
    """A set or the pair of an arrangement."""

    type: SetType
    first: int         # kind index of the lowest tile
    concealed: bool    # not exposed: held in the hand or a concealed kong
    declared: bool = False  # laid on the table as a meld

    @property
    def kinds(self) -> list[int]:
        if self.type == SetType.CHOW:
            return [self.first, self.first + 1, self.first + 2]
        return [self.first] * {SetType.PUNG: 3, SetType.KONG: 4, SetType.PAIR: 2}[self.type]

    @property
    def tile(self) -> str:
        """The (first) tile of the group as a plain code."""
        return kind_tile(self.first)

    @property
    def is_triplet(self) -> bool:
        """A pung or a kong."""
        return self.type in (SetType.PUNG, SetType.KONG)

    @property
    def suit(self) -> str:
        return self.tile[1]


@dataclass(frozen=True)
class Arrangement:
    """One arrangement of a complete hand: its sets and pair (or pairs)."""

    shape: str                 # "regular", "seven_pairs" or "thirteen_orphans"
    groups: tuple[Group, ...]  # regular: sets then the pair; seven pairs: the pairs
    win_group: int | None = None  # index of the group the winning tile completed

    @property
    def sets(self) -> list[Group]:
        return [g for g in self.groups if g.type != SetType.PAIR]

    @property
    def pair(self) -> Group | None:
        pairs = [g for g in self.groups if g.type == SetType.PAIR]
        return pairs[0] if self.shape == "regular" and pairs else None

    @property
    def winning_group(self) -> Group | None:
        return None if self.win_group is None else self.groups[self.win_group]


# -- regular shapes on counts ---------------------------------------------------------------

@lru_cache(maxsize=65536)
def _suit_arrangements(counts: tuple[int, ...], honours: bool) -> tuple[tuple[tuple[_Set, ...], int | None], ...]:
    """All arrangements of one suit's counts as sets plus at most one pair.

    Returns tuples (sets, pair_offset or None); offsets are within the suit.
    """
    first = next((i for i, c in enumerate(counts) if c), None)
    if first is None:
        return (((), None),)
    ways: list[tuple[tuple[_Set, ...], int | None]] = []
    c = list(counts)
    if c[first] >= 3:
        c[first] -= 3
        for sets, pair in _suit_arrangements(tuple(c), honours):
            ways.append((((SetType.PUNG, first), *sets), pair))
        c[first] += 3
    if not honours and first <= 6 and c[first + 1] and c[first + 2]:
        c[first] -= 1; c[first + 1] -= 1; c[first + 2] -= 1
        for sets, pair in _suit_arrangements(tuple(c), honours):
            ways.append((((SetType.CHOW, first), *sets), pair))
        c[first] += 1; c[first + 1] += 1; c[first + 2] += 1
    if c[first] >= 2:
        c[first] -= 2
        for sets, pair in _suit_arrangements(tuple(c), honours):
            if pair is None:
                ways.append((sets, first))
        c[first] += 2
    return tuple(ways)


def regular_arrangements(counts: Sequence[int]) -> list[tuple[list[_Set], int]]:
    """Every arrangement of 34 counts as sets plus exactly one pair.

    Returns (sets, pair kind) with sets as (type, first kind index).
    """
    if sum(counts) % 3 != 2:
        return []
    per_suit = []
    for base, size, honours in ((0, 9, False), (9, 9, False), (18, 9, False), (27, 7, True)):
        ways = _suit_arrangements(tuple(counts[base:base + size]), honours)
        if not ways:
            return []
        per_suit.append([(tuple((t, base + i) for t, i in sets),
                          None if pair is None else base + pair) for sets, pair in ways])
    results = []
    for combo in product(*per_suit):
        pairs = [pair for _, pair in combo if pair is not None]
        if len(pairs) == 1:
            results.append(([s for sets, _ in combo for s in sets], pairs[0]))
    return results


def is_seven_pairs(counts: Sequence[int], distinct: bool = True) -> bool:
    """Seven pairs; with ``distinct`` False four alike count as two pairs."""
    if sum(counts) != 14:
        return False
    if distinct:
        return sum(1 for c in counts if c == 2) == 7
    return all(c % 2 == 0 for c in counts)


def is_thirteen_orphans(counts: Sequence[int]) -> bool:
    return sum(counts) == 14 and all(counts[k] >= 1 for k in TERMINAL_AND_HONOUR_KINDS) and \
        sum(counts[k] for k in TERMINAL_AND_HONOUR_KINDS) == 14


def is_regular_complete(counts: Sequence[int]) -> bool:
    return bool(regular_arrangements(counts))


def is_complete(counts: Sequence[int], seven_pairs: bool = True, thirteen_orphans: bool = True) -> bool:
    """Do these concealed counts (melds set aside) form a complete hand?"""
    return is_regular_complete(counts) or (seven_pairs and is_seven_pairs(counts)) or \
        (thirteen_orphans and is_thirteen_orphans(counts))


def waits(counts: Sequence[int], complete: Callable[[Sequence[int]], bool] = is_complete,
          used: Sequence[int] | None = None) -> list[int]:
    """Kinds that complete a hand one tile short.

    ``counts``: the concealed tiles (melds set aside); ``used``: counts of every tile
    the player holds including melds, so that a tile held four times is no wait.
    ``complete`` lets a rule set add its own irregular shapes.
    """
    if sum(counts) % 3 != 1:
        return []
    used = used if used is not None else counts
    found = []
    trial = list(counts)
    for k in range(NUM_KINDS):
        if used[k] >= 4:
            continue
        trial[k] += 1
        if complete(trial):
            found.append(k)
        trial[k] -= 1
    return found


# -- arrangements of a Hand -----------------------------------------------------------------

def _meld_groups(hand: Hand) -> list[Group]:
    return [Group(m.type, m.first, concealed=not m.open, declared=True) for m in hand.melds]


def _with_win_group(shape: str, groups: list[Group], hand: Hand) -> list[Arrangement]:
    """One arrangement per group the winning tile could have completed.

    A pung completed by a discard counts as exposed (all three rule sets say so).
    """
    if hand.win_tile is None:
        return [Arrangement(shape, tuple(groups))]
    win = kind(hand.win_tile)
    options = []
    seen = set()
    for index, group in enumerate(groups):
        if group.declared or win not in group.kinds or (group.type, group.first) in seen:
            continue
        seen.add((group.type, group.first))
        if group.type == SetType.PUNG and not hand.self_drawn:
            group = Group(SetType.PUNG, group.first, concealed=False)
        options.append(Arrangement(shape, tuple(groups[:index]) + (group,) + tuple(groups[index + 1:]), index))
    return options


def arrangements(hand: Hand, seven_pairs: bool = True, thirteen_orphans: bool = True,
                 distinct_pairs: bool = True) -> list[Arrangement]:
    """Every arrangement of a complete hand: regular ones, then the irregular shapes.

    Empty when the hand is not complete.  Melds are taken as declared.
    """
    counts = to_counts(hand.concealed)
    melds = _meld_groups(hand)
    result: list[Arrangement] = []
    if sum(counts) + 3 * len(melds) == 14:
        for sets, pair in regular_arrangements(counts):
            groups = melds + [Group(t, k, concealed=True) for t, k in sets] + \
                [Group(SetType.PAIR, pair, concealed=True)]
            result.extend(_with_win_group("regular", groups, hand))
    if not melds and seven_pairs and is_seven_pairs(counts, distinct_pairs):
        groups = [Group(SetType.PAIR, k, concealed=True) for k, c in enumerate(counts) for _ in range(c // 2)]
        result.extend(_with_win_group("seven_pairs", groups, hand))
    if not melds and thirteen_orphans and is_thirteen_orphans(counts):
        result.append(Arrangement("thirteen_orphans", ()))
    return result


def hand_waits(hand: Hand, complete: Callable[[Sequence[int]], bool] = is_complete) -> list[str]:
    """Tiles that would complete a hand that is one tile short (13 + kongs)."""
    counts = to_counts(hand.concealed)
    used = to_counts(plain(t) for t in hand.all_tiles)
    return [kind_tile(k) for k in waits(counts, complete, used)]
