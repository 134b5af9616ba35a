"""WSOM (Zung Jung) scoring: ../shared/spec/wsom.md.

Every expected value is worked by hand in the comment next to it.  Unless a case says
otherwise the winner sits South (prevailing wind East) and wins on West's discard.
"""
import json
import random

import pytest

from mahjong_lens.cli import main as cli_main
from mahjong_lens.rules.generate import random_winning_hand
from mahjong_lens.rules.hand import hand_from_dict
from mahjong_lens.rules.registry import make_settings, score as registry_score
from mahjong_lens.rules.wsom import PATTERNS, Settings, payments, score


def pung(tiles):
    return {"type": "pung", "tiles": tiles, "open": True}


def kong(tiles, open=True):
    return {"type": "kong", "tiles": tiles, "open": open}


def chow(tiles):
    return {"type": "chow", "tiles": tiles, "open": True}


def h(concealed, win, melds=(), self_drawn=False, discarder="W", seat="S", prevalent="E",
      **flags):
    """A winning hand as the JSON contract writes it."""
    return {"concealed": concealed, "win_tile": win, "melds": list(melds),
            "self_drawn": self_drawn, "discarder": None if self_drawn else discarder,
            "seat_wind": seat, "prevalent_wind": prevalent, "situation": flags}


def wsom(data, **options):
    return registry_score(data, "wsom", options)


def counted(result):
    return {p["number"] for p in result.extra["patterns"]}


# -- every pattern: a hand that has it, and one that just misses it ----------------------------
# (pattern, hand, patterns counted, V)

HAS = [
    ("1.1", h("123m456m789p234s55z", "2s"), {"1.1", "1.2"}, 10),            # 5 + 5
    ("1.2", h("234m567m345p678s11z", "3p"), {"1.1", "1.2"}, 10),            # 5 + 5
    ("1.3", h("234m567m345p678s88p", "3p"), {"1.1", "1.2", "1.3"}, 15),     # 5 + 5 + 5
    ("2.1.1", h("123m345m678m444z99m", "5m"), {"1.2", "2.1.1"}, 45),        # 5 + 40
    ("2.1.2", h("123m345m666m999m77m", "4m"), {"1.2", "2.1.2", "4.2.1"}, 90),  # 5 + 80 + 5
    ("2.2", h("11123455678999m", "5m", self_drawn=True), {"2.2"}, 480),     # limit hand alone
    ("3.1", h("123m456p789s555z77z", "2m"), {"1.2", "3.1"}, 15),            # 5 + 10
    # two dragon pungs (10 each) + Small Three Dragons 40 = 60; open meld, no 1.2
    ("3.2.1", h("666z77z123m456p", "3m", [pung("555z")]), {"3.1", "3.2.1"}, 60),
    # 3 x 10 + 130 + two concealed triplets 5 = 165
    ("3.2.2", h("666z777z234m99s", "3m", [pung("555z")]), {"3.1", "3.2.2", "4.2.1"}, 165),
    # East and West are not South's seat wind: 30 + 5 (concealed) + 5 (111z, 333z concealed)
    ("3.3.1", h("111z333z44z123m456p", "3m"), {"1.2", "3.3.1", "4.2.1"}, 40),
    ("3.3.2", h("444z123m55p", "3m", [pung("111z"), pung("333z")]), {"3.3.2"}, 120),
    # 320 + 10 (South is the seat wind) + Mixed One-Suit 40 + Mixed Lesser Terminals 40
    # = 410, capped at 320
    ("3.3.3", h("333z44z123m", "3m", [pung("111z"), pung("222z")]),
     {"2.1.1", "3.1", "3.3.3", "8.1.1"}, 320),
    ("3.3.4", h("444z55m", "5m", [pung("111z"), pung("222z"), pung("333z")]), {"3.3.4"}, 400),
    # 320 + 3 x 10 + 40 + 30 + 5 + 100 = 525, capped at 320
    ("3.4", h("555z666z77z", "7z", [pung("111z"), pung("222z")]),
     {"3.1", "3.2.1", "3.4", "4.1", "4.2.1", "8.1.3"}, 320),
    ("4.1", h("555p777s888s99m", "9m", [pung("222m")]), {"4.1", "4.2.2"}, 60),  # 30 + 30
    ("4.2.1", h("222m555p123s456s99m", "3s"), {"1.2", "4.2.1"}, 10),        # 5 + 5
    ("4.2.2", h("222m555p888s123s99m", "3s"), {"1.2", "4.2.2"}, 35),        # 5 + 30
    # self-drawn: 5 + 30 + 125 = 160
    ("4.2.3", h("222m555p888s444s99m", "8s", self_drawn=True), {"1.2", "4.1", "4.2.3"}, 160),
    # a concealed kong keeps the hand concealed and is a concealed triplet: 5 + 5 + 5
    ("4.3.1", h("555p123s456s99m", "3s", [kong("2222m", open=False)]),
     {"1.2", "4.2.1", "4.3.1"}, 15),
    ("4.3.2", h("123s456s99m", "3s", [kong("2222m"), kong("5555p")]), {"4.3.2"}, 20),
    ("4.3.3", h("123s99m", "3s", [kong("2222m"), kong("5555p"), kong("8888s")]), {"4.3.3"}, 120),
    ("4.3.4", h("99m", "9m", [kong("2222m"), kong("5555p"), kong("8888s"), kong("4444s")]),
     {"4.3.4"}, 480),
    ("5.1.1", h("123m123m456p789s55z", "4p"), {"1.1", "1.2", "5.1.1"}, 20),  # 5 + 5 + 10
    # also Seven Pairs (30), but the regular reading scores 5 + 5 + 60 = 70
    ("5.1.2", h("123m123m456p456p55z", "4p"), {"1.1", "1.2", "5.1.2"}, 70),
    # 5 + 5 + 120 = 130; read as 111 222 333 the discard 2m makes 222m exposed: 100+5+5 = 110
    ("5.1.3", h("123m123m123m456p55z", "2m"), {"1.1", "1.2", "5.1.3"}, 130),
    ("5.1.4", h("123m123m123m123m55z", "5z"), {"5.1.4"}, 480),
    ("6.1", h("345m345p345s789m11z", "4p"), {"1.1", "1.2", "6.1"}, 45),     # 5 + 5 + 35
    ("6.2.1", h("555m555p55s123m789p", "2m"), {"1.2", "4.2.1", "6.2.1"}, 40),  # 5 + 5 + 30
    ("6.2.2", h("555m555p555s123m99p", "2m"), {"1.2", "4.2.2", "6.2.2"}, 155),  # 5 + 30 + 120
    ("7.1", h("123m456m789m234p11z", "5m"), {"1.1", "1.2", "7.1"}, 50),     # 5 + 5 + 40
    ("7.2.1", h("555p666p123m99s", "2m", [pung("444p")]), {"4.2.1", "7.2.1"}, 105),  # 5 + 100
    # 30 + 5 + 200 = 235
    ("7.2.2", h("555p666p99s", "9s", [pung("333p"), pung("444p")]), {"4.1", "4.2.1", "7.2.2"}, 235),
    ("8.1.1", h("123m789p999s111z55z", "2m"), {"1.2", "4.2.1", "8.1.1"}, 50),  # 5 + 5 + 40
    ("8.1.2", h("123m789p999s111p11s", "2m"), {"1.2", "4.2.1", "8.1.2"}, 60),  # 5 + 5 + 50
    # Red dragon 10 + All Triplets 30 + two concealed 5 + 100 = 145
    ("8.1.3", h("111s777z99m", "9m", [pung("111m"), pung("999p")]),
     {"3.1", "4.1", "4.2.1", "8.1.3"}, 145),
    ("8.1.4", h("111s999s99m", "9m", [pung("111m"), pung("999p")]), {"8.1.4"}, 400),
    ("9.1.1", h("234m567m345p678s88p", "3p", self_drawn=True, last_tile=True),
     {"1.1", "1.2", "1.3", "9.1.1"}, 25),                                     # 15 + 10
    ("9.1.2", h("234m567m345p678s88p", "3p", last_tile=True), {"1.1", "1.2", "1.3", "9.1.2"}, 25),
    # 1.2 5 + 1.3 5 + One Kong 5 + 10 = 25
    ("9.2", h("567m345p678s88p", "3p", [kong("2222m", open=False)], self_drawn=True,
              kong_replacement=True), {"1.2", "1.3", "4.3.1", "9.2"}, 25),
    ("9.3", h("234m567m345p678s88p", "3p", robbing_kong=True), {"1.1", "1.2", "1.3", "9.3"}, 25),
    # 155 + 15 = 170
    ("9.4.1", h("234m567m345p678s88p", "3p", self_drawn=True, seat="E", first_turn=True),
     {"1.1", "1.2", "1.3", "9.4.1"}, 170),
    ("9.4.2", h("234m567m345p678s88p", "3p", discarder="E", first_turn=True),
     {"1.1", "1.2", "1.3", "9.4.2"}, 170),
    ("10.1", h("119m19p19s1234567z", "1m"), {"10.1"}, 160),
    ("10.2", h("1133m2266p4499s55z", "5z"), {"10.2"}, 30),
]

MISSES = [
    ("1.1", h("123m456m999p234s55z", "2s"), {"1.2"}, 5),                    # a pung, not 4 chows
    ("1.2", h("567m345p678s11z", "3p", [chow("234m")]), {"1.1"}, 5),         # one chow called
    ("1.3", h("234m567m345p678s99p", "3p"), {"1.1", "1.2"}, 10),            # a pair of 9s
    ("2.1.1", h("123m345m678m444z99p", "5m"), {"1.2"}, 5),                  # a second suit
    ("2.1.2", h("123m345m666m999m77z", "4m"), {"1.2", "2.1.1", "4.2.1"}, 50),  # 5 + 40 + 5
    # held 1112245678999m, drew 3m: not the nine-way wait: 5 + 80 + 5 (111m, 999m) = 90
    ("2.2", h("11122345678999m", "3m", self_drawn=True), {"1.2", "2.1.2", "4.2.1"}, 90),
    ("3.1", h("123m456p789s111z77z", "2m"), {"1.2"}, 5),                    # prevailing wind
    ("3.2.1", h("666z99s123m456p", "3m", [pung("555z")]), {"3.1"}, 20),     # pair not a dragon
    ("3.2.2", h("666z77z234m555p", "3m", [pung("555z")]), {"3.1", "3.2.1", "4.2.1"}, 65),
    ("3.3.1", h("111z333z55z123m456p", "3m"), {"1.2", "4.2.1"}, 10),        # dragon pair
    ("3.3.2", h("44z123m555p", "3m", [pung("111z"), pung("333z")]), {"3.3.1"}, 30),
    # 10 + 120 + 40 = 170
    ("3.3.3", h("333z99p123m", "3m", [pung("111z"), pung("222z")]), {"3.1", "3.3.2", "8.1.1"}, 170),
    # 320 + 10 + 30 + Mixed One-Suit 40 = 400 capped; 555m completed by the discard is
    # exposed (no concealed triplet pattern)
    ("3.3.4", h("44z555m", "5m", [pung("111z"), pung("222z"), pung("333z")]),
     {"2.1.1", "3.1", "3.3.3", "4.1"}, 320),
    # pair 99m: 3 x 10 + 30 + 5 + 100 + Mixed One-Suit 40 = 205
    ("3.4", h("555z666z99m", "9m", [pung("111z"), pung("222z")]),
     {"2.1.1", "3.1", "4.1", "4.2.1", "8.1.3"}, 205),
    ("4.1", h("555p777s678s99m", "9m", [pung("222m")]), {"4.2.1"}, 5),
    # the discard 2m completes 222m: it counts as exposed (Concealed Hand still counts)
    ("4.2.1", h("222m555p123s456s99m", "2m"), {"1.2"}, 5),
    ("4.2.2", h("222m555p888s123s99m", "8s"), {"1.2", "4.2.1"}, 10),
    ("4.2.3", h("222m555p888s444s99m", "8s"), {"1.2", "4.1", "4.2.2"}, 65),  # 5 + 30 + 30
    ("4.3.1", h("222m555p123s456s99m", "3s"), {"1.2", "4.2.1"}, 10),
    ("4.3.2", h("123s456s99m", "3s", [kong("2222m"), pung("555p")]), {"4.3.1"}, 5),
    ("4.3.3", h("123s99m", "3s", [kong("2222m"), kong("5555p"), pung("888s")]), {"4.3.2"}, 20),
    ("4.3.4", h("99m", "9m", [kong("2222m"), kong("5555p"), kong("8888s"), pung("444s")]),
     {"4.1", "4.3.3"}, 150),                                                  # 30 + 120
    ("5.1.1", h("123m234m456p789s55z", "4p"), {"1.1", "1.2"}, 10),
    ("5.1.2", h("123m123m456p567p55z", "4p"), {"1.1", "1.2", "5.1.1"}, 20),
    ("5.1.3", h("123m123m234m456p55z", "4p"), {"1.1", "1.2", "5.1.1"}, 20),
    # best read as 111 222 333 234m: 100 + 30 + 5 + 40 = 175 (as 123x3 234: 120+5+5+40 = 170)
    ("5.1.4", h("123m123m123m234m55z", "5z"), {"1.2", "2.1.1", "4.2.2", "7.2.1"}, 175),
    ("6.1", h("345m345p456s789m11z", "4p"), {"1.1", "1.2"}, 10),
    ("6.2.1", h("555m555p66s123m789p", "2m"), {"1.2", "4.2.1"}, 10),
    ("6.2.2", h("555m555p666s123m99p", "2m"), {"1.2", "4.2.2"}, 35),
    ("7.1", h("123m456m678m234p11z", "5m"), {"1.1", "1.2"}, 10),
    ("7.2.1", h("555p666p123m99s", "2m", [pung("333p")]), {"4.2.1"}, 5),
    ("7.2.2", h("555p666p99s", "9s", [pung("222p"), pung("444p")]), {"4.1", "4.2.1", "7.2.1"}, 135),
    ("8.1.1", h("234m789p999s111z55z", "2m"), {"1.2", "4.2.1"}, 10),
    ("8.1.2", h("123m789p999s111z11s", "2m"), {"1.2", "4.2.1", "8.1.1"}, 50),  # East: mixed
    ("8.1.3", h("111s777z88m", "8m", [pung("111m"), pung("999p")]), {"3.1", "4.1", "4.2.1"}, 45),
    # East pair: 100 + 30 + 5 = 135
    ("8.1.4", h("111s999s11z", "1z", [pung("111m"), pung("999p")]), {"4.1", "4.2.1", "8.1.3"}, 135),
    # last tile on a discard is Final Discard, not Final Draw
    ("9.1.1", h("234m567m345p678s88p", "3p", last_tile=True), {"1.1", "1.2", "1.3", "9.1.2"}, 25),
    ("9.1.2", h("234m567m345p678s88p", "3p"), {"1.1", "1.2", "1.3"}, 15),
    ("9.2", h("567m345p678s88p", "3p", [kong("2222m", open=False)], self_drawn=True),
     {"1.2", "1.3", "4.3.1"}, 15),
    ("9.3", h("234m567m345p678s88p", "3p"), {"1.1", "1.2", "1.3"}, 15),
    # South self-draws on the first turn: no blessing (only East's is Heaven)
    ("9.4.1", h("234m567m345p678s88p", "3p", self_drawn=True, first_turn=True),
     {"1.1", "1.2", "1.3"}, 15),
    # first-turn win on West's discard: not East's, no blessing
    ("9.4.2", h("234m567m345p678s88p", "3p", first_turn=True), {"1.1", "1.2", "1.3"}, 15),
]

HAS_HAND = {number: data for number, data, _, _ in HAS}


@pytest.mark.parametrize("number, data, expected, value", HAS, ids=[c[0] for c in HAS])
def test_a_hand_with_the_pattern_counts_it(number, data, expected, value):
    result = wsom(data)
    assert result.valid, result.error
    assert number in counted(result)
    assert counted(result) == expected
    assert result.points == value


@pytest.mark.parametrize("number, data, expected, value", MISSES, ids=[c[0] for c in MISSES])
def test_a_hand_that_just_misses_the_pattern_does_not(number, data, expected, value):
    result = wsom(data)
    assert result.valid, result.error
    assert number not in counted(result)
    assert counted(result) == expected
    assert result.points == value


def test_every_pattern_has_a_hit_and_a_miss_case():
    numbers = {p.number for p in PATTERNS}
    assert {c[0] for c in HAS} == numbers
    # 10.1 and 10.2 are missed by a false win: see the false-win tests below
    assert {c[0] for c in MISSES} == numbers - {"10.1", "10.2"}


def test_seat_wind_is_a_value_honour_and_each_set_counts_10():
    # East sits East: East pung 10 + Red dragon pung 10 + Concealed Hand 5
    # + Two Concealed Triplets 5 = 30
    result = wsom(h("111z777z123m456p99s", "2m", seat="E", discarder="W"))
    assert result.points == 30
    honours = [line for line in result.breakdown if line.name.startswith("3.1")]
    assert [(line.name, line.value) for line in honours] == [
        ("3.1 Value Honour: East", "10 points"), ("3.1 Value Honour: Red dragon", "10 points")]


def test_nine_gates_with_the_lenient_setting_needs_only_the_tiles():
    # the 2.2 miss above, with nine_gates_pure off: the 14 tiles hold 1112345678999 + 2m
    result = wsom(h("11122345678999m", "3m", self_drawn=True), nine_gates_pure="false")
    assert result.points == 480 and counted(result) == {"2.2"}


# -- the table reads like the rulebook -------------------------------------------------------

def test_the_table_has_the_44_patterns_in_rulebook_order():
    numbers = [p.number for p in PATTERNS]
    assert len(numbers) == len(set(numbers)) == 44
    as_tuples = [tuple(int(n) for n in number.split(".")) for number in numbers]
    assert as_tuples == sorted(as_tuples)
    assert sum(p.points for p in PATTERNS) == 5125  # the spec's column, added up


def test_supersedes_column_is_the_one_per_series_rule():
    for pattern in PATTERNS:
        lower = {p.number for p in PATTERNS
                 if p.series == pattern.series and p.points < pattern.points}
        assert set(pattern.supersedes) == lower, pattern.number


def test_only_the_highest_of_a_series_counts():
    # four concealed triplets also hold two and three: only 4.2.3 is listed
    result = wsom(h("222m555p888s444s99m", "8s", self_drawn=True))
    assert [line.name for line in result.breakdown] == [
        "1.2 Concealed Hand", "4.1 All Triplets", "4.2.3 Four Concealed Triplets"]


# -- irregular hands ------------------------------------------------------------------------

def test_seven_pairs_counts_terminal_patterns_but_none_that_need_sets():
    # dragon pairs make no Value Honour or Three Dragons, and no Concealed Hand:
    # Seven Pairs 30 + Mixed Greater Terminals 100 = 130
    result = wsom(h("1199m1199p556677z", "7z"))
    assert counted(result) == {"10.2", "8.1.3"} and result.points == 130
    assert result.extra["shape"] == "Seven Pairs"


def test_seven_pairs_counts_the_suit_pattern():
    # 11 22 44 55 77 88 99m has no regular reading: 30 + Pure One-Suit 80 = 110
    result = wsom(h("11224455778899m", "8m"))
    assert counted(result) == {"10.2", "2.1.2"} and result.points == 110


def test_seven_pairs_of_honours_is_all_honours_at_the_limit():
    # 30 + 320 + 100 = 450, capped at 320
    result = wsom(h("11223344556677z", "7z"))
    assert counted(result) == {"3.4", "8.1.3", "10.2"} and result.points == 320


def test_four_alike_as_two_pairs_is_a_setting():
    data = h("1111m4455p7799s55z", "5z")
    assert wsom(data).points == 30  # Seven Pairs alone
    refused = wsom(data, seven_pairs_four_alike="false")
    assert not refused.valid and "not a winning hand" in refused.error


def test_thirteen_terminals_is_not_mixed_greater_terminals_nor_concealed():
    # all its tiles are terminals and honours, yet 160, not 160 + 100 + 5
    result = wsom(h("19m19p19s12345677z", "7z", self_drawn=True))
    assert result.points == 160 and counted(result) == {"10.1"}
    assert result.extra["shape"] == "Thirteen Terminals"


def test_thirteen_terminals_counts_incidental_patterns():
    # East on the deal: 160 + 155 = 315
    result = wsom(h("19m19p19s12345677z", "7z", self_drawn=True, seat="E", first_turn=True))
    assert result.points == 315 and counted(result) == {"9.4.1", "10.1"}


# -- freedom of count ------------------------------------------------------------------------

def test_freedom_of_count_takes_the_triplets_when_they_score_more():
    # 111 222 333m 456p 99s: 7.2.1 100 + three concealed 30 + 1.2 5 = 135
    # 123 123 123m 456p 99s: 5.1.3 120 + 1.1 5 + 1.2 5 = 130
    result = wsom(h("111222333m456p99s", "4p"))
    assert result.points == 135
    assert result.extra["arrangement"] == "111m 222m 333m 456p 99s"


def test_freedom_of_count_takes_the_sequences_when_they_score_more():
    # won on 3m: as triplets 333m is exposed: 100 + 5 + 5 = 110; as sequences 130.
    # Never a mix of both readings (that would be 100 + 120 + ...).
    result = wsom(h("111222333m456p99s", "3m"))
    assert result.points == 130
    assert result.extra["arrangement"] == "123m 123m 123m 456p 99s"
    assert counted(result) == {"1.1", "1.2", "5.1.3"}


def test_the_winning_discard_may_complete_the_sequence_not_the_triplet():
    # 111m 123m ... won on 1m: taken into 123m, 111m stays concealed: 1.2 5 + 4.2.1 5 = 10
    result = wsom(h("111m123m555p789s99s", "1m"))
    assert result.points == 10 and counted(result) == {"1.2", "4.2.1"}


# -- the limit -------------------------------------------------------------------------------

def test_a_sum_above_the_limit_is_capped():
    result = wsom(HAS_HAND["3.3.3"])  # Small Four Winds: 320 + 10 + 40 + 40 = 410
    assert result.points == 320
    assert result.extra["total_before_limit"] == 410 and result.extra["limit"] == "capped"
    assert result.breakdown[-1].name == "Limit" and "410" in result.breakdown[-1].value


def test_a_single_pattern_above_the_limit_scores_alone():
    # Four Kongs 480 (All Triplets 30 is present but not added)
    result = wsom(h("99m", "9m", [kong("2222m"), kong("5555p"), kong("8888s"), kong("4444s")]))
    assert result.points == 480 and result.extra["limit"] == "single"
    assert [line.name for line in result.breakdown] == ["4.3.4 Four Kongs", "Limit"]
    assert {p["number"] for p in result.extra["also_present"]} == {"4.1"}


def test_of_two_patterns_above_the_limit_the_higher_scores():
    # four wind kongs: Big Four Winds 400 and Four Kongs 480 -> 480
    result = wsom(h("55z", "5z", [kong("1111z"), kong("2222z"), kong("3333z"), kong("4444z")]))
    assert result.points == 480 and counted(result) == {"4.3.4"}


def test_the_limit_is_a_setting():
    assert wsom(HAS_HAND["3.3.3"], limit="1000").points == 410  # 320 + 10 + 40 + 40 uncapped


# -- payoff ----------------------------------------------------------------------------------

@pytest.mark.parametrize("value, discarder, payoff, expected", [
    (15, None, "zung-jung", {"E": -15, "S": 45, "W": -15, "N": -15}),       # self-drawn: V each
    (160, None, "zung-jung", {"E": -160, "S": 480, "W": -160, "N": -160}),
    (25, "W", "zung-jung", {"E": -25, "S": 75, "W": -25, "N": -25}),        # V <= 25: V each
    (26, "W", "zung-jung", {"E": -25, "S": 78, "W": -28, "N": -25}),        # 3*26-50 = 28
    (160, "N", "zung-jung", {"E": -25, "S": 480, "W": -25, "N": -430}),     # 3*160-50 = 430
    (160, "N", "uniform", {"E": -160, "S": 480, "W": -160, "N": -160}),
])
def test_payments(value, discarder, payoff, expected):
    assert payments(value, "S", discarder, payoff) == expected


def test_self_drawn_below_25_pays_v_each():
    result = wsom(h("234m567m345p678s88p", "3p", self_drawn=True))  # 5 + 5 + 5 = 15
    assert result.payments == {"E": -15, "S": 45, "W": -15, "N": -15}


def test_self_drawn_above_25_pays_v_each_and_east_is_not_doubled():
    result = wsom(HAS_HAND["4.2.3"])  # Four Concealed Triplets self-drawn, V = 160
    assert result.payments == {"E": -160, "S": 480, "W": -160, "N": -160}


def test_discard_win_of_25_is_shared():
    result = wsom(h("234m567m345p678s88p", "3p", last_tile=True))  # 15 + Final Discard 10
    assert result.points == 25
    assert result.payments == {"E": -25, "S": 75, "W": -25, "N": -25}


def test_discard_win_above_25_falls_on_the_discarder():
    result = wsom(h("44z123m555p", "3m", [pung("111z"), pung("333z")]))  # Small Three Winds 30
    # West pays 3 * 30 - 50 = 40, East and North 25 each; South collects 90
    assert result.payments == {"E": -25, "S": 90, "W": -40, "N": -25}


def test_uniform_payoff_everyone_pays_v():
    result = wsom(h("44z123m555p", "3m", [pung("111z"), pung("333z")]), payoff="uniform")
    assert result.payments == {"E": -30, "S": 90, "W": -30, "N": -30}


def test_east_winner_collects_three_v():
    result = wsom(HAS_HAND["9.4.1"])  # Blessing of Heaven, V = 170
    assert result.payments == {"E": 510, "S": -170, "W": -170, "N": -170}


def test_a_discard_win_without_the_discarder_asks_for_it():
    data = h("234m567m345p678s88p", "3p")
    data["discarder"] = None
    result = wsom(data)
    assert not result.valid and "discarder" in result.error


# -- false wins and bad hands ----------------------------------------------------------------

CHICKEN = h("567m345s678s11z", "3s", [pung("222p")])  # no pattern at all


def test_a_chicken_hand_is_a_false_win():
    result = wsom(CHICKEN)
    assert not result.valid and "chicken" in result.error
    assert result.extra["false_win"] is True


def test_a_chicken_hand_scores_1_when_allowed():
    result = wsom(CHICKEN, allow_chicken_hand="true")
    assert result.valid and result.points == 1
    assert [line.name for line in result.breakdown] == ["Chicken Hand"]
    assert result.payments == {"E": -1, "S": 3, "W": -1, "N": -1}


@pytest.mark.parametrize("concealed, win", [
    ("119m19p19s1234566z", "6z"),   # Thirteen Terminals without the Red dragon
    ("1133m2266p4499s56z", "6z"),  # Seven Pairs less one pair
    ("123m456m789p234s5z6z", "6z"),  # no pair
])
def test_no_winning_shape_is_a_false_win(concealed, win):
    result = wsom(h(concealed, win))
    assert not result.valid and "not a winning hand" in result.error


@pytest.mark.parametrize("data, words", [
    (h("234m567m345p678s88p1f", "3p"), "flowers"),
    ({"concealed": "234m567m345p678s8p"}, "mark its winning tile"),
    (h("567m345p678s88p", "3p", [kong("2222m")], kong_replacement=True), "self-drawn"),
    (h("234m567m345p678s88p", "3p", self_drawn=True, kong_replacement=True), "kong"),
    (h("234m567m345p678s88p", "3p", self_drawn=True, robbing_kong=True), "robbing"),
    (h("567m345p678s88p", "3p", [chow("234m")], first_turn=True), "first-turn"),
])
def test_impossible_hands_are_refused_with_a_reason(data, words):
    result = wsom(data)
    assert not result.valid and words in result.error


def test_robbing_a_kong_on_the_last_tile_is_not_final_discard():
    # 15 + Robbing a Kong 10 = 25 (no Final Discard: the robbed tile was not discarded)
    result = wsom(h("234m567m345p678s88p", "3p", robbing_kong=True, last_tile=True))
    assert result.points == 25 and counted(result) == {"1.1", "1.2", "1.3", "9.3"}


# -- settings, CLI and random hands ----------------------------------------------------------

def test_settings_convert_from_text():
    settings = make_settings("wsom", {"payoff": "uniform", "allow-chicken-hand": "yes",
                                      "limit": "400"})
    assert settings == Settings(allow_chicken_hand=True, payoff="uniform", limit=400)


def test_cli_scores_a_hand(tmp_path, capsys):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(HAS_HAND["4.3.1"]))  # One Kong, concealed: 15
    assert cli_main(["score", "--json", "--rules", "wsom", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["points"] == 15 and out["payments"] == {"E": -15, "S": 45, "W": -15, "N": -15}
    assert out["arrangement"] == "2222m 555p 123s 456s 99m"


def test_cli_reports_a_false_win(tmp_path, capsys):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(CHICKEN))
    assert cli_main(["score", "--json", "--rules", "wsom", str(path)]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is False and "chicken" in out["error"]


def test_random_winning_hands_settle_to_zero():
    rng = random.Random(3)
    scored = 0
    for _ in range(300):
        hand = random_winning_hand(rng, seven_pairs_rate=0.1)
        result = score(hand, Settings(allow_chicken_hand=True))
        assert result.valid, result.error
        scored += 1
        assert sum(result.payments.values()) == 0
        assert result.payments[hand.seat_wind] == 3 * result.points
        assert result.points <= 320 or result.extra["limit"] == "single"
    assert scored == 300


def test_hand_objects_and_dicts_score_alike():
    data = HAS_HAND["2.1.2"]
    assert score(hand_from_dict(data)).to_dict() == wsom(data).to_dict()
