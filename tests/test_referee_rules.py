"""mahjong_lens.rules.referee: the claim against the computed result, in sentences (no web needed)."""
from __future__ import annotations

import pytest

from mahjong_lens.rules.referee import ClaimError, claimed_lines_from, compare_claim
from mahjong_lens.rules.registry import score


def test_a_claim_is_compared_line_by_line():
    computed = score({"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True},
                     "rode-draak").to_dict()
    lines = claimed_lines_from("Mahjong: 20 points\nPung of dragons: x4\nAll honours: x8")
    differences = compare_claim({"points": 100, "breakdown": lines}, computed)
    assert f"Points: claimed 100, computed {computed['points']}" in differences
    assert "Pung of dragons: claimed x4, computed x2" in differences
    assert "All honours (x8): claimed, but it does not apply" in differences
    assert any(d.endswith("not claimed, but it applies") for d in differences)
    assert compare_claim({"points": computed["points"]}, computed) == []


def test_a_claim_written_wrong_is_said():
    with pytest.raises(ClaimError, match="claimed_breakdown must be a list of lines"):
        claimed_lines_from(42)
    assert claimed_lines_from("") is None
