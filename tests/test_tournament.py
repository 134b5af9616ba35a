"""The Rode Draak tournament desk's rules: schedule, slips, payments, standings."""
from __future__ import annotations

from collections import Counter

import pytest

from mahjong_lens.rules.tournament import (Schedule, Slip, TournamentError, check_slip, fewest_second_meetings,
                                           make_schedule, running_totals, slip_from_dict, slip_payments,
                                           next_hand, replayable_remises, slip_transfers, standings)

EIGHT = ["Anna", "Bart", "Cor", "Dirk", "Eva", "Fleur", "Gijs", "Hans"]


def test_a_schedule_seats_everyone_once_a_round_and_is_the_same_for_the_same_seed():
    schedule = make_schedule(EIGHT, 4, seed=7)
    assert len(schedule.rounds) == 4 and schedule.table_count == 2
    for tables in schedule.rounds:
        assert sorted(p for table in tables for p in table) == sorted(EIGHT)
    assert make_schedule(EIGHT, 4, seed=7) == schedule
    assert make_schedule(EIGHT, 4, seed=8) != schedule
    assert Schedule.from_dict(schedule.to_dict()) == schedule


def test_opponents_are_spread_where_the_numbers_allow():
    # 16 players, 3 rounds: nobody need meet twice
    assert make_schedule([f"P{k}" for k in range(16)], 3, seed=1).repeats() == []
    # 8 players: round 2's tables each take two pairs who met in round 1, at the least
    repeats = make_schedule(EIGHT, 2, seed=1).repeats()
    assert len(repeats) == 4 and all(times == 2 for *_, times in repeats)


@pytest.mark.parametrize("players, rounds", [(16, 4), (16, 5), (20, 5), (32, 7)])
def test_nobody_meets_twice_where_a_schedule_without_repeats_exists(players, rounds):
    # 16 players over 5 rounds is the affine plane of order 4: each pair meets exactly once;
    # drawing round by round alone met 4 pairs twice over 4 rounds and 8 over 5
    for seed in (0, 1):
        schedule = make_schedule([f"P{k}" for k in range(players)], rounds, seed=seed)
        assert schedule.repeats() == []
        for tables in schedule.rounds:
            assert sorted(p for table in tables for p in table) == sorted(schedule.players)
    if (players, rounds) == (16, 5):
        assert len(schedule.meetings()) == 16 * 15 // 2  # everyone met everyone, once


def test_where_repeats_cannot_be_avoided_the_schedule_keeps_them_few():
    # 12 players: a table of round 2 draws 4 players from round 1's 3 tables, so two of them
    # met before (3 pairs a round at the least); 28 players over 7 rounds: the round-by-round
    # draw alone met 4-7 pairs twice (seeds 0-4)
    twelve = make_schedule([f"P{k}" for k in range(12)], 3, seed=0)
    assert 6 <= len(twelve.repeats()) <= 9 and all(times == 2 for *_, times in twelve.repeats())
    for seed in (0, 1, 2):
        repeats = make_schedule([f"P{k}" for k in range(28)], 7, seed=seed).repeats()
        assert len(repeats) <= 5 and all(times == 2 for *_, times in repeats)


@pytest.mark.parametrize("players, rounds, fewest", [
    (20, 7, 20),   # each meets 21 opponents, 19 others play: 2 again each, 20 in all
    (8, 2, 4),     # two tables: a later table takes two of each of round 1's, two pairs each
    (12, 3, 6),    # three tables: one pair a table, 3 a round after the first
    (8, 4, 20),    # the count (12 opponents among 7) outweighs the tables (3 x 2 x 2)
    (4, 3, 12),    # one table: all six pairs again every round
    (16, 5, 0),    # every pair once: a schedule without repeats exists (the affine plane)
    (16, 4, 0), (28, 7, 0), (20, 1, 0)])
def test_the_fewest_repeat_meetings_any_schedule_has(players, rounds, fewest):
    assert fewest_second_meetings(players, rounds) == fewest


@pytest.mark.parametrize("players, rounds", [(8, 2), (8, 3), (12, 3), (12, 4), (20, 7), (24, 9)])
def test_no_schedule_has_fewer_repeat_meetings_than_the_bound(players, rounds):
    for seed in (0, 1):
        schedule = make_schedule([f"P{k}" for k in range(players)], rounds, seed=seed)
        assert schedule.second_meetings() >= schedule.fewest_second_meetings() == \
            fewest_second_meetings(players, rounds)
    # where the bound is reached, the organiser is told the schedule cannot be bettered
    eight = make_schedule(EIGHT, 2, seed=1)
    assert eight.second_meetings() == 4 and eight.repeats_in_words() == (
        "4 meetings of players who met before; no schedule of 8 players over 2 rounds has fewer than 4")


def test_repeats_that_a_redraw_may_avoid_are_said_so():
    names = [f"P{k}" for k in range(16)]
    tables = tuple(tuple(names[k:k + 4]) for k in range(0, 16, 4))
    again = Schedule(tuple(names), (tables, tables))  # the same tables twice: 24 pairs again
    assert again.second_meetings() == 24 and again.fewest_second_meetings() == 0
    assert again.repeats_in_words().endswith("a schedule with none may exist: draw again with another seed")
    assert make_schedule(names, 3, seed=1).repeats_in_words() == "no two players meet twice"


def test_starting_winds_are_spread():
    schedule = make_schedule([f"P{k}" for k in range(16)], 4, seed=2)
    most = [Counter(wind for *_, wind in schedule.for_player(p)).most_common(1)[0][1] for p in schedule.players]
    # four rounds: nobody starts with one wind more than twice
    assert max(most) <= 2


def test_numbers_of_players_that_make_no_tables_of_four_are_refused_with_a_reason():
    with pytest.raises(TournamentError, match="10 participants do not make tables of four.*add 2 more"):
        make_schedule([f"P{k}" for k in range(10)], 2)
    with pytest.raises(TournamentError, match="same name: Anna"):
        make_schedule(EIGHT[:7] + ["Anna"], 2)
    with pytest.raises(TournamentError, match="rounds must be 1-20"):
        make_schedule(EIGHT, 0)


def test_the_wind_turns_after_each_hand():
    schedule = Schedule(tuple("ABCDEFGH"), ((("A", "B", "C", "D"), ("E", "F", "G", "H")),))
    assert schedule.seats(1, 1, 1) == {"E": "A", "S": "B", "W": "C", "N": "D"}
    # East becomes North, South becomes East, West South, North West
    assert schedule.seats(1, 1, 2) == {"N": "A", "E": "B", "S": "C", "W": "D"}
    assert schedule.seats(1, 1, 4) == {"S": "A", "W": "B", "N": "C", "E": "D"}


# A fixed schedule, so that every payment below can be worked out by hand.
SCHEDULE = Schedule(tuple("ABCDEFGH"), (
    (("A", "B", "C", "D"), ("E", "F", "G", "H")),
    (("A", "E", "B", "F"), ("C", "G", "D", "H")),
    (("A", "F", "C", "H"), ("B", "E", "D", "G")),
    (("A", "G", "B", "H"), ("C", "E", "D", "F")),
))


def test_payments_of_a_slip_as_the_spec_example():
    # round 1, table 1, hand 2: B East, C South, D West, A North (the spec's example, South
    # wins 100, East 40, West 20, North 0)
    slip = Slip(1, 1, 2, {"B": 40, "C": 100, "D": 20, "A": 0}, mahjong="C")
    assert slip_payments(SCHEDULE, slip) == {"C": 400, "B": -80, "D": -120, "A": -200}
    assert sorted(slip_transfers(SCHEDULE, slip)) == sorted(
        [("B", "C", 200), ("D", "C", 100), ("A", "C", 100), ("D", "B", 40), ("A", "B", 80), ("A", "D", 20)])


def test_a_dead_hand_scores_nothing_and_pays():
    # round 1, table 2, hand 1: E East wins 60; G's hand is dead
    slip = Slip(1, 2, 1, {"E": 60, "F": 30 * 2, "G": 0, "H": 10 * 2}, mahjong="E", dead=("G",))
    # E (East) receives 120 from each; F-G: G pays 60; F-H: H pays 40; H-G: G pays 20
    assert slip_payments(SCHEDULE, slip) == {"E": 360, "F": -120 + 60 + 40, "G": -120 - 60 - 20,
                                             "H": -120 - 40 + 20}


def test_a_whole_tournament_of_eight_players_and_four_rounds():
    """Every hand of every table: a remise and its replay, a dead hand, East winning, the
    standings checked against sums worked out by hand for a few players."""
    slips = []
    for r in range(1, 5):
        for t in (1, 2):
            players = SCHEDULE.table(r, t)
            for hand in range(1, 5):
                seats = SCHEDULE.seats(r, t, hand)
                if (r, t, hand) == (2, 1, 3):
                    slips.append(Slip(r, t, hand, remise=True))  # replayed after the round's hand 4
                    continue
                winner = seats["E"] if hand == 1 else seats["W"]
                points = {p: 20 for p in players} | {winner: 100, seats["N"]: 0}
                slips.append(Slip(r, t, hand, points, mahjong=winner))
            if (r, t) == (2, 1):
                seats = SCHEDULE.seats(r, t, 3)
                slips.append(Slip(r, t, 3, {p: 0 for p in players} | {seats["S"]: 40}, mahjong=seats["S"]))
    for k, slip in enumerate(slips):
        check_slip(SCHEDULE, slip, slips[:k])
    assert len(slips) == 33
    for slip in slips:
        assert sum(slip_payments(SCHEDULE, slip).values()) == 0
    table = standings(SCHEDULE, slips)
    assert sum(s.total for s in table) == 0
    totals = {s.player: s.total for s in table}
    # Hand 1 (winner East 100, N 0, others 20): East +600; S and W each -200 + (20 from N)
    # = -180... worked per hand type:
    #   hand 1: E +600, S -180, W -180, N -200 - 20 - 20 = -240
    #   hands 2-4 (W wins 100; E 20, S 20, N 0): W +400; E -200 + 40 (N pays E double) = -160;
    #   S -100 + 20 = -80; N -100 - 40 - 20 = -160
    #   the replayed hand (S wins 40, rest 0): S +160, E -80, W -40, N -40
    hand_one = {"E": 600, "S": -180, "W": -180, "N": -240}
    later = {"E": -160, "S": -80, "W": 400, "N": -160}
    replay = {"E": -80, "S": 160, "W": -40, "N": -40}
    expected = {p: 0 for p in SCHEDULE.players}
    for r in range(1, 5):
        for t in (1, 2):
            for hand in range(1, 5):
                gains = hand_one if hand == 1 else replay if (r, t, hand) == (2, 1, 3) else later
                for wind, player in SCHEDULE.seats(r, t, hand).items():
                    expected[player] += gains[wind]
    assert totals == expected
    assert [s.rank for s in table] == sorted(s.rank for s in table)
    assert table[0].total == max(expected.values())
    assert sum(s.mahjongs for s in table) == 32 and {s.hands for s in table} == {16, 17}
    # a correction changes everything after it
    corrected = list(slips)
    corrected[0] = Slip(1, 1, 1, {"A": 200, "B": 20, "C": 20, "D": 0}, mahjong="A")
    before, after = running_totals(SCHEDULE, slips), running_totals(SCHEDULE, corrected)
    assert all(b["A"] + 600 == a["A"] for b, a in zip(before, after))


@pytest.mark.parametrize("data, message", [
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 101, "B": 0, "C": 0, "D": 0}, "mahjong": "A"},
     "101 points cannot be a score"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 5000, "B": 0, "C": 0, "D": 0}, "mahjong": "A"},
     "5000 points cannot be a score"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 10, "B": 0, "C": 0, "D": 0}, "mahjong": "A"},
     "Mahjong alone is worth 20"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 40, "B": 40, "C": 0, "D": 0}, "mahjong": ["A", "B"]},
     "two Mahjong makers"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 40, "Zoe": 0, "C": 0, "D": 0}, "mahjong": "A"},
     "Zoe is not a participant"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 40, "E": 0, "C": 0, "D": 0}, "mahjong": "A"},
     "E is not at this table"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 40, "B": 0, "C": 0}, "mahjong": "A"},
     "no points for D"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 40, "B": 0, "C": 0, "D": 0}},
     "who made Mahjong"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 40, "B": 8, "C": 0, "D": 0}, "mahjong": "A",
      "dead": ["B"]}, "a dead hand scores 0"),
    ({"round": 1, "table": 1, "hand": 1, "points": {"A": 40}, "remise": True}, "a remise has no Mahjong"),
    ({"round": 5, "table": 1, "hand": 1, "remise": True}, "there is no round 5"),
    ({"round": 1, "table": 1, "hand": 5, "remise": True}, "a round has hands 1-4"),
    ({"round": "x", "table": 1, "hand": 1}, "round must be a whole number"),
])
def test_bad_slips_are_refused_with_a_reason(data, message):
    with pytest.raises(TournamentError, match=message):
        check_slip(SCHEDULE, slip_from_dict(data))


def test_a_decided_hand_takes_no_second_slip_but_a_remise_is_replayed_once_everyone_was_east():
    first = Slip(1, 1, 1, {"A": 40, "B": 0, "C": 0, "D": 0}, mahjong="A")
    with pytest.raises(TournamentError, match="already has a slip with a Mahjong"):
        check_slip(SCHEDULE, first, [first])
    remise = Slip(1, 1, 1, remise=True)
    # "dan is het remise en draait de wind door": the next hand is the next East's
    assert next_hand(SCHEDULE, [remise]) == (1, 1, 2)
    with pytest.raises(TournamentError, match=r"replayed only once every player has been East \(hands 2, 3, 4"):
        check_slip(SCHEDULE, first, [remise])
    assert replayable_remises([remise], 1, 1) == []
    played = [remise] + [Slip(1, 1, h, {"A": 0, "B": 40, "C": 0, "D": 0}, mahjong="B") for h in (2, 3, 4)]
    assert next_hand(SCHEDULE, played, at=(1, 1)) is None and replayable_remises(played, 1, 1) == [1]
    assert check_slip(SCHEDULE, first, played) == first  # "kan worden overgespeeld"
    assert replayable_remises(played + [first], 1, 1) == []


@pytest.mark.parametrize("points, allowed", [(30, False), (38, False), (40, True)])
def test_a_winner_holds_at_least_forty(points, allowed):
    # the doubling table starts at 20, and a winner needs a schoon spel or 2 doublings
    slip = Slip(1, 1, 1, {"A": points, "B": 0, "C": 0, "D": 0}, mahjong="A")
    if allowed:
        assert check_slip(SCHEDULE, slip) == slip
    else:
        with pytest.raises(TournamentError, match="a winner holds at least 40"):
            check_slip(SCHEDULE, slip)


def test_two_mahjong_makers_are_refused_on_the_command_line(tmp_path, capsys):
    from mahjong_lens.cli import main
    database = str(tmp_path / "desk.db")
    assert main(["tournament", "new", "--name", "t", "--players", ",".join(EIGHT), "--rounds", "1",
                 "--seed", "1", "--database", database]) == 0
    capsys.readouterr()
    from mahjong_lens.webui.tournament_store import TournamentStore
    players = TournamentStore(database).schedule(1).table(1, 1)
    points = ",".join(f"{p}={40 if k < 2 else 0}" for k, p in enumerate(players))
    assert main(["tournament", "slip", "1", "--round", "1", "--table", "1", "--hand", "1", "--points", points,
                 "--mahjong", players[0], "--mahjong", players[1], "--database", database]) == 2
    assert "two Mahjong makers" in capsys.readouterr().err


def test_the_schedule_command_prints_tables_players_and_repeats(capsys, tmp_path):
    from mahjong_lens.cli import main
    assert main(["tournament", "schedule", "--players", ",".join(EIGHT), "--rounds", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("table 1:") == 2 and "Round 2" in out and "4 pairs meet more than once" in out
    assert "no schedule of 8 players over 2 rounds has fewer than 4" in out
    assert main(["tournament", "schedule", "--count", "16", "--rounds", "3", "--by", "player"]) == 0
    out = capsys.readouterr().out
    assert out.count("R3: table") == 16 and "no two players meet twice" in out
    assert main(["tournament", "schedule", "--count", "10", "--rounds", "2"]) == 2
    assert "10 participants do not make tables of four" in capsys.readouterr().err
    names = tmp_path / "names.txt"
    names.write_text("\n".join(EIGHT) + "\n")
    assert main(["tournament", "schedule", "--players-file", str(names), "--rounds", "1", "--json"]) == 0
    import json
    assert json.loads(capsys.readouterr().out)["players"] == EIGHT
