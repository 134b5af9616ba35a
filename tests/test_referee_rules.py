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
    assert "All honours (x8): claimed, but it does not count" in differences
    assert any(d.endswith("counts, but was not claimed") for d in differences)
    assert not any(d.startswith("Score") for d in differences)  # the total: the points say it
    assert compare_claim({"points": computed["points"]}, computed) == []


def test_a_claim_written_wrong_is_said():
    with pytest.raises(ClaimError, match="claimed_breakdown must be a list of lines"):
        claimed_lines_from(42)
    assert claimed_lines_from("") is None


def test_claimed_lines_are_matched_on_the_line_ids_not_on_the_words_shown():
    computed = score({"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True},
                     "rode-draak").to_dict()
    ids = [line["id"] for line in computed["breakdown"]]
    # ids are made of the rule set's names: they do not follow the sentence shown to players
    assert ids == ["mahjong", "set:pung-of-terminals-or-honours:concealed:5z", "pair:pair-of-own-wind:1z",
                   "pair:pair-of-prevailing-wind:1z", "doubling:pung-of-dragons",
                   "doubling:concealed-hand-self-drawn-verborgen-spel", "score"]
    by_id = [{"id": line["id"], "name": "anything at all", "value": line["value"]}
             for line in computed["breakdown"]]
    assert compare_claim({"points": computed["points"], "breakdown": by_id}, computed) == []
    # a referee may type the id, and a line claimed twice that applies once is said
    typed = claimed_lines_from("doubling:pung-of-dragons: x2\nPung of dragons: x2")
    differences = compare_claim({"points": computed["points"], "breakdown": typed}, computed)
    assert "Pung of dragons (x2): claimed twice, but it counts once" in differences
    assert not any(d.startswith("Pung of dragons") and "not claimed" in d for d in differences)


def test_every_rule_set_gives_each_line_an_id():
    hand = {"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True}
    riichi = [line["id"] for line in score(hand, "riichi").to_dict()["breakdown"]]
    assert riichi[:2] == ["yaku:menzen-tsumo", "yaku:yakuhai-haku"] and "fu:base" in riichi
    wsom = [line["id"] for line in score(hand, "wsom").to_dict()["breakdown"]]
    assert wsom == ["pattern:1.2", "pattern:3.1:5z"]  # the WSOM pattern numbers
    dead = score({"concealed": "123m456p789s5z11z", "win_tile": "1z", "self_drawn": True}, "rode-draak")
    assert all(line.id for line in dead.breakdown)


def test_a_hand_that_cannot_be_scored_never_agrees_with_a_claim():
    computed = score({"concealed": "11111m"}, "rode-draak").to_dict()
    assert not computed["valid"]
    for claim in ({"points": 0}, {"points": 40}, {"points": 0, "breakdown": []}):
        differences = compare_claim(claim, computed)
        assert len(differences) == 1 and differences[0].startswith("The hand cannot be scored: "), claim
