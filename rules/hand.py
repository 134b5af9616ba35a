"""The hand model of ../shared/spec/hand-format.md: JSON in and out, and validation.

A referee relies on validation, so every rejection says in words what is wrong.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

from .words import plural, plural_word
from .tiles import (
    WINDS, NotationError, describe_value, format_tiles, is_bonus, is_red, kind, parse_tile,
    parse_tiles, plain, sort_key, tile_name,
)

class SetType(str, Enum):
    """The kinds of set, as the notation and the JSON write them ("chow", ...): one
    vocabulary for the hand, the scorers and the layout of a photo."""

    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"
    PAIR = "pair"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


MELD_TYPES = (SetType.CHOW, SetType.PUNG, SetType.KONG)  # what a declared meld can be
SITUATION_FLAGS = ("riichi", "double_riichi", "ippatsu", "last_tile", "kong_replacement",
                   "robbing_kong", "first_turn")


class HandError(ValueError):
    """A hand that cannot be scored; ``code`` says which check failed."""

    def __init__(self, message: str, code: str = "invalid"):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Meld:
    """A declared set: ``open`` is False only for a concealed kong."""

    type: SetType
    tiles: tuple[str, ...]
    open: bool = True

    @property
    def concealed(self) -> bool:
        return not self.open

    @property
    def is_kong(self) -> bool:
        return self.type == SetType.KONG

    @property
    def first(self) -> int:
        return min(kind(t) for t in self.tiles)

    def to_dict(self) -> dict[str, Any]:
        return {"type": str(self.type), "tiles": format_tiles(self.tiles), "open": self.open}


@dataclass(frozen=True)
class Situation:
    riichi: bool = False
    double_riichi: bool = False
    ippatsu: bool = False
    last_tile: bool = False
    kong_replacement: bool = False
    robbing_kong: bool = False
    first_turn: bool = False

    def to_dict(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Hand:
    concealed: tuple[str, ...]
    melds: tuple[Meld, ...] = ()
    win_tile: str | None = None
    self_drawn: bool = False
    discarder: str | None = None
    seat_wind: str = "E"
    prevalent_wind: str = "E"
    dora_indicators: tuple[str, ...] = ()
    ura_dora_indicators: tuple[str, ...] = ()
    situation: Situation = field(default_factory=Situation)

    @property
    def winning(self) -> bool:
        return self.win_tile is not None

    @property
    def all_tiles(self) -> list[str]:
        """Every tile of the hand: concealed ones and those in melds."""
        return [*self.concealed, *(t for m in self.melds for t in m.tiles)]

    @property
    def kong_count(self) -> int:
        return sum(m.is_kong for m in self.melds)

    @property
    def fully_concealed(self) -> bool:
        """No open meld (a concealed kong keeps the hand concealed)."""
        return all(not m.open for m in self.melds)

    def to_dict(self) -> dict[str, Any]:
        return {
            "concealed": format_tiles(self.concealed),
            "melds": [m.to_dict() for m in self.melds],
            "win_tile": self.win_tile,
            "self_drawn": self.self_drawn,
            "discarder": self.discarder,
            "seat_wind": self.seat_wind,
            "prevalent_wind": self.prevalent_wind,
            "dora_indicators": list(self.dora_indicators),
            "ura_dora_indicators": list(self.ura_dora_indicators),
            "situation": self.situation.to_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def laid_out(self) -> dict[str, Any]:
        """The hand in lists, as a page draws it: the concealed tiles in order without the
        winning tile, each meld's tiles, the winning tile, the indicators (the page reads no
        notation)."""
        concealed = sorted(self.concealed, key=sort_key)
        if self.win_tile is not None and self.win_tile in concealed:
            concealed.reverse()
            concealed.remove(self.win_tile)  # the last copy: the one that won
            concealed.reverse()
        return {"concealed": concealed,
                "melds": [{"type": str(m.type), "open": m.open, "tiles": list(m.tiles)} for m in self.melds],
                "win_tile": self.win_tile, "dora_indicators": list(self.dora_indicators),
                "ura_dora_indicators": list(self.ura_dora_indicators)}


def _tiles_field(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, list):
        value = "".join(str(v) for v in value)
    try:
        return tuple(parse_tiles(value))
    except NotationError as error:
        raise HandError(f"{what}: {error}", "notation") from None


def _indicators_field(data: dict, key: str) -> list[tuple[str, ...]]:
    """A list of indicator tiles, or all of them as one notation string ("1m5z")."""
    value = data.get(key) or []
    if isinstance(value, str):
        return [_tiles_field(value, key)]
    if not isinstance(value, list):
        raise HandError(f"{key} is a list of tiles, such as [\"3m\", \"7z\"] (got "
                        f"{describe_value(value)})", "notation")
    return [_tiles_field(item, key) for item in value]


def _wind_field(data: dict, key: str, default: str | None) -> str | None:
    value = data.get(key, default)
    if value is None:
        return None
    if value not in WINDS:
        raise HandError(f"{key} must be one of E, S, W, N (got {value!r})", "notation")
    return value


def _bool_field(data: dict, key: str) -> bool:
    value = data.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise HandError(f"{key} must be true or false (got {value!r})", "notation")
    return value


def hand_from_dict(data: Any) -> Hand:
    """Build a Hand from the JSON contract; missing context fields take their defaults."""
    if not isinstance(data, dict):
        raise HandError("a hand must be a JSON object with at least 'concealed'", "notation")
    if "concealed" not in data:
        raise HandError("the hand has no 'concealed' tiles", "notation")
    concealed = _tiles_field(data["concealed"], "concealed")
    melds_data = data.get("melds") or []
    if not isinstance(melds_data, list):
        raise HandError("'melds' must be a list", "notation")
    melds = []
    for number, meld in enumerate(melds_data, 1):
        if not isinstance(meld, dict) or "tiles" not in meld:
            raise HandError(f"meld {number} must be an object with 'type' and 'tiles'", "notation")
        meld_type = meld.get("type")
        tiles = _tiles_field(meld["tiles"], f"meld {number}")
        if meld_type is None:  # infer the obvious type from the tiles
            meld_type = {3: SetType.PUNG if len({plain(t) for t in tiles}) == 1 else SetType.CHOW,
                         4: SetType.KONG}.get(len(tiles), "?")
        if meld_type not in MELD_TYPES:
            raise HandError(f"meld {number}: unknown type {meld_type!r} (chow, pung or kong)",
                            "notation")
        is_open = meld.get("open", True)
        if not isinstance(is_open, bool):
            raise HandError(f"meld {number}: 'open' must be true or false", "notation")
        melds.append(Meld(SetType(meld_type), tiles, is_open))
    win_tile = data.get("win_tile")
    if win_tile is not None:
        if not isinstance(win_tile, str):
            raise HandError(f"win_tile is one tile written as text, such as 5p or 1z (got "
                            f"{describe_value(win_tile)})", "notation")
        try:
            win_tile = parse_tile(win_tile)
        except NotationError as error:
            raise HandError(f"win_tile: {error}", "notation") from None
    situation_data = data.get("situation") or {}
    if not isinstance(situation_data, dict):
        raise HandError("'situation' must be an object of true/false flags", "notation")
    unknown = set(situation_data) - set(SITUATION_FLAGS)
    if unknown:
        raise HandError(f"unknown situation {plural_word(len(unknown), 'flag')}: {', '.join(sorted(unknown))} "
                        f"(known: {', '.join(SITUATION_FLAGS)})", "notation")
    situation = Situation(**{k: _bool_field(situation_data, k) for k in situation_data})
    dora = _indicators_field(data, "dora_indicators")
    ura = _indicators_field(data, "ura_dora_indicators")
    return Hand(
        concealed=concealed,
        melds=tuple(melds),
        win_tile=win_tile,
        self_drawn=_bool_field(data, "self_drawn"),
        discarder=_wind_field(data, "discarder", None),
        seat_wind=_wind_field(data, "seat_wind", "E"),
        prevalent_wind=_wind_field(data, "prevalent_wind", "E"),
        dora_indicators=tuple(t for group in dora for t in group),
        ura_dora_indicators=tuple(t for group in ura for t in group),
        situation=situation,
    )


def laid_out(data: Any) -> dict[str, Any] | None:
    """A hand written in the hand format, in lists for a page to draw (Hand.laid_out); None
    for one that cannot be read (the page then shows what was written)."""
    try:
        return hand_from_dict(data).laid_out()
    except HandError:
        return None


def hand_from_json(text: str) -> Hand:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise HandError(f"not valid JSON: {error.msg} at line {error.lineno} column {error.colno}",
                        "notation") from None
    return hand_from_dict(data)


def validate_meld(meld: Meld) -> None:
    kinds = sorted(kind(t) for t in meld.tiles)
    written = format_tiles(meld.tiles)
    if meld.type == SetType.CHOW:
        if len(kinds) != 3 or meld.tiles[0][1] not in "mps" or \
                kinds != [kinds[0], kinds[0] + 1, kinds[0] + 2] or \
                len({t[1] for t in meld.tiles}) != 1:
            raise HandError(f"{written} is not a chow: a chow is three consecutive tiles "
                            "of one suit", "bad_meld")
    else:
        size = 3 if meld.type == SetType.PUNG else 4
        if len(kinds) != size or len(set(kinds)) != 1:
            raise HandError(f"{written} is not a {meld.type}: a {meld.type} is {size} "
                            "identical tiles", "bad_meld")
    if meld.type != SetType.KONG and not meld.open:
        raise HandError(f"{meld.type} {written} cannot be concealed: only a kong is declared "
                        "concealed; leave concealed sets among the concealed tiles", "bad_meld")


def situation_error(hand: Hand) -> str | None:
    """A sentence for win circumstances that contradict each other, in any rule set."""
    flags = hand.situation
    if flags.kong_replacement and hand.win_tile is not None and not hand.self_drawn:
        return ("a win on a kong replacement tile is self-drawn (the winner draws it): set "
                "self-drawn, or drop the kong replacement")
    if flags.kong_replacement and hand.kong_count == 0:
        return "a win on a kong replacement tile needs a kong among the melds"
    if flags.robbing_kong and hand.self_drawn:
        return "robbing a kong is a win on another player's tile, not a self-drawn win"
    return None


def expected_tile_count(hand: Hand, winning: bool) -> int:
    """14 for a win (13 for a hand that did not win), plus one per kong."""
    return (14 if winning else 13) + hand.kong_count


def validate_hand(hand: Hand, allow_bonus: bool = False, check_count: bool = True) -> None:
    """Raise HandError if a referee would reject the hand as written."""
    tiles = hand.all_tiles
    bonus = [t for t in tiles if is_bonus(t)]
    if bonus and not allow_bonus:
        raise HandError(f"flowers and seasons are not played in these rules (the hand holds "
                        f"{', '.join('the ' + tile_name(t) for t in bonus)})", "bonus_tiles")
    for meld in hand.melds:
        validate_meld(meld)
    copies = Counter(plain(t) for t in tiles if not is_bonus(t))
    for tile, count in sorted(copies.items()):
        if count > 4:
            raise HandError(f"the {tile_name(tile)} appears {count} times; a set has only "
                            "4 of each tile", "too_many_copies")
    for tile, count in Counter(t for t in tiles if is_bonus(t)).items():
        if count > 1:
            raise HandError(f"the {tile_name(tile)} appears {count} times; each flower "
                            "and season exists once", "too_many_copies")
    reds = Counter(t[1] for t in tiles if is_red(t))
    for suit_letter, count in reds.items():
        if count > 1:
            raise HandError(f"{count} red fives of one suit (0{suit_letter}); a set has at most "
                            "one per suit", "red_fives")
    if hand.win_tile is not None and hand.win_tile not in hand.concealed:
        raise HandError(f"the winning tile, the {tile_name(hand.win_tile)}, is not among the concealed "
                        "tiles (they include the winning tile)", "win_tile")
    if check_count:
        playing = len(tiles) - len(bonus)
        expected = expected_tile_count(hand, hand.winning)
        if playing != expected:
            what = "a winning hand" if hand.winning else "a hand that did not win"
            raise HandError(
                f"{playing} tiles, but {what} with {plural(hand.kong_count, 'kong')} has {expected} "
                f"(14 for a win, 13 otherwise, plus one per kong)", "tile_count")
    indicators = [*hand.dora_indicators, *hand.ura_dora_indicators]
    flowers = [t for t in indicators if is_bonus(t)]
    if flowers:
        raise HandError(f"{tile_name(flowers[0])} cannot be a dora indicator: indicators are "
                        "tiles of the dead wall, and flowers and seasons are not among them",
                        "indicators")
    # an indicator is one of the four copies too: with the hand's own tiles, at most four
    seen = Counter(plain(t) for t in [*tiles, *indicators] if not is_bonus(t))
    for tile, count in sorted(seen.items()):
        if count > 4 and tile in map(plain, indicators):
            raise HandError(f"the {tile_name(tile)} appears {count} times with the dora "
                            "indicators: a set has only 4 of each tile", "too_many_copies")
    situation = situation_error(hand)
    if situation:
        raise HandError(situation, "situation")
    if hand.discarder is not None and hand.self_drawn:
        raise HandError("a self-drawn win has no discarder", "context")
    if hand.discarder is not None and hand.discarder == hand.seat_wind:
        raise HandError("the winner cannot win on their own discard", "context")
