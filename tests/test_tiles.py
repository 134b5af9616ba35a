import re

import pytest
from hypothesis import given, strategies as st

from mahjong_lens.rules.tiles import (
    NotationError, dora_from_indicator, format_tiles, kind, kind_tile, parse_tile, parse_tiles,
    sort_key, tile_name, tile_unicode,
)

ALL_TILES = [f"{n}{s}" for s in "mps" for n in "0123456789"[1:]] + [f"0{s}" for s in "mps"] + \
    [f"{n}z" for n in range(1, 8)] + [f"{n}f" for n in range(1, 9)]


def test_runs_share_a_suit_letter():
    assert parse_tiles("123m456p11z") == ["1m", "2m", "3m", "4p", "5p", "6p", "1z", "1z"]


def test_red_fives_stay_red():
    assert parse_tiles("406p") == ["4p", "0p", "6p"]
    assert kind("0p") == kind("5p") == 13


def test_spaces_between_groups_are_allowed():
    assert parse_tiles(" 123m  55z ") == ["1m", "2m", "3m", "5z", "5z"]


@pytest.mark.parametrize("text, words", [
    ("12x", "unknown suit letter 'x'"),
    ("0z", "0 (red five) exists only in m, p and s"),
    ("", "no tiles given"),
    ("   ", "no tiles given"),
    ("8z", "honours run 1-7"),
    ("9f", "flowers run 1-8"),
    ("123", "without a suit letter"),
    ("m123", "cannot read"),
    ("1M", "without a suit letter"),
])
def test_bad_notation_is_explained(text, words):
    with pytest.raises(NotationError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_tiles(text)


def test_not_text_is_an_error():
    with pytest.raises(NotationError):
        parse_tiles(None)  # type: ignore[arg-type]


def test_parse_tile_wants_exactly_one():
    assert parse_tile("7z") == "7z"
    with pytest.raises(NotationError, match="2 tiles"):
        parse_tile("77z")


def test_format_sorts_and_groups():
    assert format_tiles(["5z", "3m", "1m", "2m", "0p"]) == "123m0p5z"
    assert format_tiles(["4p", "0p", "6p"]) == "406p"


def test_a_one_beside_a_red_five_is_written_and_read_as_the_field_does():
    # tenhou.net, the mahjong package and the hand format alike: every digit is a tile, 0 a red five
    assert parse_tiles("11055m789p555z")[:5] == ["1m", "1m", "0m", "5m", "5m"]
    assert format_tiles(["1p", "0p", "6p"]) == "106p"
    assert parse_tiles(format_tiles(["1p", "0p", "6p"])) == ["1p", "0p", "6p"]
    with pytest.raises(NotationError, match="'10m' is 2 tiles, one was expected"):
        parse_tile("10m")


@given(st.lists(st.sampled_from(ALL_TILES), min_size=1, max_size=18))
def test_notation_round_trips(tiles):
    assert parse_tiles(format_tiles(tiles)) == sorted(tiles, key=sort_key)


def test_kind_indices_follow_the_canonical_class_order():
    assert [kind(t) for t in ("1m", "9m", "1p", "1s", "1z", "7z", "1f", "8f")] == [0, 8, 9, 18, 27, 33, 34, 41]
    assert all(kind(kind_tile(i)) == i for i in range(42))


@pytest.mark.parametrize("indicator, dora", [
    ("6s", "7s"), ("9m", "1m"), ("0p", "6p"), ("1z", "2z"), ("4z", "1z"),
    ("5z", "6z"), ("6z", "7z"), ("7z", "5z"),  # white -> green -> red -> white (Ari Ari 2.7)
])
def test_dora_indicator(indicator, dora):
    assert dora_from_indicator(indicator) == dora


def test_names_and_glyphs():
    assert tile_name("0s") == "Red 5 of bamboo"
    assert tile_name("6z") == "Green dragon"
    assert tile_unicode("1m") == "\U0001F007"
    assert tile_unicode("5z") == "\U0001F006"  # white dragon
    assert tile_unicode("9p") == "\U0001F021"


ALL_FACES = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)] + \
    [f"{n}f" for n in range(1, 9)] + ["0m", "0p", "0s", "back"]


def test_every_face_has_one_name_its_label_shortens_and_the_number_printed_on_it():
    from mahjong_lens.rules.tiles import tile_face, tile_label, vocabulary
    assert tile_name("3s") == "3 of bamboo" and tile_label("3s") == "3 bam"
    assert tile_name("7z") == "Red dragon" and tile_label("7z") == "Red"
    assert tile_name("7f") == "Autumn (3)" and tile_label("7f") == "Autumn 3" and tile_face("7f") == ("3", "Autumn")
    assert tile_name("0p") == "Red 5 of dots" and tile_label("0p") == "red 5 dots"
    words = vocabulary()
    names = {tile_name(t) for t in ALL_FACES}
    assert len(names) == len(ALL_FACES)  # no two faces share a name
    for tile in ALL_FACES:
        face, word = tile_face(tile)
        label = tile_label(tile)
        assert word in label and face in label  # the label is what the tile shows
        assert words["names"][tile] == tile_name(tile) and words["labels"][tile] == label
        assert words["faces"][tile] == [face, word]
        assert not re.search(r"\b\d[mpszf]\b", tile_name(tile) + label)  # never the notation
