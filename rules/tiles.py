"""Tiles and the tile notation of ../shared/spec/hand-format.md: the one home of both.

A tile is written as a two-character code: a number and a suit letter.
``1m``..``9m`` characters, ``1p``..``9p`` dots, ``1s``..``9s`` bamboo,
``1z``..``7z`` East South West North White Green Red, ``0m`` ``0p`` ``0s`` red
fives, ``1f``..``8f`` flowers and seasons.  Internally a tile *kind* is an index
0..41 in the canonical class order of the data README (red fives share the
index of their plain five; the red flag is kept on the code).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

SUITS = "mpsz"
SUIT_NAMES = {"m": "characters", "p": "dots", "s": "bamboo", "z": "honours", "f": "flowers"}
WINDS = ("E", "S", "W", "N")
WIND_NAMES = {"E": "East", "S": "South", "W": "West", "N": "North"}
WIND_TILES = {"E": "1z", "S": "2z", "W": "3z", "N": "4z"}

# -- tile kinds (index 0..33: 1m..9m 1p..9p 1s..9s E S W N White Green Red), the one
# vocabulary every scorer tests its conditions with
NUM_KINDS = 34  # playing tiles without flowers
WIND_KINDS = (27, 28, 29, 30)       # East South West North, in seat order
DRAGON_KINDS = (31, 32, 33)         # White Green Red
HONOUR_KINDS = frozenset(range(27, 34))
TERMINAL_KINDS = frozenset([0, 8, 9, 17, 18, 26])
TERMINAL_AND_HONOUR_KINDS = TERMINAL_KINDS | HONOUR_KINDS   # the Dutch "edelstenen"
SIMPLE_KINDS = frozenset(range(27)) - TERMINAL_KINDS
SUIT_KINDS = {letter: frozenset(range(base, base + 9)) for letter, base in (("m", 0), ("p", 9), ("s", 18))}
GREEN_KINDS = frozenset([19, 20, 21, 23, 25, 32])  # 2 3 4 6 8 bamboo, green dragon


def kind_suit(k: int) -> str:
    """The suit letter of a kind: m, p, s or z."""
    return "mpsz"[k // 9]


def kind_number(k: int) -> int:
    """1..9 in a suit; 1..7 among the honours (East ... Red)."""
    return k % 9 + 1


def is_honour_kind(k: int) -> bool:
    return k in HONOUR_KINDS


def is_wind_kind(k: int) -> bool:
    return k in WIND_KINDS


def is_dragon_kind(k: int) -> bool:
    return k in DRAGON_KINDS


def is_terminal_kind(k: int) -> bool:
    return k in TERMINAL_KINDS


def is_terminal_or_honour_kind(k: int) -> bool:
    return k in TERMINAL_AND_HONOUR_KINDS


# how a player names each tile, and what is printed on it: the face (its number, a wind's
# letter, a dragon's letter) and the word under it. One home for every surface: the page, the
# photo's labels, the hand editor, the command line and the annotation all take these.
SUIT_WORDS = {"m": "char", "p": "dots", "s": "bam"}   # the suit's short word on a small label
_HONOUR_FACES = {"1z": ("E", "East"), "2z": ("S", "South"), "3z": ("W", "West"), "4z": ("N", "North"),
                 "5z": ("", "White"), "6z": ("G", "Green"), "7z": ("R", "Red")}
_BONUS_WORDS = {"1f": "Plum", "2f": "Orchid", "3f": "Chrysanthemum", "4f": "Bamboo",
                "5f": "Spring", "6f": "Summer", "7f": "Autumn", "8f": "Winter"}
_NAMES = {
    "1z": "East", "2z": "South", "3z": "West", "4z": "North",
    "5z": "White dragon", "6z": "Green dragon", "7z": "Red dragon",
    "back": "face-down tile",  # what a recogniser reads of a tile's back (a reading, not a tile)
}
# Unicode Mahjong Tiles block: winds, dragons, characters, bamboo, dots, flowers, seasons.
_UNICODE_BASE = {"m": 0x1F007, "s": 0x1F010, "p": 0x1F019}
_UNICODE_HONOURS = {"1z": 0x1F000, "2z": 0x1F001, "3z": 0x1F002, "4z": 0x1F003,
                    "5z": 0x1F006, "6z": 0x1F005, "7z": 0x1F004}
UNICODE_BACK = "\U0001F02B"


class NotationError(ValueError):
    """Text that is not in the tile notation."""


_TOKEN = re.compile(r"(\d+)([a-z])")
_MAX_NUMBER = {"m": 9, "p": 9, "s": 9, "z": 7, "f": 8}


def parse_tiles(text: str) -> list[str]:
    """Parse notation such as ``123m406p55z`` into tile codes, in order.

    Red fives stay ``0m``/``0p``/``0s``.  Spaces between groups are allowed.
    Raises NotationError with a sentence that says what is wrong.
    """
    if not isinstance(text, str):
        raise NotationError(f"tiles are written as text, such as 123m55z (got {describe_value(text)})")
    compact = "".join(text.split())
    if not compact:
        raise NotationError("no tiles given: write them as numbers and a suit letter, such as 123m55z")
    tiles: list[str] = []
    position = 0
    for match in _TOKEN.finditer(compact):
        if match.start() != position:
            raise NotationError(_unreadable(compact, position))
        digits, suit = match.groups()
        if suit not in _MAX_NUMBER:
            raise NotationError(
                f"unknown suit letter '{suit}' in '{match.group()}': use m (characters), "
                "p (dots), s (bamboo), z (honours) or f (flowers/seasons)")
        for digit in digits:
            number = int(digit)
            if number == 0 and suit not in "mps":
                raise NotationError(f"'0{suit}' is not a tile: 0 (red five) exists only in m, p and s")
            if number > _MAX_NUMBER[suit]:
                raise NotationError(
                    f"'{digit}{suit}' is not a tile: {SUIT_NAMES[suit]} run 1-{_MAX_NUMBER[suit]}")
            tiles.append(f"{digit}{suit}")
        position = match.end()
    if position != len(compact):
        raise NotationError(_unreadable(compact, position))
    return tiles


def describe_value(value: object) -> str:
    """A JSON value in a player's words, for a message that says what was sent instead."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value:g}" if isinstance(value, float) else f"the number {value}"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "something else"


def _unreadable(text: str, position: int) -> str:
    rest = text[position:]
    if rest and rest[0].isdigit():
        return f"'{rest}' has numbers without a suit letter (m, p, s, z or f) after them"
    return f"cannot read '{rest}' in '{text}': write numbers followed by a suit letter, e.g. 123m55z"


def parse_tile(text: str) -> str:
    """Parse exactly one tile."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise NotationError(f"'{text}' is {len(tiles)} tiles, one was expected")
    return tiles[0]


def format_tiles(tiles: Iterable[str], sort: bool = True) -> str:
    """Write tiles in the compact notation, e.g. ['1m','2m','5z'] -> '12m5z'."""
    tiles = list(tiles)
    if sort:
        tiles = sorted(tiles, key=sort_key)
    out: list[str] = []
    for tile in tiles:
        if out and out[-1][-1] == tile[1]:
            out[-1] = out[-1][:-1] + tile
        else:
            out.append(tile)
    return "".join(out)


def sort_key(tile: str) -> tuple[int, int]:
    """Order by suit (m p s z f), then number, a red five just after the plain five."""
    return ("mpszf".index(tile[1]), int(tile[0]) if tile[0] != "0" else 5, tile[0] == "0")


def _kind(tile: str) -> int:
    number, suit = tile[0], tile[1]
    number = 5 if number == "0" else int(number)
    if suit == "f":
        return 33 + number
    return "mpsz".index(suit) * 9 + number - 1


_KINDS = {f"{n}{s}": _kind(f"{n}{s}") for s in "mps" for n in range(10)} | \
    {f"{n}z": _kind(f"{n}z") for n in range(1, 8)} | {f"{n}f": _kind(f"{n}f") for n in range(1, 9)}


def kind(tile: str) -> int:
    """Index 0..41 in the canonical class order; a red five maps to its five."""
    return _KINDS[tile]


def kind_tile(index: int) -> str:
    """The plain tile code of a kind index."""
    if index >= 34:
        return f"{index - 33}f"
    return f"{index % 9 + 1}{SUITS[index // 9]}"


def is_red(tile: str) -> bool:
    return tile[0] == "0"


def four_plain_fives(tiles: Iterable[str]) -> list[str]:
    """The suits (m, p, s, in that order) of which `tiles` hold four plain fives: with one
    red five a suit (riichi's red fives) one of them must be the red one."""
    fives = Counter(t[1] for t in tiles if t[0] == "5" and t[1] in "mps")
    return [s for s in "mps" if fives[s] == 4]


def suit(tile: str) -> str:
    return tile[1]


def number(tile: str) -> int:
    """The tile's number (a red five is 5; honours 1..7)."""
    return 5 if tile[0] == "0" else int(tile[0])


def is_bonus(tile: str) -> bool:
    """Flowers and seasons."""
    return tile[1] == "f"


def is_simple(tile: str) -> bool:
    return tile[1] in "mps" and tile[0] not in "19"


def plain(tile: str) -> str:
    """The tile without its red marking: 0m -> 5m."""
    return f"5{tile[1]}" if tile[0] == "0" else tile


def to_counts(tiles: Iterable[str]) -> list[int]:
    """Counts per kind, 34 entries (flowers are not counted)."""
    counts = [0] * NUM_KINDS
    for tile in tiles:
        index = kind(tile)
        if index < NUM_KINDS:
            counts[index] += 1
    return counts


def dora_from_indicator(indicator: str) -> str:
    """The dora a dora indicator points to (Ari Ari 2.7).

    Suits: the next number, 9 -> 1.  Winds: E->S->W->N->E.
    Dragons: white -> green -> red -> white.
    """
    n, s = number(indicator), suit(indicator)
    if s in "mps":
        return f"{n % 9 + 1}{s}"
    if s == "z" and n <= 4:
        return f"{n % 4 + 1}z"
    if s == "z":
        return f"{(n - 5 + 1) % 3 + 5}z"
    raise NotationError(f"{indicator} cannot be a dora indicator")


def tile_face(tile: str) -> tuple[str, str]:
    """What is printed on the tile and the word under it, as the page draws it: ("3", "bam"),
    ("5", "dots") for a red five too, ("E", "East"), ("R", "Red"), ("3", "Autumn"), ("", "back")."""
    if tile == "back":
        return "", "back"
    if tile in _HONOUR_FACES:
        return _HONOUR_FACES[tile]
    if tile in _BONUS_WORDS:  # flowers and seasons are each numbered 1-4 on the tile
        return str((int(tile[0]) - 1) % 4 + 1), _BONUS_WORDS[tile]
    return ("5" if is_red(tile) else tile[0]), SUIT_WORDS[tile[1]]


def tile_name(tile: str) -> str:
    """A player's name for a tile: '3 of bamboo', 'Red 5 of dots', 'East', 'Red dragon',
    'Autumn (3)' (the number printed on the tile)."""
    if tile in _NAMES:
        return _NAMES[tile]
    if tile in _BONUS_WORDS:
        face, word = tile_face(tile)
        return f"{word} ({face})"
    if is_red(tile):
        return f"Red 5 of {SUIT_NAMES[tile[1]]}"
    return f"{tile[0]} of {SUIT_NAMES[tile[1]]}"


def tile_label(tile: str) -> str:
    """The same name shortened, for a label on a small tile: '3 bam', 'red 5 dots', 'East',
    'Red', 'Autumn 3', 'back'."""
    face, word = tile_face(tile)
    if tile in _HONOUR_FACES or tile == "back":
        return word
    if tile in _BONUS_WORDS:
        return f"{word} {face}"
    return f"{'red ' if is_red(tile) else ''}{face} {word}"


def tiles_named(tiles: Iterable[str]) -> str:
    """Tiles in a sentence, by their short names: '3 bam, 4 bam, East'."""
    return ", ".join(tile_label(t) for t in tiles)


def vocabulary() -> dict[str, object]:
    """The words the page uses for tiles and winds, from here (the page keeps no copy)."""
    codes = [f"{n}{s}" for s in "mps" for n in "123456789"] + [f"0{s}" for s in "mps"] + \
        [f"{n}z" for n in range(1, 8)] + [f"{n}f" for n in range(1, 9)]
    return {"winds": list(WINDS), "wind_names": dict(WIND_NAMES),
            "names": {code: tile_name(code) for code in codes + ["back"]},
            "labels": {code: tile_label(code) for code in codes + ["back"]},
            "faces": {code: list(tile_face(code)) for code in codes + ["back"]},
            "order": sorted(codes, key=sort_key)}  # the order hands are shown in


def tile_unicode(tile: str) -> str:
    """The Unicode glyph of a tile (U+1F000 block)."""
    if tile == "back":
        return UNICODE_BACK
    if tile in _UNICODE_HONOURS:
        return chr(_UNICODE_HONOURS[tile])
    if is_bonus(tile):
        n = number(tile)
        return chr(0x1F022 + n - 1) if n <= 4 else chr(0x1F026 + n - 5)
    return chr(_UNICODE_BASE[tile[1]] + number(tile) - 1)


def wind_tile(wind: str) -> str:
    """'E' -> '1z'; raises NotationError for anything but E S W N."""
    try:
        return WIND_TILES[wind]
    except (KeyError, TypeError):
        raise NotationError(f"unknown wind {wind!r}: use E, S, W or N") from None
