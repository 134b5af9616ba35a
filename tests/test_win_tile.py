"""rules.win_tile: a won hand that lacks only its winning tile, whose winning tile is out of the
photo, or whose kong lies in the row is scored or asked about, never called dead."""
from __future__ import annotations

from mahjong_lens.rules.registry import score
from mahjong_lens.rules.win_tile import ask_kong_in_row, lacks_a_tile, lacks_win_tile, score_or_ask


def test_the_winning_tile_not_marked_asks_with_each_candidate_scored_highest_first():
    hand = {"concealed": "123m456p789s55z111z", "discarder": "S"}
    assert lacks_win_tile(hand) and not lacks_a_tile(hand)
    answer = score_or_ask(hand, "rode-draak")
    assert answer["question"] == "win_tile" and not answer["valid"]
    points = {c["tile"]: c["points"] for c in answer["win_candidates"]}
    for tile, value in points.items():  # each as the rules score it with that winning tile
        assert score({**hand, "win_tile": tile}, "rode-draak").points == value
    assert list(points.values()) == sorted(points.values(), reverse=True) and points["1z"] < points["1m"]
    assert "120 points with 10 of the tiles, 104 with the East" in answer["error"]


def test_where_every_candidate_scores_alike_that_is_the_score():
    answer = score_or_ask({"concealed": "123m456p789s55z111z", "self_drawn": True}, "rode-draak")
    assert answer["valid"] and "so the" in answer["note"] and answer["win_tile_taken"]


def test_a_hand_that_did_not_win_is_scored_as_such():
    answer = score_or_ask({"concealed": "123m456p789s55z11z"}, "rode-draak")
    assert answer["valid"] and not answer["winning"] and "question" not in answer


def test_a_winning_tile_out_of_view_is_asked_among_the_waits():
    hand = {"concealed": "123m456p789s55z11z", "self_drawn": True}
    assert lacks_a_tile(hand)
    answer = score_or_ask(hand, "rode-draak")
    assert answer["question"] == "missing_win_tile"
    assert [c["tile"] for c in answer["win_candidates"]] == ["1z", "5z"]  # a pung of either
    assert "the East (960 points) or the White dragon (512)" in answer["error"]
    # no single tile completes it: not which tile, but whether it won at all
    assert score_or_ask({"concealed": "123m456p789s55z12z", "self_drawn": True}, "rode-draak")["question"] == "not_won"


def test_four_alike_in_the_row_are_offered_as_a_concealed_or_an_open_kong():
    hand = {"concealed": "8888m456p789s55z111z", "self_drawn": True}
    answer = score_or_ask(hand, "rode-draak")
    assert answer["question"] == "kong_in_row"
    kongs = {(c["tile"], c["open"]): c["points"] for c in answer["kong_candidates"]}
    concealed = score({"concealed": "456p789s55z111z", "melds": [{"type": "kong", "tiles": "8888m", "open": False}],
                       "win_tile": "5z", "self_drawn": True}, "rode-draak").points
    assert kongs[("8m", False)] == concealed and kongs[("8m", True)] < concealed
    # a winning tile set apart that is the fourth of the kong: the kong, and the winning tile asked
    marked = ask_kong_in_row({**hand, "win_tile": "8m"}, "rode-draak")
    assert {c["then"] for c in marked["kong_candidates"]} <= {None, "win_tile"}
    assert {(c["tile"], c["open"]) for c in marked["kong_candidates"]} == {("8m", False), ("8m", True)}


def test_a_won_hand_with_the_wrong_tile_count_says_so_instead_of_calling_it_dead():
    too_many = score_or_ask({"concealed": "1m2m3m4p5p6p7s8s9s5z5z1z1z1z9p", "self_drawn": True}, "rode-draak")
    assert not too_many["valid"] and "15 tiles, but a winning hand with no kongs has 14" in too_many["error"]
    assert "dead" not in too_many["error"]
    # the same tiles with "did not win": Rode Draak scores it, a dead hand
    assert score_or_ask({"concealed": "1m2m3m4p5p6p7s8s9s5z5z1z1z1z9p"}, "rode-draak")["dead"]


def test_how_a_hand_was_won_is_asked_where_the_rules_need_it_and_it_changes_the_score():
    from mahjong_lens.rules.win_tile import ask_win_way
    hand = {"concealed": "123m456p789s55z111z", "win_tile": "1z", "seat_wind": "S"}
    riichi = ask_win_way(hand, "riichi")
    assert riichi["question"] == "win_way"
    ways = {c["way"]: c for c in riichi["way_candidates"]}
    assert ways["self_drawn"]["points"] == score({**hand, "self_drawn": True}, "riichi").points
    assert ways["discard"]["discarder"] == "E"  # East plays before South
    assert ways["discard"]["points"] == score({**hand, "discarder": "E"}, "riichi").points
    # Rode Draak: on a discard this hand is a false Mahjong (one doubling): asked, not guessed
    no_win = ask_win_way({**hand, "concealed": "123m456p789s55z111z"}, "rode-draak")
    assert no_win["question"] == "win_way" and "no win on a discard" in no_win["error"]
    assert [c["points"] for c in no_win["way_candidates"]] == [score({**hand, "self_drawn": True}, "rode-draak").points,
                                                               None]
    # neither the winning tile nor how it was won: each way asks which tile, the best said
    both = ask_win_way({"concealed": "123m456p789s55z111z", "seat_wind": "S"}, "riichi")
    assert both["question"] == "win_way" and "up to" in both["error"]
    # self-drawn, every tile scores alike; on a discard the score depends on the tile, asked next
    assert [c["then"] for c in both["way_candidates"]] == [None, "win_tile"]



def test_the_score_command_asks_as_the_page_does(tmp_path, capsys):
    import json

    from mahjong_lens.cli import main
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps({"concealed": "123m456p789s555z1z", "self_drawn": True}))
    assert main(["score", "--json", str(hand)]) == 3  # no score yet: a question, its own exit code
    answer = json.loads(capsys.readouterr().out)
    assert answer["question"] == "missing_win_tile" and answer["win_candidates"][0]["tile"] == "1z"
    assert main(["score", str(hand), "--option", "limit=-5"]) == 2
    assert "runs from 20" in capsys.readouterr().err


def test_tiles_no_tile_makes_a_win_ask_whether_the_hand_won_where_every_hand_is_scored():
    hand = {"concealed": "147m258p369s1255z", "self_drawn": True}  # 13 tiles, waiting on nothing
    answer = score_or_ask(hand, "rode-draak")
    assert answer["question"] == "not_won" and "did the hand not win?" in answer["error"]
    lost = score({"concealed": "147m258p369s1255z"}, "rode-draak")
    assert answer["way_candidates"] == [{"way": "none", "points": lost.points}] and lost.points == 2
    # riichi scores only a win: no such question, the count is said
    riichi = score_or_ask(hand, "riichi")
    assert "question" not in riichi and "13 tiles, but a winning hand" in riichi["error"]
    # twelve tiles are a dead hand as a loser too: a tile is more likely missed, and said so
    short = score_or_ask({"concealed": "147m258p369s255z", "self_drawn": True}, "rode-draak")
    assert "question" not in short and "a tile may be missing" in short["error"]


# four plain 5p (345p and a pung of 5p): riichi plays one red five a suit (Ari Ari, red_fives)
FOUR_PLAIN_FIVES = {"concealed": "123m456m345p555p99s", "self_drawn": True, "seat_wind": "E"}


def test_four_plain_fives_under_red_fives_ask_whether_one_is_red_or_the_set_has_none():
    answer = score_or_ask(FOUR_PLAIN_FIVES, "riichi")
    assert answer["question"] == "red_five" and not answer["valid"]
    assert answer["error"].startswith("four plain fives of dots: with red fives each suit has one red five")
    red, none = answer["red_candidates"]
    assert (red["answer"], red["tile"], none["answer"], none["tile"]) == ("red", "0p", "no_red_fives", None)
    # each answer scored as the hand so changed scores: one 5p read red, or red fives off
    as_red = score_or_ask(dict(FOUR_PLAIN_FIVES, concealed="123m456m345p055p99s"), "riichi")
    without = score_or_ask(FOUR_PLAIN_FIVES, "riichi", {"red_fives": False})
    assert red["points"] == as_red["points"] and none["points"] == without["points"]
    assert red["points"] > none["points"]  # the red five is a dora more
    # where the rules play no red fives, or a red one is there, nothing is asked
    assert "question" not in without and "question" not in as_red
    assert "question" not in score_or_ask(FOUR_PLAIN_FIVES, "wsom")


def test_no_red_five_question_for_a_hand_that_wins_neither_way():
    # four plain 5p in a hand that is no win with or without a red one: the scorer's reason stands
    answer = score_or_ask({"concealed": "147m258m5555p1357z", "self_drawn": True}, "riichi")
    assert answer.get("question") != "red_five" and not answer["valid"]


def test_the_five_read_red_keeps_the_winning_tile_where_it_can():
    from mahjong_lens.rules.hand import hand_from_dict
    from mahjong_lens.rules.win_tile import _with_one_red
    chows = [{"type": "chow", "tiles": "345p"}, {"type": "chow", "tiles": "456p"}]
    # four 5p: two concealed, one of them the winning tile: the other is read red
    two = _with_one_red(hand_from_dict({"concealed": "123m789s99s55p", "melds": chows, "win_tile": "5p",
                                        "discarder": "S"}), "p")
    assert list(two.concealed).count("0p") == 1 and two.win_tile == "5p"
    # the winning 5p the only concealed one: a five of a meld is read red
    one = _with_one_red(hand_from_dict({"concealed": "123m789s99s5p", "melds": chows + [
        {"type": "chow", "tiles": "567p"}], "win_tile": "5p", "discarder": "S"}), "p")
    assert one.melds[0].tiles == ("3p", "4p", "0p") and one.win_tile == "5p" and "0p" not in one.concealed
    # no other five in the hand: the winning tile itself is the red one
    alone = _with_one_red(hand_from_dict({"concealed": "123m456m34p5p99s111z", "win_tile": "5p",
                                          "discarder": "S"}), "p")
    assert alone.win_tile == "0p" and "0p" in alone.concealed


def test_the_same_score_either_way_is_no_question_and_says_who_pays_on_a_discard():
    from mahjong_lens.rules.win_tile import ask_win_way
    hand = {"concealed": "23455p333444666z", "win_tile": "2p", "seat_wind": "W", "prevalent_wind": "W"}
    drawn = score({**hand, "self_drawn": True}, "wsom")
    discard = score({**hand, "discarder": "S"}, "wsom")  # South plays before West
    assert drawn.points == discard.points and drawn.payments != discard.payments
    answer = ask_win_way(hand, "wsom")
    assert "question" not in answer and answer["valid"] and answer["points"] == drawn.points
    assert answer["discard_payments"] == discard.payments
    assert f"{drawn.points} points self-drawn or on a discard" in answer["note"] and "from South" in answer["note"]
