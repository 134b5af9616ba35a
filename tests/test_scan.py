"""Photos in, scans out: decoding any upload, the scan format, problems said in words,
the command line, drawing, and the camera's temporal voting.

No trained model is needed: a recogniser that returns known detections stands in.
"""
from __future__ import annotations

import dataclasses
import json
import re
import struct
import zlib

import cv2
import numpy as np
import pytest

from mahjong_lens.rules.registry import score
from mahjong_lens.rules.tiles import parse_tiles, tile_unicode
from mahjong_lens.vision.camera import Camera, CameraError, TemporalVoter, reading_key, watch
from mahjong_lens.vision.detections import TileDetection
from mahjong_lens.scan_command import detections_from_json, summary
from mahjong_lens.vision.drawing import annotate
from mahjong_lens.vision.image_input import ScanError, decode_image, exif_orientation, image_size
from mahjong_lens.vision.scan import scan_detections, scan_image
from mahjong_lens.vision.scan_result import ScannedHand, ScanResult

from test_layout import TILE_W, place, row


# --------------------------------------------------------------------------- decoding

def png(width: int, height: int, colour_type: int = 0, row_bytes: int | None = None) -> bytes:
    """A real PNG of a black image, compressed row by row (so a huge one costs little memory)."""
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour_type]
    line = b"\x00" + bytes(row_bytes if row_bytes is not None else width * channels)
    squeeze = zlib.compressobj(9)
    data = b"".join(squeeze.compress(line) for _ in range(height)) + squeeze.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """A JPEG with an APP1 EXIF block that holds only the orientation tag."""
    tiff = (b"MM\x00*" + struct.pack(">I", 8) + struct.pack(">H", 1)
            + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0))
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def encoded(image: np.ndarray, ext: str = ".png") -> bytes:
    ok, buffer = cv2.imencode(ext, image)
    assert ok
    return buffer.tobytes()


@pytest.mark.parametrize("data, words", [
    (b"", "empty"),
    (b"\x00\x01\x02\x03" * 300, "not an image"),
    ("a hand: 123m456p789s11155z\n".encode() * 20, "text"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + struct.pack(">II", 64, 64) + b"\x08\x02\x00\x00\x00junk" * 30,
     "damaged"),
])
def test_unreadable_files_give_a_sentence(data, words):
    with pytest.raises(ScanError, match=words):
        decode_image(data)


def test_a_truncated_photo_is_damaged():
    noise = np.random.default_rng(0).integers(0, 256, (200, 300, 3), dtype=np.uint8)
    jpeg = encoded(noise, ".jpg")
    with pytest.raises(ScanError, match="damaged"):
        decode_image(jpeg[:len(jpeg) // 2])


def test_a_huge_image_is_refused_from_its_header_before_decoding():
    huge = png(12000, 9000)  # a real, valid PNG: 108 megapixels of black in ~100 kB
    assert len(huge) < 2_000_000 and image_size(huge) == (12000, 9000)
    with pytest.raises(ScanError, match=r"12000 x 9000 pixels \(108 megapixels\).*50 megapixels"):
        decode_image(huge)
    # a header alone that claims the size is refused the same way (nothing to decode)
    with pytest.raises(ScanError, match="108 megapixels"):
        decode_image(huge[:33])
    # a JPEG's size is read from its frame header
    jpeg = encoded(np.zeros((30, 50, 3), np.uint8), ".jpg")
    assert image_size(jpeg) == (50, 30)


def test_a_file_over_20_mb_is_refused():
    with pytest.raises(ScanError, match="MB"):
        decode_image(b"\xff\xd8" + bytes(21 * 1024 * 1024))


def test_grayscale_becomes_colour():
    grey = np.tile(np.arange(0, 200, 4, dtype=np.uint8), (30, 1))  # 30 x 50
    image = decode_image(encoded(grey))
    assert image.shape == (30, 50, 3) and image.dtype == np.uint8
    assert (image[:, :, 0] == grey).all() and (image[:, :, 2] == grey).all()


def test_transparency_is_laid_on_white():
    rgba = np.zeros((20, 20, 4), np.uint8)
    rgba[:, :10] = (255, 0, 0, 255)     # opaque blue (BGR) on the left
    rgba[:, 10:] = (0, 0, 255, 0)       # fully transparent red on the right
    rgba[0, 0] = (0, 0, 0, 128)         # half-transparent black: mid grey
    image = decode_image(encoded(rgba))
    assert image.shape == (20, 20, 3)
    assert tuple(image[5, 2]) == (255, 0, 0)
    assert tuple(image[5, 15]) == (255, 255, 255)
    assert tuple(image[0, 0]) == (127, 127, 127)  # 255 * (1 - 128/255) = 127


def test_sixteen_bit_images_are_scaled():
    deep = np.full((20, 20, 3), 65535, np.uint16)
    deep[:10] = 0
    image = decode_image(encoded(deep))
    assert image.dtype == np.uint8 and image[15, 0, 0] == 255 and image[0, 0, 0] == 0


@pytest.mark.parametrize("orientation, shape, red_at", [
    (1, (20, 40), (10, 2)),    # as stored: red strip on the left
    (6, (40, 20), (2, 10)),    # rotate 90° clockwise to view: the left edge goes to the top
    (8, (40, 20), (37, 10)),   # rotate 90° counter-clockwise: the left edge goes to the bottom
    (3, (20, 40), (10, 37)),   # 180°: the left edge goes to the right
])
def test_exif_orientation_is_applied(orientation, shape, red_at):
    stored = np.zeros((20, 40, 3), np.uint8)
    stored[:, :8] = (0, 0, 255)
    jpeg = with_exif_orientation(encoded(stored, ".jpg"), orientation)
    assert exif_orientation(jpeg) == orientation
    image = decode_image(jpeg)
    assert image.shape[:2] == shape
    b, g, r = image[red_at].astype(int)
    assert r > 200 and b < 60 and g < 60


# --------------------------------------------------------------------------- scanning

class Fixed:
    """A recogniser that reads whatever it was given."""

    def __init__(self, detections):
        self.detections = list(detections)
        self.calls = 0

    def detect(self, image):
        self.calls += 1
        return list(self.detections)


WINNER = "1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 1z 5z 5z".split()


def winning_hand(y: float = 0.0, x: float = 0.0, drop: int | None = None) -> list:
    """123m 456p 789s 111z 5z and the winning 5z set apart (optionally without one tile)."""
    tiles = [t for k, t in enumerate(WINNER) if k != drop]
    items, _ = row(tiles, x=x, y=y, apart_before=(len(tiles) - 1,))
    return items


def test_a_winning_hand_is_read_and_scored():
    detections = place(winning_hand(), 0, centre=(400, 300))
    scan = scan_detections(detections, 1280, 720, {"seat_wind": "E", "prevalent_wind": "E"}, "rode-draak",
                           name="photo.jpg").to_dict()
    assert scan["image"] == "photo.jpg" and (scan["width"], scan["height"]) == (1280, 720)
    assert scan["hand"]["concealed"] == "123m456p789s11155z"
    assert scan["hand"]["win_tile"] == "5z" and scan["hand"]["melds"] == []
    # Rode Draak: Mahjong 20 + concealed pung of East 8 + pair of dragons 2 = 30 points,
    # doubled for a pung of the own wind and again for the prevailing wind: 30 x 4 = 120
    assert scan["result"]["valid"] and scan["result"]["points"] == 120
    assert scan["result"] == score(scan["hand"], "rode-draak").to_dict()
    assert "error" not in scan and scan["doubtful"] == [] and scan["problems"] == []
    # the scan format: one entry per detection, in pixels of the image
    assert len(scan["tiles"]) == 14
    first = scan["tiles"][0]
    assert {"tile", "box", "confidence", "face_down", "sideways"} <= set(first)
    assert first["tile"] == "1m" and first["face_down"] is False and first["sideways"] is False
    assert scan["tiles"][13]["role"] == "win"
    json.loads(json.dumps(scan))  # plain JSON all the way down


def test_a_misread_tile_whose_next_choice_makes_the_win_is_scored_and_asked_about():
    detections = place(winning_hand(), 0, centre=(400, 300))
    # the 8s read as 8p, the 8s the recogniser's second choice: read as is, no win
    detections[7] = dataclasses.replace(detections[7], tile="8p", alternatives=[("8s", 0.25)], face_confidence=0.7)
    scan = scan_detections(detections, 1280, 720, {"seat_wind": "E", "prevalent_wind": "E"}, "rode-draak").to_dict()
    assert scan["hand"]["concealed"] == "123m456p789s11155z" and scan["result"]["points"] == 120
    # the tile is the face the hand holds, asked about, with the camera's first reading first
    assert 7 in scan["doubtful"] and scan["tiles"][7]["tile"] == "8s" and scan["tiles"][7]["doubtful"]
    assert scan["tiles"][7]["first_reading"] == "8p" and scan["tiles"][7]["alternatives"][0] == {"tile": "8p", "confidence": 0.7}
    assert "first_reading" not in scan["tiles"][6]
    assert any("the 8 of dots read as the 8 of bamboo, which makes the hand a win" in p for p in scan["problems"])


def test_scan_image_runs_the_recogniser_once_per_photo():
    recogniser = Fixed(place(winning_hand(), 90, centre=(300, 300)))
    scan = scan_image(np.zeros((600, 640, 3), np.uint8), recogniser, {"self_drawn": True}, "riichi").to_dict()
    assert recogniser.calls == 1 and (scan["width"], scan["height"]) == (640, 600)
    assert scan["hand"]["self_drawn"] is True and scan["result"]["rules"] == "riichi"


def test_a_photo_of_a_set_without_red_fives_asks_under_riichi_and_the_cli_says_how_to_answer():
    # a Chinese set has no red fives: four plain 5p in a riichi scan are asked about, not refused
    detections = place(row(parse_tiles("123m456m345p555p99s"))[0], 0, centre=(500, 400))
    scan = scan_detections(detections, 1000, 800, {"self_drawn": True, "seat_wind": "E"}, "riichi")
    entry = scan.hands[0]
    assert entry.question == "red_five" and [c["answer"] for c in entry.candidates["red_candidates"]] == [
        "red", "no_red_fives"]
    assert scan.to_dict()["red_candidates"][0]["tile"] == "0p"
    text = summary(scan)
    assert "Is one of them red, or has this set no red fives?" in text
    assert "give --option red_fives=false" in text
    plain = scan_detections(detections, 1000, 800, {"self_drawn": True, "seat_wind": "E"}, "riichi",
                            {"red_fives": False})
    assert plain.hands[0].question is None and plain.to_dict()["result"]["valid"]


def test_context_and_the_dead_wall_reach_the_hand():
    wall, _ = row(["back", "back", "4z", "back", "back"], x=40, y=-200)
    detections = place(winning_hand() + wall, 0, centre=(500, 400))
    scan = scan_detections(detections, 1000, 800, {"self_drawn": True, "seat_wind": "E"}, "riichi").to_dict()
    assert scan["dora_indicators"] == ["4z"] and scan["hand"]["dora_indicators"] == ["4z"]
    # riichi: menzen tsumo 1 + East as seat wind 1 + East as prevalent wind 1 + dora 3
    # (the 4z indicator makes 1z the dora, and the hand holds three) = 6 han: haneman
    lines = {line["name"]: line["value"] for line in scan["result"]["breakdown"]}
    assert lines["Dora"] == "3 han" and scan["result"]["han"] == 6
    assert [t["role"] for t in scan["tiles"][14:]] == ["dead_wall", "dead_wall", "dora", "dead_wall", "dead_wall"]
    # the user can override what the photo shows
    scan = scan_detections(detections, 1000, 800, {"dora_indicators": ["9m"]}, "rode-draak").to_dict()
    assert scan["hand"]["dora_indicators"] == ["9m"]
    with pytest.raises(ScanError, match="unknown context field"):
        scan_detections(detections, 1000, 800, {"sead_wind": "S"})


def test_thirteen_tiles_where_fourteen_are_needed():
    detections = place(winning_hand(drop=4), 0, centre=(400, 300))  # the 5p is missing
    scan = scan_detections(detections, 800, 600).to_dict()
    assert "hand" not in scan and "result" not in scan
    assert scan["error"].startswith("13 tiles were found where 14 are needed for a winning hand")
    assert scan["reading"]["win_tile"] == "5z" and len(scan["reading"]["concealed"]) == 13


def test_a_kong_laid_in_the_row_is_pointed_out():
    tiles = "1m 2m 3m 4p 5p 6p 2z 2z 2z 2z 7s 8s 9s 5z".split() + ["5z"]
    items, _ = row(tiles, apart_before=(14,))
    scan = scan_detections(place(items, 0, centre=(600, 300)), 1200, 600).to_dict()
    assert scan["error"].startswith("15 tiles were found, but a winning hand has 14")
    assert scan["error"].endswith("if the four South are a kong, set it a little apart from the other tiles")
    # fifteen with no four alike: no such hint
    items, _ = row("1m 2m 3m 4p 5p 6p 2z 2z 2z 7s 8s 9s 5z 1s".split() + ["5z"], apart_before=(14,))
    assert "kong" not in scan_detections(place(items, 0, centre=(600, 300)), 1200, 600).to_dict()["error"]


def test_a_hand_that_did_not_win_scores_in_rode_draak_but_not_in_riichi():
    items, _ = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 1z 1z 1z 5z".split())
    detections = place(items, 0, centre=(400, 300))
    scan = scan_detections(detections, 800, 600, rules="rode-draak").to_dict()
    assert scan["hand"]["win_tile"] is None and scan["result"]["valid"] and not scan["result"]["winning"]
    scan = scan_detections(detections, 800, 600, rules="riichi").to_dict()  # riichi scores only a win
    assert scan["error"].startswith("13 tiles were found where 14 are needed")


def test_a_fifth_copy_is_named_and_nothing_is_scored():
    detections = place(winning_hand(), 0, centre=(400, 300))
    for k in (0, 1, 2):  # 1m 2m 3m read as 1z: with 1z 1z 1z that makes six copies
        detections[k] = TileDetection("1z", detections[k].box, 0.9)
    scan = scan_detections(detections, 800, 600).to_dict()
    assert "result" not in scan
    assert scan["error"] == ("6 copies of the East were read; a set has four, so at least one of them "
                             "is misread (they are marked on the photo)")
    assert scan["doubtful"] == [0, 1, 2, 9, 10, 11]


def test_a_low_confidence_tile_is_doubtful_but_the_hand_is_still_scored():
    detections = place(winning_hand(), 0, centre=(400, 300))
    detections[4] = TileDetection("5p", detections[4].box, 0.32, [("3p", 0.3)])
    scan = scan_detections(detections, 800, 600).to_dict()
    assert scan["doubtful"] == [4] and scan["tiles"][4]["doubtful"] is True
    assert any("a tile was read as the 5 of dots, 32% sure (perhaps the 3 of dots)" in p for p in scan["problems"])
    assert scan["result"]["valid"]


def test_a_complete_hand_with_nothing_set_apart():
    items, _ = row(WINNER)
    detections = place(items, 0, centre=(400, 300))
    scan = scan_detections(detections, 800, 600, {"self_drawn": True}).to_dict()
    # the score may depend on which tile won: either every choice scores alike (then the
    # scan says which it took), or the scan asks, listing what each choice would score
    points = {tile: score({"concealed": "123m456p789s11155z", "win_tile": tile, "self_drawn": True},
                          "rode-draak").to_dict() for tile in dict.fromkeys(WINNER)}
    valid = {t: r["points"] for t, r in points.items() if r["valid"]}
    if len(set(valid.values())) == 1:
        assert scan["result"]["points"] == next(iter(valid.values()))
        assert any("no winning tile was marked" in p for p in scan["problems"])
    else:
        assert {c["tile"]: c["points"] for c in scan["win_candidates"]} == valid
        assert scan["question"] == "win_tile" and "which tile completed the hand" in scan["error"]
        assert [c["points"] for c in scan["win_candidates"]] == sorted(valid.values(), reverse=True)
    # naming the winning tile settles it
    scan = scan_detections(detections, 800, 600, {"self_drawn": True, "win_tile": "3m"}).to_dict()
    assert scan["hand"]["win_tile"] == "3m" and scan["result"] == points["3m"]


def test_no_tiles_and_stray_tiles():
    scan = scan_detections([], 640, 480).to_dict()
    assert scan["error"] == "no tiles were found in the photo" and scan["tiles"] == []
    strays = [TileDetection("1m", (10, 10, 40, 50), 0.9), TileDetection("2m", (300, 300, 330, 340), 0.9)]
    scan = scan_detections(strays, 640, 480).to_dict()
    assert "no hand laid out in a row" in scan["error"]
    assert [t["role"] for t in scan["tiles"]] == ["unassigned", "unassigned"]


TABLE = {  # seat -> tiles; the East hand won on the 5z set apart
    "E": WINNER,
    "S": "2m 3m 4m 5m 6m 7m 2p 2p 3s 4s 6z 6z 7z".split(),
    "W": "7m 8m 9m 1p 2p 3p 1s 2s 3s 2z 2z 4z 4z".split(),
    "N": "4m 5m 6m 7p 8p 9p 4s 5s 6s 3z 3z 3z 9m".split(),
}


def table_detections() -> tuple[list[TileDetection], list[str]]:
    detections, owners = [], []
    for turn, seat in enumerate("ESWN"):
        tiles = TABLE[seat]
        items, _ = row(tiles, x=-230, y=320, apart_before=(13,) if len(tiles) == 14 else ())
        # East at the bottom of the photo, the others counter-clockwise, facing the centre
        detections += place(items, -90 * turn, centre=(800, 800))
        owners += [seat] * len(tiles)
    return detections, owners


def test_a_rode_draak_table_is_scored_and_settled():
    detections, owners = table_detections()
    scan = scan_detections(detections, 1600, 1600, {"prevalent_wind": "E"}, "rode-draak").to_dict()
    assert [entry["seat"] for entry in scan["hands"]] == ["E", "S", "W", "N"]
    for entry in scan["hands"]:
        assert {owners[i] for i in entry["tiles"]} == {entry["seat"]}
        assert entry["result"]["valid"]
    assert scan["hand"]["win_tile"] == "5z" and scan["result"]["points"] == 120
    table = scan["table"]
    assert set(table["payments"]) == {"E", "S", "W", "N"} and sum(table["payments"].values()) == 0
    assert table["payments"]["E"] > 0 and table["seats"]["E"]["points"] == 120
    # the photographer sat South: the seats turn with them
    scan = scan_detections(detections, 1600, 1600, {"seat_wind": "S"}, "rode-draak").to_dict()
    assert [entry["seat"] for entry in scan["hands"]] == ["S", "W", "N", "E"]


def test_a_table_with_a_hand_missing_a_tile_is_not_settled():
    detections, owners = table_detections()
    south = [i for i, o in enumerate(owners) if o == "S"]
    detections = [d for i, d in enumerate(detections) if i != south[0]]
    scan = scan_detections(detections, 1600, 1600, {}, "rode-draak").to_dict()
    south_entry = next(e for e in scan["hands"] if e["seat"] == "S")
    # a photo cannot tell a tile hidden from the camera from a short (dead) hand: it asks
    assert south_entry["error"].startswith("12 tiles were found where 13 are needed for a hand")
    assert "result" not in south_entry
    assert scan["table"] == {"error": "the table cannot be settled: the hand of S could not be read"}
    assert scan["result"]["points"] == 120  # the winner's own score is still shown


# --------------------------------------------------------------------------- drawing

def test_annotate_draws_boxes_melds_and_dora():
    chow, x = row(["3s", "4s", "5s"], x=400, sideways=(0,))
    items, _ = row("1m 1m 2p 3p 4p 6s 7s 8s 9s 9s 9s".split())
    wall, _ = row(["back", "back", "7z", "back"], x=60, y=-150)
    detections = place(items + chow + wall, 0, centre=(400, 300))
    scan = scan_detections(detections, 900, 600, rules="rode-draak")
    image = np.full((600, 900, 3), 90, np.uint8)
    drawn = annotate(image, scan)
    assert drawn.shape == image.shape and (image == 90).all()  # the photo itself is untouched
    changed = (drawn != image).any(axis=2)
    for t in scan.tiles:
        x1, y1, x2, y2 = (int(round(v)) for v in t.detection.box)
        assert changed[y1:y2 + 1, x1].any()  # every tile is boxed
    assert [t.role for t in scan.tiles[11:14]] == ["meld"] * 3
    meld_box = [scan.tiles[i].detection.box for i in range(11, 14)]
    top = int(min(b[1] for b in meld_box)) - 3  # the meld's outline, just outside its tiles
    assert changed[top - 2:top + 3, int(meld_box[1][0])].any()


# --------------------------------------------------------------------------- command line

def run_cli(argv, capsys):
    from mahjong_lens.cli import main
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_scan_json_end_to_end(tmp_path, capsys):
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), np.full((600, 800, 3), 120, np.uint8))
    detections = place(winning_hand(), 0, centre=(400, 300))
    listing = tmp_path / "detections.json"
    listing.write_text(json.dumps({str(photo): [d.to_dict() for d in detections]}))
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a photo\n")
    out = tmp_path / "drawn"
    code, stdout, stderr = run_cli(["scan", str(photo), str(empty), str(notes), "--json", "--detections",
                                    str(listing), "--seat", "E", "--annotate", str(out)], capsys)
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert [line["image"] for line in lines] == [str(photo), str(empty), str(notes)]
    assert lines[0]["result"]["points"] == 120 and lines[0]["hand"]["concealed"] == "123m456p789s11155z"
    assert lines[1] == {"image": str(empty), "error": "the file is empty"}
    assert "text, not an image" in lines[2]["error"]
    assert code == 1 and "Traceback" not in stderr
    drawn = cv2.imread(str(out / "hand.annotated.png"))
    assert drawn is not None and drawn.shape == (600, 800, 3)


def test_cli_scan_readable_summary(tmp_path, capsys):
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), np.full((600, 800, 3), 120, np.uint8))
    listing = tmp_path / "detections.json"
    listing.write_text(json.dumps([d.to_dict() for d in place(winning_hand(), 0, centre=(400, 300))]))
    code, stdout, _ = run_cli(["scan", str(photo), "--detections", str(listing)], capsys)
    assert code == 0
    assert "\U0001F007\U0001F008\U0001F009"[0] in stdout  # the tiles in Unicode (1m is U+1F007)
    assert "in the hand: 1 char, 2 char, 3 char, 4 dots, 5 dots, 6 dots, 7 bam, 8 bam, 9 bam, East, East, East, White, White; winning tile: White dragon" in stdout and "120 points" in stdout


def test_the_summary_shows_the_hand_in_reading_order_whatever_the_detection_order():
    detections = place(winning_hand(), 0, centre=(400, 300))
    shuffled = detections[7:] + detections[:7]  # a detector reports tiles in its own order
    scan = scan_detections(shuffled, 1280, 720, {}, "rode-draak")
    assert [scan.tiles[i].tile for i in scan.hands[0].tiles] == WINNER
    assert [scan.to_dict()["tiles"][i]["tile"] for i in scan.to_dict()["hand_tiles"]] == WINNER
    hand_line = next(line for line in summary(scan).splitlines() if line.startswith("  hand:"))
    assert hand_line.split(":", 1)[1].split() == [tile_unicode(t) for t in WINNER]


def test_cli_scan_bad_options_and_missing_model(tmp_path, capsys):
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), np.zeros((50, 50, 3), np.uint8))
    code, _, stderr = run_cli(["scan", str(photo), "--win-tile", "10m", "--detections", "x.json"], capsys)
    assert code == 2 and "2 tiles, one was expected" in stderr
    code, _, stderr = run_cli(["scan", str(photo), "--option", "nonsense=1"], capsys)
    assert code == 2 and "no setting" in stderr
    code, _, stderr = run_cli(["scan", str(photo), "--model", str(tmp_path / "no-such-model")], capsys)
    assert code == 2 and "cannot load the tile recogniser" in stderr and "Traceback" not in stderr


# --------------------------------------------------------------------------- camera

def fake_scan(tiles: str | None) -> ScanResult:
    scan = ScanResult("frame", 640, 480, "rode-draak")
    if tiles is None:
        scan.error = "no tiles were found in the photo"
    else:
        scan.hands.append(ScannedHand(reading={"concealed": tiles.split(), "melds": [], "win_tile": None}))
    return scan


def test_temporal_voter_reports_only_a_steady_reading():
    voter = TemporalVoter(window=5, min_agreement=0.6)  # 3 of the last 5 frames must agree
    assert voter.add(fake_scan(None)) is None
    assert voter.add(fake_scan("1m 2m")) is None            # a hand coming into view
    assert voter.add(fake_scan("1m 2m 3m")) is None
    assert voter.add(fake_scan("1m 2m 3m 4m")) is None
    assert voter.add(fake_scan("1m 2m 3m 4m")) is None      # 2 of 5
    stable = voter.add(fake_scan("4m 3m 2m 1m"))            # same tiles, other order: 3 of 5
    assert stable is not None and stable.hands[0].reading["concealed"] == ["4m", "3m", "2m", "1m"]
    assert voter.add(fake_scan("1m 2m 3m 9m")) is not None  # one odd frame does not break it
    assert voter.add(fake_scan("1m 2m 3m 9m")) is not None  # 3 of 5 still agree on 1m-4m
    assert voter.add(fake_scan("1m 2m 3m 9m")) is not None  # now 9m has 3 of 5 (the 4m frames left)
    assert reading_key(voter.stable) == reading_key(fake_scan("1m 2m 3m 9m"))
    voter.reset()
    assert voter.stable is None and voter.add(fake_scan("1m 2m 3m 9m")) is None
    with pytest.raises(ValueError):
        TemporalVoter(window=0)


def write_video(path, frames: int, fps: float, size=(640, 480), step: int = 20):
    """An MJPG video of `frames` flat grey frames, each `step` brighter (skips the test where
    this OpenCV build writes no MJPG)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    if not writer.isOpened():
        pytest.skip("no MJPG video writer in this OpenCV build")
    for k in range(frames):
        writer.write(np.full((size[1], size[0], 3), step * k, np.uint8))
    writer.release()
    return path


def test_camera_reads_a_video_file_and_watch_waits_for_a_stable_hand(tmp_path):
    video = write_video(tmp_path / "table.avi", 12, 10)
    with Camera(str(video)) as camera:
        assert not camera.live
        frames = list(camera.frames())
    assert len(frames) == 12 and frames[0].shape == (480, 640, 3)

    hand = place(winning_hand(), 0, centre=(320, 240))

    class Arriving:
        """Frames 0-3: the hand slides in (a few tiles more each frame); then all of it."""

        def __init__(self):
            self.frame = 0

        def detect(self, image):
            seen = hand[:3 + 3 * self.frame] if self.frame < 4 else hand
            self.frame += 1
            return seen

    results = [stable for _, _, stable in watch(str(video), Arriving(), window=4, min_agreement=0.75)]
    assert len(results) == 12
    # frames 4, 5, 6 read the whole hand: the third of them makes 3 of the last 4 agree
    assert results[:6] == [None] * 6
    assert results[6] is not None and results[6].winner.hand["concealed"] == "123m456p789s11155z"
    assert all(r is not None for r in results[6:])


class _Clock:
    """A clock the test moves by hand, and a sleep that moves it."""

    def __init__(self):
        self.now, self.slept = 100.0, []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(round(seconds, 6))
        self.now += seconds


class _Recording:
    """A video file of numbered frames: read() gives the next one's number, skip() passes it."""

    def __init__(self, count):
        self.count, self.next, self.decoded = count, 0, 0

    def read(self):
        if self.next >= self.count:
            return None
        self.next += 1
        self.decoded += 1
        return self.next - 1

    def skip(self):
        if self.next >= self.count:
            return False
        self.next += 1
        return True


def test_a_video_file_plays_live_at_the_pace_it_was_recorded():
    from mahjong_lens.vision.live import RealTime
    clock, recording = _Clock(), _Recording(100)
    video = RealTime(recording, 10.0, clock=clock, sleep=clock.sleep)
    assert video.read() == 0 and clock.slept == []
    # read again at once (the feed reads faster than 10 a second): the next frame is waited for
    assert video.read() == 1 and clock.slept == [0.1]
    # the feed was busy for 2 s (a scan): the frames shown meanwhile are passed over, not decoded
    clock.now += 2.05
    assert video.read() == 21 and recording.decoded == 3
    clock.now += 10.0
    assert video.read() is None  # the file ended while the feed was away


def test_only_a_video_file_is_paced(tmp_path):
    from mahjong_lens.vision.live import RealTime, open_capture
    video = write_video(tmp_path / "table.avi", 3, 5, size=(64, 48), step=60)
    capture = open_capture(str(video))
    try:
        assert isinstance(capture, RealTime) and capture.fps == pytest.approx(5.0)
        assert capture.read().shape == (48, 64, 3)
    finally:
        capture.close()
    given = _Recording(3)
    assert open_capture(given) is given  # an object that reads its own frames is used as it is


def test_camera_that_cannot_be_opened(tmp_path):
    with pytest.raises(CameraError, match="cannot open"):
        Camera(str(tmp_path / "missing.mp4"))


@pytest.mark.parametrize("angle", [0, 40, 135])
def test_an_added_kong_is_scored_as_a_kong(angle):
    """A pung of East called from the right, the fourth laid across the called tile:
    15 tiles, one of them a kong, scored as a winning hand (not "15 tiles, 14 expected")."""
    items, x = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 5z 5z".split(), apart_before=(10,))
    pung, _ = row(["1z", "1z", "1z"], x=x + 20, sideways=(2,))
    added = [("1z", pung[2][1], -TILE_W - 1.0, True)]
    detections = place(items + pung + added, angle, centre=(500, 500))
    scan = scan_detections(detections, 1000, 1000, {"seat_wind": "E"}, "rode-draak").to_dict()
    assert "error" not in scan, scan.get("error")
    assert scan["hand"]["melds"] == [{"type": "kong", "tiles": "1111z", "open": True}]
    assert scan["hand"]["win_tile"] == "5z" and scan["result"]["valid"]
    assert scan["tiles"][14]["role"] == "meld" and scan["tiles"][14]["sideways"] is True


def test_the_scan_is_typed_until_it_is_written_as_json():
    """A ScanResult: the winner's hand and reading in lists (the page reads no notation), a
    kong's face-down tiles named in the reading, and the JSON only from to_dict."""
    items, x = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 5z 5z".split(), apart_before=(10,))
    kong, _ = row(["back", "1z", "1z", "back"], x=x + 20)
    scan = scan_detections(place(items + kong, 0, centre=(500, 500)), 1000, 1000, {"seat_wind": "E"},
                           "rode-draak")
    assert isinstance(scan, ScanResult) and scan.scored and len(scan.hands) == 1
    winner = scan.winner
    assert winner.hand["melds"] == [{"type": "kong", "tiles": "1111z", "open": False}]
    assert winner.reading["melds"][0]["tiles"] == ["back", "1z", "1z", "back"]
    assert winner.reading["melds"][0]["hand_tiles"] == ["1z"] * 4
    assert [t.role for t in scan.tiles[11:15]] == ["meld"] * 4
    written = scan.to_dict()
    assert written["result"] == winner.result and written["hand_tiles"] == winner.tiles
    # a winning tile the scan took (given here) is the reading's too, for the page to mark
    given = scan_detections(place(winning_hand(), 0, centre=(400, 300)), 800, 600,
                            {"self_drawn": True, "win_tile": "3m"}).winner
    assert given.reading["win_tile"] == given.hand["win_tile"] == "3m"


def test_a_photo_of_a_hand_no_tile_completes_asks_whether_it_won(capsys):
    items, _ = row("1m 4m 7m 2p 5p 8p 3s 6s 9s 1z 2z 5z 5z".split())
    scan = scan_detections(place(items, 0, centre=(400, 300)), 800, 600, {"self_drawn": True}, "rode-draak")
    winner = scan.winner
    assert winner.question == "not_won" and winner.candidates["way_candidates"][0]["points"] == 2
    assert "13 tiles were found where 14 are needed" in winner.error
    assert "did the hand win? As a hand that did not win it scores 2 points" in summary(scan)
    # said not to have won, it is scored
    assert scan_detections(place(items, 0, centre=(400, 300)), 800, 600, {}, "rode-draak").scored


def test_a_doubtful_tile_whose_runner_up_is_a_back_is_named_not_a_server_error():
    detections = place(winning_hand(), 0, centre=(400, 300))
    detections[0] = dataclasses.replace(detections[0], confidence=0.5, face_confidence=0.5,
                                        alternatives=[("back", 0.4)])
    scan = scan_detections(detections, 800, 600, {"self_drawn": True})
    assert any("perhaps the face-down tile" in p for p in scan.problems)


@pytest.mark.parametrize("rules", ["riichi", "rode-draak"])
def test_a_scan_that_says_neither_the_winning_tile_nor_how_it_was_won_asks_how(rules):
    """No tile set apart, no --self-drawn or --discarder: self-drawn the hand wins (a
    concealed self-draw), on a discard it does not: asked, never taken as the one that wins."""
    items, _ = row("1m 2m 3m 4p 5p 6p 7s 8s 9s 2z 2z 2z 5z 5z".split())
    scan = scan_detections(place(items, 0, centre=(400, 300)), 800, 600, {}, rules)
    winner = scan.winner
    assert winner.question == "win_way" and not scan.scored
    drawn, discard = winner.candidates["way_candidates"]
    assert drawn["points"] > 0 and discard["points"] is None
    assert "on a discard no win (points); give --self-drawn or --discarder" in summary(scan)
    # said self-drawn: scored
    assert scan_detections(place(items, 0, centre=(400, 300)), 800, 600, {"self_drawn": True}, rules).scored


def test_the_recognisers_rotation_travels_through_json():
    """A tile entry with a rotation (an added, optional field) becomes a TileDetection with
    it, and a scan writes it back; entries without it stay as they were."""
    tiles = "9s 2m 7p 1z 4m 3s 8m 2p 6s 5z 1m 9p 4s 4s".split()
    items, _ = row(tiles, apart_before=(13,))
    detections = place(items, 225, centre=(500, 500))
    entries = [dict(d.to_dict(), rotation=225.0) for d in detections]
    read_back = [detections_from_json(e) for e in entries]
    assert all(d.rotation == 225.0 for d in read_back)
    scan = scan_detections(read_back, 1000, 1000, {}, "rode-draak").to_dict()
    assert [t["rotation"] for t in scan["tiles"]] == [225.0] * 14
    assert scan["reading"]["concealed"] == tiles  # the player's order, from the tiles' tops
    plain = scan_detections(detections, 1000, 1000, {}, "rode-draak").to_dict()
    assert all("rotation" not in t for t in plain["tiles"])


def test_the_face_probability_travels_through_json_and_decides_doubt():
    """A scan's tile entry keeps the classifier's face probability; read back, the doubt is
    judged on it (min_face_confidence), and entries without it on their confidence."""
    tiles = "1m 2m 3m 4p 5p 6p 7s 8s 9s 2z 2z 2z 5z 5z".split()
    items, _ = row(tiles)
    detections = [dataclasses.replace(d, confidence=0.45, face_confidence=0.95) for d in place(items, 0)]
    detections[3] = dataclasses.replace(detections[3], face_confidence=0.6)
    scan = scan_detections(detections, 1000, 1000, {}, "rode-draak").to_dict()
    assert scan["doubtful"] == [3]  # the unsure boxes are not asked about, the unsure face is
    assert any(p.startswith("a tile was read as the 4 of dots, 60% sure") for p in scan["problems"])
    read_back = [detections_from_json(t) for t in scan["tiles"]]
    assert [d.face_confidence for d in read_back] == [d.face_confidence for d in detections]
    again = scan_detections(read_back, 1000, 1000, {"min_face_confidence": 0.5}, "rode-draak").to_dict()
    assert again["doubtful"] == []
    plain = scan_detections([dataclasses.replace(d, face_confidence=None) for d in detections],
                            1000, 1000, {}, "rode-draak").to_dict()
    assert len(plain["doubtful"]) == 14 and all("face_confidence" not in t for t in plain["tiles"])


def test_cli_scan_takes_ura_dora_indicators(tmp_path, capsys):
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), np.full((600, 800, 3), 120, np.uint8))
    listing = tmp_path / "detections.json"
    listing.write_text(json.dumps([d.to_dict() for d in place(winning_hand(), 0, centre=(400, 300))]))
    common = ["scan", str(photo), "--detections", str(listing), "--rules", "riichi", "--self-drawn",
              "--situation", "riichi", "--json"]
    _, plain_run, _ = run_cli(common, capsys)
    code, with_ura, _ = run_cli([*common, "--ura-dora", "7z"], capsys)  # Red indicates White: the pair
    before, after = json.loads(plain_run), json.loads(with_ura)
    assert code == 0 and after["hand"]["ura_dora_indicators"] == ["7z"]
    assert after["result"]["han"] == before["result"]["han"] + 2
    code, _, stderr = run_cli([*common, "--ura-dora", "9x"], capsys)
    assert code == 2 and "unknown suit letter" in stderr


def test_cli_scan_asks_which_tile_won_when_the_score_depends_on_it(tmp_path, capsys):
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), np.full((600, 800, 3), 120, np.uint8))
    items, _ = row(WINNER)  # nothing set apart
    listing = tmp_path / "detections.json"
    listing.write_text(json.dumps([d.to_dict() for d in place(items, 0, centre=(400, 300))]))
    code, stdout, _ = run_cli(["scan", str(photo), "--detections", str(listing), "--discarder", "S"], capsys)
    assert code == 1 and "which tile completed the hand?" in stdout and "--win-tile" in stdout
    assert "5z 120, 1z 104 points; give it with --win-tile" in stdout
    # the page's words carry no command-line flag
    scan = scan_detections(place(items, 0, centre=(400, 300)), 800, 600, {"discarder": "S"}).to_dict()
    assert scan["question"] == "win_tile" and "--" not in scan["error"]


def test_a_kong_laid_in_the_row_is_asked_about_even_beside_another_hand():
    winner, _ = row("8m 8m 8m 8m 4p 5p 6p 7s 8s 9s 5z 5z 1z 1z 1z".split())
    other, _ = row("2m 3m 4m 6p 6p 2s 3s 4s".split(), y=400)
    scan = scan_detections(place(winner + other, 0, centre=(700, 500)), 1400, 1000, {"self_drawn": True}).to_dict()
    asked = [e for e in scan["hands"] if e.get("question") == "kong_in_row"]
    # as a concealed kong it scores; as an open one it would be a false Mahjong (too few
    # doublings in Rode Draak), so that reading is not offered
    assert len(asked) == 1 and [(c["tile"], c["open"]) for c in asked[0]["kong_candidates"]] == [("8m", False)]
    assert "a kong not set apart?" in asked[0]["error"]


def test_a_riichi_scan_that_does_not_say_how_the_hand_was_won_asks_it():
    scanned = scan_detections(place(winning_hand(), 0, centre=(400, 300)), 800, 600, {}, "riichi", name="hand.png")
    scan = scanned.to_dict()
    assert scan["question"] == "win_way" and "self-drawn or a discard?" in scan["error"]
    assert [c["way"] for c in scan["way_candidates"]] == ["self_drawn", "discard"]
    assert not scanned.scored and scanned.winner.question == "win_way"
    text = summary(scanned)
    assert "self-drawn or a discard? self-drawn" in text and "give --self-drawn or --discarder" in text
    # said: scored at once
    assert scan_detections(place(winning_hand(), 0, centre=(400, 300)), 800, 600, {"self_drawn": True},
                           "riichi").to_dict()["result"]["valid"]


def test_the_cli_and_the_annotation_name_every_face_as_the_page_does(monkeypatch):
    """`scan`'s lines and the labels drawn on the photo use rules.tiles' names: the annotation
    draws each tile's short name (in lines that read as it), never its notation."""
    from mahjong_lens.rules.tiles import tile_label, tile_name, tiles_named
    from mahjong_lens.vision import drawing
    faces = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)] + \
        [f"{n}f" for n in range(1, 9)] + ["0m", "0p", "0s", "back"]
    for tile in faces:
        assert " ".join(drawing.label_lines(tile)) == tile_label(tile), tile
    assert tiles_named(["3s", "7z", "7f"]) == "3 bam, Red, Autumn 3"
    drawn: list[str] = []
    monkeypatch.setattr(cv2, "putText", lambda image, text, *args, **kwargs: drawn.append(text))
    detections = [TileDetection(t, (10.0 + 60 * k, 40.0, 60.0 + 60 * k, 110.0), 0.9, face_confidence=0.99)
                  for k, t in enumerate(faces[:20])]
    scan = scan_detections(detections, 1300, 200, {}, "rode-draak")
    drawing.annotate(np.zeros((200, 1300, 3), np.uint8), scan)
    text = " ".join(drawn)
    for tile in faces[:20]:
        assert all(line.rstrip("?") in text for line in drawing.label_lines(tile)), tile
    assert not any(re.fullmatch(r"\d[mpszf]\??", t) for t in drawn)  # no notation on the photo
    lines = summary(scan)
    assert tile_name("back") not in lines and "read: 1 char, 2 char" in lines
    assert not re.search(r"\b\d+[mpszf]\b", lines.split("\n", 1)[1])  # the lines after the file name
