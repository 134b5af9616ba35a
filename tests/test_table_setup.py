"""Who breaks the wall, the dead wall, the dora indicator, the WSOM seat draw (worked by hand
from the seeds' texts)."""
from __future__ import annotations

import pytest

from mahjong_lens.rules.table_setup import (SetupError, Stack, ari_ari_break, dice_count, rode_draak_break,
                               wsom_seat_draw)


def test_the_dice_count_runs_counter_clockwise_from_the_thrower():
    # WSOM: 5 and 9 the thrower, 2 6 10 his lower seat, 3 7 11 opposite, 4 8 12 upper
    assert [dice_count(n, "E") for n in (5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12)] == list("EESSSWWWNNN")
    assert dice_count(2, "N") == "E" and dice_count(3, "W") == "E"
    with pytest.raises(SetupError, match="2-12"):
        dice_count(13)


def test_ari_ari_twelve_as_the_rulebook_draws_it():
    # East throws 12: North breaks after 12 stacks; dead wall stacks 12..6; dora on stack 10
    wall = ari_ari_break(12)
    assert wall.breaker == "N" and wall.after == Stack("N", 12)
    assert [s.number for s in wall.dead_wall] == [12, 11, 10, 9, 8, 7, 6]
    assert {s.wall for s in wall.dead_wall} == {"N"} and wall.dora_indicator == Stack("N", 10)


def test_the_dead_wall_goes_round_the_corner():
    # 2: South breaks after his 2nd stack; the dead wall runs on at the left end of West's wall
    wall = ari_ari_break(2)
    assert wall.breaker == "S"
    assert wall.dead_wall == (Stack("S", 2), Stack("S", 1), Stack("W", 17), Stack("W", 16),
                              Stack("W", 15), Stack("W", 14), Stack("W", 13))
    assert wall.dora_indicator == Stack("W", 17)


def test_rode_draak_counts_both_throws_along_the_breakers_wall():
    # East throws 6: South; South throws 9: 15 stacks along South's wall
    assert rode_draak_break(6, 9).after == Stack("S", 15)
    # East throws 12 (North), North throws 12: 24 stacks, 7 on into West's wall (North's left)
    assert rode_draak_break(12, 12).after == Stack("W", 7)
    with pytest.raises(SetupError):
        rode_draak_break(6, 1)


def test_wsom_seat_draw():
    # South throws 7 (S W N E S W N): North throws again; 6 from North (N E S W N E) is
    # East, who takes first, from the even end; then South, West, North
    draw = wsom_seat_draw("S", 7, 6)
    assert (draw.second_thrower, draw.first_taker, draw.from_end) == ("N", "E", "even")
    assert draw.taking_order == ("E", "S", "W", "N")
    assert wsom_seat_draw("E", 5, 9).from_end == "odd"


def test_the_wall_and_seats_commands(capsys):
    from mahjong_lens.cli import main
    assert main(["tournament", "wall", "--rules", "riichi", "--dice", "12"]) == 0
    out = capsys.readouterr().out
    assert "North breaks the wall after stack 12" in out and "stack 10" in out
    assert main(["tournament", "wall", "--dice", "6", "9"]) == 0
    assert "count 15 stacks" in capsys.readouterr().out
    assert main(["tournament", "wall", "--dice", "6"]) == 2
    assert "takes 2 throws" in capsys.readouterr().err
    assert main(["tournament", "seats", "--thrower", "S", "--dice", "7", "13"]) == 2
    assert "2-12" in capsys.readouterr().err
