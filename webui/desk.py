"""The tournament desk as the page and the API see it: form fields in, the store's calls
(the same ones `mahjong-lens tournament` makes), plain dicts out for the templates and JSON.

No rule lives here: schedules, slip checks, payments and standings are rules.tournament's,
storage is webui.tournament_store's.  This module only reads a form (a slip is typed per
wind, as the table sits for that hand) and arranges what a page shows.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mahjong_lens.rules.tiles import WIND_NAMES, WINDS
from mahjong_lens.rules.words import whole_number
from mahjong_lens.rules.tournament import (HANDS_PER_ROUND, MAX_ROUNDS, Schedule, TournamentError, next_hand,
                                           replayable_remises, running_totals, slip_payments, slip_transfers,
                                           standings)

from .tournament_store import StoredSlip, TournamentStore

MAX_NAME = 80


def _whole(value: Any, what: str, low: int, high: int) -> int:
    number = whole_number(str(value if value is not None else ""))
    if number is None:
        raise TournamentError(f"{what} must be a whole number from {low} to {high}")
    if not low <= number <= high:
        raise TournamentError(f"{what} must be from {low} to {high} (got {number})")
    return number


def players_from_text(text: Any) -> list[str]:
    """One participant a line (or separated by commas when all are on one line)."""
    if isinstance(text, (list, tuple)):
        return [str(name) for name in text]
    if not isinstance(text, str):
        raise TournamentError("players: the participants' names, one a line")
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) == 1 and "," in lines[0]:
        lines = [part for part in lines[0].split(",") if part.strip()]
    return lines


class TournamentDesk:
    """What the tournament pages and the JSON API do, over one TournamentStore."""

    def __init__(self, store: TournamentStore) -> None:
        self.store = store

    # ------------------------------------------------------------------ tournaments

    def create(self, fields: Mapping[str, Any]) -> int:
        """{"name", "players" (a list, or text one a line), "rounds", "seed"?} -> its id."""
        name = " ".join(str(fields.get("name") or "").split())
        if len(name) > MAX_NAME:
            raise TournamentError(f"the tournament's name is longer than {MAX_NAME} characters")
        rounds = _whole(fields.get("rounds"), "the number of rounds", 1, MAX_ROUNDS)
        seed_text = str(fields.get("seed") if fields.get("seed") is not None else "").strip()
        seed = _whole(seed_text, "the seed", 0, 2 ** 31 - 1) if seed_text else None
        return self.store.create(name, players_from_text(fields.get("players")), rounds, seed)

    def tournaments(self) -> list[dict[str, Any]]:
        return self.store.tournaments()

    def overview(self, tournament: int) -> dict[str, Any]:
        """Everything the tournament's page shows: schedule, slips with payments, standings."""
        schedule = self.store.schedule(tournament)
        stored = self.store.slips(tournament)
        slips = [s.slip for s in stored]
        return {"id": tournament, "name": self.store.name(tournament),
                "players": list(schedule.players), "seed": schedule.seed,
                "rounds": _rounds(schedule), "repeats": schedule.repeats(),
                "repeats_in_words": schedule.repeats_in_words(),
                "by_player": [{"player": player, "rounds": [
                    {"round": r, "table": t, "wind": w, "wind_name": WIND_NAMES[w]}
                    for r, t, w in schedule.for_player(player)]} for player in schedule.players],
                "slips": _slip_rows(schedule, stored),
                "standings": [vars(row) for row in standings(schedule, slips)],
                "next": next_hand(schedule, slips),
                # hands that were a remise and may be replayed now (every player was East)
                "replayable": [[r, t, h] for r in range(1, len(schedule.rounds) + 1)
                               for t in range(1, schedule.table_count + 1)
                               for h in replayable_remises(slips, r, t)]}

    # ------------------------------------------------------------------------ slips

    def slip_form(self, tournament: int, where: Mapping[str, Any], entered: int | None = None,
                  correcting: int | None = None, typed: bool = False) -> dict[str, Any]:
        """The blank (or prefilled) slip of one hand: each wind's player for that hand, the
        points typed so far.  `where` holds round, table and hand (the next hand to enter
        where absent), and may prefill E/S/W/N points, mahjong (a wind) and dead winds: the
        table page sends what it settled."""
        schedule = self.store.schedule(tournament)
        stored = self.store.slips(tournament)
        slip = None
        if correcting is not None:
            slip = _find(stored, correcting).slip
            r, t, h = slip.round, slip.table, slip.hand
            if typed:  # a refused correction shows what was typed, not the stored slip
                slip = None
        else:
            r, t, h = self._where(schedule, stored, where, entered)
        seats = schedule.seats(r, t, h)
        rows = []
        for wind in WINDS:
            player = seats[wind]
            if slip is not None:
                points = "" if slip.remise else str(slip.points.get(player, 0))
                mahjong, dead = slip.mahjong == player, player in slip.dead
            else:
                points = str(where.get(f"points_{wind}", where.get(wind, "")) or "")[:8]
                mahjong = where.get("mahjong") == wind
                dead = wind in _listed(where, "dead")
            rows.append({"wind": wind, "wind_name": WIND_NAMES[wind], "player": player,
                         "points": points, "mahjong": mahjong, "dead": dead})
        slip_rows = _slip_rows(schedule, stored)
        form = {"round": r, "table": t, "hand": h, "seats": rows,
                "remise": bool(slip.remise) if slip is not None else _flag(where.get("remise")),
                "rounds": len(schedule.rounds), "tables": schedule.table_count,
                "hands": HANDS_PER_ROUND, "correcting": correcting,
                "correcting_number": _find(stored, correcting).number if correcting is not None else None,
                "correcting_version": _find(stored, correcting).version if correcting is not None else None,
                "history": self.store.history(tournament, correcting) if correcting is not None else [],
                "entered": next((row for row in slip_rows if row["id"] == entered), None),
                "earlier": [row for row in slip_rows
                            if (row["round"], row["table"], row["hand"]) == (r, t, h) and row["id"] != correcting]}
        return form

    def _where(self, schedule: Schedule, stored: list[StoredSlip], where: Mapping[str, Any],
               entered: int | None) -> tuple[int, int, int]:
        if where.get("round") or where.get("table") or where.get("hand"):
            return (_whole(where.get("round"), "round", 1, len(schedule.rounds)),
                    _whole(where.get("table"), "table", 1, schedule.table_count),
                    _whole(where.get("hand"), "hand", 1, HANDS_PER_ROUND))
        slips = [s.slip for s in stored]
        if entered is not None:  # the same table's next hand, as a referee enters them
            last = _find(stored, entered).slip
            after = next_hand(schedule, slips, at=(last.round, last.table))
            if after is not None:
                return after
        return next_hand(schedule, slips) or (1, 1, 1)

    def slip_from_form(self, tournament: int, fields: Mapping[str, Any]) -> dict[str, Any]:
        """A slip typed per wind (points_E ..., mahjong = a wind, dead = winds) as
        rules.tournament.slip_from_dict reads it: the players are the schedule's for that hand."""
        schedule = self.store.schedule(tournament)
        r = _whole(fields.get("round"), "round", 1, len(schedule.rounds))
        t = _whole(fields.get("table"), "table", 1, schedule.table_count)
        h = _whole(fields.get("hand"), "hand", 1, HANDS_PER_ROUND)
        seats = schedule.seats(r, t, h)
        remise = _flag(fields.get("remise"))
        mahjong = fields.get("mahjong") or None
        if mahjong is not None and mahjong not in seats:
            raise TournamentError("choose who made Mahjong among the four players")
        dead = [seats[wind] for wind in _listed(fields, "dead") if wind in seats]
        points = {} if remise else {seats[w]: fields.get(f"points_{w}", "") for w in WINDS}
        return {"round": r, "table": t, "hand": h, "points": points, "remise": remise,
                "mahjong": None if remise else (seats[mahjong] if mahjong else None),
                "dead": [] if remise else dead, "version": fields.get("version")}

    def add_slip(self, tournament: int, data: Any) -> dict[str, Any]:
        stored = self.store.add_slip(tournament, data)
        return self._slip_result(tournament, stored)

    def correct_slip(self, tournament: int, slip_id: int, data: Any) -> dict[str, Any]:
        """A slip corrected; `data`'s "version" (the slip's version it was made from), where
        given, refuses a correction of a slip corrected since (StaleCorrection)."""
        version = data.get("version") if isinstance(data, Mapping) else None
        version = None if version in (None, "") else _whole(version, "version", 0, 1_000_000)
        stored = self.store.correct_slip(tournament, slip_id, data, version)
        return self._slip_result(tournament, stored)

    def _slip_result(self, tournament: int, stored: StoredSlip) -> dict[str, Any]:
        schedule = self.store.schedule(tournament)
        return {"id": stored.id, "number": stored.number, "version": stored.version,
                **stored.slip.to_dict(), "entered": stored.entered,
                "corrected": stored.corrected, "net": slip_payments(schedule, stored.slip),
                "transfers": [{"from": a, "to": b, "amount": n} for a, b, n in slip_transfers(schedule, stored.slip)]}

    def standings(self, tournament: int) -> dict[str, Any]:
        return {"id": tournament, "name": self.store.name(tournament),
                "slips": len(self.store.slips(tournament)),
                "standings": [vars(row) for row in self.store.standings(tournament)]}

    def csv(self, tournament: int, what: str) -> str:
        return self.store.to_csv(tournament, what)


# ------------------------------------------------------------------------------ helpers

def _rounds(schedule: Schedule) -> list[dict[str, Any]]:
    return [{"round": r, "tables": [
        {"table": t, "seats": [{"wind": WINDS[k], "wind_name": WIND_NAMES[WINDS[k]], "player": player}
                               for k, player in enumerate(players)]}
        for t, players in enumerate(tables, 1)]} for r, tables in enumerate(schedule.rounds, 1)]


def _slip_rows(schedule: Schedule, stored: list[StoredSlip]) -> list[dict[str, Any]]:
    totals = running_totals(schedule, [s.slip for s in stored])
    rows = []
    for item, total in zip(stored, totals):
        slip = item.slip
        net = slip_payments(schedule, slip)
        seats = schedule.seats(slip.round, slip.table, slip.hand)
        rows.append({"id": item.id, "number": item.number, "version": item.version, "round": slip.round, "table": slip.table, "hand": slip.hand,
                     "remise": slip.remise, "mahjong": slip.mahjong, "entered": item.entered,
                     "corrected": item.corrected, "players": [
                         {"wind": wind, "wind_name": WIND_NAMES[wind], "player": seats[wind],
                          "points": slip.points.get(seats[wind], 0), "net": net[seats[wind]],
                          "total": total[seats[wind]], "dead": seats[wind] in slip.dead,
                          "mahjong": slip.mahjong == seats[wind]} for wind in WINDS]})
    return rows


def _find(stored: list[StoredSlip], slip_id: int) -> StoredSlip:
    for item in stored:
        if item.id == slip_id:
            return item
    raise TournamentError(f"there is no slip {slip_id} in this tournament")


def _flag(value: Any) -> bool:
    return str(value or "").strip().lower() in ("1", "true", "on", "yes")


def _listed(fields: Mapping[str, Any], key: str) -> list[str]:
    """All values of a repeated field (a form's getlist, or a list in JSON/a dict)."""
    if hasattr(fields, "getlist"):
        return [str(v) for v in fields.getlist(key)]
    value = fields.get(key) or []
    return [str(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
