"""The tournament desk's records in SQLite, in the referee's database file: tournaments (their
schedule drawn once and kept), score slips and every correction of a slip.

Each write runs in one ``BEGIN IMMEDIATE`` transaction that reads the slips already entered,
checks the new one against them (rules.tournament.check_slip) and writes it: two referees
entering slips at once are serialised by SQLite, neither slip is lost, and a second Mahjong
slip for one hand is refused rather than stored twice.  Payments and standings are never
stored: they are computed from the slips, so a correction changes everything after it.
"""
from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from mahjong_lens.rules.words import holds_lone_surrogate, readable
from mahjong_lens.webui.store import _cell  # a name a spreadsheet would run as a formula is quoted

from mahjong_lens.rules.tournament import (Schedule, Slip, Standing, TournamentError, check_slip, make_schedule,
                              running_totals, slip_from_dict, slip_order, slip_payments, standings)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created TEXT NOT NULL,
    schedule TEXT NOT NULL            -- rules.tournament.Schedule.to_dict(), JSON
);
CREATE TABLE IF NOT EXISTS slips (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament INTEGER NOT NULL REFERENCES tournaments(id),
    slip TEXT NOT NULL,               -- rules.tournament.Slip.to_dict(), JSON
    entered TEXT NOT NULL,
    corrected TEXT
);
CREATE TABLE IF NOT EXISTS slip_corrections (
    slip INTEGER NOT NULL REFERENCES slips(id),
    before TEXT NOT NULL,             -- the slip as it was, JSON
    changed TEXT NOT NULL
);
"""


class UnknownTournament(TournamentError):
    """A tournament number the store does not hold (the page answers 404)."""


class StaleCorrection(TournamentError):
    """A correction of a slip that was corrected since it was read (the page answers 409,
    with the slip as it is now: `current`)."""

    def __init__(self, message: str, current: "StoredSlip"):
        super().__init__(message)
        self.current = current


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class StoredSlip:
    id: int             # the database's, for links and the API (unique across tournaments)
    slip: Slip
    entered: str
    corrected: str | None
    number: int = 0     # the slip's number in its tournament, 1, 2, ... in the order entered:
                        # what the desk, the page and the command line call it
    version: int = 0    # how often it was corrected: a correction names the version it corrects


class TournamentStore:
    """Tournaments and their slips in the SQLite file at `path`."""

    def __init__(self, path: str) -> None:
        self.path = path
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with closing(self._connect()) as db:
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for a referee's write
            db.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        return db

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before anything is read: what is checked is what
        is there when the slip is written."""
        with closing(self._connect()) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # ---------------------------------------------------------------- tournaments

    def create(self, name: str, players: list[str], rounds: int, seed: int | None = None) -> int:
        name = " ".join(str(name).split())
        if not name:
            raise TournamentError("the tournament needs a name")
        if not name.isprintable() or holds_lone_surrogate(name) or len(name) > 120:
            raise TournamentError("the tournament's name must be printed text of at most 120 characters")
        schedule = make_schedule(players, rounds, seed)
        with closing(self._connect()) as db:
            cursor = db.execute("INSERT INTO tournaments (name, created, schedule) VALUES (?, ?, ?)",
                                (name, _now(), json.dumps(schedule.to_dict())))
            return int(cursor.lastrowid)

    def tournaments(self) -> list[dict[str, Any]]:
        with closing(self._connect()) as db:
            rows = db.execute("SELECT id, name, created FROM tournaments ORDER BY id DESC").fetchall()
        return [readable(dict(row)) for row in rows]

    def schedule(self, tournament: int) -> Schedule:
        with closing(self._connect()) as db:
            return self._schedule(db, tournament)

    def name(self, tournament: int) -> str:
        with closing(self._connect()) as db:
            row = db.execute("SELECT name FROM tournaments WHERE id = ?", (tournament,)).fetchone()
        if row is None:
            raise UnknownTournament(f"there is no tournament {tournament}")
        return readable(row["name"])

    @staticmethod
    def _schedule(db: sqlite3.Connection, tournament: int) -> Schedule:
        row = db.execute("SELECT schedule FROM tournaments WHERE id = ?", (tournament,)).fetchone()
        if row is None:
            raise UnknownTournament(f"there is no tournament {tournament}")
        return Schedule.from_dict(readable(json.loads(row["schedule"])))  # stored before names were checked

    # ---------------------------------------------------------------------- slips

    @staticmethod
    def _stored(db: sqlite3.Connection, tournament: int) -> list[StoredSlip]:
        rows = db.execute("SELECT * FROM slips WHERE tournament = ? ORDER BY id", (tournament,)).fetchall()
        versions = dict(db.execute("SELECT c.slip, COUNT(*) FROM slip_corrections c JOIN slips s ON s.id = c.slip "
                                   "WHERE s.tournament = ? GROUP BY c.slip", (tournament,)).fetchall())
        stored = [StoredSlip(row["id"], slip_from_dict(json.loads(row["slip"])), row["entered"], row["corrected"],
                             number, versions.get(row["id"], 0)) for number, row in enumerate(rows, 1)]
        return sorted(stored, key=lambda s: slip_order(s.slip))  # stable: replays after their remise

    def add_slip(self, tournament: int, data: Any) -> StoredSlip:
        """Check and store a slip (a Slip, or its JSON/form fields)."""
        slip = data if isinstance(data, Slip) else slip_from_dict(data)
        with self._writing() as db:
            earlier = self._stored(db, tournament)
            check_slip(self._schedule(db, tournament), slip, [s.slip for s in earlier])
            entered = _now()
            cursor = db.execute("INSERT INTO slips (tournament, slip, entered) VALUES (?, ?, ?)",
                                (tournament, json.dumps(slip.to_dict()), entered))
        return StoredSlip(int(cursor.lastrowid), slip, entered, None, len(earlier) + 1)

    def correct_slip(self, tournament: int, slip_id: int, data: Any, version: int | None = None) -> StoredSlip:
        """Replace a slip (its old text is kept); everything after it is recomputed. With
        `version` (the slip's version the correction was made from), a slip corrected since
        is not overwritten: StaleCorrection, with the slip as it is now."""
        slip = data if isinstance(data, Slip) else slip_from_dict(data)
        with self._writing() as db:
            row = db.execute("SELECT * FROM slips WHERE id = ? AND tournament = ?",
                             (slip_id, tournament)).fetchone()
            if row is None:
                raise TournamentError(f"tournament {tournament} has no slip {slip_id}")
            current = next(s for s in self._stored(db, tournament) if s.id == slip_id)
            if version is not None and version != current.version:
                raise StaleCorrection(
                    f"slip {current.number} was corrected by someone else since it was opened (it is at "
                    f"version {current.version}, this correction was made from version {version}): "
                    "look at it again before correcting it", current)
            others = [s.slip for s in self._stored(db, tournament) if s.id != slip_id]
            check_slip(self._schedule(db, tournament), slip, others)
            changed = _now()
            db.execute("INSERT INTO slip_corrections (slip, before, changed) VALUES (?, ?, ?)",
                       (slip_id, row["slip"], changed))
            db.execute("UPDATE slips SET slip = ?, corrected = ? WHERE id = ?",
                       (json.dumps(slip.to_dict()), changed, slip_id))
            number = db.execute("SELECT COUNT(*) FROM slips WHERE tournament = ? AND id <= ?",
                                (tournament, slip_id)).fetchone()[0]
        return StoredSlip(slip_id, slip, row["entered"], changed, number, current.version + 1)

    def history(self, tournament: int, slip_id: int) -> list[dict[str, Any]]:
        """A slip's earlier texts, oldest first: each as it was, and when it was changed."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT c.before, c.changed FROM slip_corrections c JOIN slips s ON s.id = c.slip "
                              "WHERE c.slip = ? AND s.tournament = ? ORDER BY c.rowid", (slip_id, tournament)).fetchall()
        return [{"slip": readable(json.loads(row["before"])), "changed": row["changed"]} for row in rows]

    def slip_id(self, tournament: int, number: int) -> int:
        """The database id of a tournament's slip by its number there."""
        for stored in self.slips(tournament):
            if stored.number == number:
                return stored.id
        raise TournamentError(f"tournament {tournament} has no slip {number}")

    def slips(self, tournament: int) -> list[StoredSlip]:
        """The slips in playing order."""
        with closing(self._connect()) as db:
            self._schedule(db, tournament)  # an unknown tournament is said so
            return self._stored(db, tournament)

    def standings(self, tournament: int) -> list[Standing]:
        with closing(self._connect()) as db:
            schedule = self._schedule(db, tournament)
            return standings(schedule, [s.slip for s in self._stored(db, tournament)])

    # ------------------------------------------------------------------------ CSV

    def to_csv(self, tournament: int, what: str) -> str:
        """'slips', 'payments' or 'standings' as CSV (a spreadsheet's first row: headings)."""
        schedule = self.schedule(tournament)
        stored = self.slips(tournament)
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        if what == "slips":
            writer.writerow(["slip", "round", "table", "hand", "East", "South", "West", "North",
                             "points East", "points South", "points West", "points North", "mahjong",
                             "remise", "dead", "entered", "corrected"])
            for item in stored:
                slip = item.slip
                seats = schedule.seats(slip.round, slip.table, slip.hand)
                order = [seats[w] for w in "ESWN"]
                writer.writerow([item.id, slip.round, slip.table, slip.hand, *map(_cell, order),
                                 *[slip.points.get(p, 0) for p in order], _cell(slip.mahjong or ""),
                                 "yes" if slip.remise else "", _cell("; ".join(slip.dead)), item.entered,
                                 item.corrected or ""])
        elif what == "payments":
            writer.writerow(["slip", "round", "table", "hand", "player", "wind", "points", "net", "running total"])
            totals = running_totals(schedule, [s.slip for s in stored])
            for item, total in zip(stored, totals):
                slip = item.slip
                net = slip_payments(schedule, slip)
                for wind, player in sorted(schedule.seats(slip.round, slip.table, slip.hand).items(),
                                           key=lambda seat: "ESWN".index(seat[0])):
                    writer.writerow([item.id, slip.round, slip.table, slip.hand, _cell(player), wind,
                                     slip.points.get(player, 0), net[player], total[player]])
        elif what == "standings":
            writer.writerow(["rank", "player", "total", "hands", "mahjongs"])
            for row in standings(schedule, [s.slip for s in stored]):
                writer.writerow([row.rank, _cell(row.player), row.total, row.hands, row.mahjongs])
        else:
            raise TournamentError("export slips, payments or standings")
        return buffer.getvalue()

