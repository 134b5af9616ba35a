"""The result format of ../shared/spec/hand-format.md, shared by every rule set."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


def line_id(*parts: str) -> str:
    """A breakdown line's id from its parts: ``line_id("doubling", "Pung of dragons")`` is
    ``doubling:pung-of-dragons``. Ids are made from the rule set's own names (the English
    row name, a WSOM pattern number, the riichi library's yaku name), not from the sentence
    shown, so rewording a line's text for players leaves its id alone."""
    return ":".join(re.sub(r"[^a-z0-9.]+", "-", part.lower()).strip("-") for part in parts if part)


@dataclass(frozen=True)
class Line:
    """One line of a breakdown, in rulebook words: ``Pung of dragons`` / ``x2``, and its
    stable id (``doubling:pung-of-dragons``): what a referee's claim is matched on."""

    name: str
    value: str
    id: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "value": self.value}


@dataclass
class Result:
    rules: str
    valid: bool
    winning: bool = False
    points: int = 0
    breakdown: list[Line] = field(default_factory=list)
    payments: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # rule-set fields: han, fu, limit, ...
    # the few facts of the count a player reads beside the points, in the rule set's words
    # ("32 points before doubling", "doubled 4 times", "5 han 30 fu", "mangan"): what the page
    # shows, where the fields above are for programs
    facts: list[str] = field(default_factory=list)

    @property
    def transfers(self) -> list[dict[str, Any]]:
        """Who pays whom for one hand: every seat that loses pays the one that gains (a
        single hand has one receiver, the winner; a table's settlement, with payments between
        the losers, is rules.rode_draak.settle_table's)."""
        receivers = [seat for seat, amount in self.payments.items() if amount > 0]
        if len(receivers) != 1:
            return []
        return [{"from": seat, "to": receivers[0], "amount": -amount}
                for seat, amount in self.payments.items() if amount < 0]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rules": self.rules, "valid": self.valid, "winning": self.winning,
            "points": self.points, "breakdown": [line.to_dict() for line in self.breakdown],
            "payments": dict(self.payments),
        }
        if self.transfers:
            out["transfers"] = self.transfers
        if self.error is not None:
            out["error"] = self.error
        out["facts"] = list(self.facts)
        out.update(self.extra)
        return out


def invalid(rules: str, error: str, winning: bool = False, **extra: Any) -> Result:
    """A hand that cannot be scored, with a sentence a player understands."""
    return Result(rules=rules, valid=False, winning=winning, error=error, extra=dict(extra))


def counted(default: int, low: int, high: int) -> Any:
    """A whole-number setting of a rule set's Settings, with the range a value must keep to
    (checked where options are read: rules.registry.make_settings)."""
    return field(default=default, metadata={"range": (low, high)})
