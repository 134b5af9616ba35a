"""Who pays whom comes from the rules, once: a single hand's payers pay its one winner; a
Rode Draak table settles the losers among themselves too (rules.rode_draak.transfers)."""
from __future__ import annotations

from mahjong_lens.rules.registry import score
from mahjong_lens.rules.rode_draak import settle_table, transfers

WON = {"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True}


def test_each_loser_pays_the_one_winner_what_the_payments_say():
    for rules in ("rode-draak", "riichi", "wsom"):
        result = score({**WON, "seat_wind": "S"}, rules).to_dict()
        moves = {(t["from"], t["to"]): t["amount"] for t in result["transfers"]}
        assert set(moves) == {(seat, "S") for seat in "EWN"}, rules
        assert all(moves[(seat, "S")] == -result["payments"][seat] for seat in "EWN"), rules


def test_a_discard_win_under_riichi_is_paid_by_the_discarder_alone():
    result = score({**WON, "self_drawn": False, "discarder": "W", "seat_wind": "S"}, "riichi").to_dict()
    assert [(t["from"], t["to"]) for t in result["transfers"]] == [("W", "S")]


def test_no_payments_no_transfers():
    assert "transfers" not in score({"concealed": "123m456p789s55z11z"}, "rode-draak").to_dict()


def test_a_tables_transfers_are_the_rules_settlement_between_all_seats():
    table = {"prevalent_wind": "E", "hands": {
        "E": {"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True},
        "S": {"concealed": "2m3m4m5m6m7m2p2p3s4s6z6z7z"},
        "W": {"concealed": "7m8m9m1p2p3p1s2s3s2z2z4z4z"},
        "N": {"concealed": "4m5m6m7p8p9p4s5s6s3z3z3z9m"}}}
    outcome = settle_table(table)
    scores = {seat: result["points"] for seat, result in outcome["seats"].items()}
    expected = transfers(scores, "E")
    assert [(t["from"], t["to"], t["amount"]) for t in outcome["transfers"]] == expected
    net = {seat: 0 for seat in "ESWN"}
    for t in outcome["transfers"]:
        net[t["from"]] -= t["amount"]
        net[t["to"]] += t["amount"]
    assert net == outcome["payments"]
