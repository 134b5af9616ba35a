"""The layout's thresholds, each named with what it measures (tile widths, unless said)."""
from __future__ import annotations


BACK = "back"
#: How many of the recogniser's readings of a tile (its first choice and the next ones) a
#: called meld that reads as no set may be re-read from.
REREAD_CHOICES = 3
#: A hand that reads as no win may be completed by re-reading at most this many of its
#: concealed tiles ...
MAX_WIN_REREADS = 2
#: ... each from a next choice at least this probable against the reading it replaces ...
MIN_REREAD_RATIO = 0.01
#: ... and the re-reading is taken only when no other comes within this share of it (else
#: the page asks).  Real hand rows: hand_010's three copies read 1 tile closer.
CLOSE_REREAD = 0.5
#: A tile read face down among a hand's face-up concealed tiles, whose next choice is the White
#: dragon at least this probable against `back`, is that dragon: many sets print it blank, as
#: plain as a back (one art style's is a back's very colour).  Synthetic hands: the blank White
#: dragons read `back` had it at 0.22 and 0.28 of the back; a true back, 2e-5.
BLANK_WHITE_RATIO = 0.05
#: Width / height of an upright tile face; only used to undo the box growth of a
#: rotated tile when estimating its size, so a rough value is enough.
TILE_ASPECT = 0.75
#: The usual gap along a row (a trend, robust to the few real gaps) is kept within this range
#: of tile widths.  Rows near the diagonal, where boxes overlap, measure every gap near -0.55:
#: at -0.4 the winning tile set apart (-0.41) was not seen.  Synthetic hands on the true boxes,
#: turned 30 degrees 49 -> 51 of 60 read exactly, 45 degrees 44 -> 49; unturned, a quarter
#: turned, two rows and every real photo the same (-1.0 gave the same as -0.7).  A row of 4-5
#: tiles (three gaps or four) takes its median gap, within the same range (it took none before:
#: true boxes at 30 / 45 degrees 51 -> 52 / 49 -> 50).
GAP_TREND_RANGE = (-0.7, 0.3)
#: Along/across shape of an upright tile's box in a photo (face plus some of its body)
#: when no well-conditioned row of the photo measures it.
DEFAULT_RATIO = 0.7
#: Height over width of a tile.
TILE_LENGTH = 1.35
#: Boxes tell the shape of a tile reliably in rows this far from the diagonal (|cos 2θ|).
GOOD_CONDITION = 0.7
#: A gap between two tiles, relative to the tile width, above which they are "set apart"
#: (on top of the row's usual spacing).
GAP_THRESHOLD = 0.13
#: A tile lies sideways when its along/across extent ratio exceeds the row's usual
#: ratio by this factor (an upright 3:4 tile turned sideways changes it by 16/9).
SIDEWAYS_FACTOR = 1.25
#: ... and surely sideways, wherever it lies, beyond this factor (a tile lying sideways is
#: about 1.8; at 1.6 the box of a winning tile set apart at a row's end, taking in its side,
#: made it a called tile: synthetic hands turned a quarter 22 -> 23 of 60).
STRONG_SIDEWAYS = 1.7
#: Below this |cos 2θ| (a row within ~10° of the diagonal) the boxes say nothing about
#: a tile's shape and the spacing between centres is used instead.
MIN_CONDITION = 0.3
#: Tiles are linked into a row when their centres are closer than this many tile sizes.
LINK_DISTANCE = 1.9
#: Collinear pieces of a row are joined across gaps up to this many tile sizes.
JOIN_DISTANCE = 4.0
#: How far (in tile sizes) a tile may lie off its row's line.
LINE_TOLERANCE = 0.45
#: Degrees a piece of a row may turn from the line it is joined on: three tiles or more, and a
#: pair (whose direction two centres give: a called tile lying sideways turns it by 12-15; a
#: pair across the line, about 90, is a tile laid on another, an added kong's fourth).
PIECE_ANGLE = 12.0
PAIR_ANGLE = 45.0
#: The most tiles one hand can hold (14 plus one per kong).
MAX_HAND_TILES = 18
#: A reading is doubtful when its runner-up scores at least this share of its confidence.
CLOSE_ALTERNATIVE = 0.75
#: A reading whose face is less probable than this (the classifier's own probability, when
#: the recogniser gives it) is doubtful: on the development hand rows this asks about all 24
#: misread tiles and 78 of 587 right ones; detector x face confidence below 0.5 asked about
#: 23 and 184 (a small tile's box is rarely sure, whatever its face).
DOUBTFUL_FACE = 0.9
#: Rows with fewer tiles than this are not a hand on their own.
MIN_HAND_TILES = 5
#: When some hand in the photo has this many tiles, smaller clusters are strays or discards.
MIN_FULL_HAND = 8
#: Two rows of a hand laid one behind the other: at most this many degrees apart, their
#: centres this many tile sizes apart across the rows (a tile's length and a little gap, less
#: where the camera looks along the table and shortens it; a row of melds laid before the
#: hand lies further off or holds no loose tiles).
STACKED_ANGLE = 10.0
STACKED_PITCH = (0.45, 2.2)
#: Two neighbours in a row overlapping by more than this many tile widths (their boxes by at
#: least DUPLICATE_IOU) are one tile boxed twice, or a box across two tiles: the less
#: confident goes, when it is less than DUPLICATE_CONFIDENCE sure.  Synthetic hands in clear
#: view 14 -> 18 of 60 read exactly (0.5: 14, 0.3: 15); the real hand rows as before (a box
#: across two tiles in one of Roboflow's turned copies took a flower with it).
DUPLICATE_OVERLAP = 0.4
DUPLICATE_CONFIDENCE = 0.45
DUPLICATE_IOU = 0.15
#: A box whose centre lies nearer to both its neighbours than this share of the spacing of
#: the tiles beyond them sits across two tiles boxed on their own (a row near the diagonal,
#: where every neighbour's boxes overlap, hides it from DUPLICATE_OVERLAP); rows of at least
#: SQUEEZED_MIN_ROW boxes.
SQUEEZED_SPACING = 0.7
SQUEEZED_MIN_ROW = 5
