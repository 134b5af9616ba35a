"""Riichi per the Ari Ari competition rules (../shared/spec/riichi.md, seed 001).

The field trusts the PyPI ``mahjong`` package's HandCalculator for yaku, han, fu and
cost, so this module is not a second yaku engine: it is a bridge.  It turns our hand
into the library's 136-tile form, the Ari Ari settings into the library's
OptionalRules and our situation flags into its HandConfig, and turns the library's
answer into our Result: points, per-seat payments, the yaku and fu in words.

Library pitfalls this bridge guards against (mahjong 2.1.0):
- red fives are recognised by 136-index alone (16 = 0m, 52 = 0p, 88 = 0s, the first
  copy of each five).  A plain five given that index silently becomes red, so with red
  fives on, plain fives are given the other three copies only; four plain fives of one
  suit cannot exist in an Ari Ari set and are rejected in words (TilesConverter would
  instead turn the fourth into a 6).
- its ``yaku_level`` is empty for a mangan reached by fu when kiriage is on (4 han 40
  fu), so the limit is read from han and fu here, not from ``yaku_level``.
- ura dora would be counted only with riichi; we also pass them only then.
- it knows open and added kongs apart (KAN / SHOUMINKAN) but scores them the same;
  our Meld only says open or concealed, so every open kong goes over as an open KAN.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.hand_calculating.hand_response import HandResponse
from mahjong.meld import Meld as LibraryMeld

from .decompose import arrangements, hand_waits
from .hand import Hand, HandError, SetType, validate_hand
from .result import Line, Result, counted, invalid, line_id
from .tiles import (
    SUIT_NAMES, WINDS, dora_from_indicator, four_plain_fives, is_red, is_simple, kind, plain, tile_name, wind_tile,
)

RULES = "riichi"
TITLE = "Riichi (Ari Ari)"
SCORES_EVERY_HAND = False  # only the winner's hand is scored
DEALER = "E"


@dataclass(frozen=True)
class Settings:
    """The Ari Ari rules (seed 001); defaults for what its text leaves open per the spec."""

    red_fives: bool = True         # one red five per suit (0m 0p 0s), each one dora
    kuitan: bool = True            # open tanyao ("kuitan ari")
    atozuke: bool = True           # a yaku that only the winning tile brings is enough
    kiriage: bool = False          # 4 han 30 fu and 3 han 60 fu round up to mangan
    double_yakuman: bool = False   # 13-sided kokushi, suuankou tanki, 9-sided chuuren and
                                   # daisuushi count double; several yakuman add either way
    kazoe_yakuman: bool = True     # 13+ han of ordinary yaku is a yakuman (off: sanbaiman)
    renhou: bool = False           # a non-dealer's discard win in the first go-around
    renhou_yakuman: bool = False   # with renhou on: yakuman instead of 5 han
    honba: int = counted(0, 0, 100)  # counters: 300 per honba on a ron, 100 a payer on tsumo
    riichi_sticks: int = counted(0, 0, 100)  # 1000-point deposits on the table, to the winner


ARI_ARI = Settings()


def library_options(settings: Settings) -> OptionalRules:
    """The Ari Ari settings as the library's OptionalRules.

    Everything the spec does not name keeps the library default, which is the common
    standard (2 fu for an open pinfu-shaped ron, no fu for pinfu tsumo, no local yakuman).
    """
    return OptionalRules(
        has_open_tanyao=settings.kuitan,
        has_aka_dora=settings.red_fives,
        has_double_yakuman=settings.double_yakuman,
        kazoe_limit=HandConstants.KAZOE_LIMITED if settings.kazoe_yakuman
        else HandConstants.KAZOE_SANBAIMAN,
        kiriage=settings.kiriage,
        renhou_as_yakuman=settings.renhou_yakuman,
    )


# -- situation: our flags -> the library's HandConfig --------------------------------------

# (HandConfig field, when it holds): read as "riichi when the riichi flag is set" etc.
SITUATION_RULES: list[tuple[str, Callable[[Hand, Settings], bool]]] = [
    ("is_tsumo", lambda h, s: h.self_drawn),
    ("is_riichi", lambda h, s: h.situation.riichi),
    ("is_daburu_riichi", lambda h, s: h.situation.double_riichi),
    ("is_ippatsu", lambda h, s: h.situation.ippatsu),
    ("is_haitei", lambda h, s: h.situation.last_tile and h.self_drawn),         # last draw
    ("is_houtei", lambda h, s: h.situation.last_tile and not h.self_drawn),     # last discard
    ("is_rinshan", lambda h, s: h.situation.kong_replacement),
    ("is_chankan", lambda h, s: h.situation.robbing_kong),
    ("is_tenhou", lambda h, s: h.situation.first_turn and h.self_drawn and h.seat_wind == DEALER),
    ("is_chiihou", lambda h, s: h.situation.first_turn and h.self_drawn and h.seat_wind != DEALER),
    ("is_renhou", lambda h, s: h.situation.first_turn and not h.self_drawn
     and h.seat_wind != DEALER and s.renhou),
]


def library_config(hand: Hand, settings: Settings) -> HandConfig:
    """The library's HandConfig for this hand: win method, winds, flags, honba, sticks."""
    flags = {field: bool(holds(hand, settings)) for field, holds in SITUATION_RULES}
    return HandConfig(
        **flags,
        player_wind=kind(wind_tile(hand.seat_wind)),
        round_wind=kind(wind_tile(hand.prevalent_wind)),
        tsumi_number=settings.honba,
        kyoutaku_number=settings.riichi_sticks,
        options=library_options(settings),
    )


# -- tiles: our codes -> the library's 136 indices -----------------------------------------

@dataclass(frozen=True)
class LibraryHand:
    """The arguments of HandCalculator.estimate_hand_value for one hand."""

    tiles: list[int]          # every tile, melds included, in 136 indices
    win_tile: int
    melds: list[LibraryMeld]
    dora_indicators: list[int]
    ura_dora_indicators: list[int]


class _Tile136:
    """Hands out distinct 136 indices (4 per kind), keeping the first five for red fives.

    With red fives on, index 4*kind of a five is the red five (16, 52, 88), so a plain
    five must never get it; with them off the library ignores redness, and a red five is
    just a five.
    """

    def __init__(self, red_fives: bool):
        self.red_fives = red_fives
        self.free = {k: list(range(4 * k, 4 * k + 4)) for k in range(34)}

    def take(self, tile: str) -> int:
        k = kind(tile)
        red_index = 4 * k
        is_five = tile[1] in "mps" and plain(tile)[0] == "5"
        if self.red_fives and is_five:
            wanted = [red_index] if is_red(tile) else [i for i in self.free[k] if i != red_index]
        else:
            wanted = self.free[k]
        choice = next((i for i in wanted if i in self.free[k]), None)
        if choice is None:  # validation makes this unreachable; say what it means anyway
            raise HandError(f"no {tile_name(tile)} is left in a set for this hand",
                            "too_many_copies")
        self.free[k].remove(choice)
        return choice


_MELD_TYPES = {SetType.CHOW: LibraryMeld.CHI, SetType.PUNG: LibraryMeld.PON, SetType.KONG: LibraryMeld.KAN}


def to_library(hand: Hand, settings: Settings, with_ura: bool | None = None) -> LibraryHand:
    """Our hand in the library's form.  ``with_ura`` defaults to: only for a riichi winner."""
    indices = _Tile136(settings.red_fives)
    melds = []
    for meld in hand.melds:
        # an added kong (shouminkan) scores as an open kong; both go over as an open KAN
        melds.append(LibraryMeld(_MELD_TYPES[meld.type], [indices.take(t) for t in meld.tiles],
                                 opened=meld.open))
    concealed = [(tile, indices.take(tile)) for tile in hand.concealed]
    win_tile = next(index for tile, index in concealed if tile == hand.win_tile)
    if with_ura is None:
        with_ura = hand.situation.riichi or hand.situation.double_riichi
    # only the kind of an indicator matters to the library (it counts dora by kind)
    return LibraryHand(
        tiles=[i for m in melds for i in m.tiles] + [i for _, i in concealed],
        win_tile=win_tile,
        melds=melds,
        dora_indicators=[4 * kind(t) for t in hand.dora_indicators],
        ura_dora_indicators=[4 * kind(t) for t in hand.ura_dora_indicators] if with_ura else [],
    )


def estimate(hand: Hand, settings: Settings) -> HandResponse:
    """The library's verdict on the hand, as it is."""
    library_hand = to_library(hand, settings)
    return HandCalculator.estimate_hand_value(
        library_hand.tiles, library_hand.win_tile, melds=library_hand.melds,
        dora_indicators=library_hand.dora_indicators, config=library_config(hand, settings),
        ura_dora_indicators=library_hand.ura_dora_indicators)


# -- words -----------------------------------------------------------------------------------

# The library's yaku names with what they mean, for the breakdown.
YAKU_WORDS = {
    "Menzen Tsumo": "Menzen tsumo (concealed self-draw)",
    "Riichi": "Riichi", "Double Riichi": "Double riichi", "Ippatsu": "Ippatsu (one-shot)",
    "Chankan": "Chankan (robbing a kong)", "Rinshan Kaihou": "Rinshan kaihou (kong replacement)",
    "Haitei Raoyue": "Haitei (last tile drawn)", "Houtei Raoyui": "Houtei (last discard)",
    "Renhou": "Renhou (first-turn discard win)", "Pinfu": "Pinfu (all chows, no fu)",
    "Tanyao": "Tanyao (all simples)", "Iipeiko": "Iipeikou (two identical chows)",
    "Yakuhai (haku)": "Yakuhai: white dragon", "Yakuhai (hatsu)": "Yakuhai: green dragon",
    "Yakuhai (chun)": "Yakuhai: red dragon",
    **{f"Yakuhai (seat wind {w})": f"Yakuhai: seat wind {w.capitalize()}"
       for w in ("east", "south", "west", "north")},
    **{f"Yakuhai (round wind {w})": f"Yakuhai: prevalent wind {w.capitalize()}"
       for w in ("east", "south", "west", "north")},
    "Sanshoku Doujun": "Sanshoku (same chow in three suits)",
    "Ittsu": "Ittsu (straight 1-9)", "Chantai": "Chanta (terminal or honour in each set)",
    "Honroutou": "Honroutou (all terminals and honours)", "Toitoi": "Toitoi (all pungs)",
    "San Ankou": "San ankou (three concealed pungs)", "San Kantsu": "San kantsu (three kongs)",
    "Sanshoku Doukou": "Sanshoku doukou (same pung in three suits)",
    "Chiitoitsu": "Chiitoitsu (seven pairs)", "Shou Sangen": "Shousangen (little three dragons)",
    "Honitsu": "Honitsu (half flush)", "Junchan": "Junchan (terminal in each set)",
    "Ryanpeikou": "Ryanpeikou (twice two identical chows)", "Chinitsu": "Chinitsu (full flush)",
    "Kokushi Musou": "Kokushi musou (thirteen orphans)",
    "Kokushi Musou Juusanmen Matchi": "Kokushi musou, 13-sided wait",
    "Chuuren Poutou": "Chuuren poutou (nine gates)",
    "Daburu Chuuren Poutou": "Chuuren poutou, 9-sided wait",
    "Suu Ankou": "Suu ankou (four concealed pungs)",
    "Suu Ankou Tanki": "Suu ankou, pair wait",
    "Daisangen": "Daisangen (big three dragons)", "Shousuushii": "Shousuushii (little four winds)",
    "Dai Suushii": "Daisuushii (big four winds)", "Ryuuiisou": "Ryuuiisou (all green)",
    "Suu Kantsu": "Suu kantsu (four kongs)", "Tsuu Iisou": "Tsuuiisou (all honours)",
    "Chinroutou": "Chinroutou (all terminals)", "Tenhou": "Tenhou (dealer's first draw)",
    "Chiihou": "Chiihou (first draw)", "Renhou (yakuman)": "Renhou (yakuman)",
    "Dora": "Dora", "Aka Dora": "Red fives (aka dora)", "Ura Dora": "Ura dora",
}
DORA_YAKU = ("Dora", "Aka Dora", "Ura Dora")

# The library's fu reasons in words.
FU_WORDS = {
    "base": "Base fu",
    "penchan": "Edge wait (penchan)",
    "kanchan": "Closed wait (kanchan)",
    "valued_pair": "Pair of dragons or own/prevalent wind",
    "double_valued_pair": "Pair of wind that is both seat and prevalent",
    "pair_wait": "Pair wait (tanki)",
    "tsumo": "Self-draw",
    "hand_without_fu": "Open hand without fu",
    "closed_pon": "Concealed pung of simples",
    "open_pon": "Exposed pung of simples",
    "closed_terminal_pon": "Concealed pung of terminals or honours",
    "open_terminal_pon": "Exposed pung of terminals or honours",
    "closed_kan": "Concealed kong of simples",
    "open_kan": "Exposed kong of simples",
    "closed_terminal_kan": "Concealed kong of terminals or honours",
    "open_terminal_kan": "Exposed kong of terminals or honours",
}

YAKUMAN_MULTIPLES = {1: "yakuman", 2: "double yakuman", 3: "triple yakuman",
                     4: "quadruple yakuman", 5: "quintuple yakuman", 6: "sextuple yakuman"}
# (least han, limit) for hands of ordinary yaku at 5 han or more
HAN_LIMITS = [(13, "yakuman"), (11, "sanbaiman"), (8, "baiman"), (6, "haneman"), (5, "mangan")]

_ERRORS = {
    HandCalculator.ERR_OPEN_HAND_RIICHI:
        "riichi can only be declared with a concealed hand, and this hand has open melds",
    HandCalculator.ERR_OPEN_HAND_DABURI:
        "double riichi can only be declared with a concealed hand, and this hand has open melds",
    HandCalculator.ERR_IPPATSU_WITHOUT_RIICHI:
        "ippatsu is a win within one go-around after riichi, so it needs riichi or double riichi",
    HandCalculator.ERR_CHANKAN_WITH_TSUMO:
        "robbing a kong is a win on the tile another player adds to a kong, not a self-drawn win",
    HandCalculator.ERR_RINSHAN_WITHOUT_TSUMO:
        "a kong replacement tile is drawn by the winner, so that win is self-drawn",
    HandCalculator.ERR_HAITEI_WITH_RINSHAN:
        "a win on the last tile of the wall cannot also be on a kong replacement tile",
    HandCalculator.ERR_HOUTEI_WITH_CHANKAN:
        "a win on the last discard cannot also be robbing a kong",
    HandCalculator.ERR_TENHOU_WITH_MELD:
        "a first-turn win needs an untouched hand: no meld, not even a concealed kong",
    HandCalculator.ERR_CHIIHOU_WITH_MELD:
        "a first-turn win needs an untouched hand: no meld, not even a concealed kong",
    HandCalculator.ERR_RENHOU_WITH_MELD:
        "a first-turn win needs an untouched hand: no meld, not even a concealed kong",
}


def limit_name(han: int, fu: int, yakuman: bool, settings: Settings) -> str | None:
    """The hand's limit: None below mangan, else mangan ... yakuman, double yakuman, ..."""
    if yakuman:
        return YAKUMAN_MULTIPLES.get(han // 13, "sextuple yakuman")
    if han >= 13 and not settings.kazoe_yakuman:
        return "sanbaiman"
    for least_han, name in HAN_LIMITS:
        if han >= least_han:
            return name
    base_points = fu * 2 ** (2 + han)
    if base_points >= 2000 or (settings.kiriage and (han, fu) in ((4, 30), (3, 60))):
        return "mangan"
    return None


def _fu_words(reason: str, fu: int) -> str:
    if reason == "base":
        return {25: "Base fu (seven pairs)", 30: "Base fu (concealed hand, won on a discard)"}.get(
            fu, "Base fu")
    return FU_WORDS.get(reason, reason)


def _han_of(yaku: Any, is_open: bool) -> int:
    # the library's own rule: an open hand takes han_open where a yaku has one
    return yaku.han_open if is_open and yaku.han_open else yaku.han_closed


def _han_words(han: int, yakuman: bool) -> str:
    if yakuman:
        return YAKUMAN_MULTIPLES.get(han // 13, f"{han // 13}x yakuman")
    return f"{han} han"


# -- checks the library does not make -----------------------------------------------------

def _check_context(hand: Hand, settings: Settings) -> str | None:
    """A sentence when the hand cannot be scored as written, before asking the library."""
    if not hand.winning:
        return ("this hand did not win (no winning tile is marked): riichi scores only the winning "
                "hand")
    if not hand.self_drawn and hand.discarder is None:
        return ("a win on a discard needs the seat of the player who discarded the winning tile, "
                "to say who pays")
    if settings.honba < 0 or settings.riichi_sticks < 0:
        return "honba and riichi sticks cannot be negative"
    suits = four_plain_fives(hand.all_tiles) if settings.red_fives else []
    if suits:
        return (f"four plain fives of {SUIT_NAMES[suits[0]]}: with red fives each suit has one red five "
                "and three plain ones; mark the red one (or turn off the setting 'red fives')")
    return None


def _not_complete_reason(hand: Hand) -> str:
    if any(a.shape == "seven_pairs" for a in arrangements(hand, distinct_pairs=False)):
        return ("the hand is not complete: seven pairs must be seven different pairs "
                "(four alike are not two pairs)")
    return ("the hand is not complete: its tiles do not form four sets and a pair, seven "
            "pairs, or thirteen orphans")


def _no_yaku_reason(hand: Hand, settings: Settings) -> str:
    reason = "no yaku: the hand is complete, but a win needs at least one yaku"
    dora = _dora_count(hand, settings)
    if dora:
        reason += f"; its {dora} dora do not count as a yaku"
    if not hand.fully_concealed:
        reason += "; an open hand cannot claim riichi, menzen tsumo or pinfu"
        if not settings.kuitan and all(is_simple(t) for t in hand.all_tiles):
            reason += ", and open tanyao does not count with kuitan off"
    return reason


def _dora_count(hand: Hand, settings: Settings) -> int:
    """Dora the hand holds (for an explanation only; the library counts the real ones)."""
    doras = Counter(kind(dora_from_indicator(t)) for t in hand.dora_indicators)
    count = sum(doras[kind(t)] for t in hand.all_tiles)
    if settings.red_fives:
        count += sum(is_red(t) for t in hand.all_tiles)
    return count


def _atozuke_problem(hand: Hand, settings: Settings) -> str | None:
    """With atozuke off: the hand must have a yaku whatever tile completes it.

    Each other tile the hand waited on is tried as the winning tile, with the same
    situation; if any of them would leave the hand without a yaku, the yaku came only
    from the winning tile.
    """
    before = list(hand.concealed)
    before.remove(hand.win_tile)
    waiting = Hand(concealed=tuple(before), melds=hand.melds)
    # redness cannot make a yaku, so the trial hands drop it (no fifth-five problems)
    trial_settings = replace(settings, red_fives=False)
    for tile in hand_waits(waiting):
        if kind(tile) == kind(hand.win_tile):
            continue
        trial = replace(hand, concealed=(*before, tile), win_tile=tile)
        response = estimate(trial, trial_settings)
        if response.error == HandCalculator.ERR_NO_YAKU:
            return (f"no yaku before the win: with atozuke off, the hand must have a yaku "
                    f"whatever tile completes it, and on the {tile_name(tile)} it "
                    "would have none")
    return None


# -- payments --------------------------------------------------------------------------------

def _payments(hand: Hand, cost: dict[str, int]) -> dict[str, int]:
    """Each seat's gain: the discarder pays a ron; on tsumo the dealer pays double."""
    winner = hand.seat_wind
    payments = {seat: 0 for seat in WINDS}
    payers = [s for s in WINDS if s != winner] if hand.self_drawn else [hand.discarder]
    for seat in payers:
        if hand.self_drawn and not (seat == DEALER or winner == DEALER):
            owed = cost["additional"] + cost["additional_bonus"]   # a non-dealer's share
        else:
            owed = cost["main"] + cost["main_bonus"]               # dealer / discarder
        payments[seat] -= owed
        payments[winner] += owed
    payments[winner] += cost["kyoutaku_bonus"]  # deposits come from the table
    return payments


# -- scoring ---------------------------------------------------------------------------------

def score(hand: Hand, settings: Settings | None = None) -> Result:
    """Score a winning hand under the Ari Ari riichi rules; never raises for a bad hand."""
    settings = settings or ARI_ARI
    try:
        validate_hand(hand)
    except HandError as error:
        return invalid(RULES, str(error), winning=hand.winning)
    problem = _check_context(hand, settings)
    if problem:
        return invalid(RULES, problem, winning=hand.winning)
    try:
        response = estimate(hand, settings)
    except HandError as error:
        return invalid(RULES, str(error), winning=True)
    if response.error == HandCalculator.ERR_HAND_NOT_WINNING:
        return invalid(RULES, _not_complete_reason(hand), winning=True)
    if response.error == HandCalculator.ERR_NO_YAKU:
        return invalid(RULES, _no_yaku_reason(hand, settings), winning=True)
    if response.error:
        return invalid(RULES, _ERRORS.get(response.error,
                                          f"the scorer rejected the hand ({response.error})"),
                       winning=True)
    if not settings.atozuke:
        problem = _atozuke_problem(hand, settings)
        if problem:
            return invalid(RULES, problem, winning=True)
    return _result(hand, settings, response)


def _result(hand: Hand, settings: Settings, response: HandResponse) -> Result:
    is_open = response.is_open_hand
    yakuman = any(y.is_yakuman for y in response.yaku)
    han, fu, cost = response.han, response.fu, response.cost
    limit = limit_name(han, fu, yakuman, settings)
    yaku = [(y.name, _han_of(y, is_open)) for y in response.yaku]
    fu_details = [{"reason": d["reason"], "name": _fu_words(d["reason"], d["fu"]), "fu": d["fu"]}
                  for d in response.fu_details or []]

    breakdown = [Line(YAKU_WORDS.get(name, name), _han_words(value, y.is_yakuman), line_id("yaku", name))
                 for (name, value), y in zip(yaku, response.yaku) if name not in DORA_YAKU]
    breakdown += [Line(YAKU_WORDS[name], f"{value} han", line_id("yaku", name)) for name, value in yaku
                  if name in DORA_YAKU]
    if fu_details:
        breakdown += [Line(d["name"], f"{d['fu']} fu", line_id("fu", d["reason"])) for d in fu_details]
        raw = sum(d["fu"] for d in fu_details)
        breakdown.append(Line("Fu", f"{raw} rounded up to {fu}" if raw != fu else f"{fu}", "fu"))
    if limit:
        breakdown.append(Line("Limit", _limit_words(limit, han, fu, yakuman), "limit"))
    points = cost["main"] + 2 * cost["additional"]  # without honba and sticks
    breakdown.append(Line("Points", f"{points}", "points"))
    if settings.honba:
        honba_points = cost["main_bonus"] + 2 * cost["additional_bonus"]
        breakdown.append(Line(f"Honba ({settings.honba})", f"+{honba_points}", "honba"))
    if settings.riichi_sticks:
        breakdown.append(Line(f"Riichi sticks ({settings.riichi_sticks})",
                              f"+{cost['kyoutaku_bonus']}", "riichi-sticks"))

    notes = []
    if hand.ura_dora_indicators and not (hand.situation.riichi or hand.situation.double_riichi):
        notes.append("ura dora indicators ignored: ura dora count only for a riichi winner")
    if hand.situation.first_turn and not hand.self_drawn and not (
            settings.renhou and hand.seat_wind != DEALER):
        notes.append("first_turn on a discard win scores nothing here (renhou is off, "
                     "or the winner is the dealer)")
    extra: dict[str, Any] = {
        "han": han, "fu": fu, "limit": limit,
        "yaku": [{"name": name, "han": value} for name, value in yaku if name not in DORA_YAKU],
        "dora": sum(value for name, value in yaku if name in DORA_YAKU),
        "fu_details": fu_details,
        "honba": settings.honba, "riichi_sticks": settings.riichi_sticks,
        "dealer": hand.seat_wind == DEALER,
    }
    if notes:
        extra["notes"] = notes
    facts = [f"{han} han {fu} fu" if not yakuman else "yakuman"] + ([limit] if limit and not yakuman else []) \
        + (["dealer"] if hand.seat_wind == DEALER else [])
    return Result(rules=RULES, valid=True, winning=True, points=points, breakdown=breakdown,
                  payments=_payments(hand, cost), extra=extra, facts=facts)


def _limit_words(limit: str, han: int, fu: int, yakuman: bool) -> str:
    if not yakuman and han >= 13:
        return f"{limit} (counted from {han} han)"
    if limit == "mangan" and han < 5:
        by_fu = fu * 2 ** (2 + han) >= 2000
        return "mangan (reached by fu)" if by_fu else "mangan (kiriage: rounded up)"
    return limit
