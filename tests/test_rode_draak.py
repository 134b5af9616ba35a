"""Rode Draak scoring and settlement (spec/rode-draak.md, seeds 000 and 002).

Every expected value is worked out by hand in the comment beside it:
points = Mahjong 20 (winners only) + sets + pairs, then x2 per doubling, capped at 4000.
"""
import json
import random

import pytest
from hypothesis import given, settings as hypothesis_settings, strategies as st

from commands import run_cli
from mahjong_lens.rules import registry
from mahjong_lens.rules.generate import random_losing_hand, random_winning_hand
from mahjong_lens.rules.hand import Hand, hand_from_dict
from mahjong_lens.rules.rode_draak import (DOUBLINGS, LIMIT_HANDS, SEATS, Settings, TableError,
                              apply_doublings, score, settle, settle_table)

# Nine tiles that never score together: two suits, no pair, no pung.
JUNK = "13579p2468s"


def make_hand(concealed: str, melds=(), win=None, seat="E", wind="E", self_drawn=False,
              discarder=None, **situation) -> Hand:
    """melds: (type, tiles) for an open meld, (type, tiles, False) for a concealed kong."""
    data = {"concealed": concealed, "win_tile": win, "self_drawn": self_drawn,
            "discarder": discarder, "seat_wind": seat, "prevalent_wind": wind,
            "melds": [{"type": m[0], "tiles": m[1], "open": m[2] if len(m) > 2 else True}
                      for m in melds],
            "situation": situation}
    return hand_from_dict(data)


def rd(concealed: str, melds=(), settings: Settings | None = None, **context):
    return score(make_hand(concealed, melds, **context), settings)


def names(result) -> list[str]:
    return [line.name for line in result.breakdown]


def doubling_names(result) -> list[str]:
    return [line.name for line in result.breakdown if line.value.startswith("x")]


# -- points for sets and pairs (scored on hands that did not win: no doublings interfere) --

@pytest.mark.parametrize("concealed, melds, points", [
    ("2227m" + JUNK, (), 4),                          # pung of simples op stok
    ("7m" + JUNK, (("pung", "222m"),), 2),            # pung of simples op tafel
    ("1117m" + JUNK, (), 8),                          # pung of terminals op stok
    ("7m" + JUNK, (("pung", "111m"),), 4),            # pung of terminals op tafel
    ("444z7m" + JUNK, (), 8),                         # pung of North (no value wind for E/E)
    ("7m" + JUNK, (("pung", "444z"),), 4),
    ("7m" + JUNK, (("kong", "2222m", False),), 16),   # kong of simples op stok
    ("7m" + JUNK, (("kong", "2222m"),), 8),           # kong of simples op tafel
    ("7m" + JUNK, (("kong", "1111m", False),), 32),   # kong of terminals op stok
    ("7m" + JUNK, (("kong", "1111m"),), 16),          # kong of terminals op tafel
    ("7m" + JUNK, (("kong", "4444z", False),), 32),   # kong of an honour op stok
    ("7m" + JUNK, (("chow", "234m"),), 0),            # a chow scores nothing
])
def test_set_points(concealed, melds, points):
    result = rd(concealed, melds)
    assert result.valid and not result.winning
    assert result.points == points and result.extra["doublings"] == 0


@pytest.mark.parametrize("concealed, points", [
    ("2237m" + JUNK, 0),    # nearly a pung: 22m is a pair of simples, worth nothing
    ("2222m" + JUNK[1:] + "7m", 4),  # four alike undeclared: a pung (a kong must be declared)
])
def test_nearly_sets(concealed, points):
    assert rd(concealed).points == points


@pytest.mark.parametrize("pair, seat, wind, points, rows", [
    ("22z", "S", "E", 2, ["Pair of own wind: South"]),
    ("11z", "S", "E", 2, ["Pair of prevailing wind: East"]),
    ("55z", "E", "E", 2, ["Pair of dragons: White dragon"]),
    ("11z", "E", "E", 4, ["Pair of own wind: East", "Pair of prevailing wind: East"]),  # 2 + 2
    ("22z", "W", "E", 0, []),        # nearly: South is neither own nor prevailing wind for West
    ("44m", "E", "E", 0, []),        # nearly: a pair of simples
])
def test_pair_points(pair, seat, wind, points, rows):
    result = rd("79m" + pair + JUNK, seat=seat, wind=wind)
    assert result.points == points
    assert [n for n in names(result) if n.startswith("Pair")] == rows


def test_non_winner_scores_every_value_pair_unless_set_otherwise():
    concealed = "55z66z7m" + "1357p2468s"  # pairs of white and green dragons
    assert rd(concealed).points == 4                                              # 2 + 2
    assert rd(concealed, settings=Settings(non_winner_every_pair=False)).points == 2


def test_pung_won_on_a_discard_is_exposed_self_drawn_stays_concealed():
    # 123 456 789m 777z 11z, South in the East round, winning on the red dragon.
    discard = rd("123456789m77711z", win="7z", seat="S", discarder="W")
    # 20 + pung of dragons op tafel 4 + pair of prevailing wind 2 = 26;
    # dragons x2, one suit with honours x2: 26 x 4 = 104
    assert discard.valid and discard.points == 104
    assert "Pung of terminals or honours (op tafel): Red dragon" in names(discard)
    drawn = rd("123456789m77711z", win="7z", seat="S", self_drawn=True)
    # 20 + 8 (op stok) + 2 = 30; dragons, one suit, Verborgen spel x8: 30 x 32 = 960
    assert drawn.points == 960


def test_the_best_reading_is_kept():
    # 111 222 333m read as three pungs beats three chows 123 123 123m.
    result = rd("111222333m789m55z", win="9m", discarder="S")
    # pungs: 20 + 8 + 4 + 4 + dragon pair 2 = 38; three concealed pungs, one suit: 38 x 4 = 152
    # (chows: 20 + 2 = 22; all chows, one suit: 22 x 4 = 88)
    assert result.points == 152 and result.extra["base_points"] == 38


# -- doublings for every player ----------------------------------------------------------------

@pytest.mark.parametrize("concealed, melds, context, points, doubling_lines", [
    # pung of dragons: 8 x 2 = 16 / nearly: a pair of dragons, 2 points, no doubling
    ("777z7m" + JUNK, (), {}, 16, ["Pung of dragons"]),
    ("77z79m" + JUNK, (), {}, 2, []),
    # pung of own wind (South for South): 8 x 2 / nearly: South held by West
    ("222z7m" + JUNK, (), {"seat": "S"}, 16, ["Pung of own wind"]),
    ("222z7m" + JUNK, (), {"seat": "W"}, 8, []),
    # pung of prevailing wind: 8 x 2; East for East in the East round: x2 x2 = 32
    ("111z7m" + JUNK, (), {"seat": "S"}, 16, ["Pung of prevailing wind"]),
    ("111z7m" + JUNK, (), {"seat": "E"}, 32, ["Pung of own wind", "Pung of prevailing wind"]),
    ("111z7m" + JUNK, (), {"seat": "S", "wind": "S"}, 8, []),
    # three concealed pungs: (4 + 4 + 4) x 2 = 24 / nearly: one exposed, 4 + 4 + 2 = 10
    ("2227m333p9p444s16s", (), {}, 24, ["Three concealed pungs"]),
    ("2227m333p9p16s", (("pung", "444s"),), {}, 10, []),
    # an open kong counts as a concealed pung here: (4 + 4 + 8) x 2 = 32
    ("2227m333p9p16s", (("kong", "4444s"),), {}, 32, ["Three concealed pungs"]),
    # three concealed kongs: 16 x 3 = 48 x 4 = 192, replacing three concealed pungs
    ("7m9p16s", (("kong", "2222m", False), ("kong", "3333p", False), ("kong", "4444s", False)),
     {}, 192, ["Three concealed kongs"]),
    # nearly: one kong open, 16 + 16 + 8 = 40, three concealed pungs only: 80
    ("7m9p16s", (("kong", "2222m", False), ("kong", "3333p", False), ("kong", "4444s")),
     {}, 80, ["Three concealed pungs"]),
    # one suit with honours: pung 222m 4 x 2 = 8 / nearly: a 9 of dots, 4
    ("2224689m123456z", (), {}, 8, ["One suit with honours"]),
    ("222468m9p123456z", (), {}, 4, []),
    # pure one suit: 222m 4 + 999m 8 = 12 x 8 = 96, replacing one suit with honours
    ("1222345678999m", (), {}, 96, ["Pure one suit"]),
    ("222345678999m4z", (), {}, 24, ["One suit with honours"]),   # nearly: 12 x 2
    # only terminals and honours: 111m 8 + 999p 8 = 16 x 2 = 32 / nearly: an 8 of bamboo
    ("111m999p19s24567z", (), {}, 32, ["Only terminals and honours"]),
    ("111m999p18s24567z", (), {}, 16, []),
    # only ones and nines: 16 x 8 = 128, replacing terminals and honours / nearly: East: 32
    ("111m99m1p999p11s99s", (), {}, 128, ["Only ones and nines"]),
    ("111m99m999p11s99s1z", (), {}, 32, ["Only terminals and honours"]),
    # only winds and dragons, South in the South round: West 8 + North 8 + pair of South 2 + 2
    # = 20 x 8 = 160 / nearly: a 9 of characters for the red dragon: terminals and honours x2,
    # and now one suit with honours x2: 20 x 4 = 80
    ("333z444z11z22z567z", (), {"seat": "S", "wind": "S"}, 160, ["Only winds and dragons"]),
    ("333z444z11z22z56z9m", (), {"seat": "S", "wind": "S"}, 80,
     ["One suit with honours", "Only terminals and honours"]),
])
def test_doublings_for_every_player(concealed, melds, context, points, doubling_lines):
    result = rd(concealed, melds, **context)
    assert result.valid, result.error
    assert result.points == points
    assert doubling_lines == doubling_names(result)


def test_honours_only_as_one_suit_is_a_setting():
    hand = make_hand("333z444z11z22z567z", seat="S", wind="S")
    # 20 points; winds and dragons x8 and, with the setting, one suit with honours x2: x16
    assert score(hand, Settings(honours_only_is_one_suit=True)).points == 320
    assert score(hand).points == 160


def test_each_doubling_row_is_tested_above():
    tested = {"Pung of dragons", "Pung of own wind", "Pung of prevailing wind",
              "Three concealed pungs", "Three concealed kongs", "One suit with honours",
              "Pure one suit", "Only terminals and honours", "Only ones and nines",
              "Only winds and dragons", "All chows and a pair", "All pungs and a pair",
              "All simples (Pure eenvoud)"}
    named = {"Maan van de zeebodem vissen", "Kong met de bloeiende bloemen", "Kongroof",
             "Verborgen spel"}
    for row in DOUBLINGS:
        assert row.english in tested or row.dutch in named, row
    assert sum(row.winner_only for row in DOUBLINGS) == 7   # the seed's "Voor de winnaar"


# -- for the winner only -------------------------------------------------------------------

# B: chow 123m on the table; 456 789m, red dragons op stok, pair of East; South, East round.
# 20 + 8 + 2 = 30 points; pung of dragons, one suit with honours: x4 = 120.
B_CONCEALED, B_MELDS = "456m789m777z11z", (("chow", "123m"),)


def test_base_hand_b():
    assert rd(B_CONCEALED, B_MELDS, win="4m", seat="S", discarder="W").points == 120
    # self-drawn alone adds nothing: the chow on the table is no Verborgen spel
    assert rd(B_CONCEALED, B_MELDS, win="4m", seat="S", self_drawn=True).points == 120


def test_all_chows_and_a_pair():
    result = rd("123m456m789m234m55z", win="8m", discarder="S")
    # 20 + pair of dragons 2 = 22; one suit with honours, all chows: x4 = 88
    assert result.points == 88 and "All chows and a pair" in doubling_names(result)
    nearly = rd("123m456m789m222m55z", win="8m", discarder="S")
    # 20 + 4 + 2 = 26; one suit with honours only: x2 = 52 (schoon spel, so still Mahjong)
    assert nearly.valid and nearly.points == 52 and "All chows and a pair" not in names(nearly)


def test_all_chows_is_for_the_winner_only():
    # Four chows held by a player who did not win: nothing to count, no doubling.
    result = rd("123m456p789s234m5z")
    assert result.points == 0 and doubling_names(result) == []


def test_all_pungs_and_a_pair():
    melds = (("pung", "222m"), ("pung", "333m"), ("pung", "777z"))
    result = rd("666m88m", melds, win="8m", discarder="S")
    # 20 + 2 + 2 + 4 + 666m op stok 4 = 32; dragons, one suit, all pungs: x8 = 256
    assert result.points == 256 and "All pungs and a pair" in doubling_names(result)
    nearly = rd("666m88m", (("pung", "222m"), ("chow", "345m"), ("pung", "777z")),
                win="8m", discarder="S")
    # 20 + 2 + 0 + 4 + 4 = 30; dragons, one suit: x4 = 120
    assert nearly.points == 120


def test_all_simples():
    result = rd("222m333p444s678s55m", win="6s", discarder="S")
    # 20 + 4 + 4 + 4 = 32; three concealed pungs, all simples: x4 = 128
    assert result.points == 128 and "All simples (Pure eenvoud)" in doubling_names(result)
    nearly = rd("222m333p444s789s55m", win="7s", discarder="S")
    # a 9 of bamboo: only three concealed pungs is left, 1 doubling: a false Mahjong
    assert not nearly.valid and nearly.extra["doublings"] == 1
    assert nearly.error.startswith("false Mahjong")


def test_last_tile_self_drawn():
    result = rd(B_CONCEALED, B_MELDS, win="4m", seat="S", self_drawn=True, last_tile=True)
    assert result.points == 240   # 30 x 8
    nearly = rd(B_CONCEALED, B_MELDS, win="4m", seat="S", discarder="W", last_tile=True)
    assert nearly.points == 120   # on a discard: no Maan van de zeebodem vissen


def test_replacement_tile_after_a_kong():
    melds = (("chow", "123m"), ("kong", "9999m"))
    result = rd("456m777z11z", melds, win="4m", seat="S", self_drawn=True, kong_replacement=True)
    # 20 + open kong of terminals 16 + 8 + 2 = 46; dragons, one suit, kong replacement: 46 x 8
    assert result.points == 368
    without = rd("456m777z11z", melds, win="4m", seat="S", self_drawn=True)
    assert without.points == 184  # 46 x 4
    # contradictions are refused with the reason, as riichi and WSOM do (issue 28)
    nearly = rd(B_CONCEALED, B_MELDS, win="4m", seat="S", self_drawn=True, kong_replacement=True)
    assert not nearly.valid and "needs a kong among the melds" in nearly.error
    on_discard = rd("456m777z11z", melds, win="4m", seat="S", discarder="W", kong_replacement=True)
    assert not on_discard.valid and "kong replacement tile is self-drawn" in on_discard.error


def test_robbing_a_kong():
    result = rd(B_CONCEALED, B_MELDS, win="4m", seat="S", discarder="W", robbing_kong=True)
    assert result.points == 240   # 30 x 8
    nearly = rd(B_CONCEALED, B_MELDS, win="4m", seat="S", self_drawn=True, robbing_kong=True)
    assert not nearly.valid and "not a self-drawn win" in nearly.error  # robbed from nobody


def test_verborgen_spel_concealed_and_self_drawn():
    drawn = rd("123m456m789m777z11z", win="4m", seat="S", self_drawn=True)
    # 30 points; dragons, one suit, Verborgen spel x8: 30 x 32 = 960
    assert drawn.points == 960
    assert "Concealed hand, self-drawn (Verborgen spel)" in doubling_names(drawn)
    nearly = rd("123m456m789m777z11z", win="4m", seat="S", discarder="W")
    assert nearly.points == 120   # on a discard: 30 x 4


def test_a_concealed_kong_keeps_the_hand_concealed():
    result = rd("123m456m777z11z", (("kong", "9999m", False),), win="4m", seat="S",
                self_drawn=True)
    # 20 + kong of terminals op stok 32 + 8 + 2 = 62; dragons, one suit, Verborgen spel: x32
    assert result.points == 1984


def test_winning_tile_points_setting():
    result = rd("123m456m789m777z11z", win="4m", seat="S", discarder="W",
                settings=Settings(winning_tile_points=2))
    assert result.points == 128   # (30 + 2) x 4
    assert "Winning tile (Winnende steen)" in names(result)


# -- the minimum to go Mahjong -------------------------------------------------------------

def test_two_doublings_without_schoon_spel_is_mahjong():
    result = rd("123m456p777z666z55m", win="2m", discarder="S")
    assert result.valid and result.points == 144   # 20 + 8 + 8 = 36 x 4


def test_one_doubling_without_schoon_spel_is_a_false_mahjong():
    result = rd("123m456p789s777z55m", win="2m", discarder="S")
    assert not result.valid and result.winning
    assert result.error.startswith("false Mahjong: ")
    assert "1 doubling" in result.error and "schoon spel" in result.error


def test_winner_only_doublings_count_toward_the_minimum():
    result = rd("234m456p678s345s66m", win="3m", discarder="S")
    assert result.valid and result.points == 80   # all chows, all simples: 20 x 4


def test_limit_hands_are_always_allowed():
    result = rd("11m33p55s77m99p11z55z", win="5z", discarder="S")  # no schoon, no doubling
    assert result.valid and result.points == 2000


def test_minimum_is_a_setting():
    result = rd("123m456p777z666z55m", win="2m", discarder="S",
                settings=Settings(min_doublings_to_win=3))
    assert not result.valid and "at least 3 doublings" in result.error


# -- limit hands ---------------------------------------------------------------------------

@pytest.mark.parametrize("concealed, melds, win, name", [
    ("11123456789999m", (), "9m", "Nine gates"),
    ("19m19p19s12345677z", (), "7z", "Thirteen orphans"),
    ("1234556789p1234z", (), "5p", "1-9 of one suit with the four winds"),
    ("123456789s11567z", (), "1z", "1-9 of one suit with the three dragons and a pair of winds"),
    ("123456789m12355z", (), "5z", "1-9 of one suit with three winds and a pair of dragons"),
    ("11223355778899p", (), "9p", "Seven pairs of one suit, or of honours only"),
    ("11223344556677z", (), "7z", "Seven pairs of one suit, or of honours only"),
    ("1133557799m1155z", (), "5z", "Seven pairs of one suit with honours"),
    ("11m33p55s77m99p11z55z", (), "5z", "Seven pairs"),
    ("777z234m11m", (("pung", "555z"), ("pung", "666z")), "3m", "Three pungs of dragons"),
    ("223344666888s66z", (), "2s", "All green"),
    ("444z55m", (("pung", "111z"), ("pung", "222z"), ("pung", "333z")), "5m",
     "Four pungs of winds"),
])
def test_limit_hands(concealed, melds, win, name):
    result = rd(concealed, melds, win=win, discarder="S")
    assert result.valid, result.error
    assert result.points == 2000 and result.extra["limit"] == name
    assert result.breakdown[0].name == f"Limit hand: {name}"


def test_every_limit_hand_is_in_the_table_with_its_value():
    assert len(LIMIT_HANDS) == 11
    assert [row.concealed for row in LIMIT_HANDS] == [True] * 8 + [False] * 3
    assert all(row.value == 1 for row in LIMIT_HANDS)
    assert [float(row.waiting) for row in LIMIT_HANDS] == [0.5] * 8 + [0.0] * 3


@pytest.mark.parametrize("concealed, win", [
    ("29m19p19s12345677z", "7z"),   # thirteen orphans with a 2 for the 1 of characters
    ("1234556789p1235z", "5p"),     # 1-9 with E S W and a white dragon: no N
    ("123456789s12567z", "1z"),     # 1-9, three dragons, two different winds: no pair
    ("123456789m11355z", "5z"),     # 1-9, a pair of dragons, but only two different winds
    ("1111m33p55s77m99p11z", "1z"),  # four alike are not two pairs (setting below)
])
def test_nearly_irregular_limit_hands_are_no_mahjong(concealed, win):
    result = rd(concealed, win=win, discarder="S")
    assert not result.valid and result.error.startswith("false Mahjong")
    assert "do not form four sets and a pair" in result.error


def test_nearly_nine_gates_is_scored_as_a_regular_hand():
    result = rd("11133456789999m", win="3m", discarder="S")
    # 111 33 456 789 999: 20 + 8 + 8 = 36; pure one suit x8 = 288
    assert result.points == 288 and result.extra["limit"] is None


def test_four_alike_in_seven_pairs_is_a_setting():
    hand = make_hand("1111m33p55s77m99p11z", win="1z", discarder="S")
    result = score(hand, Settings(seven_pairs_four_alike=True))
    assert result.points == 2000 and result.extra["limit"] == "Seven pairs"


@pytest.mark.parametrize("concealed, melds, win, points", [
    # two dragon pungs and a pair of the third: 20 + 4 + 4 + 4 + 2 = 34; dragons x2 x2,
    # one suit x2: 34 x 8 = 272
    ("77z234m888m", (("pung", "555z"), ("pung", "666z")), "3m", 272),
    # the white dragon is not green: 20 + 4 + 4 + 2 = 30; one suit with honours: 60
    ("223344666888s55z", (), "2s", 60),
    # three wind pungs and a pair of North: 20 + 12 = 32; East own and prevailing, one suit: 256
    ("44z234m", (("pung", "111z"), ("pung", "222z"), ("pung", "333z")), "3m", 256),
])
def test_nearly_open_limit_hands(concealed, melds, win, points):
    result = rd(concealed, melds, win=win, discarder="S")
    assert result.valid and result.points == points and result.extra["limit"] is None


def test_a_regular_count_above_the_limit_wins_and_the_cap_applies():
    melds = (("kong", "5555z", False), ("kong", "6666z", False), ("kong", "7777z", False))
    result = rd("234m11m", melds, win="3m", discarder="S")
    # 20 + 32 x 3 = 116; dragons x2 x2 x2, three concealed kongs x4, one suit x2:
    # 116 x 64 = 7424, capped at 4000 (more than the limit of three pungs of dragons)
    assert result.points == 4000 and result.extra["base_points"] == 116
    assert result.extra["doublings"] == 6 and result.extra["limit"] is None
    assert result.breakdown[-2].value == "116 points x 64 = 7424, capped at 4000"
    limit_first = score(make_hand("234m11m", melds, win="3m", discarder="S"),
                        Settings(limit_replaces_regular=True))
    assert limit_first.points == 2000 and limit_first.extra["limit"] == "Three pungs of dragons"


def test_limit_and_cap_are_settings():
    result = rd("11m33p55s77m99p11z55z", win="5z", discarder="S", settings=Settings(limit=1000))
    assert result.points == 1000
    capped = rd("123m456m789m777z11z", win="4m", seat="S", self_drawn=True,
                settings=Settings(hand_cap=500))
    assert capped.points == 500   # 960 capped


# -- half the limit for a hand waiting on a concealed limit hand ---------------------------

@pytest.mark.parametrize("concealed, name", [
    ("1112345678999m", "Nine gates"),
    ("19m19p19s1234567z", "Thirteen orphans"),
    ("11m33p55s77m99p11z5z", "Seven pairs"),
    ("123456789p1234z", "1-9 of one suit with the four winds"),
])
def test_waiting_on_a_concealed_limit_hand_scores_half_the_limit(concealed, name):
    result = rd(concealed)
    assert result.valid and not result.winning
    assert result.points == 1000 and result.extra["limit"] == name
    assert result.breakdown[0].value == "1000 points (half the limit)"


def test_waiting_on_an_open_limit_hand_is_scored_normally():
    result = rd("77z234m11m", (("pung", "555z"), ("pung", "666z")))
    # 4 + 4 + pair of red dragons 2 = 10; dragons x2 x2, one suit x2: 80
    assert result.points == 80 and result.extra["limit"] is None


def test_a_meld_stops_the_half_limit():
    result = rd("2345678999m", (("pung", "111m"),))
    # 111m op tafel 4 + 999m op stok 8 = 12; pure one suit x8 = 96
    assert result.points == 96 and result.extra["limit"] is None


# -- the doubling table of seed 002, entry by entry --------------------------------------------

# "Verdubbelingtabel": points, then 1x .. 7x doubled; entries above 4000 read 4000.
DOUBLING_TABLE = """
20	40	80	160	320	640	1280	2560
22	44	88	176	352	704	1408	2816
24	48	96	192	384	768	1536	3072
26	52	104	208	416	832	1664	3328
28	56	112	224	448	896	1792	3584
30	60	120	240	480	960	1920	3840
32	64	128	256	512	1024	2048	4000
34	68	136	272	544	1088	2176	4000
36	72	144	288	576	1152	2304	4000
38	76	152	304	608	1216	2432	4000
40	80	160	320	640	1280	2560	4000
42	84	168	336	672	1344	2688	4000
44	88	176	352	704	1408	2816	4000
46	92	184	368	736	1472	2944	4000
48	96	192	384	768	1536	3072	4000
50	100	200	400	800	1600	3200	4000
52	104	208	416	832	1664	3328	4000
54	108	216	432	864	1728	3456	4000
56	112	224	448	896	1792	3584	4000
58	116	232	464	928	1856	3712	4000
60	120	240	480	960	1920	3840	4000
"""
TABLE_ROWS = [[int(n) for n in line.split("\t")] for line in DOUBLING_TABLE.strip().splitlines()]


def test_the_doubling_table_has_21_rows_of_8():
    assert len(TABLE_ROWS) == 21 and all(len(row) == 8 for row in TABLE_ROWS)


@pytest.mark.parametrize("row", TABLE_ROWS, ids=[str(r[0]) for r in TABLE_ROWS])
def test_doubling_table_row(row):
    points = row[0]
    for doublings, expected in enumerate(row):
        assert apply_doublings(points, doublings, Settings().hand_cap) == expected, (points, doublings)


# -- dead hands and bad input --------------------------------------------------------------

@pytest.mark.parametrize("concealed, count", [("79m13579p2468s4z", 12), ("2227m" + JUNK + "5z", 14)])
def test_a_dead_hand_scores_nothing(concealed, count):
    result = rd(concealed)
    assert result.valid and result.points == 0 and result.extra["dead"] is True
    assert result.breakdown[0].name == "Dead hand (dode hand)"
    assert f"{count} tiles" in result.breakdown[1].value


def test_a_winner_with_the_wrong_count_is_no_mahjong():
    result = rd("123m456m789m777z1z", win="1z", discarder="S")
    assert not result.valid and result.winning
    assert "13 tiles" in result.error and "dead hand" in result.error


@pytest.mark.parametrize("data, words", [
    ({"concealed": "11111m23456789p1s", "win_tile": "1m"}, "appears 5 times"),
    ({"concealed": "12x"}, "unknown suit letter"),
    ({"concealed": "123m456m789m777z1z", "win_tile": "1z"}, "13 tiles"),
    ({"concealed": "123m406m789m0m77z11z", "win_tile": "1z"}, "red fives"),
    ({"concealed": "123m456m789m777z11z", "win_tile": "5z"}, "not among the concealed"),
])
def test_bad_input_is_invalid_with_a_sentence(data, words):
    result = registry.score(data, "rode-draak")
    assert not result.valid
    assert words in result.error and len(result.error.split()) >= 5


def test_tiles_that_form_nothing_are_a_false_mahjong():
    result = rd("1357m2468p13579s5z", win="1m", discarder="S")
    assert not result.valid and result.error.startswith("false Mahjong")


# -- settlement ------------------------------------------------------------------------------

def test_settlement_example_from_the_spec():
    # South wins with 100; East 40, West 20, North 0.
    # South: East pays 2 x 100, West 100, North 100 = +400.
    # East vs West: West pays 2 x 20 = 40; East vs North: North pays 2 x 40 = 80;
    # West vs North: North pays 20.
    payments = settle({"E": 40, "S": 100, "W": 20, "N": 0}, "S")
    assert payments == {"E": -200 + 40 + 80, "S": 400, "W": -100 - 40 + 20, "N": -100 - 80 - 20}
    assert payments == {"E": -80, "S": 400, "W": -120, "N": -200}


def test_an_east_winner_receives_double_from_everyone():
    payments = settle({"E": 100, "S": 40, "W": 20, "N": 0}, "E")
    # E: 3 x 200 = 600; S vs W: 20, S vs N: 40, W vs N: 20 (no East: single)
    assert payments == {"E": 600, "S": -200 + 20 + 40, "W": -200 - 20 + 20, "N": -200 - 40 - 20}


def test_a_draw_pays_nothing():
    assert settle({"E": 40, "S": 100, "W": 20, "N": 0}, None) == {"E": 0, "S": 0, "W": 0, "N": 0}


def test_settle_rejects_a_winner_who_is_not_at_the_table():
    with pytest.raises(ValueError, match="not one of the seats"):
        settle({"E": 1, "S": 2, "W": 3, "N": 4}, "X")


@given(scores=st.fixed_dictionaries({seat: st.integers(0, 4000) for seat in SEATS}),
       winner=st.sampled_from([*SEATS, None]))
def test_settlements_sum_to_zero(scores, winner):
    payments = settle(scores, winner)
    assert sum(payments.values()) == 0
    if winner is None:
        assert set(payments.values()) == {0}
    else:   # the winner only receives: his score from each, doubled with East in it
        assert payments[winner] == sum(scores[winner] * (2 if "E" in (winner, s) else 1)
                                       for s in SEATS if s != winner)


TABLE = {"rules": "rode-draak", "prevalent_wind": "E", "hands": {
    "E": {"concealed": "222p333s56m89p12s4z"},            # 4 + 4 = 8
    "S": {"concealed": "123m456m789m777z11z", "win_tile": "4m", "discarder": "W"},  # 120
    "W": {"concealed": "444p13579s2468m5z"},               # 4
    "N": {"concealed": "1234p678s2468m9s"},                # 12 tiles: dead, 0
}}


def test_settle_table():
    outcome = settle_table(json.loads(json.dumps(TABLE)))
    assert {seat: r["points"] for seat, r in outcome["seats"].items()} == \
        {"E": 8, "S": 120, "W": 4, "N": 0}
    assert outcome["seats"]["N"]["dead"] is True and outcome["winner"] == "S"
    # South: East 2 x 120 + West 120 + North 120 = 480.  East vs West 2 x 4 = 8,
    # East vs North 2 x 8 = 16, West vs North 4.
    assert outcome["payments"] == {"E": -240 + 8 + 16, "S": 480, "W": -120 - 8 + 4,
                                   "N": -120 - 16 - 4}
    assert outcome["seats"]["N"]["settlement"] == {"E": -16, "S": -120, "W": -4}


def test_settle_table_options_reach_the_scorer():
    outcome = settle_table(json.loads(json.dumps(TABLE)), {"winning_tile_points": "2"})
    assert outcome["seats"]["S"]["points"] == 128   # (30 + 2) x 4


def _table_with(**changes):
    table = json.loads(json.dumps(TABLE))
    for seat, hand in changes.items():
        if hand is None:
            del table["hands"][seat]
        else:
            table["hands"][seat] = hand
    return table


@pytest.mark.parametrize("table, words", [
    (_table_with(E={"concealed": "123m456m789m777z22z", "win_tile": "1m"}), "2 winning hands"),
    (_table_with(N=None), "missing seat: North"),
    (_table_with(S={"concealed": "123m567p789s777z55m", "win_tile": "2m"}), "false Mahjong"),
    (_table_with(W={"concealed": "444p13579s2468m5z", "seat_wind": "N"}), "seat_wind"),
    (_table_with(W={"concealed": "2p444p3579s2468m5z"}), "appears 5 times at the table"),
    (_table_with(W={"concealed": "12x"}), "unknown suit letter"),
    ({"rules": "riichi", "hands": {}}, "rode-draak"),
    ([], "JSON object"),
])
def test_tables_that_cannot_be_settled(table, words):
    with pytest.raises(TableError) as caught:
        settle_table(table)
    assert words in str(caught.value)


def test_a_draw_table_pays_nothing():
    table = json.loads(json.dumps(TABLE))
    table["hands"]["S"] = {"concealed": "123m456m789m777z1z"}   # no winning tile: 13 tiles
    outcome = settle_table(table)
    assert outcome["winner"] is None and set(outcome["payments"].values()) == {0}


# -- random hands ------------------------------------------------------------------------------

@hypothesis_settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_winning_hands_score_or_are_false_mahjong(seed):
    hand = random_winning_hand(random.Random(seed), red_rate=0.2)
    result = score(hand)
    if result.valid:
        assert 20 <= result.points <= 4000 and result.winning
        assert sum(result.payments.values()) == 0
    else:
        assert result.error.startswith("false Mahjong")


@hypothesis_settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_losing_hands_are_scored(seed):
    result = score(random_losing_hand(random.Random(seed)))
    assert result.valid and not result.winning and 0 <= result.points <= 4000


# -- the command line ---------------------------------------------------------------------



def test_cli_scores_a_hand_from_stdin():
    hand = {"concealed": "123m456m789m777z11z", "win_tile": "4m", "seat_wind": "S",
            "discarder": "W"}
    out = run_cli("score", "--json", "--rules", "rode-draak", "-", stdin=json.dumps(hand))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["points"] == 120 and result["doublings"] == 2 and result["valid"] is True


def test_cli_false_mahjong_exits_2_with_the_reason():
    hand = {"concealed": "123m456p789s777z55m", "win_tile": "2m"}
    out = run_cli("score", "--json", "--rules", "rode-draak", "-", stdin=json.dumps(hand))
    assert out.returncode == 2 and json.loads(out.stdout)["error"].startswith("false Mahjong")


def test_cli_malformed_json_is_one_line_without_traceback():
    out = run_cli("score", "--rules", "rode-draak", "-", stdin='{"concealed": ')
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert "not valid JSON" in out.stderr


def test_cli_settle(tmp_path):
    path = tmp_path / "table.json"
    path.write_text(json.dumps(TABLE))
    out = run_cli("settle", "--json", str(path))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["payments"] == {"E": -216, "S": 480, "W": -124, "N": -140}


def test_cli_settle_two_winners_is_one_line():
    path_text = json.dumps(_table_with(E={"concealed": "123m456m789m777z22z", "win_tile": "1m"}))
    out = run_cli("settle", "--json", "-", stdin=path_text)
    assert out.returncode == 2 and "2 winning hands" in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
