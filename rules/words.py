"""Words as a player reads them, and text as a player types it: counts ("1 kong", "2 kongs",
"no kongs", never "kong(s)"; "once", "twice"), text no page could show (lone surrogates), and
whole numbers typed as text."""
from __future__ import annotations

import re


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``plural(1, "tile")`` is "1 tile", ``plural(3, "tile")`` "3 tiles", ``plural(0, "kong")``
    "no kongs"; ``nouns`` for an irregular plural."""
    many = nouns or f"{noun}s"
    if count == 0:
        return f"no {many}"
    return f"{count} {noun if count == 1 else many}"


def plural_word(count: int, noun: str, nouns: str | None = None) -> str:
    """The noun alone, as the count wants it: "seat" for one, "seats" for more."""
    return noun if count == 1 else (nouns or f"{noun}s")


def times(count: int) -> str:
    """How often: "once", "twice", "3 times"."""
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def readable(value):
    """The value with every lone surrogate (text no UTF-8 can hold, sent as "\\ud800" in JSON)
    replaced by U+FFFD, through lists and dicts: what a page can always show and encode."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [readable(item) for item in value]
    if isinstance(value, dict):
        return {readable(key): readable(item) for key, item in value.items()}
    return value


def holds_lone_surrogate(value) -> bool:
    """Whether text anywhere in the value holds a lone surrogate."""
    return readable(value) != value


_WHOLE = re.compile(r"-?[0-9]{1,30}")


def whole_number(text: str) -> int | None:
    """A whole number typed as text ("12", "-3"), None for anything else: "--2", "²", "1e3",
    and more digits than any count here needs (int() would take some of them, or choke)."""
    text = text.strip()
    return int(text) if _WHOLE.fullmatch(text) else None
