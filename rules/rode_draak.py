"""Rode Draak: the Dutch tournament rules of "Het Rode Boekje" (spec/rode-draak.md).

Every player's hand is scored, not only the winner's: points for sets and pairs,
doublings, and for the winner the Mahjong points and the winner-only doublings.
The rulebook's tables are data here (SET_POINTS, PAIR_POINTS, DOUBLINGS,
LIMIT_HANDS); the code below them only reads a hand and applies the rows.

Decisions the rulebook leaves open are fields of ``Settings`` (see its comments).

A table of four hands is settled by ``settle_table`` (the `mahjong-lens settle`
command); ``settle`` is the payment rule on its own.
"""
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

from .words import plural, plural_word, times
from .decompose import arrangements, hand_waits, is_thirteen_orphans
from .hand import Hand, HandError, SetType, expected_tile_count, hand_from_dict, validate_hand
from .result import Line, Result, counted, invalid, line_id
from .tiles import (DRAGON_KINDS, GREEN_KINDS, HONOUR_KINDS, SIMPLE_KINDS, SUIT_KINDS, TERMINAL_AND_HONOUR_KINDS,
                    TERMINAL_KINDS, WIND_KINDS, WIND_NAMES, WINDS, kind, kind_tile, tile_name, to_counts)

RULES = "rode-draak"
TITLE = "Rode Draak"
SCORES_EVERY_HAND = True  # "every player's hand is scored", and the table settled (settle_table)
EAST = "E"
SEATS = WINDS  # E S W N: the seat keys of a table


# No `from __future__ import annotations` here: registry.make_settings reads these hints
# with typing.get_type_hints on every call, and real objects make that cheap.
@dataclass(frozen=True)
class Settings:
    limit: int = counted(2000, 20, 100_000)  # "Op het Rode Draak toernooi is de limiet 2000 punten"
    hand_cap: int = counted(4000, 20, 100_000)  # the doubling table's largest entry
    winning_tile_points: int = counted(0, 0, 100)  # heading "Winnende steen" with no value in the seed
    mahjong_points: int = counted(20, 0, 1000)  # the doubling table starts at 20
    min_doublings_to_win: int = counted(2, 0, 13)  # "schoon spel of minimaal 2 verdubbelingen"
    # Decisions where the texts are silent (spec: "each one is a named setting"):
    # A limit hand that can also be read as a regular hand scores the higher of the two;
    # True: the limit replaces the regular count even where that count is higher.
    limit_replaces_regular: bool = False
    # Four alike in a seven-pairs limit hand count as two pairs.
    seven_pairs_four_alike: bool = False
    # A hand of honours only also earns "one suit + honours" (it has no suit at all).
    honours_only_is_one_suit: bool = False
    # A player who did not win scores every pair of value tiles in the hand;
    # False: only the best one (a complete hand has one pair).
    non_winner_every_pair: bool = True


# -- tile kinds (index 0..33, rules.tiles.kind): computed once, tested as sets ---------------
_EDEL = [k in TERMINAL_AND_HONOUR_KINDS for k in range(34)]  # edelstenen, by index
_TILE_NAMES = [tile_name(kind_tile(k)) for k in range(34)]


# -- points for sets and pairs ("Voor iedere deelnemer") -------------------------------------

@dataclass(frozen=True)
class SetPoints:
    dutch: str
    english: str
    type: SetType
    edelstenen: bool   # terminals or honours (False: simples; chows: either)
    op_stok: int       # concealed
    op_tafel: int      # exposed


SET_POINTS = (
    #          rulebook                    English                        set     edel   stok tafel
    SetPoints("Chow",                      "Chow",                        SetType.CHOW, False,  0,  0),
    SetPoints("Pung van simpele stenen",   "Pung of simples",             SetType.PUNG, False,  4,  2),
    SetPoints("Pung van edelstenen",       "Pung of terminals or honours", SetType.PUNG, True,   8,  4),
    SetPoints("Kong van simpele stenen",   "Kong of simples",             SetType.KONG, False, 16,  8),
    SetPoints("Kong van edelstenen",       "Kong of terminals or honours", SetType.KONG, True,  32, 16),
)


@dataclass(frozen=True)
class PairPoints:
    dutch: str
    english: str
    points: int
    applies: Callable[[int, int, int], bool]  # (pair kind, seat wind kind, prevalent wind kind)


PAIR_POINTS = (
    # A pair of the seat wind that is also the prevalent wind matches both rows: 4.
    PairPoints("Twee eigen winden",     "Pair of own wind",        2, lambda k, seat, wind: k == seat),
    PairPoints("Twee heersende winden", "Pair of prevailing wind", 2, lambda k, seat, wind: k == wind),
    PairPoints("Twee gelijke draken",   "Pair of dragons",         2, lambda k, seat, wind: k in DRAGON_KINDS),
)

_SET_ROW = {(row.type, row.edelstenen): row for row in SET_POINTS}
_SET_ROW[(SetType.CHOW, True)] = SET_POINTS[0]  # a chow scores nothing, whatever its tiles
# Pair rows per kind for every (seat wind kind, prevalent wind kind).
_PAIR_ROWS = {(seat, wind): {k: tuple(row for row in PAIR_POINTS if row.applies(k, seat, wind))
                             for k in HONOUR_KINDS}
              for seat in WIND_KINDS for wind in WIND_KINDS}


# -- what a hand is made of: the facts that do not depend on the arrangement--------------------

class HandFacts:
    """The tile make-up of a hand (all its tiles, melds included), computed once."""

    __slots__ = ("concealed_counts", "suits", "has_honours", "only_edelstenen",
                 "only_terminals", "only_honours", "only_simples", "only_green",
                 "seat", "wind", "pair_points")

    def __init__(self, hand: Hand):
        counts = [0] * 34
        for tile in hand.concealed:
            counts[kind(tile)] += 1
        self.concealed_counts = counts
        present = {k for k in range(34) if counts[k]}
        present.update(kind(tile) for meld in hand.melds for tile in meld.tiles)
        self.suits = sum(1 for suit_kinds in SUIT_KINDS.values() if not present.isdisjoint(suit_kinds))
        self.has_honours = not present.isdisjoint(HONOUR_KINDS)
        self.only_edelstenen = present <= TERMINAL_AND_HONOUR_KINDS
        self.only_honours = present <= HONOUR_KINDS
        self.only_terminals = present <= TERMINAL_KINDS
        self.only_simples = present <= SIMPLE_KINDS
        self.only_green = present <= GREEN_KINDS
        self.seat = 27 + WINDS.index(hand.seat_wind)
        self.wind = 27 + WINDS.index(hand.prevalent_wind)
        self.pair_points = _PAIR_ROWS[(self.seat, self.wind)]

    @property
    def schoon(self) -> bool:
        """Schoon spel: one suit with or without honours (honours only is schoon too)."""
        return self.suits <= 1


# -- one arrangement of a hand as sets and pairs, counted for the rows ---------------------------------------------------

class CountedArrangement:
    """A hand arranged as sets (type, kind, concealed) and pairs, with the counts the rows ask."""

    __slots__ = ("sets", "pairs", "facts", "hand", "winner", "chows", "triplets",
                 "dragon_triplets", "own_wind_triplets", "prevalent_wind_triplets",
                 "concealed_triplets", "concealed_kongs", "wind_triplets")

    def __init__(self, sets: list[tuple[str, int, bool]], pairs: list[int], facts: HandFacts,
                 hand: Hand, winner: bool):
        self.sets, self.pairs, self.facts, self.hand, self.winner = sets, pairs, facts, hand, winner
        chows = triplets = dragons = winds = own = prevalent = concealed = concealed_kongs = 0
        for set_type, k, is_concealed in sets:
            if set_type == SetType.CHOW:
                chows += 1
                continue
            triplets += 1
            if k in DRAGON_KINDS:
                dragons += 1
            elif k in HONOUR_KINDS:
                winds += 1
                own += k == facts.seat
                prevalent += k == facts.wind
            # "Drie pungs (en/of kongs) op stok (nb: een open kong geldt hierbij als een pung op stok)"
            if is_concealed or set_type == SetType.KONG:
                concealed += 1
            if is_concealed and set_type == SetType.KONG:
                concealed_kongs += 1
        self.chows, self.triplets, self.wind_triplets = chows, triplets, winds
        self.dragon_triplets, self.own_wind_triplets = dragons, own
        self.prevalent_wind_triplets, self.concealed_triplets = prevalent, concealed
        self.concealed_kongs = concealed_kongs


# -- doublings -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Doubling:
    dutch: str
    english: str
    doublings: int                       # each doubles the total once: 3 is x8
    family: str                          # within a family only the highest applies
    condition: Callable[[CountedArrangement], int]  # how many times it applies (True = once)
    winner_only: bool = False


_ONE_SUIT_WITH_HONOURS = Doubling("Alleen stenen van één soort + troefstenen",
                                  "One suit with honours", 1, "one suit", lambda r: r.facts.suits == 1)
DOUBLINGS = (
    # Voor iedere deelnemer
    Doubling("Pung (of kong) van draken", "Pung of dragons", 1, "dragons",
             lambda r: r.dragon_triplets),
    Doubling("Pung (of kong) van eigen winden", "Pung of own wind", 1, "own wind",
             lambda r: r.own_wind_triplets),
    Doubling("Pung (of kong) van heersende winden", "Pung of prevailing wind", 1, "prevalent wind",
             lambda r: r.prevalent_wind_triplets),
    Doubling("Drie pungs (en/of kongs) op stok", "Three concealed pungs", 1, "concealed sets",
             lambda r: r.concealed_triplets >= 3),
    Doubling("Drie kongs op stok", "Three concealed kongs", 2, "concealed sets",
             lambda r: r.concealed_kongs >= 3),
    _ONE_SUIT_WITH_HONOURS,  # honours only: see Settings.honours_only_is_one_suit
    Doubling("Alleen stenen van één kleur", "Pure one suit", 3, "one suit",
             lambda r: r.facts.suits == 1 and not r.facts.has_honours),
    Doubling("Alleen hoekstenen en troefstenen", "Only terminals and honours", 1, "edelstenen",
             lambda r: r.facts.only_edelstenen),
    Doubling("Alleen enen en negens", "Only ones and nines", 3, "edelstenen",
             lambda r: r.facts.only_terminals),
    Doubling("Alleen winden en draken", "Only winds and dragons", 3, "edelstenen",
             lambda r: r.facts.only_honours),
    # Voor de winnaar
    Doubling("Alleen chows: alleen chowen + een paar", "All chows and a pair", 1, "all chows",
             lambda r: r.chows == 4, winner_only=True),
    Doubling("Alleen pungs: alleen pungs/kongs + een paar", "All pungs and a pair", 1, "all pungs",
             lambda r: r.triplets == 4, winner_only=True),
    Doubling("Pure eenvoud: alleen eenvoudige stenen", "All simples (Pure eenvoud)", 1, "simples",
             lambda r: r.facts.only_simples, winner_only=True),
    Doubling("Maan van de zeebodem vissen", "Last tile before the draw, self-drawn "
             "(Maan van de zeebodem vissen)", 1, "last tile",
             lambda r: r.hand.situation.last_tile and r.hand.self_drawn, winner_only=True),
    Doubling("Kong met de bloeiende bloemen", "Replacement tile after a kong "
             "(Kong met de bloeiende bloemen)", 1, "kong replacement",
             lambda r: r.hand.situation.kong_replacement, winner_only=True),
    # (a replacement win without a kong, or a robbed kong self-drawn, is refused before
    # scoring: rules.hand.situation_error)
    Doubling("Kongroof", "Robbing a kong (Kongroof)", 1, "robbing a kong",
             lambda r: r.hand.situation.robbing_kong, winner_only=True),
    Doubling("Verborgen spel", "Concealed hand, self-drawn (Verborgen spel)", 3, "concealed hand",
             lambda r: r.hand.fully_concealed and r.hand.self_drawn, winner_only=True),
)
_HONOURS_ONLY_ONE_SUIT = dataclasses.replace(_ONE_SUIT_WITH_HONOURS,
                                             condition=lambda r: r.facts.suits <= 1)
# The rows that apply, by (winner, Settings.honours_only_is_one_suit): chosen once, not per hand.
_ROWS = {(winner, honours_only): tuple(
    _HONOURS_ONLY_ONE_SUIT if honours_only and row is _ONE_SUIT_WITH_HONOURS else row
    for row in DOUBLINGS if winner or not row.winner_only)
    for winner in (False, True) for honours_only in (False, True)}


def apply_doublings(points: int, doublings: int, cap: int = 4000) -> int:
    """The doubling table: points x 2^doublings, no more than the cap (4000)."""
    return min(points << doublings, cap)


def matched_doublings(arranged: CountedArrangement, settings: Settings) -> list[tuple[Doubling, int]]:
    """(row, times) that apply, keeping within each family only the highest."""
    best: dict[str, tuple[Doubling, int]] = {}
    for row in _ROWS[(arranged.winner, settings.honours_only_is_one_suit)]:
        times = int(row.condition(arranged))
        if times:
            held = best.get(row.family)
            if held is None or row.doublings * times > held[0].doublings * held[1]:
                best[row.family] = (row, times)
    return list(best.values())


# -- limit hands ---------------------------------------------------------------------------

def _one_to_nine_suit(c: Sequence[int]) -> int | None:
    """The first kind of the suit that holds 1 to 9, every other suit empty; else None."""
    for base in (0, 9, 18):
        if all(c[base + i] for i in range(9)):
            others = [b for b in (0, 9, 18) if b != base]
            if any(c[b + i] for b in others for i in range(9)):
                return None
            return base
    return None


def _nine_gates(c: Sequence[int], settings: Settings) -> bool:
    return any(sum(c[b:b + 9]) == 14 and c[b] >= 3 and c[b + 8] >= 3 and all(c[b + 1:b + 8])
               for b in (0, 9, 18))


def _with_four_winds(c: Sequence[int], settings: Settings) -> bool:
    # 1-9 + E S W N = 13 tiles; with 14 tiles, no dragon and no other suit, the 14th duplicates one.
    return _one_to_nine_suit(c) is not None and all(c[k] for k in WIND_KINDS) and \
        not any(c[k] for k in DRAGON_KINDS)


def _with_dragons_wind_pair(c: Sequence[int], settings: Settings) -> bool:
    base = _one_to_nine_suit(c)
    return base is not None and all(c[base + i] == 1 for i in range(9)) and \
        all(c[k] == 1 for k in DRAGON_KINDS) and sorted(c[k] for k in WIND_KINDS) == [0, 0, 0, 2]


def _with_winds_dragon_pair(c: Sequence[int], settings: Settings) -> bool:
    base = _one_to_nine_suit(c)
    return base is not None and all(c[base + i] == 1 for i in range(9)) and \
        sorted(c[k] for k in WIND_KINDS) == [0, 1, 1, 1] and \
        sorted(c[k] for k in DRAGON_KINDS) == [0, 0, 2]


def _seven_pairs(c: Sequence[int], settings: Settings) -> bool:
    allowed = (0, 2, 4) if settings.seven_pairs_four_alike else (0, 2)
    return sum(c) == 14 and all(n in allowed for n in c)


def _suits_of(c: Sequence[int]) -> tuple[int, bool]:
    return (sum(1 for b in (0, 9, 18) if any(c[b:b + 9])), any(c[27:34]))


def _seven_pairs_pure(c: Sequence[int], settings: Settings) -> bool:
    suits, honours = _suits_of(c)
    return _seven_pairs(c, settings) and ((suits == 1 and not honours) or suits == 0)


def _seven_pairs_one_suit(c: Sequence[int], settings: Settings) -> bool:
    return _seven_pairs(c, settings) and _suits_of(c)[0] <= 1


def _three_dragon_pungs(r: CountedArrangement) -> bool:
    # Four sets and a pair, three of them dragon pungs: the fourth set may be anything.
    return r.dragon_triplets == 3


def _all_green(r: CountedArrangement) -> bool:
    return r.facts.only_green


def _four_wind_pungs(r: CountedArrangement) -> bool:
    return r.wind_triplets == 4


@dataclass(frozen=True)
class LimitHand:
    dutch: str
    english: str
    concealed: bool                # irregular, built op stok; half limit when waiting
    test: Callable[..., bool]      # concealed: (counts of 14 tiles, settings); open: (CountedArrangement)
    value: Fraction = Fraction(1)  # share of the limit on Mahjong
    waiting: Fraction = Fraction(0)  # share of the limit for a hand waiting on it


_HALF = Fraction(1, 2)
LIMIT_HANDS = (
    # Onregelmatige (verborgen) limietspelen: the first that fits names the hand.
    LimitHand("Twee pungs hoekstenen + stenen 2 t.e.m. 8 + winnende steen één van deze stenen, "
              "alles van dezelfde kleur", "Nine gates", True, _nine_gates, waiting=_HALF),
    LimitHand("Van alle edelstenen één steen + dubbele", "Thirteen orphans", True,
              lambda c, settings: is_thirteen_orphans(c), waiting=_HALF),
    LimitHand("1-2-3-4-5-6-7-8-9 van één kleur + E-S-W-N + dubbele",
              "1-9 of one suit with the four winds", True, _with_four_winds, waiting=_HALF),
    LimitHand("1-2-3-4-5-6-7-8-9 van één kleur + pung draken + paar winden",
              "1-9 of one suit with the three dragons and a pair of winds", True,
              _with_dragons_wind_pair, waiting=_HALF),
    LimitHand("1-2-3-4-5-6-7-8-9 van één kleur + pung winden + paar draken",
              "1-9 of one suit with three winds and a pair of dragons", True,
              _with_winds_dragon_pair, waiting=_HALF),
    LimitHand("Zeven paren van één kleur of van uitsluitend troefstenen",
              "Seven pairs of one suit, or of honours only", True, _seven_pairs_pure, waiting=_HALF),
    LimitHand("Zeven paren van één kleur met winden en/of draken",
              "Seven pairs of one suit with honours", True, _seven_pairs_one_suit, waiting=_HALF),
    LimitHand("Zeven willekeurige paren", "Seven pairs", True, _seven_pairs, waiting=_HALF),
    # Open limietspelen: full limit on Mahjong, no half limit when waiting.
    LimitHand("Drie pungs (kongs) van draken + willekeurig chow/pung + paar",
              "Three pungs of dragons", False, _three_dragon_pungs),
    LimitHand("Alleen groene stenen", "All green", False, _all_green),
    LimitHand("Vier pungs (kongs) van winden + willekeurig paar", "Four pungs of winds", False,
              _four_wind_pungs),
)
_IRREGULAR = tuple(row for row in LIMIT_HANDS if row.concealed)
_OPEN = tuple(row for row in LIMIT_HANDS if not row.concealed)


def irregular_limit_hand(counts: Sequence[int], settings: Settings | None = None) -> LimitHand | None:
    """The concealed limit hand 14 tiles (counts per kind) form, or None."""
    settings = settings or Settings()
    if sum(counts) != 14:
        return None
    # Quick gate: every irregular shape is pairs only, holds 1-9 of a suit, or every edelsteen.
    if not (all(n % 2 == 0 for n in counts) or any(all(counts[b:b + 9]) for b in (0, 9, 18))
            or all(counts[k] for k in TERMINAL_AND_HONOUR_KINDS)):
        return None
    for row in _IRREGULAR:
        if row.test(counts, settings):
            return row
    return None


def limit_points(row: LimitHand, settings: Settings, waiting: bool = False) -> int:
    return int(settings.limit * (row.waiting if waiting else row.value))


# -- scoring -------------------------------------------------------------------------------

@dataclass(slots=True)
class _Outcome:
    """One way to score the hand: an arrangement with its doublings, or a limit hand."""

    points: int
    base: int = 0
    doublings: int = 0
    arranged: CountedArrangement | None = None
    matched: list[tuple[Doubling, int]] = dataclasses.field(default_factory=list)
    limit: LimitHand | None = None
    waiting_limit: bool = False
    allowed: bool = True
    reason: str = ""


def _set_points(arranged: CountedArrangement) -> int:
    total = 0
    for set_type, k, is_concealed in arranged.sets:
        row = _SET_ROW[(set_type, _EDEL[k])]
        total += row.op_stok if is_concealed else row.op_tafel
    for k in arranged.pairs:
        for row in arranged.facts.pair_points.get(k, ()):
            total += row.points
    return total


def _regular(arranged: CountedArrangement, settings: Settings) -> _Outcome:
    base = _set_points(arranged)
    if arranged.winner:
        base += settings.mahjong_points + settings.winning_tile_points
    matched = matched_doublings(arranged, settings)
    doublings = sum(row.doublings * times for row, times in matched)
    outcome = _Outcome(apply_doublings(base, doublings, settings.hand_cap), base, doublings,
                       arranged, matched)
    if arranged.winner and not arranged.facts.schoon and doublings < settings.min_doublings_to_win:
        outcome.allowed = False
        names = ", ".join(row.english for row, _ in matched) or "none"
        outcome.reason = (f"false Mahjong: the hand is no schoon spel (one suit with honours) and "
                          f"has {plural(doublings, 'doubling')} ({names}); going Mahjong needs a schoon "
                          f"spel or at least {settings.min_doublings_to_win} doublings")
    return outcome


def _limit(row: LimitHand, settings: Settings, waiting: bool = False) -> _Outcome:
    points = limit_points(row, settings, waiting)
    return _Outcome(points, base=points, limit=row, waiting_limit=waiting)


def _best(outcomes: list[_Outcome], settings: Settings) -> _Outcome:
    if settings.limit_replaces_regular and any(o.limit for o in outcomes):
        outcomes = [o for o in outcomes if o.limit]
    # On equal points the limit hand is named: it is what the table will call the hand.
    return max(outcomes, key=lambda o: (o.points, o.limit is not None))


def _breakdown(outcome: _Outcome, hand: Hand, settings: Settings) -> list[Line]:
    lines: list[Line] = []
    if outcome.limit is not None:
        if outcome.waiting_limit:
            lines.append(Line(f"Waiting for a limit hand: {outcome.limit.english}",
                              f"{outcome.points} points (half the limit)",
                              line_id("waiting-limit", outcome.limit.english)))
        else:
            lines.append(Line(f"Limit hand: {outcome.limit.english}",
                              f"{outcome.points} points (the limit)", line_id("limit", outcome.limit.english)))
        return lines
    arranged = outcome.arranged
    if arranged.winner:
        lines.append(Line("Mahjong", f"{settings.mahjong_points} points", "mahjong"))
        if settings.winning_tile_points:
            lines.append(Line("Winning tile (Winnende steen)",
                              f"{settings.winning_tile_points} points", "winning-tile"))
    for set_type, k, is_concealed in arranged.sets:
        row = _SET_ROW[(set_type, _EDEL[k])]
        points = row.op_stok if is_concealed else row.op_tafel
        if points:
            where = "op stok" if is_concealed else "op tafel"
            lines.append(Line(f"{row.english} ({where}): {_TILE_NAMES[k]}", f"{points} points",
                              line_id("set", row.english, "concealed" if is_concealed else "exposed",
                                      kind_tile(k))))
    for k in arranged.pairs:
        for row in arranged.facts.pair_points.get(k, ()):
            lines.append(Line(f"{row.english}: {_TILE_NAMES[k]}", f"{row.points} points",
                              line_id("pair", row.english, kind_tile(k))))
    for row, times in outcome.matched:
        lines.extend(Line(row.english, f"x{2 ** row.doublings}", line_id("doubling", row.english))
                     for _ in range(times))
    total = outcome.base << outcome.doublings
    if outcome.doublings:
        text = f"{outcome.base} points x {2 ** outcome.doublings} = {total}"
    else:
        text = f"{outcome.base} points"
    if total > settings.hand_cap:
        text += f", capped at {settings.hand_cap}"
    lines.append(Line("Score", text, "score"))
    return lines


def _result(outcome: _Outcome, hand: Hand, settings: Settings, alternatives: list[_Outcome]) -> Result:
    lines = _breakdown(outcome, hand, settings)
    if outcome.limit is None:
        passed_over = [o.limit for o in alternatives if o.limit is not None and o.allowed]
        if passed_over:  # tell the table why the limit was not given
            row = passed_over[0]
            lines.append(Line(f"Also a limit hand ({row.english}); the regular count is higher",
                              f"{limit_points(row, settings)} points", line_id("also-limit", row.english)))
    facts = ([f"limit hand: {outcome.limit.english}"] if outcome.limit else
             [f"{outcome.base} points before doubling",
              "not doubled" if not outcome.doublings else f"doubled {times(outcome.doublings)}"])
    result = Result(RULES, True, winning=hand.winning, points=outcome.points, breakdown=lines,
                    extra={"base_points": outcome.base, "doublings": outcome.doublings,
                           "limit": outcome.limit.english if outcome.limit else None,
                           "dead": False}, facts=facts)
    if hand.winning:
        # Only what the winner collects: the others' mutual settlement needs their hands.
        paid = {seat: outcome.points * (2 if EAST in (seat, hand.seat_wind) else 1)
                for seat in SEATS if seat != hand.seat_wind}
        result.payments = {seat: -paid[seat] if seat in paid else sum(paid.values())
                           for seat in SEATS}
    return result


def _winner(hand: Hand, facts: HandFacts, settings: Settings) -> Result:
    outcomes: list[_Outcome] = []
    limits: list[_Outcome] = []
    for arrangement in arrangements(hand, seven_pairs=False, thirteen_orphans=False):
        sets, pairs = [], []
        for group in arrangement.groups:
            if group.type == SetType.PAIR:
                pairs.append(group.first)
            else:
                sets.append((group.type, group.first, group.concealed))
        arranged = CountedArrangement(sets, pairs, facts, hand, True)
        outcomes.append(_regular(arranged, settings))
        for row in _OPEN:
            if row.test(arranged):
                limits.append(_limit(row, settings))
                break
    if not hand.melds:
        row = irregular_limit_hand(facts.concealed_counts, settings)
        if row is not None:
            limits.append(_limit(row, settings))
    candidates = outcomes + limits
    if not candidates:
        return invalid(RULES, "false Mahjong: the tiles do not form four sets and a pair, "
                       "nor a limit hand", winning=True, dead=False)
    allowed = [o for o in candidates if o.allowed]
    if not allowed:
        best = max(candidates, key=lambda o: o.points)
        return invalid(RULES, best.reason, winning=True, base_points=best.base,
                       doublings=best.doublings, limit=None, dead=False)
    best = _best(allowed, settings)
    return _result(best, hand, settings, candidates)


def _non_winner(hand: Hand, facts: HandFacts, settings: Settings) -> Result:
    # Sets are only claimed where they score: pungs held (four alike undeclared is a pung
    # and a loose tile: a kong exists only once declared) and pairs of value tiles.
    sets = [(meld.type, meld.first, not meld.open) for meld in hand.melds]
    pairs = []
    for k, n in enumerate(facts.concealed_counts):
        if n >= 3:
            sets.append((SetType.PUNG, k, True))
        elif n == 2 and facts.pair_points.get(k):
            pairs.append(k)
    if pairs and not settings.non_winner_every_pair:
        pairs = [max(pairs, key=lambda k: sum(row.points for row in facts.pair_points[k]))]
    outcomes = [_regular(CountedArrangement(sets, pairs, facts, hand, False), settings)]
    if not hand.melds and len(hand.concealed) == 13:
        waiting = waiting_limit_hand(hand, settings)
        if waiting is not None:
            outcomes.append(_limit(waiting, settings, waiting=True))
    best = _best(outcomes, settings)
    return _result(best, hand, settings, [])


def waiting_limit_hand(hand: Hand, settings: Settings | None = None) -> LimitHand | None:
    """The best concealed limit hand a 13-tile hand without melds is one tile from, or None."""
    settings = settings or Settings()
    if hand.melds:
        return None
    found = [irregular_limit_hand(_plus(hand, tile), settings)
             for tile in hand_waits(hand, complete=lambda c: irregular_limit_hand(c, settings) is not None)]
    found = [row for row in found if row is not None]
    if not found:
        return None
    return max(found, key=lambda row: (row.waiting, -LIMIT_HANDS.index(row)))


def _plus(hand: Hand, tile: str) -> list[int]:
    counts = to_counts(hand.concealed)
    counts[kind(tile)] += 1
    return counts


def _dead(hand: Hand, count: int, expected: int) -> Result:
    why = (f"{count} tiles where a hand that did not win with {plural(hand.kong_count, 'kong')} has "
           f"{expected}: a dead hand scores nothing, but it pays")
    return Result(RULES, True, winning=False, points=0,
                  breakdown=[Line("Dead hand (dode hand)", "0 points", "dead-hand"),
                                             Line("Why", why, "dead-hand:why")],
                  extra={"base_points": 0, "doublings": 0, "limit": None, "dead": True})


def score(hand: Hand, settings: Settings | None = None) -> Result:
    """Score any player's hand: the winner's (``win_tile`` set) or one that did not win.

    Never raises for a bad hand: an unscoreable hand is valid False with the reason.
    """
    settings = settings or Settings()
    try:
        validate_hand(hand, check_count=False)
    except HandError as error:
        return invalid(RULES, str(error), winning=hand.winning)
    count = len(hand.all_tiles)
    expected = expected_tile_count(hand, hand.winning)
    if count != expected:
        if hand.winning:
            return invalid(RULES, f"{count} tiles, but a winning hand with {plural(hand.kong_count, 'kong')} "
                           f"has {expected}: a dead hand cannot go Mahjong",
                           winning=True, dead=True)
        return _dead(hand, count, expected)
    facts = HandFacts(hand)
    if hand.winning:
        return _winner(hand, facts, settings)
    return _non_winner(hand, facts, settings)


# -- settlement ----------------------------------------------------------------------------

class TableError(ValueError):
    """A table that cannot be settled: its message says what is wrong."""


def transfers(scores: dict[str, int], winner: str | None) -> list[tuple[str, str, int]]:
    """Every payment (payer, payee, amount) of one hand.

    The winner receives his score from each other player; the others settle their
    differences pairwise.  Any payment with East in it is doubled.  A draw pays nothing.
    """
    if winner is None:
        return []
    if winner not in scores:
        raise ValueError(f"the winner {winner!r} is not one of the seats {', '.join(scores)}")
    out = []
    others = [seat for seat in scores if seat != winner]
    for seat in others:
        factor = 2 if EAST in (seat, winner) else 1
        out.append((seat, winner, scores[winner] * factor))
    for a, b in combinations(others, 2):
        difference = scores[a] - scores[b]
        if difference:
            payer, payee = (b, a) if difference > 0 else (a, b)
            factor = 2 if EAST in (a, b) else 1
            out.append((payer, payee, abs(difference) * factor))
    return out


def settle(scores: dict[str, int], winner: str | None) -> dict[str, int]:
    """Each seat's net gain for one hand; the results sum to zero."""
    net = {seat: 0 for seat in scores}
    for payer, payee, amount in transfers(scores, winner):
        net[payer] -= amount
        net[payee] += amount
    return net


def _seat_name(seat: str) -> str:
    return WIND_NAMES.get(seat, seat)


def _table_hands(data: Any) -> tuple[str, dict[str, Hand]]:
    if not isinstance(data, dict):
        raise TableError('a table must be a JSON object: {"rules": "rode-draak", '
                         '"prevalent_wind": "E", "hands": {"E": HAND, "S": HAND, "W": HAND, "N": HAND}}')
    rules = data.get("rules", RULES)
    if rules != RULES:
        raise TableError(f"settle is for rode-draak tables; this table says rules {rules!r}")
    prevalent = data.get("prevalent_wind", "E")
    if prevalent not in WINDS:
        raise TableError(f"prevalent_wind must be one of E, S, W, N (got {prevalent!r})")
    seats = data.get("hands")
    if not isinstance(seats, dict):
        raise TableError('the table has no "hands" object with one hand per seat E, S, W, N')
    unknown = [str(s) for s in seats if s not in WINDS]
    if unknown:
        raise TableError(f"unknown {plural_word(len(unknown), 'seat')} {', '.join(unknown)}: seats are E, S, W, N")
    missing = [s for s in SEATS if s not in seats]
    if missing:
        raise TableError(f"missing {plural_word(len(missing), 'seat')}: {', '.join(_seat_name(s) for s in missing)} "
                         "(a table has four hands, E S W N)")
    hands = {}
    for seat in SEATS:
        raw = seats[seat]
        if not isinstance(raw, dict):
            raise TableError(f"seat {_seat_name(seat)}: a hand must be a JSON object")
        for key, value in (("seat_wind", seat), ("prevalent_wind", prevalent)):
            if raw.get(key) not in (None, value):
                raise TableError(f"seat {_seat_name(seat)}: its hand says {key} "
                                 f"{raw[key]!r}, but the table makes it {value!r}")
        try:
            hands[seat] = hand_from_dict({**raw, "seat_wind": seat, "prevalent_wind": prevalent})
        except HandError as error:
            raise TableError(f"seat {_seat_name(seat)}: {error}") from None
    return prevalent, hands


def _check_tiles_at_table(hands: dict[str, Hand]) -> None:
    """The four hands share one set of 136 tiles."""
    copies = [0] * 34
    reds: dict[str, int] = {}
    for hand in hands.values():
        for tile in hand.all_tiles:
            if tile[1] != "f":
                copies[kind(tile)] += 1
            if tile[0] == "0":
                reds[tile[1]] = reds.get(tile[1], 0) + 1
    for k, n in enumerate(copies):
        if n > 4:
            tile = kind_tile(k)
            raise TableError(f"the {tile_name(tile)} appears {n} times at the table; "
                             "a set has only 4 of each tile")
    for suit_letter, n in reds.items():
        if n > 1:
            raise TableError(f"{n} red fives of one suit (0{suit_letter}) at the table; a set has one")


def settle_table(data: dict, options: dict | None = None) -> dict:
    """Score the four hands of a table and settle them (the `mahjong-lens settle` command).

    Raises TableError for a table that cannot be settled: a missing seat, two winners,
    a false Mahjong, an unreadable hand.
    """
    from .registry import make_settings  # registry imports rule sets by name
    settings = make_settings(RULES, options)
    prevalent, hands = _table_hands(data)
    winners = [seat for seat, hand in hands.items() if hand.winning]
    if len(winners) > 1:
        raise TableError(f"{len(winners)} winning hands ({', '.join(map(_seat_name, winners))}): "
                         "a hand has one winner, or none for a draw")
    winner = winners[0] if winners else None
    _check_tiles_at_table(hands)
    results = {}
    for seat, hand in hands.items():
        result = score(hand, settings)
        if not result.valid:
            raise TableError(f"seat {_seat_name(seat)}: {result.error}")
        results[seat] = result
    scores = {seat: result.points for seat, result in results.items()}
    moves = transfers(scores, winner)
    seats_out = {}
    for seat, result in results.items():
        # "settlement": what this seat received (+) from or paid (-) to each other seat.
        with_others = {other: 0 for other in SEATS if other != seat}
        for payer, payee, amount in moves:
            if payee == seat:
                with_others[payer] += amount
            elif payer == seat:
                with_others[payee] -= amount
        result.extra["settlement"] = with_others
        seats_out[seat] = result.to_dict()
    return {"rules": RULES, "prevalent_wind": prevalent, "winner": winner,
            "seats": seats_out, "payments": settle(scores, winner),
            "transfers": [{"from": payer, "to": payee, "amount": amount} for payer, payee, amount in moves]}
