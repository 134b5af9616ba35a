"""From tile detections to the hands a player laid out: pure geometry, no model.

A hand on the table is a row of tiles: the concealed tiles, the winning tile set a
little apart at the end, and the declared sets (melds) set apart after them, a
called tile turned sideways, a concealed kong shown with its two outer tiles face
down. The dead wall is a row of face-down tiles with the dora indicators turned
face up. A photo of a table at the end of a game holds four such hands, one on
each side, each turned to face its player.

Everything here works from the detections' axis-aligned boxes, so it must not
care how the photo is rotated:

1. rows: each tile's local direction comes from its nearest neighbours (tiles
   touch along a row, rows lie further apart than a tile is wide); tiles are
   linked to neighbours that lie along both tiles' directions, and the chains
   that result are joined into rows when they lie on one line;
2. along a row, each box is turned back into the tile's extent along and across
   the row (an axis-aligned box of a rotated rectangle), which says which tiles
   lie sideways and how wide the gaps between tiles are, relative to the tile
   width there (so perspective, which shrinks far tiles, does not matter);
3. gaps split a row into groups: melds, the set-apart winning tile, the rest.

The reading direction of a row (which end is the player's left) is not in a
box. It comes, in order, from the table (four hands: each player's tiles point
at the table's centre), the melds (they lie at the right end), the winning tile
set apart (at the end), how sorted the tiles are (players sort their hands),
and last the image's own left-to-right.
"""
from __future__ import annotations

# the stages, in order: rows -> row -> hand -> photo; thresholds are named in thresholds.py
from .model import HandLayout, Layout, MeldLayout
from .photo import copies_problem, find_layout, is_doubtful
from .rows import find_rows
from .thresholds import BACK, DOUBTFUL_FACE

__all__ = ["BACK", "DOUBTFUL_FACE", "HandLayout", "Layout", "MeldLayout", "copies_problem", "find_layout",
           "find_rows", "is_doubtful"]
