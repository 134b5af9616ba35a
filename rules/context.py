"""The context of a hand: the one parser for the page's form, the API's JSON, the camera's
query string and the command line's flags.

What a hand's tiles do not say: the seat and prevalent winds, how it was won (self-drawn, or
a discard and by whom, or not at all), the situation flags, the winning tile when the photo
does not set it apart, and the dora and ura-dora indicators.  Every entry point hands its
fields to ``context_from_fields`` and gets the same checked dict (the hand format's field
names), or a ContextError that says which field is wrong and why.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .hand import SITUATION_FLAGS
from .tiles import WINDS, NotationError, parse_tile, parse_tiles

# the fields a context may have, as the hand format names them, plus "win" (self_drawn,
# discard or none: the page's radio buttons) and the situation flags one by one (checkboxes)
CONTEXT_FIELDS = ("seat_wind", "prevalent_wind", "win", "self_drawn", "discarder", "situation",
                  "win_tile", "dora_indicators", "ura_dora_indicators") + tuple(SITUATION_FLAGS)

_TRUE = {"1", "true", "on", "yes"}


class ContextError(ValueError):
    """A context field that cannot be read: the message names the field and says why."""


def flag(value: Any) -> bool:
    """A checkbox or a JSON boolean: true for true, "1", "true", "on", "yes"."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE


def wind_field(value: Any, field: str) -> str | None:
    """E, S, W or N (any case), None when empty."""
    if value in (None, ""):
        return None
    text = str(value).strip().upper()
    if text not in WINDS:
        raise ContextError(f"{field} must be one of E, S, W, N (got {value!r})")
    return text


def context_from_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The hand context from form fields, a JSON object or command-line values.

    ``win`` is ``self_drawn``, ``discard`` (then ``discarder`` is the discarder's seat wind)
    or ``none``; situation flags come as an object or as checkboxes named after the flags;
    the winning tile and the indicators are written in tile notation (indicators also as a
    list).  Fields it does not know are left to the caller.
    """
    context: dict[str, Any] = {}
    for key in ("seat_wind", "prevalent_wind"):
        wind = wind_field(fields.get(key), key)
        if wind:
            context[key] = wind
    win = str(fields.get("win", "") or "").strip()
    if "self_drawn" in fields:
        context["self_drawn"] = flag(fields["self_drawn"])
    if win == "self_drawn":
        context["self_drawn"] = True
    elif win == "discard":
        context["self_drawn"] = False
    if win == "none":  # a hand that did not win (Rode Draak scores every hand)
        context["self_drawn"] = False
    elif not context.get("self_drawn"):
        discarder = wind_field(fields.get("discarder"), "discarder")
        if discarder:
            context["discarder"] = discarder
    situation = fields.get("situation")
    if isinstance(situation, Mapping):
        context["situation"] = {k: flag(v) for k, v in situation.items()}
    elif isinstance(situation, (list, tuple)):  # the command line's repeated --situation
        if situation:
            context["situation"] = {k: True for k in situation}
    else:
        flags = {name: flag(fields[name]) for name in SITUATION_FLAGS if name in fields}
        if flags:
            context["situation"] = flags
    if fields.get("win_tile"):  # the winning tile, when the photo does not set it apart
        try:
            context["win_tile"] = parse_tile(str(fields["win_tile"]))
        except NotationError as error:
            raise ContextError(f"win tile: {error}") from None
    for key in ("dora_indicators", "ura_dora_indicators"):
        value = fields.get(key)
        if value in (None, "", []):
            continue
        try:
            context[key] = parse_tiles("".join(value) if isinstance(value, list) else str(value))
        except NotationError as error:
            raise ContextError(f"{key.replace('_', ' ')}: {error}") from None
    return context


def unknown_fields(fields: Mapping[str, Any], also: tuple[str, ...] = ()) -> list[str]:
    """The names among `fields` that are no context field (nor one of `also`)."""
    return sorted(set(fields) - set(CONTEXT_FIELDS) - set(also))
