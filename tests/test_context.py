"""mahjong_lens.rules.context: one reading of a hand's context for the page, the API, the camera and the CLI."""
from __future__ import annotations

import re

import pytest

from mahjong_lens.rules.context import ContextError, context_from_fields, unknown_fields


def test_the_pages_radio_buttons_and_checkboxes():
    form = {"seat_wind": "s", "prevalent_wind": "E", "win": "discard", "discarder": "w",
            "riichi": "on", "ippatsu": "", "dora_indicators": "3m7z"}
    assert context_from_fields(form) == {
        "seat_wind": "S", "prevalent_wind": "E", "self_drawn": False, "discarder": "W",
        "situation": {"riichi": True, "ippatsu": False}, "dora_indicators": ["3m", "7z"]}
    # self-drawn: the discarder select still sends a value, which means nothing then
    assert "discarder" not in context_from_fields({"win": "self_drawn", "discarder": "W"})
    assert context_from_fields({"win": "none", "discarder": "W"}) == {"self_drawn": False}


def test_json_and_command_line_shapes_read_the_same():
    as_json = context_from_fields({"self_drawn": True, "situation": {"last_tile": True},
                                   "ura_dora_indicators": ["4p"], "win_tile": "5z"})
    as_args = context_from_fields({"self_drawn": True, "situation": ["last_tile"],
                                   "ura_dora_indicators": "4p", "win_tile": "5z", "seat_wind": None})
    assert as_json == as_args == {"self_drawn": True, "situation": {"last_tile": True},
                                  "win_tile": "5z", "ura_dora_indicators": ["4p"]}


@pytest.mark.parametrize("fields, reason", [
    ({"seat_wind": "X"}, "seat_wind must be one of E, S, W, N (got 'X')"),
    ({"win": "discard", "discarder": "Q"}, "discarder must be one of E, S, W, N"),
    ({"win_tile": "10m"}, "win tile: '10m' is 2 tiles, one was expected"),
    ({"dora_indicators": "3x"}, "dora indicators: unknown suit letter"),
])
def test_a_wrong_field_is_named_with_the_reason(fields, reason):
    with pytest.raises(ContextError, match=re.escape(reason)):
        context_from_fields(fields)


def test_unknown_fields_are_found_not_ignored():
    assert unknown_fields({"seat_wind": "E", "seatwind": "E", "dora_region": [1]}, also=("dora_region",)) == ["seatwind"]
