"""`mahjong-lens tournament`: the Rode Draak tournament desk on the command line.

    mahjong-lens tournament schedule --players-file names.txt --rounds 4 --seed 2026
    mahjong-lens tournament schedule --count 16 --rounds 5 --by player
    mahjong-lens tournament wall --rules riichi --dice 12        # breaker, dead wall, dora indicator
    mahjong-lens tournament wall --rules rode-draak --dice 6 9   # East's throw, the breaker's
    mahjong-lens tournament seats --thrower S --dice 7 6         # WSOM seat draw
    mahjong-lens tournament new --name "Rode Draak 2026" --players-file names.txt --rounds 4 --seed 1
    mahjong-lens tournament slip 1 --round 1 --table 2 --hand 1 --points Anna=100,Bart=20,Cor=0,Dirk=40 --mahjong Anna
    mahjong-lens tournament slip 1 --round 1 --table 2 --hand 2 --remise          # the wind turns to hand 3
    mahjong-lens tournament slip 1 --correct 3 --round 1 --table 2 --hand 1 --points ... --mahjong Bart
    mahjong-lens tournament standings 1 [--csv slips|payments|standings]

Thin: the schedule is rules.tournament's; this parses, prints and sets the exit code.
"""
from __future__ import annotations

import argparse
import json
import sys

from mahjong_lens.rules.words import plural, whole_number
from mahjong_lens.rules.table_setup import SetupError, ari_ari_break, rode_draak_break, wsom_seat_draw
from mahjong_lens.rules.tiles import WIND_NAMES
from mahjong_lens.rules.tournament import TournamentError, make_schedule, slip_payments


# the largest tournament or slip number the database holds (SQLite's integers are 64-bit)
MAX_RECORD_NUMBER = 2 ** 63 - 1


def record_number(text: str) -> int:
    """A tournament's or slip's number as typed: a whole number the database can hold."""
    number = whole_number(text)
    if number is None or number < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a tournament or slip number (1, 2, ...)")
    if number > MAX_RECORD_NUMBER:
        raise argparse.ArgumentTypeError(f"{text} is too large to be a tournament or a slip number")
    return number


def configure_tournament(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    schedule = sub.add_parser("schedule", help="draw a random rotation schedule (rouleerschema)")
    _add_draw_options(schedule)
    schedule.add_argument("--by", choices=("table", "player"), default="table",
                          help="print per round and table (default) or per player")
    schedule.add_argument("--json", action="store_true", help="the schedule as JSON")
    database = dict(default=None, help="the desk's SQLite file (default: the referee log's, as `serve`)")
    new = sub.add_parser("new", help="start a tournament: draw and keep its schedule")
    new.add_argument("--name", required=True)
    _add_draw_options(new)
    new.add_argument("--database", **database)
    slip = sub.add_parser("slip", help="enter (or --correct) a score slip")
    slip.add_argument("tournament", type=record_number)
    for name in ("--round", "--table", "--hand"):
        slip.add_argument(name, type=int, required=True)
    slip.add_argument("--points", default="", metavar="NAME=POINTS,...")
    # appended, so that two makers given are refused (a hand has one), not the last one kept
    slip.add_argument("--mahjong", action="append", default=None, metavar="NAME")
    slip.add_argument("--remise", action="store_true")
    slip.add_argument("--dead", action="append", default=[], metavar="NAME")
    slip.add_argument("--correct", type=record_number, default=None, metavar="SLIP", help="replace the slip of this number (as the desk numbers them)")
    slip.add_argument("--database", **database)
    table = sub.add_parser("standings", help="the standings (or a CSV export)")
    table.add_argument("tournament", type=record_number)
    table.add_argument("--csv", choices=("slips", "payments", "standings"), default=None)
    table.add_argument("--database", **database)
    wall = sub.add_parser("wall", help="who breaks the wall and where; the dead wall and dora indicator")
    wall.add_argument("--rules", choices=("rode-draak", "riichi"), default="rode-draak")
    wall.add_argument("--dice", type=int, nargs="+", required=True, metavar="TOTAL",
                      help="East's throw (Rode Draak: then the breaker's throw)")
    seats = sub.add_parser("seats", help="the WSOM seat draw: who throws again, who takes the first wind")
    seats.add_argument("--thrower", choices=("E", "S", "W", "N"), required=True,
                       help="the seat of the player who throws first")
    seats.add_argument("--dice", type=int, nargs=2, required=True, metavar="TOTAL")


def _add_draw_options(parser: argparse.ArgumentParser) -> None:
    """Who plays, how many rounds, the draw's seed: a schedule's and a new tournament's."""
    names = parser.add_mutually_exclusive_group(required=True)
    names.add_argument("--players", help="the participants' names, separated by commas")
    names.add_argument("--players-file", help="a text file with one participant's name a line")
    names.add_argument("--count", type=int, help="so many participants, named Player 1, Player 2, ...")
    parser.add_argument("--rounds", type=int, required=True, help="rounds of four hands")
    parser.add_argument("--seed", type=int, default=None,
                        help="the draw's seed: the same seed gives the same schedule (default: random)")


def _wall(args: argparse.Namespace) -> None:
    wanted = 2 if args.rules == "rode-draak" else 1
    if len(args.dice) != wanted:
        raise SetupError(f"{args.rules} takes {plural(wanted, 'throw')} with --dice")
    if args.rules == "rode-draak":
        wall = rode_draak_break(*args.dice)
        print(f"East's {args.dice[0]} points at {WIND_NAMES[wall.breaker]}, who throws {args.dice[1]}: "
              f"count {sum(args.dice)} stacks from the right of {WIND_NAMES[wall.breaker]}'s wall")
        print(f"the break: left of the {WIND_NAMES[wall.after.wall]} wall's stack {wall.after.number} "
              "(take that stack out and lay it right of the opening)")
        return
    wall = ari_ari_break(args.dice[0])
    print(f"{WIND_NAMES[wall.breaker]} breaks the wall after stack {wall.after.number} from its right")
    print("dead wall: " + ", ".join(f"{s.wall}{s.number}" for s in wall.dead_wall))
    print(f"dora indicator: the top tile of the {WIND_NAMES[wall.dora_indicator.wall]} wall's stack "
          f"{wall.dora_indicator.number}")


def _seats(args: argparse.Namespace) -> None:
    draw = wsom_seat_draw(args.thrower, *args.dice)
    print(f"{WIND_NAMES[draw.second_thrower]} throws again; {WIND_NAMES[draw.first_taker]} takes the first "
          f"wind tile, from the {draw.from_end} end; then " +
          ", ".join(WIND_NAMES[w] for w in draw.taking_order[1:]))


def _store(args: argparse.Namespace):
    from mahjong_lens.vision.storage import default_database
    from mahjong_lens.webui.tournament_store import TournamentStore
    return TournamentStore(args.database or default_database())


def _points(text: str) -> dict[str, str]:
    points = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, equals, value = item.rpartition("=")
        if not equals or not name.strip():
            raise TournamentError(f"--points takes NAME=POINTS pairs separated by commas (got {item!r})")
        points[name.strip()] = value
    return points


def _desk(args: argparse.Namespace) -> None:
    store = _store(args)
    if args.action == "new":
        tournament = store.create(args.name, _players(args), args.rounds, args.seed)
        print(f"tournament {tournament}: {args.name}")
        _print_schedule(store.schedule(tournament), by="table")
    elif args.action == "slip":
        data = {"round": args.round, "table": args.table, "hand": args.hand, "points": _points(args.points),
                "mahjong": args.mahjong, "remise": args.remise, "dead": args.dead}
        stored = (store.correct_slip(args.tournament, store.slip_id(args.tournament, args.correct), data)
                  if args.correct else store.add_slip(args.tournament, data))
        net = slip_payments(store.schedule(args.tournament), stored.slip)
        print(f"slip {stored.number} {'corrected' if args.correct else 'entered'}: " +
              ", ".join(f"{player} {amount:+d}" for player, amount in net.items()))
    else:
        if args.csv:
            sys.stdout.write(store.to_csv(args.tournament, args.csv))
            return
        print(f"{store.name(args.tournament)}: standings after {plural(len(store.slips(args.tournament)), 'slip')}")
        for row in store.standings(args.tournament):
            print(f"{row.rank:>3}. {row.player:<24} {row.total:>+8d}  ({row.hands} hands, {row.mahjongs} Mahjong)")


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
    actions = {"schedule": _schedule, "wall": _wall, "seats": _seats,
               "new": _desk, "slip": _desk, "standings": _desk}
    try:
        actions[args.action](args)
    except (TournamentError, SetupError) as error:
        print(f"mahjong-lens: {error}", file=sys.stderr)
        return 2
    return 0


def _schedule(args: argparse.Namespace) -> None:
    schedule = make_schedule(_players(args), args.rounds, args.seed)
    if args.json:
        print(json.dumps({**schedule.to_dict(), "repeats": [list(r) for r in schedule.repeats()],
                          "second_meetings": schedule.second_meetings(),
                          "fewest_second_meetings": schedule.fewest_second_meetings()}, indent=2,
                         ensure_ascii=False))
    else:
        _print_schedule(schedule, args.by)


def _print_schedule(schedule, by: str) -> None:
    repeats = schedule.repeats()
    if by == "player":
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
        print(f"{plural(len(repeats), 'pair')} {'meets' if len(repeats) == 1 else 'meet'} more than once: {pairs}")
    print(schedule.repeats_in_words())
