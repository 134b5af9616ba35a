"""What the layout finds: a hand (concealed tiles, melds, the winning tile), the photo's layout."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mahjong_lens.rules.hand import SetType
from mahjong_lens.rules.tiles import plain

from .thresholds import BACK


@dataclass
class MeldLayout:
    """A declared set as laid out: its detections in reading order."""

    type: SetType | str       # chow, pung or kong; "?" when the tiles make no set
    open: bool                # False only for a concealed kong (two face-down tiles)
    tiles: list[str]          # the faces read, "back" for a face-down tile
    indices: list[int]        # detection indices, reading order
    sideways: list[int] = field(default_factory=list)
    reread: list[int] = field(default_factory=list)  # tiles read as a next choice, to make the set

    @property
    def hand_tiles(self) -> list[str]:
        """The tiles of the set, the face-down tiles of a concealed kong filled in."""
        faces = [t for t in self.tiles if t != BACK]
        if self.type == SetType.KONG and faces and len(faces) < 4:
            return faces + [plain(faces[0])] * (4 - len(faces))
        return faces


@dataclass
class HandLayout:
    """One player's hand: its rows' tiles split into concealed tiles and melds."""

    indices: list[int]                 # every detection of the hand, in reading order
    concealed: list[str]               # reading order, the winning tile included
    concealed_indices: list[int]
    melds: list[MeldLayout]
    win_tile: str | None = None
    win_index: int | None = None       # detection index of the tile set apart as the winning tile
    flowers: list[int] = field(default_factory=list)  # flowers and seasons shown beside the hand
    centre: tuple[float, float] = (0.0, 0.0)
    direction: tuple[float, float] = (1.0, 0.0)  # reading direction, image coordinates
    direction_from: str = "image"      # what decided the reading direction
    problems: list[str] = field(default_factory=list)  # notes: what was assumed
    reread: list[int] = field(default_factory=list)    # concealed tiles read as a next choice, to win
    errors: list[str] = field(default_factory=list)    # what stops the hand from being scored
    # the concealed row's line (a point and its direction), where lone tiles are looked for
    line: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    @property
    def tile_count(self) -> int:
        return len(self.concealed) + sum(len(m.tiles) for m in self.melds)

    @property
    def kong_count(self) -> int:
        return sum(m.type == SetType.KONG for m in self.melds)

    def reading(self) -> tuple[list[str], str | None, list[tuple[str, bool, str]]]:
        """What the hand holds, whatever the order it was read in: sorted concealed tiles,
        the winning tile, and the melds as sorted (type, open, tiles); the form of
        datasets.synth.expected_reading, so a layout can be checked against a scene."""
        melds = sorted((m.type, m.open, "".join(sorted(m.hand_tiles))) for m in self.melds)
        return sorted(self.concealed), self.win_tile, melds


@dataclass
class Layout:
    hands: list[HandLayout]
    dora_indicators: list[str]
    dora_indices: list[int]
    dead_wall: list[int]               # the dead wall's detections (indicators included)
    unassigned: list[int]              # detections that belong to no hand and no wall
    doubtful: list[int]                # low-confidence readings: the page should ask
    sideways: list[int]
    rows: list[list[int]]              # every row found, reading order (for drawing and debugging)
    problems: list[str] = field(default_factory=list)

    def rereadings(self) -> dict[int, str]:
        """The detections the layout read as a next choice (to make a set, or the hand a
        win), and the face each was given."""
        faces: dict[int, str] = {}
        for hand in self.hands:
            for i in hand.reread:
                faces[i] = (hand.concealed[hand.concealed_indices.index(i)]
                            if i in hand.concealed_indices else hand.win_tile)
            for meld in hand.melds:
                faces.update((i, meld.tiles[meld.indices.index(i)]) for i in meld.reread)
        return faces

    def role(self, index: int) -> tuple[str, int | None, int | None]:
        """(role, hand number, meld number) of a detection."""
        for h, hand in enumerate(self.hands):
            if index == hand.win_index:
                return "win", h, None
            if index in hand.concealed_indices:
                return "concealed", h, None
            for m, meld in enumerate(hand.melds):
                if index in meld.indices:
                    return "meld", h, m
            if index in hand.flowers:
                return "flower", h, None
        if index in self.dora_indices:
            return "dora", None, None
        if index in self.dead_wall:
            return "dead_wall", None, None
        return "unassigned", None, None
