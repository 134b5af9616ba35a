"""The tournament desk's SQLite records: slips survive a restart, concurrent referees lose
none, a correction changes the standings, CSV export."""
from __future__ import annotations

import csv
import io
import threading

import pytest

from mahjong_lens.rules.tournament import TournamentError
from mahjong_lens.webui.tournament_store import TournamentStore

EIGHT = ["Anna", "Bart", "Cor", "Dirk", "Eva", "Fleur", "Gijs", "=Hans"]


def _slip(store, tournament, r, t, hand, winner_wind="E", points=100):
    seats = store.schedule(tournament).seats(r, t, hand)
    return {"round": r, "table": t, "hand": hand, "mahjong": seats[winner_wind],
            "points": {p: 0 for p in seats.values()} | {seats[winner_wind]: points}}


def test_slips_survive_a_restart_and_standings_follow_a_correction(tmp_path):
    path = str(tmp_path / "desk.db")
    store = TournamentStore(path)
    tid = store.create("Rode Draak 2026", EIGHT, 2, seed=5)
    first = store.add_slip(tid, _slip(store, tid, 1, 1, 1))
    store.add_slip(tid, _slip(store, tid, 1, 2, 1, "S", 40))
    store = TournamentStore(path)  # the server restarted
    assert [s.id for s in store.slips(tid)] == [first.id, first.id + 1]
    seats = store.schedule(tid).seats(1, 1, 1)
    top = store.standings(tid)[0]
    assert (top.player, top.total) == (seats["E"], 600)  # East wins 100: 200 from each
    store.correct_slip(tid, first.id, _slip(store, tid, 1, 1, 1, "E", 200))
    assert store.standings(tid)[0].total == 1200
    with pytest.raises(TournamentError, match="already has a slip with a Mahjong"):
        store.add_slip(tid, _slip(store, tid, 1, 1, 1))
    with pytest.raises(TournamentError, match="no tournament 99"):
        store.slips(99)


def test_concurrent_referees_lose_no_slip_and_store_no_double(tmp_path):
    store = TournamentStore(str(tmp_path / "desk.db"))
    tid = store.create("Club night", EIGHT, 1, seed=2)
    slips = [_slip(store, tid, 1, t, hand) for t in (1, 2) for hand in range(1, 5)]
    errors = []

    def enter(data):
        try:
            TournamentStore(store.path).add_slip(tid, data)
        except TournamentError as error:
            errors.append(str(error))

    # eight slips at once, and the first hand of table 1 entered by a second referee too
    threads = [threading.Thread(target=enter, args=(data,)) for data in slips + [slips[0]]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.slips(tid)) == 8
    assert len(errors) == 1 and "already has a slip" in errors[0]
    assert sum(s.total for s in store.standings(tid)) == 0


def test_csv_export_of_slips_payments_and_standings(tmp_path):
    store = TournamentStore(str(tmp_path / "desk.db"))
    tid = store.create("Export", EIGHT, 1, seed=3)
    store.add_slip(tid, _slip(store, tid, 1, 1, 1))
    store.add_slip(tid, {"round": 1, "table": 1, "hand": 2, "remise": True})
    slips = list(csv.reader(io.StringIO(store.to_csv(tid, "slips"))))
    assert slips[0][:4] == ["slip", "round", "table", "hand"] and len(slips) == 3
    assert slips[2][13] == "yes"  # the remise
    payments = list(csv.DictReader(io.StringIO(store.to_csv(tid, "payments"))))
    assert len(payments) == 8 and sum(int(row["net"]) for row in payments) == 0
    standing = list(csv.DictReader(io.StringIO(store.to_csv(tid, "standings"))))
    assert int(standing[0]["total"]) == 600 and len(standing) == 8
    assert "'=Hans" in store.to_csv(tid, "standings")  # no formula in a spreadsheet
    with pytest.raises(TournamentError):
        store.to_csv(tid, "everything")


def test_the_desk_commands_enter_correct_and_rank(tmp_path, capsys):
    from mahjong_lens.cli import main
    db = ["--database", str(tmp_path / "desk.db")]
    assert main(["tournament", "new", "--name", "Test", "--players", "A,B,C,D,E,F,G,H", "--rounds", "1",
                 "--seed", "1", *db]) == 0
    capsys.readouterr()
    seats = TournamentStore(db[1]).schedule(1).seats(1, 1, 1)
    east, south, west, north = (seats[w] for w in "ESWN")
    points = f"{east}=100,{south}=20,{west}=0,{north}=40"
    assert main(["tournament", "slip", "1", "--round", "1", "--table", "1", "--hand", "1",
                 "--points", points, "--mahjong", east, *db]) == 0
    assert f"{east} +600" in capsys.readouterr().out
    # corrected: North made Mahjong with 40 (worked by hand: North receives 40 from South and
    # West, 80 from East; East receives 160 from South, 200 from West; South 20 from West)
    assert main(["tournament", "slip", "1", "--correct", "1", "--round", "1", "--table", "1", "--hand", "1",
                 "--points", points, "--mahjong", north, *db]) == 0
    assert f"{east} +280, {south} -180, {west} -260, {north} +160" in capsys.readouterr().out
    assert main(["tournament", "slip", "1", "--round", "1", "--table", "1", "--hand", "2",
                 "--points", points.replace("=100", "=101"), "--mahjong", south, *db]) == 2
    assert "101 points cannot be a score" in capsys.readouterr().err
    assert main(["tournament", "standings", "1", *db]) == 0
    assert f"  1. {east}" in capsys.readouterr().out


def test_slips_are_numbered_in_their_own_tournament(tmp_path, capsys):
    from mahjong_lens.cli import main
    db = ["--database", str(tmp_path / "desk.db")]
    for name in ("First", "Second"):
        assert main(["tournament", "new", "--name", name, "--players", "A,B,C,D,E,F,G,H", "--rounds", "1",
                     "--seed", "1", *db]) == 0
    store = TournamentStore(db[1])
    for tournament in (1, 2):
        for hand in (1, 2):
            seats = store.schedule(tournament).seats(1, 1, hand)
            points = ",".join(f"{seats[w]}={40 if w == 'E' else 0}" for w in "ESWN")
            capsys.readouterr()
            assert main(["tournament", "slip", str(tournament), "--round", "1", "--table", "1", "--hand",
                         str(hand), "--points", points, "--mahjong", seats["E"], *db]) == 0
            assert capsys.readouterr().out.startswith(f"slip {hand} entered")  # not the database's 3, 4
    assert [s.number for s in store.slips(2)] == [1, 2] and [s.id for s in store.slips(2)] == [3, 4]
    seats = store.schedule(2).seats(1, 1, 2)
    points = ",".join(f"{seats[w]}={40 if w == 'S' else 0}" for w in "ESWN")
    assert main(["tournament", "slip", "2", "--correct", "2", "--round", "1", "--table", "1", "--hand", "2",
                 "--points", points, "--mahjong", seats["S"], *db]) == 0
    assert capsys.readouterr().out.startswith("slip 2 corrected")
    assert store.slips(2)[1].slip.mahjong == seats["S"]  # the second tournament's slip 2, not id 2
    assert store.slips(1)[1].slip.mahjong == store.schedule(1).seats(1, 1, 2)["E"]
