"""`mahjong-lens tournament`: the Rode Draak tournament desk on the command line.

    mahjong-lens tournament schedule --players-file names.txt --rounds 4 --seed 2026
    mahjong-lens tournament schedule --count 16 --rounds 5 --by player

Thin: the schedule is rules.tournament's; this parses, prints and sets the exit code.
"""
from __future__ import annotations

import argparse
import json
import sys

from rules.tournament import WIND_NAMES, TournamentError, make_schedule


def configure_tournament(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    schedule = sub.add_parser("schedule", help="draw a random rotation schedule (rouleerschema)")
    names = schedule.add_mutually_exclusive_group(required=True)
    names.add_argument("--players", help="the participants' names, separated by commas")
    names.add_argument("--players-file", help="a text file with one participant's name a line")
    names.add_argument("--count", type=int, help="so many participants, named Player 1, Player 2, ...")
    schedule.add_argument("--rounds", type=int, required=True, help="rounds of four hands")
    schedule.add_argument("--seed", type=int, default=None,
                          help="the draw's seed: the same seed gives the same schedule (default: random)")
    schedule.add_argument("--by", choices=("table", "player"), default="table",
                          help="print per round and table (default) or per player")
    schedule.add_argument("--json", action="store_true", help="the schedule as JSON")


def _players(args: argparse.Namespace) -> list[str]:
    if args.players is not None:
        return [name for name in args.players.split(",") if name.strip()]
    if args.players_file is not None:
        try:
            with open(args.players_file, encoding="utf-8") as handle:
                return [line for line in handle.read().splitlines() if line.strip()]
        except OSError as error:
            raise TournamentError(f"cannot read {args.players_file}: {error.strerror}") from None
        except UnicodeDecodeError:
            raise TournamentError(f"{args.players_file} is not a text file") from None
    return [f"Player {k}" for k in range(1, max(args.count, 0) + 1)]


def run_tournament(args: argparse.Namespace) -> int:
    try:
        schedule = make_schedule(_players(args), args.rounds, args.seed)
    except TournamentError as error:
        print(f"mahjong-lens: {error}", file=sys.stderr)
        return 2
    repeats = schedule.repeats()
    if args.json:
        print(json.dumps({**schedule.to_dict(), "repeats": [list(r) for r in repeats]}, indent=2,
                         ensure_ascii=False))
        return 0
    if args.by == "player":
        for player in schedule.players:
            rounds = "  ".join(f"R{r}: table {t} {WIND_NAMES[w]}" for r, t, w in schedule.for_player(player))
            print(f"{player}: {rounds}")
    else:
        for r, tables in enumerate(schedule.rounds, 1):
            print(f"Round {r}")
            for t, table in enumerate(tables, 1):
                seats = ", ".join(f"{WIND_NAMES[w]} {p}" for w, p in zip("ESWN", table))
                print(f"  table {t}: {seats}")
    if repeats:
        pairs = "; ".join(f"{a} & {b} {n}x" for a, b, n in repeats)
        print(f"{len(repeats)} pair(s) meet more than once: {pairs}")
    else:
        print("no two players meet twice")
    return 0
