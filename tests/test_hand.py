import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from mahjong_lens.rules.generate import random_losing_hand, random_winning_hand
from mahjong_lens.rules.hand import HandError, Meld, hand_from_dict, hand_from_json, laid_out, validate_hand

SPEC_HAND = {
    "concealed": "234m406p345678s55z",
    "melds": [{"type": "pung", "tiles": "777z", "open": True},
              {"type": "kong", "tiles": "1111p", "open": False}],
    "win_tile": "8s", "self_drawn": True, "discarder": None,
    "seat_wind": "S", "prevalent_wind": "E", "dora_indicators": ["1m"],
    "ura_dora_indicators": [],
    "situation": {"riichi": True, "double_riichi": False, "ippatsu": False, "last_tile": False,
                  "kong_replacement": False, "robbing_kong": False, "first_turn": False},
}


def test_the_spec_example_reads_and_writes_back_exactly():
    hand = hand_from_dict(SPEC_HAND)
    assert hand.melds[1] == Meld("kong", ("1p",) * 4, open=False)
    assert hand.to_dict() == SPEC_HAND


def test_missing_context_takes_the_defaults():
    hand = hand_from_dict({"concealed": "123456789m12355p", "win_tile": "5p"})
    assert (hand.self_drawn, hand.seat_wind, hand.prevalent_wind, hand.dora_indicators) == (False, "E", "E", ())
    assert not any(hand.situation.to_dict().values())


def _error(data, **kw):
    with pytest.raises(HandError) as info:
        validate_hand(hand_from_dict(data), **kw)
    return info.value


def test_five_of_a_tile_is_impossible():
    error = _error({"concealed": "11111m234p567s77z", "win_tile": "7z"})
    assert error.code == "too_many_copies" and "5 times" in str(error)


def test_a_red_five_counts_as_a_five():
    error = _error({"concealed": "0555m234p567s777z", "melds": [{"type": "chow", "tiles": "345m"}],
                    "win_tile": "7z"})
    assert error.code == "too_many_copies"


def test_two_red_fives_of_one_suit():
    error = _error({"concealed": "00m123p456s789s111z", "win_tile": "1z"})
    assert error.code == "red_fives"


@pytest.mark.parametrize("concealed, winning, count", [
    ("123456789m1235p", True, 13), ("123456789m123555p", True, 15), ("123456789m125p", False, 12),
])
def test_wrong_tile_count(concealed, winning, count):
    data = {"concealed": concealed, "win_tile": "1m" if winning else None}
    error = _error(data)
    assert error.code == "tile_count" and str(error).startswith(f"{count} tiles")


def test_a_kong_adds_one_tile():
    hand = hand_from_dict({"concealed": "123456789m55p", "melds": [{"type": "kong", "tiles": "7777z", "open": False}],
                           "win_tile": "5p"})
    validate_hand(hand)  # 11 + 4 = 15 tiles = 14 + 1 kong
    assert hand.kong_count == 1


@pytest.mark.parametrize("meld, words", [
    ({"type": "chow", "tiles": "124m"}, "not a chow"),
    ({"type": "chow", "tiles": "123z"}, "not a chow"),
    ({"type": "chow", "tiles": "12m3p"}, "not a chow"),
    ({"type": "pung", "tiles": "112m"}, "not a pung"),
    ({"type": "kong", "tiles": "111m"}, "not a kong"),
    ({"type": "pung", "tiles": "111m", "open": False}, "cannot be concealed"),
])
def test_melds_must_really_be_sets(meld, words):
    error = _error({"concealed": "123456789m55p", "melds": [meld], "win_tile": "5p"}, check_count=False)
    assert error.code == "bad_meld" and words in str(error)


def test_the_win_tile_must_be_in_the_concealed_tiles():
    error = _error({"concealed": "123456789m12355p", "win_tile": "9s"})
    assert error.code == "win_tile"


def test_flowers_are_refused_unless_allowed():
    data = {"concealed": "123456789m1235p1f"}
    assert _error(data, check_count=False).code == "bonus_tiles"
    validate_hand(hand_from_dict(data), allow_bonus=True, check_count=False)


@pytest.mark.parametrize("data, words", [
    ([], "JSON object"),
    ({}, "no 'concealed'"),
    ({"concealed": "12x"}, "unknown suit letter"),
    ({"concealed": "123m", "seat_wind": "X"}, "seat_wind must be one of"),
    ({"concealed": "123m", "melds": [{"type": "pong", "tiles": "111m"}]}, "unknown type"),
    ({"concealed": "123m", "situation": {"tenhou": True}}, "unknown situation flag"),
    ({"concealed": "123m", "self_drawn": "yes"}, "true or false"),
    ({"concealed": "123m", "win_tile": 5}, "win_tile"),
])
def test_malformed_hands_are_explained(data, words):
    with pytest.raises(HandError, match=words):
        hand_from_dict(data)


def test_malformed_json_is_explained():
    with pytest.raises(HandError, match="not valid JSON"):
        hand_from_json("{concealed:")


def test_a_self_drawn_win_has_no_discarder():
    error = _error({"concealed": "123456789m12355p", "win_tile": "5p", "self_drawn": True, "discarder": "S"})
    assert error.code == "context"


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_random_legal_hands_round_trip_through_json(seed, winning):
    rng = random.Random(seed)
    hand = random_winning_hand(rng, red_rate=0.3) if winning else random_losing_hand(rng)
    validate_hand(hand)
    again = hand_from_json(json.dumps(hand.to_dict()))
    assert again.to_dict() == hand.to_dict()
    assert sorted(again.all_tiles) == sorted(hand.all_tiles)


def test_a_hand_is_laid_out_in_lists_for_the_page_and_read_back_from_them():
    written = {"concealed": "55z123m0p46p789s5p", "melds": [{"type": "pung", "tiles": "777z"}],
               "win_tile": "5p", "dora_indicators": ["1m"]}
    shown = laid_out(written)
    # in tile order, the winning tile apart (the plain 5 of dots, not the red one)
    assert shown["concealed"] == ["1m", "2m", "3m", "4p", "0p", "6p", "7s", "8s", "9s", "5z", "5z"]
    assert shown["win_tile"] == "5p" and shown["melds"] == [{"type": "pung", "open": True, "tiles": ["7z"] * 3}]
    # the page sends lists back; they read as the notation does
    sent = {"concealed": shown["concealed"] + ["5p"], "melds": [{"tiles": ["7z"] * 3}], "win_tile": "5p",
            "dora_indicators": ["1m"]}
    assert hand_from_dict(sent).to_dict() == hand_from_dict(written).to_dict()
    assert laid_out({"concealed": "12x"}) is None  # unreadable: the page shows what was written
