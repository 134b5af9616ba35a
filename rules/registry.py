"""Which rule sets exist, and scoring by name: the one entry point the CLI and the web use."""
from __future__ import annotations

import dataclasses
import functools
import importlib
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .hand import Hand, HandError, hand_from_dict
from .result import Result, invalid

RULE_SETS = {"rode-draak": "mahjong_lens.rules.rode_draak", "riichi": "mahjong_lens.rules.riichi",
             "wsom": "mahjong_lens.rules.wsom"}


class OptionError(ValueError):
    """An unknown rule set or setting, or a setting with a value of the wrong kind."""


def rules_module(name: str):
    if name not in RULE_SETS:
        raise OptionError(f"unknown rule set {name!r}: choose one of {', '.join(RULE_SETS)}")
    return importlib.import_module(RULE_SETS[name])


@dataclass(frozen=True)
class RuleSet:
    """What a rule set can do, as data its module declares: callers ask this, not its name."""

    name: str
    title: str
    scores_every_hand: bool                       # hands that did not win are scored too
    settle_table: Callable[..., dict] | None      # four hands of a table settled together


def rule_set(name: str) -> RuleSet:
    module = rules_module(name)
    return RuleSet(name, module.TITLE, module.SCORES_EVERY_HAND, getattr(module, "settle_table", None))


def _convert(name: str, value: Any, kind: Any, span: tuple[int, int] | None = None) -> Any:
    origin = typing.get_origin(kind)
    if kind is bool or kind == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
        raise OptionError(f"setting {name} takes true or false, not {value!r}")
    if kind is int or kind == "int":
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise OptionError(f"setting {name} takes a whole number, not {value!r}")
        try:
            number = int(value)
        except (TypeError, ValueError, OverflowError):
            raise OptionError(f"setting {name} takes a whole number, not {value!r}") from None
        if span is not None and not span[0] <= number <= span[1]:
            raise OptionError(f"setting {name} runs from {span[0]} to {span[1]}, not {value!r}")
        return number
    if origin is typing.Literal:
        if value not in typing.get_args(kind):
            choices = ", ".join(map(str, typing.get_args(kind)))
            raise OptionError(f"setting {name} takes one of {choices}, not {value!r}")
        return value
    return value


@functools.lru_cache(maxsize=None)
def _setting_types(settings_cls: type) -> dict[str, Any]:
    return typing.get_type_hints(settings_cls)


def make_settings(name: str, options: dict[str, Any] | None = None) -> Any:
    """The rule set's Settings with ``options`` (name -> value, text or typed) applied."""
    settings_cls = rules_module(name).Settings
    if not options:
        return settings_cls()
    hints = _setting_types(settings_cls)
    known = {f.name: f for f in dataclasses.fields(settings_cls)}
    values = {}
    for key, value in (options or {}).items():
        key = key.replace("-", "_")
        if key not in known:
            raise OptionError(f"{name} has no setting {key!r}; its settings: {', '.join(sorted(known))}")
        values[key] = _convert(key, value, hints[key], known[key].metadata.get("range"))
    return settings_cls(**values)


def parse_option_pairs(pairs: list[str]) -> dict[str, str]:
    """['kiriage=true', ...] -> {'kiriage': 'true'} (the CLI's --option)."""
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise OptionError(f"--option takes NAME=VALUE, not {pair!r}")
        options[key.strip()] = value.strip()
    return options


def score(hand: Hand | dict, rules: str, options: dict[str, Any] | None = None) -> Result:
    """Score a hand (a Hand or its JSON dict) under a rule set; never raises on a bad hand."""
    module = rules_module(rules)
    settings = make_settings(rules, options)
    if not isinstance(hand, Hand):
        try:
            hand = hand_from_dict(hand)
        except HandError as error:
            return invalid(rules, str(error))
    return module.score(hand, settings)
