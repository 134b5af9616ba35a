"""World Series of Mahjong scoring (Zung Jung): ../shared/spec/wsom.md, seed 003.

A hand's value V is the sum of its patterns, from one arrangement of the tiles (the one
that scores most), at most one pattern per series, capped at the limit.  The pattern
table below reads like the rulebook: number, name, points, the condition, what it
supersedes.  Where the spec is silent the decision is noted next to the row; where
the spec and Zung Jung agree both are followed; where the spec decides it wins.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .decompose import Arrangement, Group, arrangements
from .hand import Hand, HandError, SetType, Situation, validate_hand
from .result import Line, Result, counted, invalid, line_id
from .tiles import (WINDS, WIND_TILES, format_tiles, is_dragon_kind, is_honour_kind, is_terminal_kind,
                    is_terminal_or_honour_kind, is_wind_kind, kind, kind_number, kind_suit, kind_tile, plain,
                    tile_name)

RULES = "wsom"
TITLE = "WSOM (Zung Jung)"
SCORES_EVERY_HAND = False  # only the winner's hand is scored


@dataclass(frozen=True)
class Settings:
    """The WSOM settings; the defaults are the tournament rules."""

    # A hand with no pattern: a false win in WSOM; Zung Jung scores it 1.
    allow_chicken_hand: bool = False
    # "zung-jung": the discarder pays most of a discard win above 25; "uniform": all pay V.
    payoff: Literal["zung-jung", "uniform"] = "zung-jung"
    limit: int = counted(320, 1, 100_000)
    # Decision (spec silent): four identical tiles, not declared as a kong, may be two of
    # the Seven Pairs.  Zung Jung allows it; set false to demand seven different pairs.
    seven_pairs_four_alike: bool = True
    # Decision (spec silent on the wait): Nine Gates needs the 13 tiles held before the
    # win to be 1112345678999, the winning tile being the "+ any tile of the suit" (the
    # pure nine-way wait, as Zung Jung scorers read it).  False: it is enough that the
    # 14 tiles hold 1112345678999 plus one more tile of the suit.
    nine_gates_pure: bool = True


# -- tile facts on kind indices (0..33: 1m..9m 1p..9p 1s..9s E S W N White Green Red) -------

NINE_GATES_COUNTS = (3, 1, 1, 1, 1, 1, 1, 1, 3)


# -- what a pattern condition looks at ------------------------------------------------------

@dataclass(frozen=True)
class Context:
    """One arrangement of the hand plus the facts about the hand that patterns test."""

    hand: Hand
    arrangement: Arrangement
    settings: Settings
    kinds: tuple[int, ...] = field(init=False)  # every tile of the hand, kongs as 4

    def __post_init__(self) -> None:
        object.__setattr__(self, "kinds", tuple(kind(t) for t in self.hand.all_tiles))

    @property
    def regular(self) -> bool:
        return self.arrangement.shape == "regular"

    @property
    def sets(self) -> list[Group]:
        return self.arrangement.sets if self.regular else []

    @property
    def pair(self) -> Group | None:
        return self.arrangement.pair

    @property
    def chows(self) -> list[Group]:
        return [g for g in self.sets if g.type == SetType.CHOW]

    @property
    def triplets(self) -> list[Group]:
        """Pungs and kongs."""
        return [g for g in self.sets if g.is_triplet]

    @property
    def kongs(self) -> int:
        return sum(g.type == SetType.KONG for g in self.sets)

    @property
    def concealed_triplets(self) -> int:
        # Concealed kongs count; a pung completed by the winning discard does not
        # (decompose.arrangements already marks it exposed).
        return sum(g.concealed for g in self.triplets)

    @property
    def suits(self) -> set[str]:
        """The number suits present (m p s)."""
        return {kind_suit(k) for k in self.kinds if not is_honour_kind(k)}

    @property
    def has_honours(self) -> bool:
        return any(is_honour_kind(k) for k in self.kinds)

    def triplets_where(self, test: Callable[[int], bool]) -> int:
        return sum(test(g.first) for g in self.triplets)

    def pair_is(self, test: Callable[[int], bool]) -> bool:
        return self.pair is not None and test(self.pair.first)

    @property
    def seat_wind_kind(self) -> int:
        return kind(WIND_TILES[self.hand.seat_wind])

    @property
    def situation(self) -> Situation:
        return self.hand.situation


# -- the conditions that need more than one line ----------------------------------------------

def _nine_gates(c: Context) -> bool:
    """1112345678999 of one suit, all concealed, plus one tile of that suit."""
    if c.hand.melds or len(c.suits) != 1 or c.has_honours:
        return False
    base = min(c.kinds) // 9 * 9
    counts = Counter(k - base for k in c.kinds)
    if c.settings.nine_gates_pure:
        counts[kind(c.hand.win_tile) - base] -= 1  # the 13 tiles held before the win
        return all(counts[n] == NINE_GATES_COUNTS[n] for n in range(9))
    return all(counts[n] >= NINE_GATES_COUNTS[n] for n in range(9))


def _value_honours(c: Context) -> list[int]:
    """The dragon and seat-wind pungs/kongs, one entry per set (the prevalent wind not valued)."""
    return [g.first for g in c.triplets if is_dragon_kind(g.first) or g.first == c.seat_wind_kind]


def _largest_identical_chows(c: Context) -> int:
    return max(Counter(g.first for g in c.chows).values(), default=0)


def _identical_chow_twins(c: Context) -> int:
    """How many disjoint pairs of identical chows the hand holds."""
    return sum(n // 2 for n in Counter(g.first for g in c.chows).values())


def _three_similar_chows(c: Context) -> bool:
    return any(len({kind_suit(g.first) for g in c.chows if kind_number(g.first) == n}) == 3
               for n in {kind_number(g.first) for g in c.chows})


def _similar_triplets(c: Context, small: bool) -> bool:
    """Three similar triplets; ``small``: two triplets and the pair in the third suit."""
    for n in range(1, 10):
        suits = {kind_suit(g.first) for g in c.triplets if not is_honour_kind(g.first) and kind_number(g.first) == n}
        if len(suits) == 3 and not small:
            return True
        if small and len(suits) == 2 and c.pair_is(
                lambda k: not is_honour_kind(k) and kind_number(k) == n and kind_suit(k) not in suits):
            return True
    return False


def _nine_tile_straight(c: Context) -> bool:
    starts = {g.first for g in c.chows}
    return any({base, base + 3, base + 6} <= starts for base in (0, 9, 18))


def _consecutive_triplets(c: Context) -> int:
    """The longest run of triplets of consecutive numbers in one suit (honours never run)."""
    firsts = {g.first for g in c.triplets if not is_honour_kind(g.first)}
    best = 0
    for k in firsts:
        run = 1
        while k + run in firsts and kind_suit(k + run) == kind_suit(k):
            run += 1
        best = max(best, run)
    return best


def _every_group_holds(c: Context, test: Callable[[int], bool]) -> bool:
    return all(any(test(k) for k in g.kinds) for g in c.arrangement.groups)


# -- the pattern table ------------------------------------------------------------------------

@dataclass(frozen=True)
class Pattern:
    """One row of the WSOM pattern table."""

    number: str
    name: str
    points: int
    condition: Callable[[Context], object]  # truthy when it applies; per-set: the sets
    per_set: bool = False         # scores ``points`` for each set the condition returns
    needs_sets: bool = False      # regular hands only (never Seven Pairs / Thirteen Terminals)
    supersedes: tuple[str, ...] = ()  # the lower patterns of its series

    @property
    def series(self) -> str:
        """'4.2' for 4.2.1; a single-level number such as '1.1' is its own series."""
        return ".".join(self.number.split(".")[:2])


PATTERNS: tuple[Pattern, ...] = (
    # 1 Trivial patterns
    Pattern("1.1", "All Sequences", 5, lambda c: len(c.chows) == 4, needs_sets=True),
    # Spec: regular hands only.  Decision: a hand with no open meld stays concealed even
    # when the winning discard completes a pung (that pung is exposed only for 4.2).
    Pattern("1.2", "Concealed Hand", 5, lambda c: c.hand.fully_concealed, needs_sets=True),
    Pattern("1.3", "No Terminals", 5, lambda c: not any(map(is_terminal_or_honour_kind, c.kinds))),
    # 2 One-suit patterns
    # Decision: "one suit + honours" needs tiles of one suit and some honours; an All
    # Honours hand has no suit and is not Mixed One-Suit.
    Pattern("2.1.1", "Mixed One-Suit", 40, lambda c: len(c.suits) == 1 and c.has_honours),
    Pattern("2.1.2", "Pure One-Suit", 80, lambda c: len(c.suits) == 1 and not c.has_honours,
            supersedes=("2.1.1",)),
    # Series 2.2 is not 2.1: Nine Gates adds to Pure One-Suit, but at 480 it is a limit
    # hand and scores alone anyway.
    Pattern("2.2", "Nine Gates", 480, _nine_gates),
    # 3 Honour tiles
    Pattern("3.1", "Value Honour", 10, _value_honours, per_set=True, needs_sets=True),
    Pattern("3.2.1", "Small Three Dragons", 40,
            lambda c: c.triplets_where(is_dragon_kind) == 2 and c.pair_is(is_dragon_kind), needs_sets=True),
    Pattern("3.2.2", "Big Three Dragons", 130, lambda c: c.triplets_where(is_dragon_kind) == 3,
            needs_sets=True, supersedes=("3.2.1",)),
    Pattern("3.3.1", "Small Three Winds", 30,
            lambda c: c.triplets_where(is_wind_kind) == 2 and c.pair_is(is_wind_kind), needs_sets=True),
    Pattern("3.3.2", "Big Three Winds", 120, lambda c: c.triplets_where(is_wind_kind) >= 3,
            needs_sets=True, supersedes=("3.3.1",)),
    Pattern("3.3.3", "Small Four Winds", 320,
            lambda c: c.triplets_where(is_wind_kind) == 3 and c.pair_is(is_wind_kind), needs_sets=True,
            supersedes=("3.3.1", "3.3.2")),
    Pattern("3.3.4", "Big Four Winds", 400, lambda c: c.triplets_where(is_wind_kind) == 4,
            needs_sets=True, supersedes=("3.3.1", "3.3.2", "3.3.3")),
    # Regular or Seven Pairs (seven different honours).  Value Honour and the dragon and
    # wind patterns are other series and add (the limit caps the sum at 320 anyway).
    Pattern("3.4", "All Honours", 320, lambda c: all(map(is_honour_kind, c.kinds))),
    # 4 Triplets and kongs
    Pattern("4.1", "All Triplets", 30, lambda c: len(c.triplets) == 4, needs_sets=True),
    Pattern("4.2.1", "Two Concealed Triplets", 5, lambda c: c.concealed_triplets >= 2,
            needs_sets=True),
    Pattern("4.2.2", "Three Concealed Triplets", 30, lambda c: c.concealed_triplets >= 3,
            needs_sets=True, supersedes=("4.2.1",)),
    Pattern("4.2.3", "Four Concealed Triplets", 125, lambda c: c.concealed_triplets == 4,
            needs_sets=True, supersedes=("4.2.1", "4.2.2")),
    # Kongs count whether exposed or concealed.
    Pattern("4.3.1", "One Kong", 5, lambda c: c.kongs >= 1, needs_sets=True),
    Pattern("4.3.2", "Two Kongs", 20, lambda c: c.kongs >= 2, needs_sets=True,
            supersedes=("4.3.1",)),
    Pattern("4.3.3", "Three Kongs", 120, lambda c: c.kongs >= 3, needs_sets=True,
            supersedes=("4.3.1", "4.3.2")),
    Pattern("4.3.4", "Four Kongs", 480, lambda c: c.kongs == 4, needs_sets=True,
            supersedes=("4.3.1", "4.3.2", "4.3.3")),
    # 5 Identical sets (same suit, same numbers: only sequences can repeat)
    Pattern("5.1.1", "Two Identical Sequences", 10, lambda c: _largest_identical_chows(c) >= 2,
            needs_sets=True),
    Pattern("5.1.2", "Two Identical Sequences Twice", 60, lambda c: _identical_chow_twins(c) >= 2,
            needs_sets=True, supersedes=("5.1.1",)),
    Pattern("5.1.3", "Three Identical Sequences", 120, lambda c: _largest_identical_chows(c) >= 3,
            needs_sets=True, supersedes=("5.1.1", "5.1.2")),
    Pattern("5.1.4", "Four Identical Sequences", 480, lambda c: _largest_identical_chows(c) == 4,
            needs_sets=True, supersedes=("5.1.1", "5.1.2", "5.1.3")),
    # 6 Similar sets (same numbers in all three suits)
    Pattern("6.1", "Three Similar Sequences", 35, _three_similar_chows, needs_sets=True),
    Pattern("6.2.1", "Small Three Similar Triplets", 30,
            lambda c: _similar_triplets(c, small=True), needs_sets=True),
    Pattern("6.2.2", "Three Similar Triplets", 120, lambda c: _similar_triplets(c, small=False),
            needs_sets=True, supersedes=("6.2.1",)),
    # 7 Consecutive sets (one suit)
    Pattern("7.1", "Nine-Tile Straight", 40, _nine_tile_straight, needs_sets=True),
    Pattern("7.2.1", "Three Consecutive Triplets", 100, lambda c: _consecutive_triplets(c) >= 3,
            needs_sets=True),
    Pattern("7.2.2", "Four Consecutive Triplets", 200, lambda c: _consecutive_triplets(c) == 4,
            needs_sets=True, supersedes=("7.2.1",)),
    # 8 Terminals.  The lesser patterns look at sets and the pair and need some chows
    # (without chows the hand is all terminals/honours: a greater pattern).
    Pattern("8.1.1", "Mixed Lesser Terminals", 40,
            lambda c: bool(c.chows) and _every_group_holds(c, is_terminal_or_honour_kind),
            needs_sets=True),
    Pattern("8.1.2", "Pure Lesser Terminals", 50,
            lambda c: bool(c.chows) and _every_group_holds(c, is_terminal_kind), needs_sets=True,
            supersedes=("8.1.1",)),
    # Regular (then all triplets) or Seven Pairs; never Thirteen Terminals (spec).
    # Decision: an All Honours hand holds "only terminals and honours" and counts it too,
    # as Zung Jung does (no effect on V: All Honours already reaches the limit).
    Pattern("8.1.3", "Mixed Greater Terminals", 100,
            lambda c: c.arrangement.shape != "thirteen_orphans"
            and all(map(is_terminal_or_honour_kind, c.kinds)),
            supersedes=("8.1.1", "8.1.2")),
    Pattern("8.1.4", "Pure Greater Terminals", 400, lambda c: all(map(is_terminal_kind, c.kinds)),
            supersedes=("8.1.1", "8.1.2", "8.1.3")),
    # 9 Incidental bonuses (they count on irregular hands too)
    Pattern("9.1.1", "Final Draw", 10, lambda c: c.situation.last_tile and c.hand.self_drawn),
    # Decision: robbing a kong is not a discard, so it is never Final Discard.
    Pattern("9.1.2", "Final Discard", 10,
            lambda c: c.situation.last_tile and not c.hand.self_drawn
            and not c.situation.robbing_kong),
    Pattern("9.2", "Win on Kong", 10, lambda c: c.situation.kong_replacement),
    Pattern("9.3", "Robbing a Kong", 10, lambda c: c.situation.robbing_kong),
    # first_turn: East self-draws on the deal, or another player wins on East's first
    # discard.  Decision: no pattern for other first-turn wins (Zung Jung has none).
    Pattern("9.4.1", "Blessing of Heaven", 155,
            lambda c: c.situation.first_turn and c.hand.self_drawn and c.hand.seat_wind == "E"),
    Pattern("9.4.2", "Blessing of Earth", 155,
            lambda c: c.situation.first_turn and not c.hand.self_drawn
            and c.hand.discarder == "E"),
    # 10 Irregular hands: these shapes count suit, honour, terminal and incidental
    # patterns, never one that needs sets, and never Concealed Hand (1.2).
    Pattern("10.1", "Thirteen Terminals", 160, lambda c: c.arrangement.shape == "thirteen_orphans"),
    Pattern("10.2", "Seven Pairs", 30, lambda c: c.arrangement.shape == "seven_pairs"),
)

# -- counting one arrangement -----------------------------------------------------------------

@dataclass(frozen=True)
class Counted:
    """A pattern as counted in a hand; ``sets`` lists the kinds a per-set pattern counts."""

    pattern: Pattern
    sets: tuple[int, ...] = ()

    @property
    def points(self) -> int:
        return self.pattern.points * (len(self.sets) if self.pattern.per_set else 1)


@dataclass(frozen=True)
class Valuation:
    """The value of one arrangement: the patterns counted, the total, and the limit."""

    arrangement: Arrangement
    counted: tuple[Counted, ...]  # what makes V (only the single pattern above the limit)
    present: tuple[Counted, ...]  # every pattern the arrangement has, after superseding
    total: int                    # the sum before the limit
    value: int                    # V
    limit: Literal["capped", "single"] | None


def patterns_of(context: Context) -> list[Counted]:
    """The patterns this arrangement has, in table order, the superseded ones dropped."""
    found = []
    for pattern in PATTERNS:
        if pattern.needs_sets and not context.regular:
            continue
        outcome = pattern.condition(context)
        if not outcome:
            continue
        found.append(Counted(pattern, tuple(outcome) if pattern.per_set else ()))
    superseded = {number for c in found for number in c.pattern.supersedes}
    return [c for c in found if c.pattern.number not in superseded]


def value_of(arrangement: Arrangement, hand: Hand, settings: Settings) -> Valuation:
    present = tuple(patterns_of(Context(hand, arrangement, settings)))
    total = sum(c.points for c in present)
    above = [c for c in present if c.points > settings.limit]
    if above:  # a single pattern above the limit scores alone: the highest of them
        best = max(above, key=lambda c: c.points)
        return Valuation(arrangement, (best,), present, total, best.points, "single")
    if total > settings.limit:
        return Valuation(arrangement, present, present, total, settings.limit, "capped")
    return Valuation(arrangement, present, present, total, total, None)


def best_valuation(hand: Hand, settings: Settings) -> Valuation | None:
    """Freedom of count: the arrangement that scores most (all its patterns from it)."""
    found = arrangements(hand, distinct_pairs=not settings.seven_pairs_four_alike)
    valuations = [value_of(a, hand, settings) for a in found]
    # Ties: the higher total before the limit, then the first reading.
    return max(valuations, key=lambda v: (v.value, v.total), default=None)


# -- payments ---------------------------------------------------------------------------------

def payments(value: int, winner: str, discarder: str | None, payoff: str) -> dict[str, int]:
    """Net gain per seat.  The winner always collects 3V; East is not paid double.

    Zung Jung payoff: self-drawn, each other player pays V.  On a discard, V <= 25 is
    still paid by all three; above 25 the two others pay 25 each and the discarder the
    rest, 3V - 50.  Uniform: everyone pays V.
    """
    result = {}
    for seat in WINDS:
        if seat == winner:
            continue
        if payoff == "uniform" or discarder is None or value <= 25:
            owed = value
        elif seat == discarder:
            owed = 3 * value - 50
        else:
            owed = 25
        result[seat] = -owed
    result[winner] = -sum(result.values())
    return {seat: result[seat] for seat in WINDS}


# -- describing the result --------------------------------------------------------------------

def _group_text(group: Group) -> str:
    return format_tiles(kind_tile(k) for k in group.kinds)


def arrangement_text(arrangement: Arrangement, hand: Hand) -> str:
    """'123m 123m 123m 555p 99s': the sets in tile order, then the pair."""
    if arrangement.shape == "thirteen_orphans":
        return format_tiles(plain(t) for t in hand.concealed)
    order = sorted(arrangement.groups, key=lambda g: (g.type == SetType.PAIR and
                                                       arrangement.shape == "regular", g.first))
    return " ".join(_group_text(g) for g in order)


def _lines(counted: tuple[Counted, ...]) -> list[Line]:
    lines = []
    for c in counted:
        label = f"{c.pattern.number} {c.pattern.name}"
        if c.pattern.per_set:
            lines.extend(Line(f"{label}: {tile_name(kind_tile(k))}", f"{c.pattern.points} points",
                              line_id("pattern", c.pattern.number, kind_tile(k))) for k in c.sets)
        else:
            lines.append(Line(label, f"{c.points} points", line_id("pattern", c.pattern.number)))
    return lines


def _pattern_list(counted: tuple[Counted, ...]) -> list[dict]:
    return [{"number": c.pattern.number, "name": c.pattern.name, "points": c.points}
            for c in counted]


# -- checks on the situation -------------------------------------------------------------------

def _situation_error(hand: Hand) -> str | None:
    """A sentence for a situation that cannot happen, else None."""
    flags = hand.situation  # the contradictions of every rule set: rules.hand.situation_error
    if flags.first_turn and not hand.fully_concealed:
        return "a first-turn win cannot have an exposed meld: no tile has been called yet"
    return None


# -- scoring ----------------------------------------------------------------------------------

def score(hand: Hand, settings: Settings | None = None) -> Result:
    """Score a winning hand under WSOM; a false win is valid=False with the reason."""
    settings = settings or Settings()
    try:
        validate_hand(hand)
    except HandError as error:
        return invalid(RULES, str(error))
    if hand.win_tile is None:
        return invalid(RULES, "WSOM scores a winning hand: mark its winning tile")
    problem = _situation_error(hand)
    if problem:
        return invalid(RULES, problem)
    best = best_valuation(hand, settings)
    if best is None:
        return invalid(RULES, "false win: these tiles are not a winning hand (not four sets and "
                              "a pair, nor Seven Pairs, nor Thirteen Terminals)", false_win=True)
    chicken = not best.present
    if chicken and not settings.allow_chicken_hand:
        return invalid(RULES, "false win: a chicken hand (no scoring pattern) may not win under "
                              "WSOM rules (the setting 'allow a chicken hand' scores it 1, as in Zung Jung)",
                       false_win=True, arrangement=arrangement_text(best.arrangement, hand))
    if not hand.self_drawn and hand.discarder is None:
        return invalid(RULES, "a win on a discard needs the discarder: give the seat wind "
                              "(E, S, W or N) of the player who discarded the winning tile")
    if chicken:
        value, breakdown = 1, [Line("Chicken Hand", "1 point", "chicken-hand")]
    else:
        value, breakdown = best.value, _lines(best.counted)
    if best.limit == "capped":
        breakdown.append(Line("Limit", f"{best.total} points capped at {settings.limit}", "limit"))
    elif best.limit == "single":
        top = best.counted[0].pattern
        breakdown.append(Line("Limit", f"{top.number} {top.name} scores alone: a single "
                                       f"pattern above the {settings.limit} limit", "limit"))
    return Result(
        rules=RULES, valid=True, winning=True, points=value, breakdown=breakdown,
        payments=payments(value, hand.seat_wind, None if hand.self_drawn else hand.discarder,
                          settings.payoff),
        extra={
            "arrangement": arrangement_text(best.arrangement, hand),
            "shape": {"regular": "regular", "seven_pairs": "Seven Pairs",
                      "thirteen_orphans": "Thirteen Terminals"}[best.arrangement.shape],
            "patterns": _pattern_list(best.counted),
            "also_present": _pattern_list(tuple(c for c in best.present
                                                 if c not in best.counted)),
            "total_before_limit": 1 if chicken else best.total,
            "limit": best.limit,
            "chicken_hand": chicken,
            "payoff": settings.payoff,
        },
        facts=(["Chicken Hand"] if chicken else []) + (
            [] if best.arrangement.shape == "regular" else
            [{"seven_pairs": "Seven Pairs", "thirteen_orphans": "Thirteen Terminals"}[best.arrangement.shape]])
        + ([f"{best.total} points, held to the {settings.limit} limit"] if best.total > value else []),
    )
