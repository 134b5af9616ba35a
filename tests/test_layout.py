"""The layout: detections -> rows, hands, melds, winning tile, dora indicators.

Two kinds of input, both with a known truth and no trained model:
- hand-made boxes: tiles as rectangles in a player's frame, turned to any angle (the
  axis-aligned boxes of the turned rectangles are what a detector would report);
- photos from the synthetic generator (datasets.synth), whose labels say what every
  tile is and where it belongs: tile bodies with thickness, perspective, jitter.
"""
from __future__ import annotations

import dataclasses
import math
from collections import Counter
from functools import lru_cache

import numpy as np
import pytest

from mahjong_lens.datasets import synth

from mahjong_lens.rules.tiles import parse_tiles
from mahjong_lens.vision.detections import TileDetection
from mahjong_lens.vision.layout import copies_problem, find_layout, find_rows

# --------------------------------------------------------------------------- hand-made boxes

TILE_W, TILE_H = 30.0, 40.0


def place(items: list[tuple[str, float, float, bool]], angle: float, centre=(1000.0, 1000.0),
          confidence: float = 0.95) -> list[TileDetection]:
    """Detections of tiles laid in a player's frame (x to the player's right, y towards the
    player), the whole frame turned by ``angle`` degrees on the photo.

    ``items``: (tile, x of the tile's left edge, y of its centre, sideways).
    """
    a = math.radians(angle)
    rotation = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    out = []
    for tile, x, y, sideways in items:
        w, h = (TILE_H, TILE_W) if sideways else (TILE_W, TILE_H)
        cx = x + w / 2
        corners = np.array([[cx - w / 2, y - h / 2], [cx + w / 2, y - h / 2],
                            [cx + w / 2, y + h / 2], [cx - w / 2, y + h / 2]])
        turned = corners @ rotation + centre
        (x1, y1), (x2, y2) = turned.min(axis=0), turned.max(axis=0)
        out.append(TileDetection(tile, (float(x1), float(y1), float(x2), float(y2)), confidence))
    return out


def row(tiles: list[str], x: float = 0.0, y: float = 0.0, sideways: tuple[int, ...] = (),
        apart_before: tuple[int, ...] = (), gap: float = 1.0, apart: float = 15.0):
    """Items of a row of touching tiles from x; ``apart_before``: positions set apart by ``apart``."""
    items = []
    for k, tile in enumerate(tiles):
        if k in apart_before:
            x += apart
        items.append((tile, x, y, k in sideways))
        x += (TILE_H if k in sideways else TILE_W) + gap
    return items, x


CONCEALED = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z".split()


def hand_items(y: float = 0.0) -> list:
    """10 concealed tiles, the winning 1z set apart, a chow called from the left (its 3s
    sideways) and a concealed kong of 5z shown with two backs."""
    items, x = row(CONCEALED + ["1z"], y=y, apart_before=(10,))
    chow, x = row(["3s", "4s", "5s"], x=x + 20, y=y, sideways=(0,))
    kong, x = row(["back", "5z", "5z", "back"], x=x + 20, y=y)
    return items + chow + kong


def summary(hand) -> tuple:
    return (sorted(hand.concealed), hand.win_tile,
            sorted((m.type, m.open, "".join(sorted(m.hand_tiles))) for m in hand.melds))


EXPECTED = (sorted(CONCEALED + ["1z"]), "1z", sorted([("chow", True, "3s4s5s"), ("kong", False, "5z5z5z5z")]))


@pytest.mark.parametrize("angle", range(0, 360, 15))
def test_a_hand_reads_the_same_at_any_rotation(angle):
    detections = place(hand_items(), angle)
    layout = find_layout(detections)
    assert len(layout.hands) == 1
    hand = layout.hands[0]
    assert summary(hand) == EXPECTED
    # the sideways 3s (detection 11) is the only tile turned; the two backs are the kong's
    assert layout.sideways == [11]
    chow = next(m for m in hand.melds if m.type == "chow")
    assert chow.sideways == [11]
    # reading order survives the rotation: the melds lie at the player's right, so the
    # concealed tiles read 1m .. 1z whichever way the photo is turned
    assert hand.concealed == CONCEALED + ["1z"]
    assert hand.direction_from == "melds"


def test_between_the_quarter_turns_too():
    """Odd angles, the diagonal included, where a box says least about a tile's shape."""
    for angle in (7.0, 33.0, 44.0, 45.0, 46.0, 128.0, 222.5, 301.0):
        layout = find_layout(place(hand_items(), angle))
        assert [summary(h) for h in layout.hands] == [EXPECTED], angle


def test_winning_tile_is_the_one_set_apart_and_can_be_given():
    items, _ = row("1m 1m 1m 2p 3p 4p 5s 6s 7s 9s 9s 2z 2z 2z".split(), apart_before=(13,))
    layout = find_layout(place(items, 0))
    assert layout.hands[0].win_tile == "2z" and layout.hands[0].win_index == 13
    # nothing set apart: no winning tile unless the user names it (then its last copy)
    items, _ = row("1m 1m 1m 2p 3p 4p 5s 6s 7s 9s 9s 2z 2z 2z".split())
    assert find_layout(place(items, 0)).hands[0].win_tile is None
    given = find_layout(place(items, 0), win_tile="9s").hands[0]
    assert given.win_tile == "9s" and given.win_index == 10


@pytest.mark.parametrize("angle", [10, 15, 20])
def test_the_winning_tile_set_apart_is_seen_where_the_boxes_overlap(angle):
    """Boxes that hold each tile's body as well as its face overlap their neighbours (every
    gap measures about half a tile less than it is): the tile set apart still stands out from
    that usual gap, and a row laid without a gap still has none."""
    tiles = "1m 1m 1m 2p 3p 4p 5s 6s 7s 9s 9s 2z 2z 2z".split()

    def grown(items: list) -> list[TileDetection]:
        return [dataclasses.replace(d, box=(d.box[0] - 20, d.box[1] - 20, d.box[2] + 20, d.box[3] + 20))
                for d in place(items, angle)]

    apart, _ = row(tiles, apart_before=(13,), apart=12)
    hand = find_layout(grown(apart)).hands[0]
    assert hand.win_tile == "2z" and hand.win_index == 13
    together, _ = row(tiles)
    assert find_layout(grown(together)).hands[0].win_tile is None


def test_a_tile_set_apart_whose_box_looks_a_little_long_is_still_the_winning_tile():
    """The box of a tile at a row's end often takes in some of its side: 1.63 times the
    row's usual length to width is no tile lying sideways (that is about 1.8), and a lone
    tile that cannot be part of a meld is the winning tile; a tile truly lying there is not."""
    tiles = "1m 1m 1m 2p 3p 4p 5s 6s 7s 9s 9s 2z 2z 2z".split()
    items, _ = row(tiles, apart_before=(13,))
    detections = place(items, 0)

    def lone_box(width: float, height: float) -> list[TileDetection]:
        x1, y1, _, y2 = detections[13].box
        middle = (y1 + y2) / 2
        return detections[:13] + [dataclasses.replace(detections[13], box=(x1, middle - height / 2,
                                                                           x1 + width, middle + height / 2))]

    assert find_layout(lone_box(38, 31)).hands[0].win_tile == "2z"
    assert find_layout(lone_box(TILE_H, TILE_W)).hands[0].win_tile is None


@pytest.mark.parametrize("angle", [0, 45])
def test_a_confident_box_across_two_tiles_of_a_row_is_dropped(angle):
    """A third box between two tiles, its centre half a tile from each, is no tile of its own
    however sure the detector is; where every neighbour's boxes overlap (a row near the
    diagonal) their overlap alone cannot tell it."""
    tiles = "1m 2m 3m 4p 5p 6p 7s 7s 7s 9s 9s 2z 2z".split()
    laid, _ = row(tiles)
    between = ("7s", (laid[6][1] + laid[7][1]) / 2, 0.0, False)  # across the first two 7s
    detections = place(laid + [between], angle)
    layout = find_layout(detections)
    hand = layout.hands[0]
    assert sorted(hand.concealed) == sorted(tiles) and 13 in layout.unassigned
    # three tiles of a kind side by side stay three
    assert Counter(find_layout(place(laid, angle)).hands[0].concealed)["7s"] == 3


@pytest.mark.parametrize("angle", [0, 15])
def test_a_short_concealed_row_sets_its_winning_tile_apart_where_the_boxes_overlap(angle):
    """Three melds laid in a row of their own leave five concealed tiles: too few gaps for a
    trend, their median is the usual gap, so the winning tile set apart still stands out."""
    def hand(apart: float) -> list[TileDetection]:
        concealed, _ = row("1m 1m 1m 5z 5z".split(), apart_before=(4,), apart=apart)
        melds, _ = row("2p 3p 4p 6s 6s 6s 7m 8m 9m".split(), y=70, sideways=(0,))
        return [dataclasses.replace(d, box=(d.box[0] - 20, d.box[1] - 20, d.box[2] + 20, d.box[3] + 20))
                for d in place(concealed + melds, angle)]

    read = find_layout(hand(12)).hands[0]
    assert read.win_tile == "5z" and read.win_index == 4 and len(read.melds) == 3
    assert find_layout(hand(0)).hands[0].win_tile is None


def test_dead_wall_gives_the_dora_indicators_in_order():
    hand = place(hand_items(), 0)
    # a dead wall beyond the hand: 5 face-down tiles with two indicators turned up
    wall, _ = row(["back", "back", "3m", "7z", "back", "back", "back"], x=60, y=-160)
    detections = hand + place(wall, 0)
    layout = find_layout(detections)
    assert layout.dora_indicators == ["3m", "7z"]
    assert [detections[i].tile for i in layout.dora_indices] == ["3m", "7z"]
    assert len(layout.dead_wall) == 7 and summary(layout.hands[0]) == EXPECTED
    # the same photo upside down: the indicators still read in the wall's own order
    # (a dead wall faces the table's centre, so on its own its direction is the image's)
    flipped = find_layout(place(hand_items(), 180) + place(wall, 180))
    assert sorted(flipped.dora_indicators) == ["3m", "7z"]


def test_a_marked_region_gives_the_dora_indicators():
    detections = place(hand_items(), 0)
    lone = TileDetection("4s", (1500.0, 300.0, 1530.0, 340.0), 0.9)
    layout = find_layout(detections + [lone], dora_region=(1400, 200, 1600, 400))
    assert layout.dora_indicators == ["4s"] and layout.dora_indices == [len(detections)]
    assert summary(layout.hands[0]) == EXPECTED


def test_four_hands_around_a_table_in_seat_order():
    """Each player's row faces the table's centre; the hands come out from the bottom one,
    then counter-clockwise (the turn order), each read from its own player's left."""
    seats = {}
    detections: list[TileDetection] = []
    owners: list[int] = []
    hands = {0: "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 5z 5z".split(),
             1: "1s 2s 3s 4s 5s 6s 7s 8s 9s 2p 2p 6z 6z".split(),
             2: "1p 2p 3p 7p 8p 9p 3s 3s 3s 4z 4z 4z 7z".split(),
             3: "2m 3m 4m 5p 6p 7p 1s 1s 6s 7s 8s 3z 3z".split()}
    for player, tiles in hands.items():
        # player 0 at the bottom; player k sits k quarter turns counter-clockwise (on screen)
        items, _ = row(tiles, x=-200, y=300)
        seats[player] = place(items, -90 * player, centre=(1000, 1000))
        detections += seats[player]
        owners += [player] * len(tiles)
    layout = find_layout(detections)
    assert len(layout.hands) == 4
    for number, hand in enumerate(layout.hands):
        players = {owners[i] for i in hand.indices}
        assert players == {number}
        assert hand.concealed == hands[number]  # read in its own player's order
        assert hand.direction_from == "table"


def test_two_hands_side_by_side_are_two_hands():
    first, _ = row("1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 5z 5z".split(), x=0, y=0)
    second, _ = row("1s 2s 3s 4s 5s 6s 7s 8s 9s 2p 2p 6z 6z 6z".split(), x=0, y=200, apart_before=(13,))
    layout = find_layout(place(first, 0) + place(second, 0))
    assert [len(h.concealed) for h in layout.hands] == [14, 13]  # bottom (y=200) first
    assert layout.hands[0].win_tile == "6z" and layout.hands[1].win_tile is None


def test_melds_in_a_second_row_belong_to_the_hand():
    concealed, _ = row("2m 3m 4m 6p 6p 6p 8s 8s".split())
    melds, x = row(["7z", "7z", "7z"], x=0, y=-55, sideways=(2,))
    more, _ = row(["1p", "2p", "3p"], x=x + 20, y=-55, sideways=(0,))
    layout = find_layout(place(concealed + melds + more, 30))
    assert len(layout.hands) == 1
    hand = layout.hands[0]
    assert sorted(hand.concealed) == sorted("2m 3m 4m 6p 6p 6p 8s 8s".split())
    assert sorted((m.type, "".join(m.tiles)) for m in hand.melds) == [("chow", "1p2p3p"), ("pung", "7z7z7z")]


def test_melds_and_flowers_beyond_the_concealed_row_stay_with_it_past_a_row_of_discards():
    """A concealed row of 8 (the winning tile apart); beyond it two chows and three flowers
    (9 tiles: the longer row, counting flowers); beyond those, nearer the melds than the hand
    is, a row of 7 discards. The hand is the concealed row with its melds: flowers do not make
    a row the hand's main one, and the melds go to the hand, not to the nearer discards (the
    old grouping read the discards as the concealed tiles)."""
    concealed, _ = row("1p 2z 5m 5m 6s 8m 8m 1p".split(), y=0, apart_before=(7,))
    melds, x = row("3p 4p 5p".split(), y=-75, sideways=(0,))
    more, x = row("6s 7s 8s".split(), x=x + 20, y=-75, sideways=(0,))
    flowers, _ = row("1f 2f 3f".split(), x=x + 20, y=-75)
    discards, _ = row("9m 1s 4z 2p 9p 3m 7z".split(), y=-135)
    for angle in (0, 30, 90):
        layout = find_layout(place(concealed + melds + more + flowers + discards, angle))
        assert len(layout.hands) == 1, angle
        hand = layout.hands[0]
        assert sorted(hand.concealed) == sorted("1p 2z 5m 5m 6s 8m 8m 1p".split()) and hand.win_tile == "1p", angle
        assert sorted("".join(m.tiles) for m in hand.melds) == ["3p4p5p", "6s7s8s"], angle
        assert not {"9m", "1s", "4z", "7z"} & set(hand.concealed), angle


def test_melds_laid_without_a_gap_are_split_by_their_tiles():
    items, x = row("1m 1m 2p 3p 4p 6s 7s 8s".split())
    melds, _ = row(["9m", "9m", "9m", "2z", "2z", "2z"], x=x + 20, sideways=(1, 4))
    hand = find_layout(place(items + melds, 0)).hands[0]
    assert sorted((m.type, "".join(m.tiles)) for m in hand.melds) == [("pung", "2z2z2z"), ("pung", "9m9m9m")]


def unseen_called_tile(tiles: list[str], x: float, middle: int = 1) -> tuple[list, float]:
    """Items of a meld whose tile at ``middle`` lies sideways on the table (it takes a tile's
    length of the row) but was boxed as a standing tile against the tile before it: only
    the gap it leaves after it shows it."""
    items = []
    for k, tile in enumerate(tiles):
        if k == middle:
            items.append((tile, x, 0.0, False))
            x += TILE_H + 1
        else:
            items.append((tile, x, 0.0, False))
            x += TILE_W + 1
    return items, x


def test_a_meld_split_at_a_called_tile_the_boxes_missed_is_one_declared_meld():
    items, x = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z".split() + ["5z"], apart_before=(11,))
    chow, x = row(["3s", "4s", "5s"], x=x + 20, sideways=(0,))  # a tile seen lying: no gap melds
    pung, _ = unseen_called_tile(["7z", "7z", "7z"], x + 20)
    layout = find_layout(place(items + chow + pung, 0))
    hand = layout.hands[0]
    assert sorted((m.type, m.open, "".join(m.tiles)) for m in hand.melds) == [
        ("chow", True, "3s4s5s"), ("pung", True, "7z7z7z")]
    assert hand.win_tile == "5z" and len(hand.concealed) == 12
    # the same at a slant, and read from the other side
    for angle in (20, 180):
        assert summary(find_layout(place(items + chow + pung, angle)).hands[0]) == summary(hand), angle


def test_a_pair_set_apart_keeps_its_winning_tile_set_further_apart():
    """A pair laid apart with the tile that made it a pung set further off is no meld: only a
    split narrower than the gap before it is read as a called tile's."""
    items, _ = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 7z 7z 7z".split(), apart_before=(11, 13), apart=12.0)
    items[-1] = (items[-1][0], items[-1][1] + 10.0, 0.0, False)  # the winning tile further off
    hand = find_layout(place(items, 0)).hands[0]
    assert hand.melds == [] and hand.win_tile == "7z" and len(hand.concealed) == 14


def test_sets_laid_close_one_split_at_a_missed_called_tile_are_two_melds():
    items, x = row("1m 1m 2p 3p 4p 6s 7s".split() + ["5z"], apart_before=(7,))
    chow, x = row(["3s", "4s", "5s"], x=x + 20, sideways=(0,))
    first, x = row(["0s", "6s", "7s"], x=x + 20, sideways=(0,))
    second, _ = unseen_called_tile(["0m", "6m", "7m"], x, middle=1)
    hand = find_layout(place(items + chow + first + second, 0)).hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["0m6m7m", "0s6s7s", "3s4s5s"]
    assert hand.win_tile == "5z"


def test_a_set_laid_after_a_declared_meld_is_a_meld_though_no_tile_was_seen_lying():
    items, x = row("1m 2m 3m 4p 5p 6p 1z 1z".split() + ["5z"], apart_before=(8,))
    chow, x = row(["3s", "4s", "5s"], x=x + 20, sideways=(0,))
    pung, _ = row(["7z", "7z", "7z"], x=x + 20)  # its called tile boxed standing, no gap left
    hand = find_layout(place(items + chow + pung, 0)).hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["3s4s5s", "7z7z7z"]
    # before the declared meld, among the concealed tiles, a set stays the player's grouping
    first, x = row("1m 2m 3m".split())
    rest, x = row("4p 5p 6p 1z 1z".split() + ["5z"], x=x + 20, apart_before=(5,))
    chow, _ = row(["3s", "4s", "5s"], x=x + 20, sideways=(0,))
    hand = find_layout(place(first + rest + chow, 0)).hands[0]
    assert ["".join(m.tiles) for m in hand.melds] == ["3s4s5s"] and len(hand.concealed) == 9


def test_past_a_declared_meld_pieces_that_make_no_set_split_into_melds_by_next_choices():
    """After a declared meld every tile is a meld's: a lone tile there is no winning tile, and
    a misread tile takes the next choice that makes the pieces sets."""
    items, x = row("1m 2m 3m 4p 5p 6p 1z 1z".split() + ["5z"], apart_before=(8,))
    pung, x = row(["7z", "7z", "7z"], x=x + 20, sideways=(1,))
    first, x = unseen_called_tile(["3s", "6s", "5s"], x + 20, middle=0)  # split after its 3s
    second, _ = row(["3s", "4s", "5s"], x=x)
    detections = place(items + pung + first + second, 0)
    misread = len(items) + len(pung) + 1
    detections[misread] = dataclasses.replace(detections[misread], face_confidence=0.5,
                                              alternatives=[("4s", 0.4), ("9s", 0.05)])
    layout = find_layout(detections)
    hand = layout.hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["3s4s5s", "3s4s5s", "7z7z7z"]
    assert hand.win_tile == "5z" and len(hand.concealed) == 9
    assert misread in layout.doubtful


def test_a_set_between_the_winning_tile_and_the_declared_melds_is_a_meld():
    items, x = row("1m 2m 3m 4p 5p 6p 1z 1z".split() + ["5z"], apart_before=(8,))
    plain, x = row(["6s", "7s", "8s"], x=x + 20)  # its called tile boxed standing
    chow, _ = row(["3p", "4p", "5p"], x=x + 20, sideways=(0,))
    hand = find_layout(place(items + plain + chow, 0)).hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["3p4p5p", "6s7s8s"] and hand.win_tile == "5z"


def test_a_meld_split_at_its_end_with_a_misread_tile_is_read_by_its_next_choice():
    items, x = row("1m 2m 3m 4p 5p 6p 9s 9s".split() + ["9p"], apart_before=(8,))
    chow, x = row(["1m", "2m", "3m"], x=x + 20, sideways=(0,))
    last, x = row(["3p", "2p"], x=x + 20)
    lone, _ = row(["5p"], x=x + 12)  # the gap a called tile the boxes missed leaves
    detections = place(items + chow + last + lone, 0)
    misread = len(items) + len(chow) + 1
    detections[misread] = dataclasses.replace(detections[misread], face_confidence=0.5,
                                              alternatives=[("4p", 0.4), ("1p", 0.05)])
    hand = find_layout(detections).hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["1m2m3m", "3p4p5p"] and hand.win_tile == "9p"


def test_sets_set_apart_without_a_gap_between_them_split_by_a_misread_tiles_next_choice():
    """Melds shown only by a gap (no tile of the photo lies sideways), laid close together: a
    misread tile of the last takes the next choice that makes the run three sets."""
    items, x = row("9p 4m 8m 3s".split() + ["6s"], apart_before=(4,))
    melds, _ = row("2s 2s 2s 8s 8s 8s 4p 2p 4p".split(), x=x + 20)
    detections = place(items + melds, 0)
    misread = len(detections) - 2
    detections[misread] = dataclasses.replace(detections[misread], face_confidence=0.62,
                                              alternatives=[("4p", 0.36), ("5p", 0.02)])
    layout = find_layout(detections)
    hand = layout.hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["2s2s2s", "4p4p4p", "8s8s8s"]
    assert sorted(hand.concealed) == ["3s", "4m", "6s", "8m", "9p"] and hand.win_tile == "6s"
    assert misread in layout.doubtful  # asked about on the page
    # two pieces made sets only by re-reading are loose concealed tiles, no melds
    twice = list(detections)
    twice[len(items) + 2] = dataclasses.replace(twice[len(items) + 2], tile="3s", face_confidence=0.6,
                                                alternatives=[("2s", 0.3)])
    assert find_layout(twice).hands[0].melds == []
    # nor where no next choice makes a set
    detections[misread] = dataclasses.replace(detections[misread], alternatives=[("9s", 0.36)])
    assert find_layout(detections).hands[0].melds == []


def test_a_meld_split_at_its_unseen_called_tile_with_a_misread_tile_is_one_meld():
    """A pung whose called tile (its first) was boxed standing: the gap it leaves splits the
    pung, and that tile misread (South as the Green dragon) makes no set; the gap is narrower
    than the one that sets the pung apart, so the pieces are one meld by the tile's next choice."""
    items, x = row("2m 4m 4m 8m 3p 4s 5s 8s 8s 8s".split() + ["6z"], apart_before=(10,))
    pung, _ = unseen_called_tile(["6z", "2z", "2z"], x + 20, middle=0)
    detections = place(items + pung, 0)
    misread = len(items)
    detections[misread] = dataclasses.replace(detections[misread], face_confidence=0.844,
                                              alternatives=[("2z", 0.154), ("1z", 0.001)])
    layout = find_layout(detections)
    hand = layout.hands[0]
    assert [(m.type, "".join(m.tiles)) for m in hand.melds] == [("pung", "2z2z2z")]
    assert hand.win_tile == "6z" and len(hand.concealed) == 11 and misread in layout.doubtful
    # two tiles to re-read make no meld: the pieces stay the player's tiles
    detections[misread + 1] = dataclasses.replace(detections[misread + 1], tile="4z", face_confidence=0.6,
                                                  alternatives=[("2z", 0.3)])
    assert find_layout(detections).hands[0].melds == []


def test_pieces_between_two_melds_are_a_meld_too():
    """A pung and a chow each split at a called tile the boxes show standing, the chow's split
    wider than its gap to the pung, then a declared chow: the chow's pieces lie between melds,
    where a player lays no concealed tile, so they are one meld."""
    items, x = row("5p 5s 7s 7m".split())
    pung, x = unseen_called_tile(["8s", "8s", "8s"], x + 20, middle=1)
    chow, x = unseen_called_tile(["3s", "4s", "5s"], x + 6, middle=0)
    last, _ = row(["3s", "4s", "5s"], x=x + 20, sideways=(2,))
    hand = find_layout(place(items + pung + chow + last, 0)).hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["3s4s5s", "3s4s5s", "8s8s8s"]
    assert sorted(hand.concealed) == ["5p", "5s", "7m", "7s"]


def test_a_called_tile_seen_lying_apart_before_sets_laid_close_starts_them():
    """A pung's called tile seen lying sideways, split off by the gaps on both sides of it, the
    pung's other two tiles and a chow laid close after it: one pung and one chow."""
    items, x = row("2s 6z 5s 3m 6p 8s 3m".split() + ["7z"], apart_before=(7,))
    called, x = row(["9s"], x=x + 20, sideways=(0,))
    rest, _ = row("9s 9s 6p 7p 8p".split(), x=x + 12)
    hand = find_layout(place(items + called + rest, 0)).hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["6p7p8p", "9s9s9s"] and hand.win_tile == "7z"


def test_melds_shown_by_gaps_that_split_them_past_the_winning_tile_are_melds():
    """No tile of the photo lies sideways; past the winning tile set apart, three pungs whose
    gaps fall inside them (at called tiles boxed standing), not between them: the pieces make
    sets only when joined, so they are melds, and the first tile apart is the winning tile."""
    items, x = row("9p 4m 8m 3s".split() + ["6s"], apart_before=(4,))
    pieces = []
    for piece in (["2s"], ["2s", "2s", "8s", "8s"], ["8s", "4p", "4p"], ["4p"]):
        more, x = row(piece, x=x + 12)
        pieces += more
    hand = find_layout(place(items + pieces, 0)).hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["2s2s2s", "4p4p4p", "8s8s8s"]
    assert sorted(hand.concealed) == ["3s", "4m", "6s", "8m", "9p"] and hand.win_tile == "6s"
    assert not any("several tiles lie apart" in problem for problem in hand.problems)
    # pieces that make no sets even joined are the player's tiles laid loosely
    loose = place(items + pieces[:-1] + row(["7z"], x=x + 12)[0], 0)
    assert find_layout(loose).hands[0].melds == []


@pytest.mark.parametrize("angle", (0, 90, 180, 270))
def test_the_side_of_the_declared_melds_is_measured_in_tiles_not_pieces(angle):
    """Seven concealed tiles, a declared pung, and a pung split at a called tile boxed standing
    into a piece of one tile and one of two: counted in pieces the declared pung lies left of
    the middle, which turned the hand round; counted in tiles, right of it.  Where the two
    counts disagree the melds do not say which way the hand reads (its other signs do)."""
    items, x = row("4z 5m 6m 7m 7p 7s 8p".split())
    pung, x = row(["2s", "2s", "2s"], x=x + 20, sideways=(2,))
    split, _ = unseen_called_tile(["1m", "1m", "1m"], x + 20, middle=0)
    hand = find_layout(place(items + pung + split, angle)).hands[0]
    assert sorted("".join(m.tiles) for m in hand.melds) == ["1m1m1m", "2s2s2s"]
    assert hand.win_tile is None and hand.concealed == "4z 5m 6m 7m 7p 7s 8p".split()


def test_one_tile_beside_four_melds_is_the_tile_they_wait_on_not_a_win():
    items, x = row(["8p"])
    melds = []
    for tiles in (["4m"] * 3, ["2p"] * 3, ["5s", "6s", "7s"], ["9m"] * 3):
        meld, x = row(tiles, x=x + 20, sideways=(2,))
        melds += meld
    hand = find_layout(place(items + melds, 0)).hands[0]
    assert len(hand.melds) == 4 and hand.concealed == ["8p"] and hand.win_tile is None


def test_a_hand_short_of_a_winning_count_with_several_tiles_apart_sets_no_winning_tile_apart():
    """13 tiles with two lying apart, each alone: a loosely laid hand of a player who did not win (Rode
    Draak scores it too), no winning tile; 14 so laid keep the last as the winning tile, and 13
    with one tile apart keep it (a winning hand with a tile out of view: the scan says so)."""
    tiles = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 2z 3z 5z 6z".split()

    def hand(count: int, apart: tuple[int, ...]):
        items, _ = row(tiles[:count], apart_before=apart, apart=20)
        return find_layout(place(items, 0)).hands[0]

    assert hand(13, (6, 7, 12)).win_tile is None  # the 7s and the 5z lie apart
    assert hand(14, (6, 7, 13)).win_tile == "6z"
    assert hand(13, (12,)).win_tile == "5z"


def test_melds_laid_close_with_a_misread_tile_are_split_by_its_next_choice():
    items, x = row("1m 1m 2p 3p 4p 6s 7s 8s".split())
    melds, _ = row(["9m", "9m", "9m", "2z", "2z", "2z"], x=x + 20, sideways=(1, 4))
    detections = place(items + melds, 0)
    misread = len(detections) - 1
    detections[misread] = dataclasses.replace(detections[misread], tile="3z", face_confidence=0.6,
                                              alternatives=[("2z", 0.3), ("4z", 0.05)])
    layout = find_layout(detections)
    hand = layout.hands[0]
    assert sorted((m.type, "".join(m.tiles)) for m in hand.melds) == [("pung", "2z2z2z"), ("pung", "9m9m9m")]
    assert misread in layout.doubtful  # asked about on the page
    # no choice of the tile makes a set: the run stays unsplit, said so
    detections[misread] = dataclasses.replace(detections[misread], alternatives=[("5p", 0.3)])
    hand = find_layout(detections).hands[0]
    assert not any("".join(m.tiles) == "2z2z2z" for m in hand.melds)


def test_undecorated_sets_set_apart_are_melds_only_without_sideways_tiles():
    """Tables that do not turn called tiles (Chinese style) show melds by the gap alone."""
    items, x = row("1m 1m 2p 3p 4p 6s 7s 8s".split())
    melds, _ = row(["9m", "9m", "9m"], x=x + 25)
    hand = find_layout(place(items + melds, 0)).hands[0]
    assert [(m.type, m.open) for m in hand.melds] == [("pung", True)]
    assert len(hand.concealed) == 8
    # with the convention switched off, the same set stays among the concealed tiles
    hand = find_layout(place(items + melds, 0), gap_melds=False).hands[0]
    assert hand.melds == [] and len(hand.concealed) == 11


def test_face_down_and_bad_melds_are_reported():
    items, x = row("1m 1m 2p 3p 4p 6s 7s 8s 9s 9s 9s".split())
    all_backs, _ = row(["back"] * 4, x=x + 25)
    hand = find_layout(place(items + all_backs, 0)).hands[0]
    assert any("all four tiles face down" in e for e in hand.errors)
    items, x = row("1m 1m 2p 3p 4p 6s 7s 8s 9s 9s 9s".split())
    wrong, _ = row(["1p", "5p", "9p"], x=x + 25, sideways=(0,))
    hand = find_layout(place(items + wrong, 0)).hands[0]
    assert any("do not make a chow, pung or kong" in e for e in hand.errors)


def test_a_blank_white_dragon_read_face_down_among_the_hand_is_the_dragon():
    """Many sets print the White dragon blank, as plain as a back: a tile read `back` among
    a hand's face-up tiles whose next choice is that dragon is read as it, and asked about;
    a back the recogniser is sure of stays a face-down tile to turn up."""
    tiles = "1m 1m 1m 2p 3p 4p 5s 6s 7s 9s 9s 5z 5z 5z".split()
    items, _ = row(tiles, apart_before=(13,))

    def read(blank_at: int, white: float) -> tuple:
        detections = place(items, 30)
        detections[blank_at] = dataclasses.replace(detections[blank_at], tile="back", face_confidence=0.6,
                                                   alternatives=[("5z", white), ("1p", 0.01)])
        layout = find_layout(detections)
        return layout, layout.hands[0]

    layout, hand = read(11, 0.2)  # among the concealed tiles
    assert sorted(hand.concealed) == sorted(tiles) and hand.win_tile == "5z" and not hand.errors
    assert 11 in layout.doubtful and layout.rereadings() == {11: "5z"}
    assert any("White dragon" in p for p in hand.problems)
    layout, hand = read(13, 0.2)  # the winning tile set apart
    assert hand.win_tile == "5z" and 13 in layout.doubtful and not hand.errors
    _, hand = read(11, 0.0001)  # surely a back: the player is asked to turn it up
    assert "back" in hand.concealed and any("face-down tile lies among" in e for e in hand.errors)


def test_low_confidence_and_close_alternatives_are_doubtful():
    detections = place(hand_items(), 0)
    detections[3] = TileDetection("4p", detections[3].box, 0.31, [("4s", 0.2)])
    detections[5] = TileDetection("6p", detections[5].box, 0.8, [("5p", 0.7)])
    layout = find_layout(detections, min_confidence=0.5)
    assert layout.doubtful == [3, 5]
    assert summary(layout.hands[0]) == EXPECTED  # doubtful tiles are still laid out


def test_a_face_probability_decides_doubt_when_the_recogniser_gives_one():
    detections = place(hand_items(), 0)
    # a small tile's box is unsure (0.4 overall) but its face is not: no question
    detections[2] = dataclasses.replace(detections[2], confidence=0.4, face_confidence=0.97)
    # a sure box with an unsure face is asked about
    detections[6] = dataclasses.replace(detections[6], confidence=0.85, face_confidence=0.86)
    # a close runner-up is judged on the face's own scale
    detections[8] = dataclasses.replace(detections[8], confidence=0.5, face_confidence=0.95,
                                        alternatives=[("7z" if detections[8].tile != "7z" else "6z", 0.6)])
    layout = find_layout(detections, min_confidence=0.5)
    assert layout.doubtful == [6]
    assert find_layout(detections, min_face_confidence=0.8).doubtful == []


def test_strays_and_empty_input():
    assert find_rows([]) == []
    layout = find_layout([])
    assert layout.hands == [] and layout.dora_indicators == []
    lone = [TileDetection("1m", (10, 10, 40, 50), 0.9), TileDetection("2m", (400, 400, 430, 440), 0.9)]
    layout = find_layout(lone)
    assert layout.hands == [] and layout.unassigned == [0, 1]


def test_copies_problem_names_every_copy():
    sentence, involved = copies_problem([(0, "3p"), (1, "3p"), (2, "1m"), (3, "3p"), (4, "3p"), (7, "3p")])
    assert involved == [0, 1, 3, 4, 7]
    assert "5 copies of the 3 of dots" in sentence and "#" not in sentence
    # a red five is a five: 0p + four 5p is five copies too
    assert copies_problem([(0, "0p")] + [(k, "5p") for k in range(1, 5)])[1] == [0, 1, 2, 3, 4]
    assert copies_problem([(k, "5p") for k in range(4)]) is None


# --------------------------------------------------------------------------- synthetic photos

SEED = 2024


@lru_cache(maxsize=1)
def art_styles():
    from mahjong_lens.datasets.art import load_styles
    try:
        return load_styles()
    except FileNotFoundError as error:  # the shared art folder is not on this machine
        pytest.skip(f"no tile art for the synthetic photos: {error}")


def render(index: int, kind: str = "hand", size: int = 640):
    return synth.render_scene_full(synth.scene_rng(SEED, index), size, styles=art_styles(), kind=kind,
                                   effects=False)


def tiles_of(notation: str) -> list[str]:
    """The generator's notation as tiles, in order."""
    return parse_tiles(notation)


def truth(scene) -> list[TileDetection]:
    """The scene's labelled tiles as detections: what a perfect recogniser would report."""
    return [TileDetection(b.tile, tuple(float(v) for v in b.box), 1.0) for b in scene.boxes]


def scenes(want, kind: str = "hand", limit: int = 400, count: int = 1, size: int = 640):
    """The first ``count`` scenes (index, scene) whose metadata satisfy ``want``."""
    found = []
    for index in range(limit):
        scene = render(index, kind, size)
        if want(scene):
            found.append((index, scene))
            if len(found) == count:
                return found
    if not found:
        pytest.fail(f"no {kind} scene of seed {SEED} in the first {limit} has the features this test needs")
    return found


def own_hand(layout, scene, player: int):
    """The layout hand that holds the given player's tiles (exactly one must)."""
    mine = {k for k, b in enumerate(scene.boxes) if b.player == player and b.group in ("concealed", "win", "meld")}
    holding = [h for h in layout.hands if mine & set(h.indices)]
    assert len(holding) == 1, f"player {player}'s tiles are in {len(holding)} hands"
    return holding[0]


def first_hand(scene) -> dict:
    return scene.meta["hands"][0]


def test_synthetic_called_tile_makes_an_open_meld():
    def want(scene):
        hand = first_hand(scene)
        return synth.clear_view(scene, hand, upright=True) and any(m["called"] is not None and len(tiles_of(m["tiles"])) == 3
                                               for m in hand["melds"])
    for _, scene in scenes(want, count=3):
        layout = find_layout(truth(scene))
        hand = own_hand(layout, scene, 0)
        assert hand.reading() == synth.expected_reading(first_hand(scene))
        called = {k for k, b in enumerate(scene.boxes) if b.sideways and b.group == "meld" and b.player == 0}
        assert called and called <= set(layout.sideways)
        for meld in hand.melds:
            if set(meld.indices) & called:
                assert meld.open and len(set(meld.sideways) & called) >= 1


@pytest.mark.parametrize("angle", [0, 90, 200])
def test_two_concealed_kongs_side_by_side_in_front_of_the_hand_are_melds_not_a_dead_wall(angle):
    """A row of two concealed kongs, each shown with two backs, holds as many backs as faces:
    melds laid in front of the hand (towards the table's centre), not the dead wall."""
    concealed, _ = row(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "7s", "9s", "9s"], y=0)
    kongs, _ = row(["back", "5m", "5m", "back"], x=20, y=-60)
    second, _ = row(["back", "4z", "4z", "back"], x=20 + 4 * 31 + 15, y=-60)
    layout = find_layout(place(concealed + kongs + second, angle))
    assert layout.dead_wall == [] and layout.dora_indicators == []
    assert len(layout.hands) == 1
    melds = sorted((m.type, m.open, "".join(sorted(m.hand_tiles))) for m in layout.hands[0].melds)
    assert melds == [("kong", False, "4z4z4z4z"), ("kong", False, "5m5m5m5m")]
    # a dead wall whose two indicators differ is still the dead wall
    wall, _ = row(["back", "back", "3m", "7z", "back", "back", "back"], x=20, y=-60)
    assert sorted(find_layout(place(concealed + wall, angle)).dora_indicators) == ["3m", "7z"]


def test_synthetic_concealed_kong_with_two_backs():
    def want(scene):
        hand = first_hand(scene)
        backs = [b for b in scene.boxes if b.player == 0 and b.group == "meld" and b.face_down]
        return synth.clear_view(scene, hand, upright=True) and any(not m["open"] for m in hand["melds"]) and len(backs) == 2
    for _, scene in scenes(want, count=2):
        hand = own_hand(find_layout(truth(scene)), scene, 0)
        kong = [m for m in hand.melds if not m.open]
        assert len(kong) == 1 and kong[0].type == "kong"
        assert kong[0].tiles.count("back") == 2 and len(kong[0].hand_tiles) == 4
        assert hand.reading() == synth.expected_reading(first_hand(scene))


def test_synthetic_winning_tile_set_apart():
    def want(scene):
        hand = first_hand(scene)
        return synth.clear_view(scene, hand, upright=True) and hand["win_tile"] is not None and not hand["melds"]
    for _, scene in scenes(want, count=3):
        hand = own_hand(find_layout(truth(scene)), scene, 0)
        win = [k for k, b in enumerate(scene.boxes) if b.group == "win" and b.player == 0]
        assert hand.win_index == win[0]
        assert hand.reading() == synth.expected_reading(first_hand(scene))


@pytest.mark.parametrize("indicators", [1, 2])
def test_synthetic_dead_wall_dora_indicators(indicators):
    def want(scene):
        wall = scene.meta.get("dead_wall")
        shown = [b for b in scene.boxes if b.group == "dora"]
        return bool(wall) and len(wall["dora_indicators"]) == indicators and len(shown) == indicators \
            and synth.clear_view(scene, first_hand(scene))
    for _, scene in scenes(want, count=2):
        layout = find_layout(truth(scene))
        assert sorted(layout.dora_indicators) == sorted(scene.meta["dead_wall"]["dora_indicators"])
        assert {scene.boxes[i].group for i in layout.dora_indices} == {"dora"}


def test_synthetic_rotation_all_round():
    """One photo turned through a full circle (boxes re-measured from the generator's
    tile map, so they are exact): the same hand at every angle."""
    import cv2

    def want(scene):
        hand = first_hand(scene)
        return synth.clear_view(scene, hand, min_elevation=75, upright=True) and hand["win_tile"] and \
            any(m["called"] is not None for m in hand["melds"]) and scene.meta["camera"]["tile_px"] >= 30
    (_, scene), = scenes(want)
    goal = synth.expected_reading(first_hand(scene))
    position = {id(t): k for k, t in enumerate(scene.tiles)}
    height, width = scene.ids.shape
    failures = []
    for angle in range(0, 360, 15):
        turn = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
        turn[:, 2] += (width / 2, height / 2)  # the photo's centre to the middle of a canvas twice its size
        ids = cv2.warpAffine(scene.ids, turn, (width * 2, height * 2), flags=cv2.INTER_NEAREST)
        detections = []
        for box in scene.boxes:
            k = position[id(box)]
            ys, xs = np.nonzero((ids == 2 * k + 2) | (ids == 2 * k + 3))
            detections.append(TileDetection(box.tile, (float(xs.min()), float(ys.min()),
                                                        float(xs.max() + 1), float(ys.max() + 1)), 1.0))
        hand = own_hand(find_layout(detections), scene, 0)
        if hand.reading() != goal:
            failures.append(angle)
    assert failures == []


def test_synthetic_photos_read_as_laid_out():
    """Accuracy over many generated hands seen from above: at least 90% read exactly."""
    def want(scene):
        return synth.clear_view(scene, first_hand(scene))
    found = scenes(want, count=30)
    right = sum(own_hand(find_layout(truth(scene)), scene, 0).reading() == synth.expected_reading(first_hand(scene))
                for _, scene in found)
    assert right >= 0.9 * len(found), f"{right} of {len(found)} read right"


def test_synthetic_tables_of_hands():
    """Tables at the end of a game (three or four hands laid face up, one on each side,
    discards in the middle), photographed at 1280 pixels like a phone photo of a table.

    Every hand must be found as one hand, in seat order; reading every meld exactly is
    harder here (small tiles, rows on the diagonal, ponds beside the hands), so that is
    measured rather than required of each hand.
    """
    def want(scene):
        hands = scene.meta["hands"]
        return len(hands) >= 3 and all(synth.clear_view(scene, h, min_elevation=60) for h in hands)
    found = scenes(want, kind="table", count=8, size=1280)
    structure = exact = total = 0
    for _, scene in found:
        layout = find_layout(truth(scene))
        hands = scene.meta["hands"]
        owners = [Counter(scene.boxes[i].player for i in h.indices).most_common(1)[0][0] for h in layout.hands]
        seats = sorted(h["player"] for h in hands)
        # counter-clockwise from whoever sits at the bottom of the photo: the next seat each time
        in_order = all(seats[(seats.index(owners[k]) + 1) % len(seats)] == owners[(k + 1) % len(owners)]
                       for k in range(len(owners)))
        if sorted(owners) == seats and in_order:
            structure += 1
            for hand in hands:
                total += 1
                mine = {k for k, b in enumerate(scene.boxes) if b.player == hand["player"]
                        and b.group in ("concealed", "win", "meld")}
                holding = [h for h in layout.hands if mine & set(h.indices)]
                exact += len(holding) == 1 and holding[0].reading() == synth.expected_reading(hand)
    assert structure >= 0.7 * len(found), f"{structure} of {len(found)} tables laid out hand by hand"
    assert exact >= 0.5 * total, f"{exact} of {total} hands read exactly"


# --------------------------------------------------------------------------- real photos

def test_real_photographed_hands_lay_out_as_one_hand():
    """The hand photos of the real data set (rows of 14-18 tiles on a table, boxes drawn
    by people, images stretched to 640 x 640): nearly all become one hand holding every
    labelled tile. A check of the geometry on real boxes; the labels stand in for a model."""
    from mahjong_lens.datasets.art import default_data_dir
    from mahjong_lens.vision.classes import CLASS_NAMES
    folder = default_data_dir() / "real" / "chinese-mixed" / "train"  # the hand photos are all here
    photos = sorted((folder / "images").glob("hand_*"))[::2]
    if not photos:
        pytest.skip(f"no real hand photos under {folder}")
    whole = 0
    for photo in photos:
        label = folder / "labels" / (photo.stem + ".txt")
        detections = []
        for line in label.read_text().splitlines():
            if line.strip():
                c, x, y, w, h = line.split()
                x, y, w, h = (float(v) * 640 for v in (x, y, w, h))
                detections.append(TileDetection(CLASS_NAMES[int(c)], (x - w / 2, y - h / 2, x + w / 2, y + h / 2), 1.0))
        layout = find_layout(detections)
        hands = layout.hands
        whole += len(hands) == 1 and hands[0].tile_count + len(hands[0].flowers) == len(detections)
    assert whole >= 0.9 * len(photos), f"{whole} of {len(photos)} photos laid out as one whole hand"


# --------------------------------------------------------------------------- added kongs, rotations

def added_kong_items(y: float = 0.0) -> list:
    """10 concealed tiles, the winning 1z set apart, and a pung of 7z called from the right
    (its last tile sideways) with the fourth 7z laid across the called tile, away from the
    player: an added kong."""
    items, x = row(CONCEALED + ["1z"], y=y, apart_before=(10,))
    pung, _ = row(["7z", "7z", "7z"], x=x + 20, y=y, sideways=(2,))
    called_x = pung[2][1]
    added = [("7z", called_x, y - TILE_W - 1.0, True)]  # y grows towards the player
    return items + pung + added


@pytest.mark.parametrize("angle", [0, 15, 30, 45, 60, 90, 135, 200, 225, 250, 300, 330])
def test_an_added_kong_is_one_kong_at_any_rotation(angle):
    detections = place(added_kong_items(), angle)
    layout = find_layout(detections)
    assert len(layout.hands) == 1 and layout.unassigned == []
    hand = layout.hands[0]
    assert summary(hand) == (sorted(CONCEALED + ["1z"]), "1z", [("kong", True, "7z7z7z7z")])
    kong, = hand.melds
    assert kong.indices[-1] == 14  # the tile laid across comes last
    assert hand.tile_count == 14 + hand.kong_count


def test_the_tile_laid_across_stays_out_of_the_meld_row():
    """Its own row of one: it must not take the called tile's place in the row (near a
    diagonal the two tiles' boxes point at each other and would link as a row of two)."""
    detections = place(added_kong_items(), 45)
    rows = find_rows(detections)
    assert [14] in rows
    assert any(set(range(11, 14)) <= set(r) for r in rows)


def test_a_lone_tile_beside_an_unrelated_tile_is_not_an_added_kong():
    """A tile of the same face lying across an ordinary tile (no pung) is not a kong."""
    items, x = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2z 2z".split())
    stray = [("4p", items[3][1], -TILE_W - 1.0, True)]
    hand = find_layout(place(items + stray, 45)).hands[0]
    assert hand.melds == [] and hand.kong_count == 0


@pytest.mark.parametrize("angle", (0, 30, 90, 200))
def test_a_full_hand_takes_no_tile_lying_beside_it(angle):
    """A hand of 14 takes no 15th tile from beside it (a discard two tiles off the row); a
    hand of 13 takes the tile laid in front of it as its winning tile."""
    full, _ = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 2z 2z 2z".split())
    discard = [("5p", full[5][1], -2 * TILE_H - 5.0, False)]
    hand = find_layout(place(full + discard, angle)).hands[0]
    assert sorted(hand.concealed) == sorted(t for t, *_ in full) and hand.win_tile is None
    hand = find_layout(place(full[:13] + discard, angle)).hands[0]
    assert hand.concealed[-1] == "5p" and hand.win_tile == "5p" and len(hand.concealed) == 14


def turned(scene, angle: float, exact: bool) -> list[TileDetection]:
    """The scene's labelled tiles in the photo turned by ``angle`` degrees: the boxes of the
    turned tiles (``exact``), or the boxes of the turned boxes (as Roboflow turns a labelled
    photo: larger than the tile near the diagonal)."""
    height, width = scene.ids.shape
    a = math.radians(angle)
    turn = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    centre = np.array([width / 2, height / 2])
    position = {id(t): k for k, t in enumerate(scene.tiles)}
    out = []
    for box in scene.boxes:
        if exact:
            k = position[id(box)]
            ys, xs = np.nonzero((scene.ids == 2 * k + 2) | (scene.ids == 2 * k + 3))
            points = np.stack([xs + 0.5, ys + 0.5], axis=1)
            p = (points - centre) @ turn.T + centre
            (x1, y1), (x2, y2) = p.min(axis=0) - 0.5, p.max(axis=0) + 0.5
        else:
            x1, y1, x2, y2 = box.box
            p = (np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) - centre) @ turn.T + centre
            (x1, y1), (x2, y2) = p.min(axis=0), p.max(axis=0)
        out.append(TileDetection(box.tile, (float(x1), float(y1), float(x2), float(y2)), 1.0))
    return out


#: Generated hands (seed 7) with an added kong, seen from above; 58 also has a concealed kong.
ADDED_KONG_SCENES = (58, 192, 408, 1207)


@pytest.mark.parametrize("index", ADDED_KONG_SCENES)
def test_synthetic_added_kongs(index):
    scene = synth.render_scene_full(synth.scene_rng(7, index), 640, styles=art_styles(), kind="hand",
                                    effects=False)
    hand_meta = first_hand(scene)
    assert any(m["added"] for m in hand_meta["melds"])
    goal = synth.expected_reading(hand_meta)
    for detections in (truth(scene), turned(scene, 45, exact=True), turned(scene, 45, exact=False),
                       turned(scene, 120, exact=False)):
        hand = own_hand(find_layout(detections), scene, 0)
        assert hand.reading() == goal
        added = [k for k, b in enumerate(scene.boxes) if b.group == "meld" and b.player == 0 and
                 hand_meta["melds"][b.meld]["added"] and b.index == 3]
        assert added and all(any(k in m.indices and m.type == "kong" for m in hand.melds) for k in added)


def with_rotation(detections: list[TileDetection], angle: float, sideways: set[int]) -> list[TileDetection]:
    """The detections with the recogniser's rotation: the hand's frame turned by ``angle``,
    called tiles a further quarter turn."""
    return [TileDetection(d.tile, d.box, d.confidence, rotation=(angle + (90 if k in sideways else 0)) % 360)
            for k, d in enumerate(detections)]


@pytest.mark.parametrize("angle", [45, 135, 225, 315, 10, 190])
def test_tile_rotations_give_the_reading_direction_of_an_unsorted_hand(angle):
    """Nothing in the boxes says which end is the player's left (no melds, nothing set apart,
    tiles unsorted); the recogniser's rotation does: the tiles' tops point away from the player."""
    tiles = "9s 2m 7p 1z 4m 3s 8m 2p 6s 5z 1m 9p 4s".split()
    items, _ = row(tiles)
    detections = with_rotation(place(items, angle), angle, set())
    hand = find_layout(detections).hands[0]
    assert hand.concealed == tiles
    assert hand.direction_from == "tile rotation"


def test_tile_rotations_say_which_tiles_lie_sideways_when_boxes_cannot():
    """Square boxes (a detector that pads its boxes) show no shape; the rotation shows the
    called tile."""
    for angle in (0, 90, 180):
        square = []
        for d in place(hand_items(), angle):
            cx, cy = d.center
            square.append(TileDetection(d.tile, (cx - 24, cy - 24, cx + 24, cy + 24), d.confidence))
        layout = find_layout(with_rotation(square, angle, {11}))
        assert layout.sideways == [11], angle
        assert summary(layout.hands[0]) == EXPECTED, angle


def test_rotation_is_optional_and_round_trips():
    plain = TileDetection("1m", (0, 0, 30, 40), 0.9)
    assert plain.rotation is None and plain.top is None and "rotation" not in plain.to_dict()
    turned_tile = TileDetection("1m", (0, 0, 30, 40), 0.9, rotation=90)
    assert turned_tile.to_dict()["rotation"] == 90.0
    assert np.allclose(turned_tile.top, (1.0, 0.0))  # its top points to the right of the image


@pytest.mark.parametrize("angle", (0, 20, 90, 135))
def test_a_hand_with_its_melds_in_a_row_against_it_is_no_pond(angle):
    """Seven concealed tiles (eight, one missed by the detector) with two chows laid in a
    row against them are a hand, its own row short by the melds' tiles; two rows of six
    laid so are the first two rows of discards."""
    concealed, _ = row("1m 1m 2p 3p 4p 9s 9s".split())
    melds, x = row(["3s", "4s", "5s"], y=TILE_H + 1.0, sideways=(0,))
    chow, _ = row(["6p", "7p", "8p"], x=x + 15.0, y=TILE_H + 1.0, sideways=(0,))
    layout = find_layout(place(concealed + melds + chow, angle))
    assert len(layout.hands) == 1
    assert sorted(layout.hands[0].concealed) == sorted(t for t, *_ in concealed)
    assert sorted(m.type for m in layout.hands[0].melds) == ["chow", "chow"]
    first, _ = row("1m 9m 2z 3z 5p 7s".split())
    second, _ = row("4s 8m 1z 6z 2p 9p".split(), y=TILE_H + 1.0)
    assert find_layout(place(first + second, angle)).hands == []


def test_a_called_meld_misread_as_no_set_is_re_read_from_the_next_choices():
    detections = place(hand_items(), 0)
    chow = [k for k, d in enumerate(detections) if d.tile == "4s"][0]
    # the 4s of the called chow read as 4p, its true face the recogniser's second choice
    detections[chow] = dataclasses.replace(detections[chow], tile="4p", confidence=0.6,
                                           alternatives=[("4s", 0.3), ("1s", 0.05)], face_confidence=0.6)
    layout = find_layout(detections)
    assert summary(layout.hands[0]) == EXPECTED
    assert chow in layout.doubtful  # asked about on the page, like any unsure reading
    assert any("the 4 of dots read as the 4 of bamboo to make the chow" in p for p in layout.hands[0].problems)
    assert layout.rereadings() == {chow: "4s"}  # the face the scan shows for that box
    # no alternative that makes a set: the meld stays as read, and the hand says so
    detections[chow] = dataclasses.replace(detections[chow], alternatives=[("9m", 0.3)])
    hand = find_layout(detections).hands[0]
    assert any("do not make a chow, pung or kong" in e for e in hand.errors)


def test_a_face_down_tile_at_the_end_of_the_hand_is_left_out_of_it():
    items, x = row(CONCEALED + ["1z", "1z", "1z", "5z", "back"])  # felt read as a back, past the end
    hand = find_layout(place(items, 0)).hands[0]
    assert "back" not in hand.concealed and len(hand.concealed) == 14
    assert any("face-down tile at the end of the hand was left out" in p for p in hand.problems)
    assert not any("face-down" in e for e in hand.errors)
    # inside the hand it is a tile turned over: the player is asked to turn it face up
    items, _ = row(CONCEALED[:5] + ["back"] + CONCEALED[5:] + ["1z", "1z", "5z"])
    hand = find_layout(place(items, 0)).hands[0]
    assert any("turn it face up" in e for e in hand.errors)


@pytest.mark.parametrize("angle", (0, 30, 90, 200))
def test_a_hand_laid_in_two_rows_is_one_hand(angle):
    """Fourteen tiles laid in two rows, one behind the other, the winning tile set apart at
    the end of the second: one hand, every tile in it, the winning tile found."""
    far, _ = row("1m 2m 3m 4p 5p 6p 7s".split())
    near, x = row("8s 9s 1z 1z 1z 5z".split(), y=TILE_H + 6.0)
    win, _ = row(["5z"], x=x + 15.0, y=TILE_H + 6.0)
    layout = find_layout(place(far + near + win, angle))
    assert len(layout.hands) == 1
    hand = layout.hands[0]
    assert sorted(hand.concealed) == sorted("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 1z 5z 5z".split())
    assert hand.win_tile == "5z" and hand.melds == []


@pytest.mark.parametrize("angle", (0, 30, 90))
def test_two_rows_with_a_meld_beside_them_are_a_hand_not_a_pond(angle):
    """Eleven loose tiles in rows of five and six with a pung laid beside them make a hand of
    14 (two rows of discards hold no meld); the pung stays a meld."""
    far, _ = row("8m 8p 8p 1s 5s".split())
    near, x = row("6s 6s 1z 5z 6z".split(), y=TILE_H + 6.0)
    win, x = row(["3s"], x=x + 15.0, y=TILE_H + 6.0)
    pung, _ = row(["3p", "3p", "3p"], x=x + 40.0, y=TILE_H + 6.0, sideways=(1,))
    layout = find_layout(place(far + near + win + pung, angle))
    assert len(layout.hands) == 1
    hand = layout.hands[0]
    assert sorted(hand.concealed) == sorted("8m 8p 8p 1s 5s 6s 6s 1z 5z 6z 3s".split())
    assert [(m.type, m.tiles) for m in hand.melds] == [("pung", ["3p", "3p", "3p"])]
    assert hand.win_tile == "3s"
    # three rows of six discards are still a pond, not a hand
    rows = [row(faces.split(), y=k * (TILE_H + 1.0))[0] for k, faces in
            enumerate(["1m 9m 2z 3z 5p 7s", "4s 8m 1z 6z 2p 9p", "3m 7p 4z 5s 8p 2s"])]
    assert find_layout(place([t for r in rows for t in r], angle)).hands == []


WINNING = "1m 1m 1m 2p 3p 4p 5s 6s 7s 9s 9s 2z 2z 2z".split()


def test_a_hand_that_reads_as_no_win_is_re_read_from_the_next_choices():
    items, _ = row(WINNING, apart_before=(13,))
    detections = place(items, 0)
    # the 6s read as 6p (the true face the recogniser's second choice): fourteen tiles, no win
    detections[7] = dataclasses.replace(detections[7], tile="6p", confidence=0.7,
                                        alternatives=[("6s", 0.2), ("9p", 0.05)], face_confidence=0.7)
    layout = find_layout(detections)
    hand = layout.hands[0]
    assert sorted(hand.concealed) == sorted(WINNING) and hand.reread == [7]
    assert layout.rereadings() == {7: "6s"}
    assert 7 in layout.doubtful  # asked about on the page all the same
    assert any("the 6 of dots read as the 6 of bamboo, which makes the hand a win" in p for p in hand.problems)
    # the winning tile itself misread: re-read, and the hand's winning tile with it
    detections = place(items, 0)
    detections[13] = dataclasses.replace(detections[13], tile="3z", alternatives=[("2z", 0.1)],
                                         face_confidence=0.85)
    hand = find_layout(detections).hands[0]
    assert hand.win_tile == "2z" and sorted(hand.concealed) == sorted(WINNING)


def test_no_re_read_of_a_win_a_non_win_or_an_unlikely_choice():
    items, _ = row(WINNING, apart_before=(13,))
    # read right: a win, nothing re-read, even where an alternative would also win
    detections = place(items, 0)
    detections[0] = dataclasses.replace(detections[0], alternatives=[("4m", 0.3)], face_confidence=0.6)
    assert find_layout(detections).hands[0].reread == []
    # thirteen tiles (a hand that did not go out): no tile is changed to make a win
    detections = place(items[:13], 0)
    detections[7] = dataclasses.replace(detections[7], tile="6p", alternatives=[("6s", 0.2)], face_confidence=0.7)
    assert find_layout(detections).hands[0].concealed[7] == "6p"
    # the next choice far less likely than the reading (< 1 %): left as read
    detections = place(items, 0)
    detections[7] = dataclasses.replace(detections[7], tile="6p", alternatives=[("6s", 0.005)],
                                        face_confidence=0.99)
    hand = find_layout(detections).hands[0]
    assert "6p" in hand.concealed and hand.reread == []
    # a fifth copy of a tile never completes a hand
    detections = place(items, 0)
    detections[9] = dataclasses.replace(detections[9], tile="5z", alternatives=[("1m", 0.3)], face_confidence=0.6)
    assert find_layout(detections).hands[0].reread == []


def test_two_re_readings_alike_are_asked_about_not_taken():
    tiles = "2p 3p 4p 5s 6s 7s 9s 9s 2z 2z 2z 1m 1m 7z".split()
    detections = place(row(tiles, apart_before=(13,))[0], 0)
    # the tile set apart read as the red dragon: as the 1m (a pung of 1m, the 9s pair) or as
    # the 9s (a pung of 9s, the 1m pair) the hand wins, and the recogniser rates both alike
    detections[13] = dataclasses.replace(detections[13], alternatives=[("1m", 0.2), ("9s", 0.18)],
                                         face_confidence=0.6)
    layout = find_layout(detections)
    hand = layout.hands[0]
    assert hand.reread == [] and hand.win_tile == "7z"
    assert 13 in layout.doubtful
    assert any("among other readings" in p for p in hand.problems)
    # one far likelier than the other: taken
    detections[13] = dataclasses.replace(detections[13], alternatives=[("1m", 0.3), ("9s", 0.02)])
    assert find_layout(detections).hands[0].win_tile == "1m"


def test_a_second_box_on_a_tile_of_a_row_is_dropped():
    items, _ = row(WINNING, apart_before=(13,))
    detections = place(items, 0)
    # a weak box across the 6s and the 7s (half of each), as the detector's NMS lets through
    six, seven = detections[7].box, detections[8].box
    across = ((six[0] + six[2]) / 2 + 2, six[1], (seven[0] + seven[2]) / 2 + 2, six[3])
    layout = find_layout(detections + [TileDetection("7s", across, 0.3)])
    hand = layout.hands[0]
    assert sorted(hand.concealed) == sorted(WINNING) and 14 in layout.unassigned
    # as confident as its neighbours, it is left where it overlaps one tile far more than
    # the other (the page shows it; a wrong count asks): a tile boxed twice, or no box at all
    onto_seven = (across[0] + 8, across[1], across[2] + 8, across[3])
    layout = find_layout(detections + [TileDetection("7s", onto_seven, 0.9)])
    assert len(layout.hands[0].concealed) == 15


@pytest.mark.parametrize("angle", (0, 30, 90))
def test_a_called_tile_lying_off_the_line_keeps_its_meld_in_the_row(angle):
    """A pung set apart whose called tile lies sideways with its long edge to the front, its
    centre a little off the row's line and nearer the tile after it than the one before: the
    two make a piece whose own direction is some 14 degrees off the row's, yet both lie on the
    row's line. The piece joins the row and the pung is one meld (the old joining judged the
    pair by its direction and left it out of the hand)."""
    items, x = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z".split())
    meld = [("2z", x + 15.0, 0.0, False), ("2z", x + 15.0 + TILE_W + 6.0, 9.0, True),
            ("2z", x + 15.0 + TILE_W + TILE_H + 6.0, 0.0, False)]
    hand = find_layout(place(items + meld, angle)).hands[0]
    assert sorted(hand.concealed) == sorted("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z".split())
    assert [(m.type, "".join(m.tiles)) for m in hand.melds] == [("pung", "2z2z2z")]


@pytest.mark.parametrize("angle", [0, 90, 180, 270])
def test_melds_that_lie_as_far_from_the_middle_in_groups_read_the_same_at_any_turn(angle):
    """Unsorted concealed tiles, the winning tile apart, a pung and a kong each with a called tile
    sideways, then a chow split at its called tile (boxed standing): the declared melds lie as
    far from the row's middle counted in groups on either side, so only the count in tiles says
    which end is the player's right, and the sorted tiles say nothing. Before, the photo's own
    left-to-right decided, and the hand turned a half or a quarter read back to front."""
    items, x = row(["9s", "3m", "2p", "5z", "8m"], apart_before=(4,))
    pung, x = row(["1s", "1s", "1s"], x=x + 20, sideways=(0,))
    kong, x = row(["7z", "7z", "7z", "7z"], x=x + 20, sideways=(0,))
    chow, x = row(["6m", "7m", "8m"], x=x + 20, apart_before=(1,), apart=12)
    hands = find_layout(place(items + pung + kong + chow, angle)).hands
    assert len(hands) == 1
    assert summary(hands[0]) == (sorted(["9s", "3m", "2p", "5z", "8m"]), "8m",
                                 sorted([("pung", True, "1s1s1s"), ("kong", True, "7z7z7z7z"),
                                         ("chow", True, "6m7m8m")]))


@pytest.mark.parametrize("angle", [0, 90, 180, 270])
def test_melds_shown_by_gaps_alone_lie_at_the_end_whose_piece_makes_sets(angle):
    """No tile lies sideways and the concealed tiles are unsorted: the end of the row whose piece
    splits into sets is where the melds lie, whichever way the photo is turned."""
    items, x = row(["9p", "4m", "8m", "3s", "6s"], apart_before=(4,))
    melds, x = row(["2s", "2s", "2s", "8s", "8s", "8s", "4p", "4p", "4p"], x=x + 20)
    hands = find_layout(place(items + melds, angle)).hands
    assert len(hands) == 1
    assert summary(hands[0]) == (sorted(["9p", "4m", "8m", "3s", "6s"]), "6s",
                                 sorted([("pung", True, "2s2s2s"), ("pung", True, "8s8s8s"),
                                         ("pung", True, "4p4p4p")]))
