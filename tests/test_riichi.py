"""Riichi (Ari Ari) through the PyPI mahjong HandCalculator: known hands, conversion edges,
and a differential test against the library called directly.

Arithmetic in the comments: base points = fu x 2^(2 + han) below mangan; a non-dealer
ron is 4 x base, a dealer ron 6 x base, a tsumo is 2 x base from the dealer (or from
everyone when the dealer wins) and 1 x base from a non-dealer, each rounded up to 100.
Mangan base 2000, haneman 3000, baiman 4000, sanbaiman 6000, yakuman 8000.
"""
import json
import random
import time
from collections import Counter

import pytest
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.meld import Meld as LibMeld
from mahjong.tile import TilesConverter

from commands import run_cli
from mahjong_lens.rules import riichi
from mahjong_lens.rules.generate import random_winning_hand
from mahjong_lens.rules.tiles import plain
from mahjong_lens.rules.hand import Hand, Situation, hand_from_dict
from mahjong_lens.rules.registry import make_settings, score

# -- helpers ---------------------------------------------------------------------------------


def hand(concealed, win, *, melds=(), tsumo=False, discarder=None, seat="S", prevalent="E",
         dora=(), ura=(), **flags):
    """A hand in the JSON contract; a discard win's discarder defaults to North (or East)."""
    if not tsumo and discarder is None:
        discarder = "N" if seat != "N" else "E"
    return {"concealed": concealed, "win_tile": win, "self_drawn": tsumo, "discarder": discarder,
            "melds": [{"type": t, "tiles": tiles, "open": is_open} for t, tiles, is_open in melds],
            "seat_wind": seat, "prevalent_wind": prevalent, "dora_indicators": list(dora),
            "ura_dora_indicators": list(ura), "situation": flags}


def scored(data, **options):
    return score(data, "riichi", options)


def ok(data, **options):
    result = scored(data, **options)
    assert result.valid, result.error
    return result


def yaku_names(result):
    return {y["name"] for y in result.extra["yaku"]}


def assert_zero_sum(result):
    assert set(result.payments) == {"E", "S", "W", "N"}
    assert sum(result.payments.values()) == 0


# Riichi, menzen tsumo and pinfu: 234m 789m 123p 456p 99s, 4p drawn into 56p (waits 4p/7p).
PINFU = "234789m123456p99s"


# -- situation yaku, dealer and non-dealer, ron and tsumo ------------------------------------

def test_riichi_tsumo_pinfu_non_dealer():
    result = ok(hand(PINFU, "4p", tsumo=True, riichi=True))
    # riichi 1 + menzen tsumo 1 + pinfu 1 = 3 han; pinfu tsumo 20 fu; base 20 x 2^5 = 640
    # dealer pays 2 x 640 = 1280 -> 1300, each non-dealer 640 -> 700: 1300 + 700 + 700
    assert (result.extra["han"], result.extra["fu"], result.points) == (3, 20, 2700)
    assert yaku_names(result) == {"Riichi", "Menzen Tsumo", "Pinfu"}
    assert result.payments == {"E": -1300, "S": 2700, "W": -700, "N": -700}
    assert result.extra["limit"] is None and result.extra["dealer"] is False


def test_riichi_tsumo_pinfu_dealer_everyone_pays_the_same():
    result = ok(hand(PINFU, "4p", tsumo=True, seat="E", riichi=True))
    # 3 han 20 fu, dealer tsumo: each pays 2 x 640 = 1280 -> 1300; 3 x 1300 = 3900
    assert result.points == 3900
    assert result.payments == {"E": 3900, "S": -1300, "W": -1300, "N": -1300}


def test_pinfu_ron_is_thirty_fu_and_only_the_discarder_pays():
    result = ok(hand(PINFU, "4p", discarder="W"))
    # pinfu 1 han, concealed ron 30 fu: 30 x 2^3 = 240, x4 = 960 -> 1000
    assert (result.extra["han"], result.extra["fu"], result.points) == (1, 30, 1000)
    assert result.payments == {"E": 0, "S": 1000, "W": -1000, "N": 0}


def test_dealer_ron_with_double_east():
    # dealer in the East round: 111z is seat wind and prevalent wind; 8s is a pair wait
    result = ok(hand("111z234m567p345s88s", "8s", seat="E", prevalent="E", discarder="N"))
    # 1 + 1 = 2 han; fu 30 (concealed ron) + 8 (concealed honour pung) + 2 (pair wait) = 40
    # dealer ron: 40 x 2^4 = 640, x6 = 3840 -> 3900
    assert (result.extra["han"], result.extra["fu"], result.points) == (2, 40, 3900)
    assert yaku_names(result) == {"Yakuhai (seat wind east)", "Yakuhai (round wind east)"}
    assert result.payments == {"E": 3900, "S": 0, "W": 0, "N": -3900}
    assert result.extra["dealer"] is True


def test_double_riichi_and_ippatsu():
    result = ok(hand(PINFU, "4p", tsumo=True, double_riichi=True, ippatsu=True))
    # double riichi 2 + ippatsu 1 + tsumo 1 + pinfu 1 = 5 han: mangan, non-dealer tsumo
    # 2000 x 2 from the dealer, 2000 from each non-dealer
    assert result.extra["han"] == 5 and result.extra["limit"] == "mangan"
    assert {"Double Riichi", "Ippatsu"} <= yaku_names(result) and "Riichi" not in yaku_names(result)
    assert result.payments == {"E": -4000, "S": 8000, "W": -2000, "N": -2000}


def test_last_tile_drawn_is_haitei():
    result = ok(hand(PINFU, "4p", tsumo=True, riichi=True, last_tile=True))
    # riichi + tsumo + pinfu + haitei = 4 han 20 fu: 20 x 2^6 = 1280; 2560 -> 2600 + 1300 x 2
    assert "Haitei Raoyue" in yaku_names(result)
    assert (result.extra["han"], result.points) == (4, 5200)


# open tanyao: chow 234m and pung 666p called, 678s and 22p held; 5s completes 34s (waits 2s/5s)
KUITAN = dict(concealed="345678s22p", melds=[("chow", "234m", True), ("pung", "666p", True)])


def test_last_discard_is_houtei():
    result = ok(hand(KUITAN["concealed"], "5s", melds=KUITAN["melds"], last_tile=True))
    # tanyao 1 + houtei 1 = 2 han; fu 20 (open) + 2 (exposed pung of simples) -> 30
    # 30 x 2^4 = 480, x4 = 1920 -> 2000
    assert yaku_names(result) == {"Tanyao", "Houtei Raoyui"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (2, 30, 2000)


def test_robbing_a_kong_is_chankan():
    result = ok(hand(KUITAN["concealed"], "5s", melds=KUITAN["melds"], robbing_kong=True))
    # tanyao 1 + chankan 1 = 2 han 30 fu -> 2000 (as above)
    assert yaku_names(result) == {"Tanyao", "Chankan"} and result.points == 2000


# an open kong of white dragons beside 234m 567m 678s 99s
DRAGON_KONG = dict(concealed="234567m678s99s", melds=[("kong", "5555z", True)])


def test_kong_replacement_is_rinshan():
    result = ok(hand(DRAGON_KONG["concealed"], "6s", melds=DRAGON_KONG["melds"], tsumo=True,
                     kong_replacement=True))
    # yakuhai white 1 + rinshan 1 = 2 han; fu 20 + 16 (exposed honour kong) + 2 (tsumo) = 38
    # -> 40; base 40 x 2^4 = 640: dealer 1280 -> 1300, others 700: 2700
    assert yaku_names(result) == {"Yakuhai (haku)", "Rinshan Kaihou"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (2, 40, 2700)


def test_first_turn_self_drawn_is_tenhou_for_the_dealer_and_chiihou_otherwise():
    tenhou = ok(hand(PINFU, "4p", tsumo=True, seat="E", first_turn=True))
    # yakuman, dealer tsumo: 2 x 8000 = 16000 from each of three
    assert yaku_names(tenhou) == {"Tenhou"} and tenhou.points == 48000
    assert tenhou.extra["limit"] == "yakuman"
    chiihou = ok(hand(PINFU, "4p", tsumo=True, seat="W", first_turn=True))
    # non-dealer yakuman tsumo: 16000 from the dealer, 8000 from each non-dealer
    assert yaku_names(chiihou) == {"Chiihou"}
    assert chiihou.payments == {"E": -16000, "S": -8000, "W": 32000, "N": -8000}


def test_renhou_only_when_the_setting_says_so():
    data = hand(PINFU, "4p", seat="S", discarder="E", first_turn=True)
    off = ok(data)
    # Ari Ari default renhou off: just pinfu, 1 han 30 fu -> 1000, with a note why
    assert off.points == 1000 and "Renhou" not in yaku_names(off)
    assert any("first_turn" in note for note in off.extra["notes"])
    on = ok(data, renhou=True)
    # renhou 5 + pinfu 1 = 6 han: haneman, 4 x 3000 = 12000
    assert yaku_names(on) == {"Renhou", "Pinfu"} and on.points == 12000
    as_yakuman = ok(data, renhou="true", renhou_yakuman="true")
    assert as_yakuman.points == 32000 and as_yakuman.extra["limit"] == "yakuman"


# -- hand-shape families ---------------------------------------------------------------------

def test_open_tanyao_needs_kuitan():
    data = hand(KUITAN["concealed"], "5s", melds=KUITAN["melds"])
    result = ok(data)
    # tanyao 1 han 30 fu: 30 x 2^3 = 240, x4 = 960 -> 1000
    assert (result.extra["han"], result.extra["fu"], result.points) == (1, 30, 1000)
    no_kuitan = scored(data, kuitan=False)
    assert not no_kuitan.valid and no_kuitan.error.startswith("no yaku")


def test_pinfu_iipeikou():
    result = ok(hand("112233m456p789s55p", "1m", riichi=True))
    # 123m from 23m (waits 1m/4m): riichi 1 + pinfu 1 + iipeikou 1 = 3 han 30 fu
    # 30 x 2^5 = 960, x4 = 3840 -> 3900
    assert yaku_names(result) == {"Riichi", "Pinfu", "Iipeiko"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (3, 30, 3900)


def test_junchan_and_sanshoku():
    result = ok(hand("123m123p123s789m99p", "3s"))
    # junchan 3 + sanshoku 2 = 5 han: mangan 8000 (fu 30 + 2 edge wait -> 40, not needed)
    assert yaku_names(result) == {"Junchan", "Sanshoku Doujun"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (5, 40, 8000)
    assert result.extra["limit"] == "mangan"


def test_chanta():
    # seat South in the South round, so the East pung is no yakuhai; 9s is a pair wait
    result = ok(hand("123m789p789s111z99s", "9s", seat="S", prevalent="S"))
    # chanta 2 han; fu 30 + 8 (concealed honour pung) + 2 (pair wait) = 40
    # 40 x 2^4 = 640, x4 = 2560 -> 2600
    assert yaku_names(result) == {"Chantai"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (2, 40, 2600)


def test_honitsu_ittsu_mangan():
    result = ok(hand("123456789p111z22z", "2z", seat="S", prevalent="S"))
    # honitsu 3 + ittsu 2 = 5 han: mangan, non-dealer ron 8000
    assert yaku_names(result) == {"Honitsu", "Ittsu"} and result.points == 8000


def test_open_chinitsu():
    result = ok(hand("56788899s", "9s", melds=[("pung", "111s", True), ("chow", "234s", True)]))
    # chinitsu open 5 han: mangan 8000; fu 20 + 4 (exposed terminal pung) + 4 (concealed
    # pung of simples) + 2 (pair wait) = 30
    assert yaku_names(result) == {"Chinitsu"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (5, 30, 8000)


def test_toitoi_sanankou_mangan_reached_by_fu():
    result = ok(hand("222m444p666s77s", "7s", melds=[("pung", "999m", True)], tsumo=True))
    # toitoi 2 + sanankou 2 = 4 han; fu 20 + 3 x 4 (concealed pungs of simples)
    # + 4 (exposed terminal pung) + 2 (pair wait) + 2 (tsumo) = 40
    # 40 x 2^6 = 2560 >= 2000: mangan, 4000 + 2000 + 2000
    assert yaku_names(result) == {"Toitoi", "San Ankou"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (4, 40, 8000)
    assert result.extra["limit"] == "mangan"
    assert ("Limit", "mangan (reached by fu)") in [(line.name, line.value) for line in result.breakdown]


def test_shousangen():
    result = ok(hand("555z666z77z234m567p", "4m"))
    # shousangen 2 + white 1 + green 1 = 4 han; fu 30 + 8 + 8 + 2 (dragon pair) = 48 -> 50
    # 50 x 2^6 = 3200 >= 2000: mangan 8000
    assert yaku_names(result) == {"Shou Sangen", "Yakuhai (haku)", "Yakuhai (hatsu)"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (4, 50, 8000)


def test_sankantsu_and_kiriage():
    data = hand("345m88p", "3m", melds=[("kong", "2222m", False), ("kong", "4444p", True),
                                       ("kong", "6666s", True)])
    result = ok(data)
    # sankantsu 2 + tanyao 1 (open) = 3 han; fu 20 + 16 (concealed kong of simples)
    # + 8 + 8 (exposed kongs of simples) = 52 -> 60; 60 x 2^5 = 1920, x4 = 7680 -> 7700
    assert yaku_names(result) == {"San Kantsu", "Tanyao"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (3, 60, 7700)
    # kiriage: 3 han 60 fu rounds up to mangan
    rounded = ok(data, kiriage=True)
    assert rounded.points == 8000 and rounded.extra["limit"] == "mangan"


def test_kiriage_four_han_thirty_fu():
    data = hand("234m456p234678s88p", "2m", riichi=True, dora=["1m"])
    # riichi + pinfu + tanyao + 1 dora (2m) = 4 han 30 fu: 30 x 2^6 = 1920, x4 = 7680 -> 7700
    assert ok(data).points == 7700 and ok(data).extra["limit"] is None
    assert ok(data, kiriage=True).points == 8000


def test_seven_pairs():
    result = ok(hand("11m33m55p77p99s22z66z", "6z", riichi=True))
    # chiitoitsu 2 + riichi 1 = 3 han, always 25 fu: 25 x 2^5 = 800, x4 = 3200
    assert yaku_names(result) == {"Chiitoitsu", "Riichi"}
    assert (result.extra["han"], result.extra["fu"], result.points) == (3, 25, 3200)


def test_seven_pairs_must_be_different_pairs():
    result = scored(hand("1111m33m55p77p99s22z", "2z", riichi=True))
    assert not result.valid and "seven different pairs" in result.error


# -- limits ----------------------------------------------------------------------------------

def test_haneman_with_kan_dora():
    data = hand(DRAGON_KONG["concealed"], "6s", melds=DRAGON_KONG["melds"], dora=["8s"])
    one_indicator = ok(data)
    # white 1 + dora 2 (8s -> 9s pair) = 3 han; fu 20 + 16 -> 36 -> 40
    # 40 x 2^5 = 1280, x4 = 5120 -> 5200
    one = one_indicator
    assert (one.extra["han"], one.extra["fu"], one.points) == (3, 40, 5200)
    with_kan_dora = ok(dict(data, dora_indicators=["8s", "7z"]))
    # the kan dora indicator red dragon points to white: the kong is 4 more dora -> 7 han
    # haneman: 4 x 3000 = 12000
    assert with_kan_dora.extra["dora"] == 6 and with_kan_dora.extra["han"] == 7
    assert with_kan_dora.points == 12000 and with_kan_dora.extra["limit"] == "haneman"


def test_baiman():
    result = ok(hand("123456789234m55m", "5m", riichi=True))
    # riichi 1 + chinitsu 6 + ittsu 2 = 9 han: baiman, 4 x 4000 = 16000
    assert yaku_names(result) == {"Riichi", "Chinitsu", "Ittsu"}
    assert (result.extra["han"], result.points, result.extra["limit"]) == (9, 16000, "baiman")


SANBAIMAN = "112233456789m99m"


def test_sanbaiman_tsumo():
    result = ok(hand(SANBAIMAN, "4m", tsumo=True, riichi=True))
    # riichi 1 + tsumo 1 + pinfu 1 + iipeikou 1 + ittsu 2 + chinitsu 6 = 12 han: sanbaiman
    # non-dealer tsumo: 2 x 6000 from the dealer, 6000 from each non-dealer
    assert result.extra["han"] == 12 and result.extra["limit"] == "sanbaiman"
    assert result.payments == {"E": -12000, "S": 24000, "W": -6000, "N": -6000}


def test_counted_yakuman_and_its_setting():
    data = hand(SANBAIMAN, "4m", tsumo=True, riichi=True, dora=["8m"])
    # 12 han + 3 dora (8m -> 9m: one in 789m, two in the pair) = 15 han: kazoe yakuman,
    # 16000 + 8000 + 8000
    kazoe = ok(data)
    assert (kazoe.extra["han"], kazoe.points, kazoe.extra["limit"]) == (15, 32000, "yakuman")
    lines = [(line.name, line.value) for line in kazoe.breakdown]
    assert ("Limit", "yakuman (counted from 15 han)") in lines
    capped = ok(data, kazoe_yakuman=False)
    # without kazoe yakuman 13+ han stays sanbaiman: 12000 + 6000 + 6000
    assert (capped.points, capped.extra["limit"]) == (24000, "sanbaiman")


def test_yakuman_dealer_and_non_dealer():
    data = hand("555666777z234m11p", "4m")
    # daisangen: non-dealer ron 4 x 8000 = 32000, dealer ron 6 x 8000 = 48000
    assert ok(data).points == 32000 and yaku_names(ok(data)) == {"Daisangen"}
    assert ok(dict(data, seat_wind="E")).points == 48000


def test_several_yakuman_add_up():
    result = ok(hand("666777111z22z", "2z", melds=[("pung", "555z", True)]))
    # daisangen 13 + tsuuiisou 13 = 26 han: double yakuman, 4 x 16000 = 64000
    assert yaku_names(result) == {"Daisangen", "Tsuu Iisou"}
    assert (result.points, result.extra["limit"]) == (64000, "double yakuman")


def test_single_hand_double_yakuman_is_a_setting():
    data = hand("111m333p444s777z99s", "9s")  # four concealed pungs, won on the pair: tanki
    single = ok(data)
    assert yaku_names(single) == {"Suu Ankou Tanki"} and single.points == 32000
    assert ok(data, double_yakuman=True).points == 64000


# -- red fives, dora, ura dora ---------------------------------------------------------------

def test_red_five_in_the_hand_is_a_dora():
    result = ok(hand("234m406p345678s55z", "8s", riichi=True, dora=["1m"]))
    # riichi 1 + dora 1 (1m -> 2m) + red 0p 1 = 3 han; fu 30 + 2 (white pair) = 32 -> 40
    # 40 x 2^5 = 1280, x4 = 5120 -> 5200
    assert (result.extra["han"], result.extra["fu"], result.points) == (3, 40, 5200)
    assert ("Red fives (aka dora)", "1 han") in [(line.name, line.value) for line in result.breakdown]
    assert result.extra["dora"] == 2


def test_red_five_in_a_meld_counts_and_the_setting_turns_it_off():
    data = hand("678345s22m", "3s", melds=[("pung", "505p", True), ("chow", "234m", True)])
    result = ok(data)
    # tanyao 1 + red 0p 1 = 2 han; fu 20 + 2 (exposed pung of simples) -> 30
    # 30 x 2^4 = 480, x4 = 1920 -> 2000
    assert (result.extra["han"], result.extra["fu"], result.points) == (2, 30, 2000)
    plain = ok(data, red_fives=False)
    assert (plain.extra["han"], plain.points) == (1, 1000)  # the 0p is just a 5p


def test_a_plain_five_never_becomes_red():
    # 555p as a concealed pung: with red fives on all three are plain -> no aka dora
    result = ok(hand("555p234345m678s22s", "2s", riichi=True))
    assert result.extra["dora"] == 0 and "Aka Dora" not in [line.name for line in result.breakdown]


def test_four_plain_fives_cannot_be_in_a_set_with_red_fives():
    data = hand("234m678p22s", "2s", melds=[("kong", "5555s", False), ("chow", "678s", True)])
    result = scored(data)
    assert not result.valid and "four plain fives of bamboo" in result.error and "mark the red one" in result.error
    # without red fives the kong is fine: tanyao (open) 1 han; fu 20 + 16 (concealed kong
    # of simples) + 2 (pair wait) = 38 -> 40: 40 x 2^3 = 320, x4 = 1280 -> 1300
    assert ok(data, red_fives=False).points == 1300


def test_ura_dora_count_for_a_riichi_winner():
    result = ok(hand(PINFU, "4p", tsumo=True, riichi=True, ura=["8s"]))
    # riichi + tsumo + pinfu + 2 ura (8s -> 9s pair) = 5 han: mangan 4000 + 2000 + 2000
    assert ("Ura dora", "2 han") in [(line.name, line.value) for line in result.breakdown]
    assert (result.extra["han"], result.points) == (5, 8000)


def test_ura_dora_without_riichi_change_nothing():
    base = hand(KUITAN["concealed"], "5s", melds=KUITAN["melds"])
    with_ura = dict(base, ura_dora_indicators=["1p"])  # 1p -> 2p: would be 2 dora on the pair
    plain_result, ura_result = ok(base), ok(with_ura)
    assert (ura_result.points, ura_result.extra["han"]) == (plain_result.points, 1)
    assert ura_result.payments == plain_result.payments
    assert "Ura dora" not in [line.name for line in ura_result.breakdown]
    assert any("ura dora" in note for note in ura_result.extra["notes"])


# -- kongs ------------------------------------------------------------------------------------

def test_concealed_kong_keeps_the_hand_concealed_and_scores_32_fu():
    result = ok(hand("234567m678s99s", "6s", melds=[("kong", "1111p", False)], riichi=True))
    # riichi 1 han; fu 30 (concealed ron) + 32 (concealed terminal kong) = 62 -> 70
    # 70 x 2^3 = 560, x4 = 2240 -> 2300
    assert (result.extra["han"], result.extra["fu"], result.points) == (1, 70, 2300)
    assert {"reason": "closed_terminal_kan", "name": "Concealed kong of terminals or honours",
            "fu": 32} in result.extra["fu_details"]


def test_open_kong_opens_the_hand():
    result = scored(hand("234567m678s99s", "6s", melds=[("kong", "1111p", True)], riichi=True))
    assert not result.valid and "concealed hand" in result.error


def test_an_added_kong_is_written_as_an_open_kong_and_scores_the_same():
    # Our Meld has no added/called distinction: an added kong (shouminkan) is open: true,
    # and the library scores it exactly as a called kong (16 fu for honours).
    result = ok(hand(DRAGON_KONG["concealed"], "6s", melds=DRAGON_KONG["melds"]))
    # white 1 han; fu 20 + 16 = 36 -> 40: 40 x 2^3 = 320, x4 = 1280 -> 1300
    assert (result.extra["han"], result.extra["fu"], result.points) == (1, 40, 1300)
    assert sorted((d["reason"], d["fu"]) for d in result.extra["fu_details"]) == \
        [("base", 20), ("open_terminal_kan", 16)]


# -- honba and riichi sticks -----------------------------------------------------------------

def test_honba_and_riichi_sticks_on_a_ron():
    data = hand("234m456p234678s88p", "2m", riichi=True, dora=["1m"], discarder="W")
    result = ok(data, honba=2, riichi_sticks=1)
    # 7700 from the discarder + 2 x 300 honba; the winner also takes the 1000 deposit
    assert result.points == 7700  # points stay without honba and sticks
    assert result.payments == {"E": 0, "S": 9300, "W": -8300, "N": 0}
    assert (result.extra["honba"], result.extra["riichi_sticks"]) == (2, 1)


def test_honba_on_a_tsumo_is_100_per_payer():
    result = ok(hand(PINFU, "4p", tsumo=True, riichi=True), honba=1)
    # 1300 / 700 / 700 as before, each + 100
    assert result.payments == {"E": -1400, "S": 3000, "W": -800, "N": -800}
    assert_zero_sum(result)


def test_payments_sum_to_zero_without_sticks():
    for data in (hand(PINFU, "4p", tsumo=True, riichi=True), hand(PINFU, "4p", seat="E")):
        assert_zero_sum(ok(data))


# -- unscoreable hands -----------------------------------------------------------------------

@pytest.mark.parametrize("data, words", [
    (hand(KUITAN["concealed"], "5s", melds=[("chow", "234m", True), ("pung", "999p", True)],
          dora=["8p"]), "no yaku"),
    (hand("123m456p789s11z236s", "6s"), "the hand is not complete"),
    (dict(hand(PINFU, "4p"), discarder=None), "needs the seat of the player who discarded"),
    (hand(PINFU, "4p", ippatsu=True), "ippatsu"),
    (hand(PINFU, "4p", tsumo=True, kong_replacement=True), "needs a kong"),
    (hand(DRAGON_KONG["concealed"], "6s", melds=DRAGON_KONG["melds"], kong_replacement=True),
     "self-drawn"),
    (hand(PINFU, "4p", tsumo=True, robbing_kong=True), "not a self-drawn win"),
    (hand("234567m678s99s", "6s", melds=[("kong", "1111p", False)], tsumo=True, seat="E",
          first_turn=True), "first-turn win"),
    (hand(KUITAN["concealed"], "5s", melds=KUITAN["melds"], riichi=True), "concealed hand"),
    (hand("11111m234p567s88s", "8s"), "appears 5 times"),
    ({"concealed": "123456789m12355p"}, "did not win"),
])
def test_unscoreable_hands_say_why(data, words):
    result = scored(data)
    assert result.valid is False and words in result.error


def test_an_open_hand_with_only_dora_has_no_yaku():
    data = hand("456789s11z", "9s", melds=[("chow", "123m", True), ("pung", "999p", True)],
                dora=["8p"])
    result = scored(data)
    # three dora (8p -> 9p pung) but no yaku: not a win
    assert not result.valid and result.error.startswith("no yaku")
    assert "3 dora" in result.error and "open hand" in result.error


def test_atozuke_off_rejects_a_yaku_only_the_win_tile_brings():
    # 23s waiting on 1s/4s beside called sets of simples: tanyao only if the 4s comes
    data = hand("234s22p", "4s", melds=[("chow", "234m", True), ("chow", "456p", True),
                                       ("pung", "777s", True)])
    # Ari Ari (atozuke ari): tanyao 1 han, fu 20 + 2 -> 30: 1000
    assert ok(data).points == 1000
    result = scored(data, atozuke=False)
    assert not result.valid and "atozuke" in result.error and "the 1 of bamboo" in result.error
    # both waits of 34s (2s, 5s) keep tanyao, so that hand passes with atozuke off
    assert ok(hand(KUITAN["concealed"], "5s", melds=KUITAN["melds"]), atozuke=False).points == 1000


# -- conversion edges ------------------------------------------------------------------------

def _hand(data):
    return hand_from_dict(data)


def test_conversion_gives_red_fives_the_first_index_and_plain_fives_never():
    h = Hand(
        concealed=("0m", "5m", "5m", "5p", "0p", "5p", "0s", "5s", "5s", "1z", "1z", "1z", "2z",
                   "2z"), win_tile="0s", self_drawn=True)
    library = riichi.to_library(h, riichi.ARI_ARI)
    assert len(set(library.tiles)) == 14  # distinct physical tiles
    assert {16, 52, 88} <= set(library.tiles)
    fives = [i for i in library.tiles if i // 4 in (4, 13, 22)]
    assert sorted(i for i in fives if i in (16, 52, 88)) == [16, 52, 88]  # one red per suit
    assert library.win_tile == 88  # the red 5s is the winning tile
    plain_win = riichi.to_library(Hand(concealed=h.concealed, win_tile="5s", self_drawn=True),
                                  riichi.ARI_ARI)
    assert plain_win.win_tile // 4 == 22 and plain_win.win_tile != 88


def test_conversion_of_melds_concealed_and_open_kongs():
    h = _hand(hand("234m22p", "2p", melds=[("kong", "1111p", False), ("kong", "0555s", True),
                                           ("chow", "406m", True)]))
    library = riichi.to_library(h, riichi.ARI_ARI)
    kinds = [(m.type, m.opened, sorted(i // 4 for i in m.tiles)) for m in library.melds]
    assert kinds == [("kan", False, [9] * 4), ("kan", True, [22] * 4), ("chi", True, [3, 4, 5])]
    assert 88 in library.melds[1].tiles and 16 in library.melds[2].tiles  # reds stay red
    assert len(set(library.tiles)) == len(library.tiles) == 16  # 14 + one per kong, distinct
    assert library.win_tile in library.tiles and library.win_tile not in library.melds[0].tiles


def test_conversion_passes_ura_dora_only_for_riichi():
    data = hand(PINFU, "4p", dora=["1m", "7z"], ura=["3p"])
    plain = riichi.to_library(_hand(data), riichi.ARI_ARI)
    assert [i // 4 for i in plain.dora_indicators] == [0, 33] and plain.ura_dora_indicators == []
    with_riichi = riichi.to_library(_hand(dict(data, situation={"riichi": True})), riichi.ARI_ARI)
    assert [i // 4 for i in with_riichi.ura_dora_indicators] == [11]


def test_situation_flags_map_to_the_library():
    def config(**kw):
        data = hand(PINFU, "4p", **kw)
        return riichi.library_config(_hand(data), make_settings("riichi", {"renhou": "true"}))
    last_draw = config(tsumo=True, last_tile=True)
    assert last_draw.is_haitei and not last_draw.is_houtei
    assert config(last_tile=True).is_houtei and not config(last_tile=True).is_haitei
    assert config(tsumo=True, kong_replacement=True).is_rinshan
    assert config(robbing_kong=True).is_chankan
    assert config(tsumo=True, seat="E", first_turn=True).is_tenhou
    assert config(tsumo=True, seat="W", first_turn=True).is_chiihou
    assert config(seat="W", first_turn=True).is_renhou
    assert not config(seat="E", discarder="W", first_turn=True).is_renhou  # the dealer: none
    winds = config(seat="W", prevalent="S")
    assert (winds.player_wind, winds.round_wind, winds.is_dealer) == (29, 28, False)


def test_settings_map_to_optional_rules():
    options = riichi.library_options(riichi.ARI_ARI)
    assert (options.has_open_tanyao, options.has_aka_dora, options.kiriage,
            options.has_double_yakuman, options.kazoe_limit, options.renhou_as_yakuman) == \
        (True, True, False, False, HandConstants.KAZOE_LIMITED, False)
    changed = riichi.library_options(make_settings("riichi", {"kuitan": "false", "kiriage": "true",
                                                              "kazoe_yakuman": "false"}))
    assert (changed.has_open_tanyao, changed.kiriage, changed.kazoe_limit) == \
        (False, True, HandConstants.KAZOE_SANBAIMAN)


def test_ari_ari_defaults():
    assert riichi.ARI_ARI == riichi.Settings(
        red_fives=True, kuitan=True, atozuke=True, kiriage=False, double_yakuman=False,
        kazoe_yakuman=True, renhou=False, renhou_yakuman=False, honba=0, riichi_sticks=0)


# -- the CLI and the JSON shape --------------------------------------------------------------

def test_cli_score_with_an_option(tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand("234m456p234678s88p", "2m", riichi=True, dora=["1m"])))
    out = run_cli("score", "--json", "--rules", "riichi", str(path), "--option", "kiriage=true")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # 4 han 30 fu with kiriage: mangan 8000 from the discarder (North)
    assert (data["points"], data["han"], data["fu"], data["limit"]) == (8000, 4, 30, "mangan")
    assert data["payments"] == {"E": 0, "S": 8000, "W": 0, "N": -8000}
    assert {"name": "Riichi", "han": 1} in data["yaku"]


def test_result_dict_carries_the_contract_fields():
    out = ok(hand(PINFU, "4p", tsumo=True, riichi=True)).to_dict()
    for key in ("rules", "valid", "winning", "points", "breakdown", "payments", "han", "fu",
                "limit", "yaku", "fu_details", "dora", "honba", "riichi_sticks"):
        assert key in out
    assert {"id": "yaku:riichi", "name": "Riichi", "value": "1 han"} in out["breakdown"]
    assert out["breakdown"][-1] == {"id": "points", "name": "Points", "value": "2700"}


# -- differential: our bridge vs the library called directly ---------------------------------

def _direct(h: Hand, options: dict):
    """The library called directly, with a conversion written independently of riichi.py:
    the library's own string notation, '0' for a red five."""
    aka = options["red_fives"]

    def strings(tiles):
        by_suit = {"m": "", "p": "", "s": "", "z": ""}
        for t in tiles:
            by_suit[t[1]] += t[0] if aka else t[0].replace("0", "5")
        return dict(man=by_suit["m"], pin=by_suit["p"], sou=by_suit["s"], honors=by_suit["z"])

    def one(tile):
        return TilesConverter.string_to_136_array(**strings([tile]), has_aka_dora=aka)[0]

    all_tiles = list(h.concealed) + [t for m in h.melds for t in m.tiles]
    tiles = TilesConverter.string_to_136_array(**strings(all_tiles), has_aka_dora=aka)
    win = one(h.win_tile)
    if win not in tiles:  # a second plain copy: any index of that kind the hand holds
        red = (16, 52, 88)
        win = next(i for i in tiles if i // 4 == win // 4 and (i in red) == (win in red))
    kind_of = {"chow": LibMeld.CHI, "pung": LibMeld.PON, "kong": LibMeld.KAN}
    melds = [LibMeld(kind_of[m.type], TilesConverter.string_to_136_array(**strings(m.tiles),
                                                                         has_aka_dora=aka),
                     opened=m.open) for m in h.melds]
    s = h.situation
    winds = {"E": 27, "S": 28, "W": 29, "N": 30}
    config = HandConfig(
        is_tsumo=h.self_drawn, is_riichi=s.riichi, is_daburu_riichi=s.double_riichi,
        is_ippatsu=s.ippatsu, is_haitei=s.last_tile and h.self_drawn,
        is_houtei=s.last_tile and not h.self_drawn, is_rinshan=s.kong_replacement,
        is_chankan=s.robbing_kong,
        is_tenhou=s.first_turn and h.self_drawn and h.seat_wind == "E",
        is_chiihou=s.first_turn and h.self_drawn and h.seat_wind != "E",
        player_wind=winds[h.seat_wind], round_wind=winds[h.prevalent_wind],
        tsumi_number=options["honba"], kyoutaku_number=options["riichi_sticks"],
        options=OptionalRules(has_open_tanyao=True, has_aka_dora=aka,
                              has_double_yakuman=options["double_yakuman"],
                              kiriage=options["kiriage"],
                              kazoe_limit=HandConstants.KAZOE_LIMITED if options["kazoe_yakuman"]
                              else HandConstants.KAZOE_SANBAIMAN))
    indicators = [one(t) for t in h.dora_indicators]
    ura = [one(t) for t in h.ura_dora_indicators]
    return HandCalculator.estimate_hand_value(tiles, win, melds=melds, dora_indicators=indicators,
                                              config=config, ura_dora_indicators=ura)


def _random_situation(rng: random.Random, h: Hand) -> Hand:
    concealed = h.fully_concealed
    riichi_kind = rng.choice(["none", "riichi", "double"]) if concealed else "none"
    riichi_flag = riichi_kind == "riichi"
    double = riichi_kind == "double"
    kong_replacement = h.self_drawn and h.kong_count > 0 and rng.random() < 0.3
    robbing = not h.self_drawn and rng.random() < 0.1
    situation = Situation(
        riichi=riichi_flag, double_riichi=double,
        ippatsu=(riichi_flag or double) and rng.random() < 0.3,
        last_tile=not kong_replacement and not robbing and rng.random() < 0.1,
        kong_replacement=kong_replacement, robbing_kong=robbing,
        first_turn=not h.melds and h.self_drawn and rng.random() < 0.03)
    # ura-dora indicators are wall tiles too: never a fifth copy with the hand and the dora
    held = Counter(plain(t) for t in [*h.all_tiles, *h.dora_indicators])
    ura = []
    for _ in range(len(h.dora_indicators)):
        tile = rng.choice([t for t in ("1m", "5p", "9s", "3z", "6z", "0s", "4m") if held[plain(t)] < 4])
        held[plain(tile)] += 1
        ura.append(tile)
    ura = tuple(ura)
    return Hand(concealed=h.concealed, melds=h.melds, win_tile=h.win_tile,
                self_drawn=h.self_drawn, discarder=h.discarder, seat_wind=h.seat_wind,
                prevalent_wind=h.prevalent_wind, dora_indicators=h.dora_indicators,
                ura_dora_indicators=ura, situation=situation)


def test_differential_against_the_library_called_directly():
    rng = random.Random(20240603)
    started = time.perf_counter()
    outcomes = Counter()
    compared = 0
    while compared < 2000:
        h = _random_situation(rng, random_winning_hand(
            rng, meld_rate=0.3, kong_rate=0.15, red_rate=0.5, honour_rate=0.3,
            seven_pairs_rate=0.08))
        options = {"red_fives": rng.random() < 0.9, "kiriage": rng.random() < 0.3,
                   "double_yakuman": rng.random() < 0.3, "kazoe_yakuman": rng.random() < 0.8,
                   "honba": rng.choice([0, 0, 1, 3]), "riichi_sticks": rng.choice([0, 0, 2])}
        ours = riichi.score(h, riichi.Settings(**options))
        four_plain = any(n == 4 for n in Counter(
            t[1] for t in h.all_tiles if t[0] == "5" and t[1] in "mps").values())
        if options["red_fives"] and four_plain:
            # not a hand of an Ari Ari set; the library's own converter would make a 6 of it
            assert not ours.valid and "four plain fives of" in ours.error
            outcomes["four plain fives"] += 1
            continue
        direct = _direct(h, options)
        compared += 1
        if direct.error:
            assert not ours.valid, (h, direct.error)
            assert direct.error == HandCalculator.ERR_NO_YAKU, (h, direct.error)
            assert ours.error.startswith("no yaku")
            outcomes["no yaku"] += 1
            continue
        assert ours.valid, (h, ours.error)
        cost = direct.cost
        assert (ours.extra["han"], ours.extra["fu"]) == (direct.han, direct.fu), h
        assert ours.points == cost["main"] + 2 * cost["additional"], h
        collected = ours.payments[h.seat_wind]
        assert collected == cost["total"], h  # with honba and sticks
        assert sum(-v for k, v in ours.payments.items() if k != h.seat_wind) == \
            cost["total"] - cost["kyoutaku_bonus"], h
        assert sorted(y["name"] for y in ours.extra["yaku"]) == sorted(
            y.name for y in direct.yaku if y.name not in ("Dora", "Aka Dora", "Ura Dora")), h
        outcomes["scored"] += 1
    elapsed = time.perf_counter() - started
    assert compared >= 1000 and outcomes["scored"] >= 500, outcomes
    assert elapsed < 60, elapsed


def test_a_one_beside_a_red_five_scores_as_the_field_reads_it():
    # 11055m: 1m 1m 0m 5m 5m (tenhou.net's and the mahjong package's notation), not "ten"
    result = score({"concealed": "11055m789p555z", "melds": [{"type": "chow", "tiles": "234s", "open": True}],
                    "win_tile": "1m", "discarder": "N", "seat_wind": "E"}, "riichi").to_dict()
    assert result["valid"], result.get("error")
    assert {"Yakuhai (haku)"} <= {y["name"] for y in result["yaku"]}
    assert any(line["id"] == "yaku:aka-dora" for line in result["breakdown"])  # the 0m is the red five
    assert result["points"] == 3900  # dealer, 2 han (haku, one red five) 40 fu, on a discard
