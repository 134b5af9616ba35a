"""The referee's check: a claimed score against the computed one, line by line.

A claim is the points, optionally the breakdown lines ("Name: value", {"name", "value"} or
{"id", "value"})
and each seat's payment; the differences are sentences a referee reads out.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .words import times
from .result import line_id
from .tiles import WINDS


class ClaimError(ValueError):
    """A claim that cannot be read: the message says how it should be written."""


def claimed_lines_from(value: Any) -> list[dict[str, str]] | None:
    """Claimed breakdown lines: [{"id" or "name", "value"}] or text "Name: value" per line."""
    if value in (None, "", []):
        return None
    if isinstance(value, str):
        value = [line for line in value.splitlines() if line.strip()]
    if not isinstance(value, list):
        raise ClaimError("claimed_breakdown must be a list of lines")
    lines = []
    for item in value:
        if isinstance(item, Mapping) and ("name" in item or "id" in item):
            line = {"name": str(item.get("name") or item.get("id")).strip(),
                    "value": str(item.get("value", "")).strip()}
            if item.get("id"):
                line["id"] = str(item["id"]).strip()
            lines.append(line)
        elif isinstance(item, str):
            name, _, line_value = item.rpartition(":") if ":" in item else (item, "", "")
            lines.append({"name": name.strip(), "value": line_value.strip()})
        else:
            raise ClaimError("each claimed line is {\"name\": ..., \"value\": ...} or 'Name: value'")
    return lines


def _normal(text: str) -> str:
    return " ".join(str(text).lower().split())


def _claimed_id(line: Mapping[str, str], computed: list[dict[str, str]]) -> str:
    """The id of the computed line a claimed line means: its own id (the API), else the line
    whose name or id it gives (a referee types "Pung of dragons" or "doubling:pung-of-dragons");
    a line that names nothing computed keeps its words, and is then "claimed, but it does not apply"."""
    if line.get("id"):
        return line["id"]
    words = _normal(line["name"])
    as_id = line_id(*words.split(":"))
    for other in computed:
        if words == _normal(other["name"]) or other["id"] == as_id:
            return other["id"]
    return "claimed:" + words


# the breakdown's totals (Rode Draak's "Score: 32 points x 16 = 512", riichi's fu, limit and
# points), not lines a player claims: a claim's points are compared with them
TOTAL_LINES = frozenset({"score", "fu", "limit", "points"})


def compare_claim(claimed: dict[str, Any], computed: dict[str, Any]) -> list[str]:
    """The lines where the claim and the computed result differ (empty: they agree).
    Lines are matched on their ids (rules.result.Line.id), never on the sentence shown."""
    differences = []
    if not computed.get("valid"):  # no claim, not even 0, agrees with a hand that has no score
        differences.append(f"The hand cannot be scored: {computed.get('error')}")
    elif claimed["points"] != computed.get("points"):
        differences.append(f"Points: claimed {claimed['points']}, computed {computed.get('points')}")
    if "breakdown" in claimed and computed.get("valid"):
        computed_lines = computed.get("breakdown", [])
        by_id: dict[str, list[dict[str, str]]] = {}
        for line in computed_lines:
            by_id.setdefault(line["id"], []).append(line)
        claimed_ids: dict[str, list[Mapping[str, str]]] = {}
        for line in claimed["breakdown"]:
            claimed_ids.setdefault(_claimed_id(line, computed_lines), []).append(line)
        for key, lines in claimed_ids.items():
            others = by_id.get(key, [])
            for number, line in enumerate(lines):
                shown = line["name"] if not others else others[0]["name"]
                if number >= len(others):
                    often = f" {times(len(lines))}, but it counts {times(len(others))}" if others else ""
                    differences.append(f"{shown} ({line['value']}): claimed{often or ', but it does not count'}")
                elif line["value"] and _normal(line["value"]) != _normal(others[number]["value"]):
                    differences.append(f"{shown}: claimed {line['value']}, computed {others[number]['value']}")
        for key, lines in by_id.items():
            if key in TOTAL_LINES:  # the totals: the points above compare them
                continue
            for line in lines[len(claimed_ids.get(key, [])):]:
                differences.append(f"{line['name']} ({line['value']}) counts, but was not claimed")
    if "payments" in claimed and computed.get("valid"):
        for seat in WINDS:
            mine, theirs = claimed["payments"].get(seat), computed.get("payments", {}).get(seat)
            if mine is not None and mine != theirs:
                differences.append(f"Payment of {seat}: claimed {mine}, computed {theirs}")
    return differences
