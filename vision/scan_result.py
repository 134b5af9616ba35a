"""What a scan gives back: typed, until an edge (the API, `scan --json`) asks for JSON.

``ScanResult`` is the photo: every tile seen (``ScannedTile``: the detection and the role the
layout gave it), the dora indicators, and each hand found (``ScannedHand``: what was read, and
the hand's score, or the error or question that stands in its place). ``to_dict`` writes the
scan format of docs/formats.md: every hand under ``hands``; a photo of one hand also has that
hand's fields at the top.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mahjong_lens.rules.win_tile import CANDIDATE_KEYS

from .detections import TileDetection


@dataclass
class ScannedTile:
    """One detection and what the layout made of it."""

    detection: TileDetection
    role: str | None = None          # concealed, win, meld, flower, dora, dead-wall, ... (Layout.role)
    hand: int | None = None          # the hand's number in ScanResult.hands
    meld: int | None = None          # the meld's number in that hand
    sideways: bool = False           # a called tile, turned a quarter
    doubtful: bool = False           # read, but not surely: the page asks about it
    reread: str | None = None        # the face the layout took instead (a next choice that
                                     # makes a set or the win); the first reading stays a choice

    @property
    def tile(self) -> str:
        """The face the hand holds: the re-reading where the layout made one."""
        return self.reread or self.detection.tile

    @property
    def alternatives(self) -> list[tuple[str, float]]:
        """The other faces to offer: for a re-read tile, its first reading comes first."""
        if self.reread is None:
            return list(self.detection.alternatives)
        first = [(self.detection.tile, float(self.detection.face_sureness))]  # a face's, as the others
        return first + [(t, c) for t, c in self.detection.alternatives if t != self.reread]

    def to_dict(self) -> dict[str, Any]:
        out = self.detection.to_dict(sideways=self.sideways)
        out.update(tile=self.tile, role=self.role, hand=self.hand, meld=self.meld, doubtful=self.doubtful)
        if self.reread is not None:
            out["first_reading"] = self.detection.tile
        if self.alternatives:
            out["alternatives"] = [{"tile": t, "confidence": round(float(c), 3)} for t, c in self.alternatives]
        return out


@dataclass
class ScannedHand:
    """One hand of the photo: what was read, and its score or what stands in its place."""

    reading: dict[str, Any]                 # the tiles read: concealed, melds, win_tile (lists)
    problems: list[str] = field(default_factory=list)
    hand: dict[str, Any] | None = None      # the hand as scored (the hand format)
    result: dict[str, Any] | None = None    # the rule set's result (the result format)
    error: str | None = None                # why there is no score, in a player's words
    question: str | None = None             # or what to ask: win_tile, missing_win_tile, ...
    candidates: dict[str, list] = field(default_factory=dict)  # each answer, scored (CANDIDATE_KEYS)
    flowers: list[str] = field(default_factory=list)
    seat: str | None = None
    tiles: list[int] = field(default_factory=list)  # its detections, in reading order
    direction: tuple[float, float] = (1.0, 0.0)     # reading direction in the image

    @property
    def scored(self) -> bool:
        return self.hand is not None and self.result is not None

    def ask(self, answer: dict[str, Any]) -> ScannedHand:
        """Take a question of rules.win_tile (its sentence, kind and candidates) as this hand's."""
        self.error = answer.get("error")
        self.question = answer.get("question")
        self.candidates = {key: answer[key] for key in CANDIDATE_KEYS if key in answer}
        return self

    def unscored(self, error: str) -> None:
        """No score after all (a misreading found across the table): the error says why."""
        self.hand = self.result = None
        self.error = error

    def fields(self) -> dict[str, Any]:
        """The hand's own fields of the scan format (no seat, tiles or direction)."""
        out: dict[str, Any] = {"problems": list(self.problems), "reading": self.reading}
        if self.error is not None:
            out["error"] = self.error
        if self.hand is not None:
            out["hand"] = self.hand
        if self.result is not None:
            out["result"] = self.result
        if self.question is not None:
            out["question"] = self.question
        out.update(self.candidates)
        if self.flowers:
            out["flowers"] = list(self.flowers)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {**self.fields(), "seat": self.seat, "tiles": list(self.tiles),
                "direction": [round(v, 3) for v in self.direction]}


@dataclass
class ScanResult:
    """A photo read, laid out and scored."""

    image: str
    width: int
    height: int
    rules: str
    tiles: list[ScannedTile] = field(default_factory=list)
    dora_indicators: list[str] = field(default_factory=list)
    doubtful: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    hands: list[ScannedHand] = field(default_factory=list)
    error: str | None = None                # the photo as a whole: no tiles, no hand, none scored
    table: dict[str, Any] | None = None     # four hands settled (a rule set that settles tables)

    @property
    def winner(self) -> ScannedHand | None:
        """The hand that won: the only hand, or the only one scored with a winning tile."""
        if len(self.hands) == 1:
            return self.hands[0]
        won = [h for h in self.hands if h.hand and h.hand.get("win_tile")]
        return won[0] if len(won) == 1 else None

    @property
    def scored(self) -> bool:
        """Whether the photo ends in a valid score (what `scan` exits 0 on)."""
        winner = self.winner
        return self.error is None and winner is not None and winner.error is None \
            and bool((winner.result or {}).get("valid"))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"image": self.image, "width": int(self.width), "height": int(self.height),
                               "rules": self.rules, "tiles": [t.to_dict() for t in self.tiles],
                               "dora_indicators": list(self.dora_indicators),
                               "doubtful": list(self.doubtful), "problems": list(self.problems)}
        # every hand under `hands`, however many (docs/formats.md); a photo of one hand also has
        # that hand's fields at the top, as readers written before `hands` was always there expect
        out["hands"] = [h.to_dict() for h in self.hands]
        if len(self.hands) == 1:
            only = self.hands[0]
            out.update({k: v for k, v in only.fields().items() if k not in ("problems", "flowers")})
            out["seat"] = only.seat
            out["hand_tiles"] = list(only.tiles)  # reading order (out["tiles"] is detection order)
        elif self.hands:
            winner = self.winner
            if winner is not None and winner.scored:
                out["hand"], out["result"] = winner.hand, winner.result
        if self.error is not None:
            out["error"] = self.error
        if self.table is not None:
            out["table"] = self.table
        return out
