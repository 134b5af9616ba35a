"""The referee's check: a claimed score against the computed one, line by line.

A claim is the points, optionally the breakdown lines ("Name: value" or {"name", "value"})
and each seat's payment; the differences are sentences a referee reads out.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .tiles import WINDS


class ClaimError(ValueError):
    """A claim that cannot be read: the message says how it should be written."""


def claimed_lines_from(value: Any) -> list[dict[str, str]] | None:
    """Claimed breakdown lines: [{"name", "value"}] or text "Name: value" per line."""
    if value in (None, "", []):
        return None
    if isinstance(value, str):
        value = [line for line in value.splitlines() if line.strip()]
    if not isinstance(value, list):
        raise ClaimError("claimed_breakdown must be a list of lines")
    lines = []
    for item in value:
        if isinstance(item, Mapping) and "name" in item:
            lines.append({"name": str(item["name"]).strip(), "value": str(item.get("value", "")).strip()})
        elif isinstance(item, str):
            name, _, line_value = item.rpartition(":") if ":" in item else (item, "", "")
            lines.append({"name": name.strip(), "value": line_value.strip()})
        else:
            raise ClaimError("each claimed line is {\"name\": ..., \"value\": ...} or 'Name: value'")
    return lines


def _normal(text: str) -> str:
    return " ".join(str(text).lower().split())


def compare_claim(claimed: dict[str, Any], computed: dict[str, Any]) -> list[str]:
    """The lines where the claim and the computed result differ (empty: they agree)."""
    differences = []
    if not computed.get("valid"):
        if claimed["points"] != 0 or claimed.get("breakdown"):
            differences.append(f"The hand cannot be scored as claimed: {computed.get('error')}")
    elif claimed["points"] != computed.get("points"):
        differences.append(f"Points: claimed {claimed['points']}, computed {computed.get('points')}")
    if "breakdown" in claimed and computed.get("valid"):
        computed_lines = {_normal(line["name"]): line for line in computed.get("breakdown", [])}
        claimed_lines = {_normal(line["name"]): line for line in claimed["breakdown"]}
        for key, line in claimed_lines.items():
            other = computed_lines.get(key)
            if other is None:
                differences.append(f"{line['name']} ({line['value']}): claimed, but it does not apply")
            elif line["value"] and _normal(line["value"]) != _normal(other["value"]):
                differences.append(f"{other['name']}: claimed {line['value']}, computed {other['value']}")
        for key, line in computed_lines.items():
            if key not in claimed_lines:
                differences.append(f"{line['name']} ({line['value']}): not claimed, but it applies")
    if "payments" in claimed and computed.get("valid"):
        for seat in WINDS:
            mine, theirs = claimed["payments"].get(seat), computed.get("payments", {}).get(seat)
            if mine is not None and mine != theirs:
                differences.append(f"Payment of {seat}: claimed {mine}, computed {theirs}")
    return differences
