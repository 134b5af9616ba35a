import random
from collections import Counter

import pytest
from hypothesis import given, settings, strategies as st

from mahjong_lens.rules.decompose import arrangements, hand_waits, is_seven_pairs, is_thirteen_orphans, waits
from mahjong_lens.rules.generate import random_winning_hand
from mahjong_lens.rules.hand import hand_from_dict
from mahjong_lens.rules.tiles import kind, parse_tiles, plain, to_counts


def _hand(concealed, **kw):
    return hand_from_dict({"concealed": concealed, **kw})


def _readings(hand):
    return sorted({tuple(sorted((g.type, g.tile) for g in a.groups)) for a in arrangements(hand)})


def test_every_reading_of_three_identical_chows_or_three_pungs():
    # 111222333m can be three pungs or three identical chows
    readings = _readings(_hand("111222333m44455p", win_tile="4p"))
    assert readings == [
        (("chow", "1m"), ("chow", "1m"), ("chow", "1m"), ("pair", "5p"), ("pung", "4p")),
        (("pair", "5p"), ("pung", "1m"), ("pung", "2m"), ("pung", "3m"), ("pung", "4p")),
    ]


def test_one_arrangement_per_group_the_win_tile_can_complete():
    # 3m completes either the 123m chow or the 345m chow
    found = arrangements(_hand("123345m678p999s11z", win_tile="3m"))
    completed = sorted(a.winning_group.tile for a in found)
    assert completed == ["1m", "3m"]


def test_a_pung_completed_by_a_discard_is_exposed():
    found = arrangements(_hand("123m678p789s555p11z", win_tile="5p", self_drawn=False))
    pung = [g for a in found for g in a.groups if g.type == "pung"]
    assert pung and all(not g.concealed for g in pung)
    drawn = arrangements(_hand("123m678p789s555p11z", win_tile="5p", self_drawn=True))
    assert all(g.concealed for a in drawn for g in a.groups if g.type == "pung")


def test_declared_melds_are_kept_as_laid():
    hand = _hand("123m456p11z", melds=[{"type": "pung", "tiles": "999s"}, {"type": "kong", "tiles": "7777z", "open": False}],
                 win_tile="1z")
    (arrangement,) = arrangements(hand)
    melds = [g for g in arrangement.groups if g.declared]
    assert [(g.type, g.tile, g.concealed) for g in melds] == [("pung", "9s", False), ("kong", "7z", True)]
    assert arrangement.winning_group.type == "pair"


def test_seven_pairs_and_thirteen_orphans():
    assert [a.shape for a in arrangements(_hand("1133557799m1122p", win_tile="1p"))] == ["seven_pairs"]
    # this one is also regular: 112233m + ... reads both ways
    shapes = {a.shape for a in arrangements(_hand("112233m445566p77s", win_tile="7s"))}
    assert shapes == {"regular", "seven_pairs"}
    assert [a.shape for a in arrangements(_hand("19m19p19s12345677z", win_tile="7z"))] == ["thirteen_orphans"]
    assert not is_seven_pairs(to_counts(parse_tiles("1111m223344556p")))  # four alike is not two pairs
    assert is_seven_pairs(to_counts(parse_tiles("1111m22334455p66p")), distinct=False)
    assert not is_thirteen_orphans(to_counts(parse_tiles("19m19p19s1234566z")))


def test_an_incomplete_hand_has_no_arrangement():
    assert arrangements(_hand("123456789m12346p", win_tile="6p")) == []


@pytest.mark.parametrize("tiles, expected", [
    ("1112345678999m", "123456789m"),           # nine gates: all nine
    ("19m19p19s1234567z", "19m19p19s1234567z"),  # thirteen-sided thirteen orphans
    ("123456789m1234p", "14p"),
    ("1122m3344p5566s7z", "7z"),                 # seven pairs, tanki
    ("123m456p789s1112z", "2z"),                 # 1112z: pair of 1z and 2z? -> only 2z (1z would be a 4th)
])
def test_waits(tiles, expected):
    assert "".join(sorted(hand_waits(_hand(tiles)), key=lambda t: kind(t))) == "".join(sorted(parse_tiles(expected), key=kind))


def test_a_tile_held_four_times_is_no_wait():
    # waiting on 4p or 1p (1234p) but all four 1p are already held (one in a meld)
    hand = _hand("1234p", melds=[{"type": "pung", "tiles": "111p"}, {"type": "chow", "tiles": "123m"},
                                 {"type": "chow", "tiles": "456m"}])
    assert hand_waits(hand) == ["4p"]


def test_waits_need_one_tile_short():
    assert waits(to_counts(parse_tiles("123456789m12p"))) == []


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_arrangement_uses_exactly_the_hands_tiles(seed):
    hand = random_winning_hand(random.Random(seed), red_rate=0.3, seven_pairs_rate=0.2)
    found = arrangements(hand)
    assert found, hand
    held = Counter(kind(plain(t)) for t in hand.all_tiles)
    for arrangement in found:
        if arrangement.shape == "thirteen_orphans":
            continue
        used = Counter(k for g in arrangement.groups for k in g.kinds)
        assert used == held
        assert arrangement.winning_group is not None
        assert kind(hand.win_tile) in arrangement.winning_group.kinds
