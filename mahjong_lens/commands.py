"""The rules commands: score, settle, waits.  Thin: parsing, printing, exit codes."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from mahjong_lens.summaries import result_lines, table_lines
from mahjong_lens.rules.words import holds_lone_surrogate, plural
from mahjong_lens.rules.decompose import hand_waits
from mahjong_lens.rules.hand import Hand, HandError, validate_hand
from mahjong_lens.rules.registry import RULE_SETS, OptionError, make_settings, parse_option_pairs, score
from mahjong_lens.rules.tiles import NotationError, parse_tiles, tile_unicode, tiles_named
from mahjong_lens.rules.win_tile import score_or_ask


# `score` exits 0 on a score, 2 on a hand that cannot be scored or bad input, and this on a
# question whose every answer is scored in the output (docs/formats.md, "A question")
QUESTION_EXIT = 3


def _fail(message: str) -> int:
    print(f"mahjong-lens: {message}", file=sys.stderr)
    return 2


def read_json(path: str) -> Any:
    """Read JSON from a file or '-' (stdin); raises ValueError with a one-line message."""
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not valid JSON: {error.msg} (line {error.lineno}, "
                         f"column {error.colno})") from None
    except RecursionError:
        raise ValueError(f"{path} is nested too deeply to be a hand") from None
    if holds_lone_surrogate(data):
        raise ValueError(f"{path} holds text that is no valid Unicode (a lone surrogate such as \\ud800)")
    return data


def configure_score(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("hand", help="hand JSON file (the format of spec/hand-format.md), - for stdin")
    parser.add_argument("--rules", choices=list(RULE_SETS), default="rode-draak")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="change a setting of the rule set, e.g. kiriage=true")
    parser.add_argument("--json", action="store_true", help="print the result format (docs/formats.md)")


def run_score(args: argparse.Namespace) -> int:
    try:
        data = read_json(args.hand)
        options = parse_option_pairs(args.option)
        make_settings(args.rules, options)  # a bad setting is one line, before any scoring
        # as the page's /api/score: a won hand without its winning tile is asked about
        result = score_or_ask(data, args.rules, options) if isinstance(data, dict) else \
            score(data, args.rules, options).to_dict()
    except (ValueError, OptionError) as error:
        return _fail(str(error))
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else "\n".join(result_lines(result, "")))
    if result["valid"]:
        return 0
    return QUESTION_EXIT if result.get("question") else 2


def configure_settle(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("table", help='table JSON: {"prevalent_wind": "E", "hands": {"E": HAND, ...}}')
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", action="store_true", help="print the table format's output (docs/formats.md)")


def run_settle(args: argparse.Namespace) -> int:
    from mahjong_lens.rules.rode_draak import TableError, settle_table
    try:
        data = read_json(args.table)
        outcome = settle_table(data, parse_option_pairs(args.option))
    except (ValueError, OptionError, TableError) as error:
        return _fail(str(error))
    print(json.dumps(outcome, indent=2, ensure_ascii=False) if args.json else "\n".join(table_lines(outcome)))
    return 0


def configure_waits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tiles", help="13 tiles (plus one per kong), e.g. 1112345678999m")


def run_waits(args: argparse.Namespace) -> int:
    try:
        tiles = parse_tiles(args.tiles)
        hand = Hand(concealed=tuple(tiles))
        validate_hand(hand, check_count=False)
    except (NotationError, HandError) as error:
        return _fail(str(error))
    if len(tiles) % 3 != 1:
        return _fail(f"{len(tiles)} tiles: a hand one tile short has 13 (or 10, 7, 4 beside melds)")
    found = hand_waits(hand)
    if not found:
        print("not waiting: no tile completes this hand")
        return 0
    print(f"waits on {plural(len(found), 'tile')}: {tiles_named(found)}  "
          + " ".join(tile_unicode(t) for t in found))
    return 0
