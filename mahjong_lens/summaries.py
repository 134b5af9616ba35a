"""What the command line prints for a player to read: a score with its lines and who pays
whom, a question with each answer's score, a table settled. `--json` prints the formats of
docs/formats.md instead."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mahjong_lens.rules.registry import rule_set
from mahjong_lens.rules.tiles import WIND_NAMES


def payment_lines(result: Mapping[str, Any], indent: str = "  ") -> list[str]:
    """Who pays whom, one line a payment: "South pays East 1024"."""
    return [f"{indent}{WIND_NAMES.get(t['from'], t['from'])} pays {WIND_NAMES.get(t['to'], t['to'])} {t['amount']}"
            for t in result.get("transfers", []) if t.get("amount")]


def question_lines(answer: Mapping[str, Any], indent: str = "  ",
                   give_tile: str = "give it as win_tile in the hand") -> list[str]:
    """A question of rules.win_tile (its kind, sentence and candidates) with each answer scored,
    and how to give the answer (`give_tile`: how this command takes the winning tile)."""
    kind = answer.get("question")
    if kind == "win_way":
        drawn, discard = (f"{'no win' if c['points'] is None else c['points']}{' at most' if c.get('then') else ''}"
                          for c in answer["way_candidates"])
        return [f"{indent}self-drawn or a discard? self-drawn {drawn}, on a discard {discard} (points); "
                "give --self-drawn or --discarder"]
    if kind == "not_won":
        lost = answer["way_candidates"][0]
        return [f"{indent}did the hand win? As a hand that did not win it scores {lost['points']} points; "
                "leave out --self-drawn and --discarder to score it so"]
    if kind == "kong_in_row":
        return [f"{indent}four alike in the row: a kong? " + ", ".join(
            f"{'open' if c['open'] else 'concealed'} {c['tile']} {c['points']}"
            for c in answer["kong_candidates"]) + " points; set the kong a little apart, or say it on the page"]
    if kind == "red_five":
        return [f"{indent}{answer.get('error')} " + ", ".join(
            f"{'one red ' + c['tile'] if c['tile'] else 'no red fives'}: "
            f"{'no win' if c['points'] is None else ('up to ' if c['then'] else '') + str(c['points'])}"
            for c in answer["red_candidates"]) + " points; give --option red_fives=false, or correct the "
            "tile on the page"]
    if kind:  # which tile won: one in the hand, or one out of the photo
        return [f"{indent}which tile completed the hand? " + ", ".join(
            f"{c['tile']} {c['points']}" for c in answer["win_candidates"]) + f" points; {give_tile}"]
    return []


def result_lines(result: Mapping[str, Any], indent: str = "  ") -> list[str]:
    """A result in a player's words: the points and the rule set, each line that counted, who
    pays whom, any note; or why it has no score; or the question and its answers."""
    if result.get("question"):
        return question_lines(result, indent)
    title = rule_set(result["rules"]).title if result.get("rules") else ""
    if not result.get("valid"):
        return [f"{indent}not scored ({title}): {result.get('error')}"]
    lines = [f"{indent}{result['points']} points ({title})"]
    lines += [f"{indent}  {line['name']}: {line['value']}" for line in result.get("breakdown", [])]
    lines += payment_lines(result, indent)
    if result.get("note"):
        lines.append(f"{indent}note: {result['note']}")
    return lines


def table_lines(outcome: Mapping[str, Any]) -> list[str]:
    """A table settled: each seat's points, then every payment between two players."""
    lines = []
    for seat, result in outcome["seats"].items():
        name = WIND_NAMES.get(seat, seat)
        won = " (Mahjong)" if outcome.get("winner") == seat else ""
        if result.get("valid"):
            lines.append(f"{name}{won}: {result['points']} points, net {outcome['payments'][seat]:+d}")
        else:
            lines.append(f"{name}: {result.get('error')}, net {outcome['payments'][seat]:+d}")
    return lines + payment_lines(outcome, indent="")
