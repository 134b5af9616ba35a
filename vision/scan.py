"""Photo -> tiles -> hand(s) -> score: the scan format of ../shared/spec/hand-format.md.

``decode_image`` turns any uploaded bytes into a BGR image or a ScanError with a
sentence (never a traceback); ``scan_image`` reads the tiles with a recogniser,
lays them out (vision.layout) and scores each hand found; ``annotate`` draws the
reading on the photo. ``mahjong-lens scan`` is the command line over these.

When the photo does not give a complete hand the scan says exactly what is
wrong, and which tiles are doubtful, instead of guessing.
"""
from __future__ import annotations

import argparse
import json
import struct
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from rules.context import CONTEXT_FIELDS, ContextError, context_from_fields, unknown_fields
from rules.tiles import WINDS, format_tiles, plain, tile_name, tile_unicode

from .detections import Recognizer, TileDetection
from .layout import DOUBTFUL_FACE, HandLayout, Layout, copies_problem, find_layout

MAX_BYTES = 20 * 1024 * 1024
MAX_PIXELS = 50_000_000
MIN_SIDE = 16
# what a scan's context may hold beyond the hand's context (rules.context.CONTEXT_FIELDS)
PHOTO_KEYS = ("dora_region", "seats", "min_confidence", "min_face_confidence")


class ScanError(ValueError):
    """A photo that cannot be scanned; the message is a sentence for the user."""


# --------------------------------------------------------------------------- decoding

def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the file header of a PNG, JPEG, GIF, BMP, WebP or TIFF, without decoding."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if data[:2] == b"\xff\xd8":
            return _jpeg_size(data)
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data[:2] == b"BM":
            width, height = struct.unpack("<ii", data[18:26])
            return abs(width), abs(height)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            chunk = data[12:16]
            if chunk == b"VP8X":
                return (int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1)
            if chunk == b"VP8 ":
                width, height = struct.unpack("<HH", data[26:30])
                return width & 0x3FFF, height & 0x3FFF
            if chunk == b"VP8L":
                bits = int.from_bytes(data[21:25], "little")
                return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            tags = _tiff_tags(data, (256, 257))
            if 256 in tags and 257 in tags:
                return tags[256], tags[257]
    except (struct.error, IndexError, ValueError):
        return None
    return None


def _jpeg_segments(data: bytes) -> Iterable[tuple[int, bytes]]:
    """(marker, payload) of a JPEG's header segments, up to the image data."""
    position = 2
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            return
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            position += 2
            continue
        length = struct.unpack(">H", data[position + 2:position + 4])[0]
        yield marker, data[position + 4:position + 2 + length]
        if marker == 0xDA:  # start of scan: the header is over
            return
        position += 2 + length


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    for marker, payload in _jpeg_segments(data):
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", payload[1:5])
            return width, height
    return None


def _tiff_tags(tiff: bytes, wanted: Sequence[int]) -> dict[int, int]:
    """Integer values of some tags of a TIFF structure's first directory (EXIF is one)."""
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    if order is None:
        return {}
    offset = struct.unpack(order + "I", tiff[4:8])[0]
    count = struct.unpack(order + "H", tiff[offset:offset + 2])[0]
    out = {}
    for k in range(count):
        entry = tiff[offset + 2 + 12 * k: offset + 14 + 12 * k]
        if len(entry) < 12:
            break
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag in wanted:
            if kind == 3:  # SHORT
                out[tag] = struct.unpack(order + "H", entry[8:10])[0]
            elif kind == 4:  # LONG
                out[tag] = struct.unpack(order + "I", entry[8:12])[0]
    return out


def exif_orientation(data: bytes) -> int:
    """The EXIF orientation (1..8) of a JPEG (APP1) or PNG (eXIf chunk); 1 when absent."""
    try:
        tiff = None
        if data[:2] == b"\xff\xd8":
            for marker, payload in _jpeg_segments(data):
                if marker == 0xE1 and payload[:6] == b"Exif\x00\x00":
                    tiff = payload[6:]
                    break
        elif data[:8] == b"\x89PNG\r\n\x1a\n":
            position = 8
            while position + 8 <= len(data):
                length, chunk = struct.unpack(">I4s", data[position:position + 8])
                if chunk == b"eXIf":
                    tiff = data[position + 8:position + 8 + length]
                    break
                if chunk in (b"IDAT", b"IEND"):
                    break
                position += 12 + length
        if tiff is None:
            return 1
        value = _tiff_tags(tiff, (0x0112,)).get(0x0112, 1)
        return value if 1 <= value <= 8 else 1
    except (struct.error, IndexError, ValueError):
        return 1


def apply_orientation(image: np.ndarray, orientation: int) -> np.ndarray:
    """Turn a decoded image the way its EXIF orientation says it is meant to be seen."""
    import cv2
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:
        return cv2.transpose(image)
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.rotate(cv2.transpose(image), cv2.ROTATE_180)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


def decode_image(data: bytes) -> np.ndarray:
    """A BGR uint8 image from the bytes of an image file, upright as its EXIF says.

    Grayscale becomes BGR, transparency is laid on white, 16-bit is scaled to 8.
    Raises ScanError with a sentence for an empty, corrupt, non-image, too large
    or too small file; the size is read from the header before anything is decoded.
    """
    import cv2
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ScanError("the photo must be given as the bytes of an image file")
    data = bytes(data)
    if not data:
        raise ScanError("the file is empty")
    if len(data) > MAX_BYTES:
        raise ScanError(f"the file is {len(data) / 1e6:.0f} MB; the most a scan takes is "
                        f"{MAX_BYTES // (1024 * 1024)} MB: send a smaller photo")
    size = image_size(data)
    if size is not None:
        width, height = size
        if width * height > MAX_PIXELS:
            raise ScanError(f"the image is {width} x {height} pixels ({width * height / 1e6:.0f} megapixels); "
                            f"the most a scan takes is {MAX_PIXELS // 1_000_000} megapixels: scale it down")
        if width == 0 or height == 0:
            raise ScanError("the image file says it has no pixels (a broken header)")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.size == 0:
        raise ScanError(_not_an_image(data, size))
    if image.shape[0] * image.shape[1] > MAX_PIXELS:  # a format whose header was not read
        raise ScanError(f"the image is {image.shape[1]} x {image.shape[0]} pixels; the most a scan takes "
                        f"is {MAX_PIXELS // 1_000_000} megapixels: scale it down")
    if image.dtype != np.uint8:
        if np.issubdtype(image.dtype, np.floating):
            image = np.clip(image * (255.0 if image.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
        else:
            image = (image / (np.iinfo(image.dtype).max / 255.0)).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 1:
        image = cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 2:  # grey + alpha
        image = _on_white(cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR), image[:, :, 1])
    elif image.shape[2] == 4:
        image = _on_white(image[:, :, :3], image[:, :, 3])
    image = apply_orientation(image, exif_orientation(data))
    if min(image.shape[:2]) < MIN_SIDE:
        raise ScanError(f"the image is only {image.shape[1]} x {image.shape[0]} pixels; too small to "
                        "show tiles")
    return np.ascontiguousarray(image)


def _on_white(colour: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Composite a colour image with transparency over a white background."""
    a = alpha.astype(np.float32)[..., None] / 255.0
    return (colour.astype(np.float32) * a + 255.0 * (1.0 - a)).round().astype(np.uint8)


def _not_an_image(data: bytes, size: tuple[int, int] | None) -> str:
    head = data[:512]
    if size is not None:
        return "the image file is damaged (its header is readable but the picture is not)"
    try:
        text = head.decode("utf-8")
        if text and all(c.isprintable() or c.isspace() for c in text):
            return "the file is text, not an image (send a JPEG or PNG photo)"
    except UnicodeDecodeError:
        pass
    return "the file is not an image that can be read (corrupt, or not JPEG, PNG, WebP, BMP, GIF or TIFF)"


def read_image(path: str | Path) -> np.ndarray:
    """decode_image of a file, with a sentence for a file that cannot be read."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ScanError(f"the file is {size / 1e6:.0f} MB; the most a scan takes is "
                            f"{MAX_BYTES // (1024 * 1024)} MB: send a smaller photo")
        data = path.read_bytes()
    except IsADirectoryError:
        raise ScanError("that is a folder, not an image file") from None
    except FileNotFoundError:
        raise ScanError("no such file") from None
    except OSError as error:
        raise ScanError(f"the file cannot be read ({error.strerror})") from None
    return decode_image(data)


# --------------------------------------------------------------------------- scanning

def scan_image(image: np.ndarray, recognizer: Recognizer, context: dict | None = None,
               rules: str = "rode-draak", options: dict | None = None, name: str = "image") -> dict[str, Any]:
    """Read, lay out and score the hand(s) in a BGR image (the scan format)."""
    import cv2
    if image.ndim == 2:  # callers that skipped decode_image: grey or BGRA arrays read too
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = _on_white(image[:, :, :3], image[:, :, 3])
    detections = recognizer.detect(image)
    height, width = image.shape[:2]
    return scan_detections(detections, width, height, context, rules, options, name)


def scan_detections(detections: Sequence[TileDetection], width: int, height: int,
                    context: dict | None = None, rules: str = "rode-draak", options: dict | None = None,
                    name: str = "image") -> dict[str, Any]:
    """The scan of a photo whose tiles were already read (scan_image without the model)."""
    context = dict(context or {})
    unknown = unknown_fields(context, PHOTO_KEYS)
    if unknown:
        raise ScanError(f"unknown context field(s): {', '.join(unknown)} "
                        f"(known: {', '.join(CONTEXT_FIELDS + PHOTO_KEYS)})")
    detections = list(detections)
    layout = find_layout(detections, win_tile=context.get("win_tile"), dora_region=context.get("dora_region"),
                         min_confidence=float(context.get("min_confidence", 0.5)),
                         min_face_confidence=float(context.get("min_face_confidence", DOUBTFUL_FACE)))
    scan: dict[str, Any] = {"image": name, "width": int(width), "height": int(height), "rules": rules}
    tiles = []
    for i, d in enumerate(detections):
        entry = d.to_dict(sideways=i in layout.sideways)
        role, hand_number, meld_number = layout.role(i)
        entry.update(role=role, hand=hand_number, meld=meld_number, doubtful=i in layout.doubtful)
        if d.alternatives:
            entry["alternatives"] = [{"tile": t, "confidence": round(float(c), 3)} for t, c in d.alternatives]
        tiles.append(entry)
    scan["tiles"] = tiles
    doubtful = list(layout.doubtful)
    problems = list(layout.problems)
    dora = _dora(context, layout)
    scan["dora_indicators"] = dora
    if not detections:
        scan.update(doubtful=[], problems=[], error="no tiles were found in the photo")
        return scan
    if not layout.hands:
        scan.update(doubtful=doubtful, problems=problems,
                    error=f"{len(detections)} tile(s) were found, but no hand laid out in a row "
                          f"(a hand is a row of at least 5 tiles)")
        return scan

    # five copies of a tile anywhere on the table (hands and dora indicators) is a misreading
    in_play = {i for hand in layout.hands for i in hand.indices} | set(layout.dora_indices)
    copies = copies_problem([(i, detections[i].tile) for i in sorted(in_play)])
    if copies:
        doubtful.extend(i for i in copies[1] if i not in doubtful)
    seats = _seats(context, len(layout.hands))
    winner = _winner(layout.hands, context, rules)
    entries = []
    for number, hand in enumerate(layout.hands):
        is_winner = number == winner if len(layout.hands) > 1 else True
        hand_context = _hand_context(context, seats[number], dora, is_winner, len(layout.hands) > 1)
        entry = _score_hand(hand, hand_context, rules, options,
                            needs_win=_needs_win(context, rules) and (len(layout.hands) == 1 or is_winner))
        if copies and any(i in hand.indices for i in copies[1]):
            entry.pop("hand", None), entry.pop("result", None)
            entry["error"] = copies[0]
        if hand.flowers:
            entry["flowers"] = [detections[i].tile for i in hand.flowers]
            entry["problems"].append(f"flowers and seasons beside the hand "
                                     f"({' '.join(entry['flowers'])}) are not counted by {rules}")
        entry["seat"] = seats[number]
        entry["tiles"] = hand.indices
        entry["direction"] = [round(v, 3) for v in hand.direction]
        doubt = [i for i in hand.indices if i in layout.doubtful]
        for i in doubt:
            d = detections[i]
            alt = f" (perhaps the {tile_name(d.alternatives[0][0])})" if d.alternatives else ""
            entry["problems"].append(f"a tile was read as the {tile_name(d.tile)}, {d.face_sureness:.0%} "
                                     f"sure{alt}: check that tile (marked on the photo)")
        entries.append(entry)
    for entry in entries:
        problems.extend(p for p in entry["problems"] if p not in problems)
    if copies and copies[0] not in problems:
        problems.insert(0, copies[0])
    scan["doubtful"] = sorted(set(doubtful))
    scan["problems"] = problems
    if len(entries) == 1:
        only = entries[0]
        for key in ("hand", "result", "error", "reading", "question", "win_candidates"):
            if key in only:
                scan[key] = only[key]
        scan["seat"] = only["seat"]
        # the hand's detections in reading order (scan["tiles"] is in detection order)
        scan["hand_tiles"] = only["tiles"]
        return scan
    scan["hands"] = entries
    winners = [e for e in entries if e.get("hand", {}).get("win_tile")]
    if len(winners) == 1:
        scan["hand"], scan["result"] = winners[0]["hand"], winners[0]["result"]
    if all("error" in e for e in entries):
        scan["error"] = f"none of the {len(entries)} hands found could be scored"
    if rules == "rode-draak" and len(entries) == 4:
        scan["table"] = _settle(entries, context, options)
    return scan


def _dora(context: dict, layout: Layout) -> list[str]:
    if context.get("dora_indicators") is not None:
        given = context["dora_indicators"]
        return [given] if isinstance(given, str) else list(given)
    return list(layout.dora_indicators)


def _seats(context: dict, count: int) -> list[str]:
    """Seat winds of the hands in the layout's order (from the bottom, counter-clockwise)."""
    given = context.get("seats")
    if given:
        seats = list(given)
        if len(seats) < count or any(s not in WINDS for s in seats):
            raise ScanError(f"seats must give one wind (E S W N) per hand; {count} hands were found")
        return seats[:count]
    first = context.get("seat_wind") or "E"
    if first not in WINDS:
        raise ScanError(f"seat_wind must be one of E, S, W, N (got {first!r})")
    start = WINDS.index(first)
    return [WINDS[(start + k) % 4] for k in range(count)]


def _needs_win(context: dict, rules: str) -> bool:
    """Whether the hand must be a winning one: the context says it won, or the rules score only winners."""
    return bool(context.get("self_drawn") or context.get("discarder") or context.get("win_tile")) \
        or rules != "rode-draak"


def _winner(hands: list[HandLayout], context: dict, rules: str) -> int | None:
    """The hand that won: the one with a tile set apart or the tile count of a win."""
    if len(hands) == 1:
        return 0
    full = [k for k, h in enumerate(hands) if h.tile_count == 14 + h.kong_count]
    if len(full) == 1:
        return full[0]
    apart = [k for k in full if hands[k].win_index is not None]
    return apart[0] if len(apart) == 1 else None


def _hand_context(context: dict, seat: str, dora: list[str], is_winner: bool, several: bool) -> dict:
    out = {"seat_wind": seat, "prevalent_wind": context.get("prevalent_wind") or "E",
           "dora_indicators": dora,
           "ura_dora_indicators": list(context.get("ura_dora_indicators") or [])}
    if is_winner or not several:
        out["self_drawn"] = bool(context.get("self_drawn", False))
        out["discarder"] = context.get("discarder")
        out["win_tile"] = context.get("win_tile")
        situation = context.get("situation") or {}
        if isinstance(situation, (list, tuple)):
            situation = {flag: True for flag in situation}
        out["situation"] = situation
    return out


def _reading(hand: HandLayout) -> dict[str, Any]:
    """What was read of a hand, in reading order, for a page to show and correct."""
    return {"concealed": [t for t in hand.concealed],
            "melds": [{"type": m.type, "open": m.open, "tiles": m.tiles} for m in hand.melds],
            "win_tile": hand.win_tile}


def _score_hand(hand: HandLayout, context: dict, rules: str, options: dict | None,
                needs_win: bool) -> dict[str, Any]:
    """A hand entry: the hand dict and its result, or an error saying what is missing."""
    from rules.registry import score
    from rules.win_tile import ask_win_tile
    entry: dict[str, Any] = {"problems": list(hand.problems), "reading": _reading(hand)}
    if hand.errors:
        entry["error"] = hand.errors[0]
        entry["problems"].extend(hand.errors[1:])
        return entry
    count, kongs = hand.tile_count, hand.kong_count
    win_count, rest_count = 14 + kongs, 13 + kongs
    kong_words = f" and {kongs} kong(s)" if kongs else ""
    win_tile = hand.win_tile or context.get("win_tile")
    if count == win_count:
        won = True
    elif count == rest_count and not needs_win and hand.win_index is None:
        won = False
    else:
        expected = win_count if (needs_win or hand.win_index is not None or count > rest_count) else rest_count
        why = ("a winning hand" + kong_words) if expected == win_count else ("a hand" + kong_words)
        if count < expected:
            entry["error"] = (f"{count} tiles were found where {expected} are needed for {why}: a tile may be "
                              "hidden, cut off at the edge of the photo or not recognised")
        else:
            entry["error"] = (f"{count} tiles were found, but {why} has {expected}: tiles that are not part of "
                              "the hand may lie in its row")
            # four alike among the concealed tiles: a kong laid in the row, not set apart
            copies = Counter(plain(t) for t in hand.concealed)
            fours = sorted(t for t, n in copies.items() if n == 4)
            if fours and count - expected <= len(fours):
                entry["error"] += (f"; if the four {' '.join(fours)} are a kong, set it a little apart from the "
                                   "other tiles")
        return entry
    hand_dict = {
        "concealed": format_tiles(hand.concealed, sort=False),
        "melds": [{"type": m.type, "tiles": format_tiles(m.hand_tiles, sort=False), "open": m.open}
                  for m in hand.melds],
        **{k: v for k, v in context.items() if k != "win_tile"},
        "win_tile": None,
    }
    if not won:
        hand_dict["self_drawn"], hand_dict["discarder"] = False, None
        entry["hand"] = hand_dict
        entry["result"] = score(hand_dict, rules, options).to_dict()
        return entry
    if win_tile is not None:
        if plain(win_tile) not in {plain(t) for t in hand.concealed}:
            entry["error"] = f"the winning tile {win_tile} is not among the concealed tiles read"
            return entry
        # a red five given as "5p" is the red one when that is all the hand holds
        exact = [t for t in hand.concealed if t == win_tile] or [t for t in hand.concealed
                                                                 if plain(t) == plain(win_tile)]
        hand_dict["win_tile"] = exact[-1] if hand.win_tile is None else hand.win_tile
        entry["hand"] = hand_dict
        entry["result"] = score(hand_dict, rules, options).to_dict()
        return entry
    # a complete hand with no tile set apart: the score may not depend on which tile won
    answer = ask_win_tile(hand_dict, rules, options)
    taken = answer.pop("win_tile_taken", None)
    if answer.get("question") == "win_tile":
        entry["error"] = answer["error"]
        entry["question"] = "win_tile"
        entry["win_candidates"] = answer["win_candidates"]
        return entry
    entry["hand"] = dict(hand_dict, win_tile=taken)
    note = answer.pop("note", None)
    entry["result"] = answer
    entry["problems"].append(note or "no tile was set apart as the winning tile, and the hand does not "
                                     "score with any of them")
    return entry


def _settle(entries: list[dict], context: dict, options: dict | None) -> dict[str, Any]:
    """The Rode Draak settlement of a table of four scanned hands."""
    from rules.rode_draak import TableError, settle_table
    broken = [e["seat"] for e in entries if "hand" not in e]
    if broken:
        return {"error": f"the table cannot be settled: the hand(s) of {', '.join(broken)} could not be read"}
    seats = [e["seat"] for e in entries]
    if sorted(seats) != sorted(WINDS):
        return {"error": f"the table needs one hand per seat E, S, W, N (got {', '.join(seats)})"}
    table = {"rules": "rode-draak", "prevalent_wind": context.get("prevalent_wind") or "E",
             "hands": {e["seat"]: e["hand"] for e in entries}}
    try:
        return settle_table(table, options)
    except TableError as error:
        return {"error": str(error)}


# --------------------------------------------------------------------------- drawing

ROLE_COLOURS = {"concealed": (60, 180, 60), "win": (40, 40, 230), "meld": (220, 120, 30),
                "dora": (200, 40, 200), "dead_wall": (140, 140, 140), "flower": (0, 140, 255),
                "unassigned": (0, 200, 230)}


def annotate(image: np.ndarray, scan: dict) -> np.ndarray:
    """The photo with every tile boxed and named, melds and dora indicators outlined."""
    import cv2
    out = image.copy()
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    tiles = scan.get("tiles", [])
    sizes = [min(t["box"][2] - t["box"][0], t["box"][3] - t["box"][1]) for t in tiles] or [40]
    unit = max(float(np.median(sizes)), 8.0)
    thick = max(1, int(round(unit / 40)))
    font = max(0.3, unit / 110)

    def union(indices: Iterable[int]) -> tuple[int, int, int, int] | None:
        boxes = [tiles[i]["box"] for i in indices if 0 <= i < len(tiles)]
        if not boxes:
            return None
        pad = unit * 0.12
        return (int(min(b[0] for b in boxes) - pad), int(min(b[1] for b in boxes) - pad),
                int(max(b[2] for b in boxes) + pad), int(max(b[3] for b in boxes) + pad))

    groups: dict[tuple[int, int], list[int]] = {}
    for i, t in enumerate(tiles):
        if t.get("role") == "meld":
            groups.setdefault((t.get("hand"), t.get("meld")), []).append(i)
    for indices in groups.values():
        box = union(indices)
        if box:
            cv2.rectangle(out, box[:2], box[2:], ROLE_COLOURS["meld"], thick * 2)
    dora = [i for i, t in enumerate(tiles) if t.get("role") == "dora"]
    box = union(dora)
    if box:
        cv2.rectangle(out, box[:2], box[2:], ROLE_COLOURS["dora"], thick * 2)
        cv2.putText(out, "dora", (box[0], max(12, box[1] - 4)), cv2.FONT_HERSHEY_SIMPLEX, font,
                    ROLE_COLOURS["dora"], thick, cv2.LINE_AA)
    for i, t in enumerate(tiles):
        x1, y1, x2, y2 = (int(round(v)) for v in t["box"])
        colour = ROLE_COLOURS.get(t.get("role", "unassigned"), (0, 200, 230))
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, thick * (2 if t.get("role") == "win" else 1))
        label = t["tile"] if t["tile"] != "back" else "--"
        if t.get("doubtful"):
            label += "?"
            cv2.rectangle(out, (x1 - thick * 2, y1 - thick * 2), (x2 + thick * 2, y2 + thick * 2),
                          (0, 140, 255), thick)
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font, thick)
        ty = y1 - 3 if y1 - th - 3 > 0 else y2 + th + 3
        cv2.rectangle(out, (x1, ty - th - 2), (x1 + tw + 2, ty + base - 1), (255, 255, 255), -1)
        cv2.putText(out, label, (x1 + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, font, colour, thick, cv2.LINE_AA)
    entries = scan.get("hands") or ([{"tiles": [i for i, t in enumerate(tiles) if t.get("hand") == 0],
                                      "seat": scan.get("seat"), "result": scan.get("result"),
                                      "error": scan.get("error")}] if tiles else [])
    for entry in entries:
        box = union(entry.get("tiles", []))
        if not box:
            continue
        result = entry.get("result")
        if result and result.get("valid"):
            text = f"{entry.get('seat') or ''} {result['points']} points".strip()
        elif result:
            text = f"{entry.get('seat') or ''} not scored".strip()
        else:
            text = f"{entry.get('seat') or ''} ?".strip()
        y = min(out.shape[0] - 4, box[3] + int(unit * 0.6))
        cv2.putText(out, text, (box[0], y), cv2.FONT_HERSHEY_SIMPLEX, font * 1.2, (0, 0, 0), thick + 2,
                    cv2.LINE_AA)
        cv2.putText(out, text, (box[0], y), cv2.FONT_HERSHEY_SIMPLEX, font * 1.2, (255, 255, 255), thick,
                    cv2.LINE_AA)
    return out


# --------------------------------------------------------------------------- command line

class DetectionsRecognizer:
    """A recogniser that returns detections read from JSON (tests, debugging the layout)."""

    def __init__(self, by_image: dict[str, list[TileDetection]]):
        self.by_image = by_image
        self.current: str | None = None

    @classmethod
    def from_file(cls, path: str) -> "DetectionsRecognizer":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if isinstance(data, list):
            data = {"*": data}
        if not isinstance(data, dict):
            raise ValueError(f"{path}: expected a list of detections or an object image -> detections")
        return cls({name: [detections_from_json(d) for d in items] for name, items in data.items()})

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        for key in (self.current, Path(self.current or "").name, "*"):
            if key in self.by_image:
                return list(self.by_image[key])
        return []


def detections_from_json(item: dict) -> TileDetection:
    """A TileDetection from a scan's tile entry (or any {tile, box, confidence}, optionally
    rotation in degrees and face_confidence)."""
    rotation, face_confidence = item.get("rotation"), item.get("face_confidence")
    return TileDetection(tile=str(item["tile"]), box=tuple(float(v) for v in item["box"]),
                         confidence=float(item.get("confidence", 1.0)),
                         alternatives=[(a["tile"], float(a["confidence"])) if isinstance(a, dict) else tuple(a)
                                       for a in item.get("alternatives", [])],
                         rotation=float(rotation) if rotation is not None else None,
                         face_confidence=float(face_confidence) if face_confidence is not None else None)


def configure_scan(parser: argparse.ArgumentParser) -> None:
    from rules.registry import RULE_SETS
    parser.add_argument("images", nargs="+", help="photos of hands (JPEG, PNG, ...)")
    parser.add_argument("--rules", choices=list(RULE_SETS), default="rode-draak")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="change a setting of the rule set")
    parser.add_argument("--seat", choices=WINDS, help="seat wind of the hand (of the hand nearest the "
                        "bottom of the photo when several are on it; the others follow counter-clockwise)")
    parser.add_argument("--prevalent", choices=WINDS, help="prevalent (round) wind")
    parser.add_argument("--self-drawn", action="store_true", help="the winning tile was drawn from the wall")
    parser.add_argument("--discarder", choices=WINDS, help="seat wind of the player whose discard won")
    parser.add_argument("--win-tile", help="the winning tile, e.g. 5p (otherwise the tile set apart)")
    parser.add_argument("--situation", action="append", default=[], metavar="FLAG",
                        help="riichi, double_riichi, ippatsu, last_tile, kong_replacement, robbing_kong, "
                             "first_turn (repeatable)")
    parser.add_argument("--dora", help="dora indicators, overriding those read, e.g. 3m7z")
    parser.add_argument("--ura-dora", help="ura-dora indicators (riichi: turned over after a riichi win), e.g. 4p")
    parser.add_argument("--dora-region", metavar="X1,Y1,X2,Y2",
                        help="the region of the photo whose face-up tiles are the dora indicators")
    parser.add_argument("--seats", help="seat winds of the hands on the photo in order, e.g. ESWN")
    parser.add_argument("--min-confidence", type=float, default=0.5,
                        help="readings below this confidence are reported as doubtful (tiles "
                             "without a face probability; the shipped model gives one)")
    parser.add_argument("--min-face-confidence", type=float, default=DOUBTFUL_FACE,
                        help="readings whose face is less probable than this are reported as doubtful")
    parser.add_argument("--json", action="store_true", help="one JSON object per image (the scan format)")
    parser.add_argument("--annotate", metavar="OUT",
                        help="write the photo with the reading drawn on it (a folder when several images)")
    parser.add_argument("--model", metavar="PATH", help="folder of the recogniser weights (default: models/)")
    parser.add_argument("--detections", metavar="FILE.json",
                        help="debugging: take the tiles from this JSON (a list of {tile, box, confidence}, "
                             "or image name -> list) instead of the model")


def context_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The scan context of the command-line flags (read by rules.context, as the page's
    fields are); ScanError for a malformed value."""
    if args.self_drawn and args.discarder:
        raise ScanError("--self-drawn and --discarder contradict each other: a self-drawn win has no discarder")
    fields = {"seat_wind": args.seat, "prevalent_wind": args.prevalent, "discarder": args.discarder,
              "win_tile": args.win_tile, "dora_indicators": args.dora, "ura_dora_indicators": args.ura_dora,
              "situation": list(args.situation or [])}
    if args.self_drawn:
        fields["self_drawn"] = True
    try:
        context = context_from_fields(fields)
    except ContextError as error:
        raise ScanError(str(error)) from None
    context.update(min_confidence=args.min_confidence, min_face_confidence=args.min_face_confidence)
    if args.dora_region:
        try:
            region = [float(v) for v in args.dora_region.split(",")]
            if len(region) != 4:
                raise ValueError
        except ValueError:
            raise ScanError("--dora-region takes four numbers: X1,Y1,X2,Y2 in pixels") from None
        context["dora_region"] = region
    if args.seats:
        seats = list(args.seats.upper())
        if any(s not in WINDS for s in seats):
            raise ScanError("--seats takes winds E S W N, e.g. ESWN")
        context["seats"] = seats
    return context


def summary(scan: dict) -> str:
    """A readable account of a scan: tiles in Unicode and notation, the hand, the score."""
    lines = [f"{scan['image']} ({scan['width']} x {scan['height']}): {len(scan['tiles'])} tile(s) seen"]
    entries = scan.get("hands") or [dict(scan, tiles=scan.get("hand_tiles", []))]
    for number, entry in enumerate(entries):
        seat = entry.get("seat")
        prefix = f"  hand {number + 1}" + (f" (seat {seat})" if seat else "") if len(entries) > 1 else "  hand"
        reading = entry.get("reading") or {}
        tiles = [scan["tiles"][i]["tile"] for i in entry.get("tiles", [])]
        if tiles:
            lines.append(f"{prefix}: {' '.join(tile_unicode(t) for t in tiles)}")
        hand = entry.get("hand")
        if hand:
            melds = ", ".join(f"{m['type']} {m['tiles']}{'' if m['open'] else ' (concealed)'}" for m in hand["melds"])
            text = f"    concealed {hand['concealed']}"
            if hand.get("win_tile"):
                text += f", winning tile {hand['win_tile']}"
            if melds:
                text += f"; melds: {melds}"
            lines.append(text)
        elif reading.get("concealed"):
            lines.append(f"    read: {' '.join(reading['concealed'])}")
        result = entry.get("result")
        if result:
            if result.get("valid"):
                lines.append(f"    score: {result['points']} points ({scan.get('rules', '')})")
                for line in result.get("breakdown", []):
                    lines.append(f"      {line['name']}: {line['value']}")
            else:
                lines.append(f"    not scored: {result.get('error')}")
        if entry.get("question") == "win_tile":
            lines.append("    which tile completed the hand? " + ", ".join(
                f"{c['tile']} {c['points']}" for c in entry["win_candidates"]) + " points; give it with --win-tile")
        elif entry.get("error"):
            lines.append(f"    problem: {entry['error']}")
        for problem in entry.get("problems", []):
            if problem != entry.get("error"):
                lines.append(f"    note: {problem}")
    if scan.get("dora_indicators"):
        lines.append(f"  dora indicators: {' '.join(scan['dora_indicators'])}")
    if scan.get("table"):
        table = scan["table"]
        if "error" in table:
            lines.append(f"  table: {table['error']}")
        else:
            lines.append("  table: " + ", ".join(f"{s} {v:+d}" for s, v in table.get("payments", {}).items()))
    if not scan.get("hands") and scan.get("error") and not entries[0].get("error"):
        lines.append(f"  problem: {scan['error']}")
    return "\n".join(lines)


def run_scan(args: argparse.Namespace) -> int:
    from rules.registry import OptionError, make_settings, parse_option_pairs

    def fail(message: str) -> int:
        print(f"mahjong-lens: {message}", file=sys.stderr)
        return 2
    try:
        options = parse_option_pairs(args.option)
        make_settings(args.rules, options)  # reject a bad setting before loading the model
        context = context_from_args(args)
    except (OptionError, ScanError) as error:
        return fail(str(error))
    if args.detections:
        try:
            recognizer: Any = DetectionsRecognizer.from_file(args.detections)
        except (OSError, ValueError, KeyError, TypeError) as error:
            return fail(f"cannot read detections from {args.detections}: {error}")
    else:
        try:
            from .recognizer import load_recognizer
            recognizer = load_recognizer(args.model)
        except Exception as error:  # no weights, a broken file: one line, not a traceback
            return fail(f"cannot load the tile recogniser: {error}")
    annotate_dir = None
    if args.annotate and (len(args.images) > 1 or Path(args.annotate).is_dir()):
        annotate_dir = Path(args.annotate)
        annotate_dir.mkdir(parents=True, exist_ok=True)
    status = 0
    for path in args.images:
        if isinstance(recognizer, DetectionsRecognizer):
            recognizer.current = path
        try:
            image = read_image(path)
            scan = scan_image(image, recognizer, context, args.rules, options, name=path)
        except ScanError as error:
            status = 1
            if args.json:
                print(json.dumps({"image": path, "error": str(error)}, ensure_ascii=False))
            else:
                print(f"{path}: {error}")
            continue
        except Exception as error:  # a failure inside the model: name it, go on with the next photo
            status = 1
            message = f"the photo could not be read: {type(error).__name__}: {error}"
            print(json.dumps({"image": path, "error": message}) if args.json else f"{path}: {message}")
            continue
        if "error" in scan or not scan.get("result", {}).get("valid", False):
            status = 1
        print(json.dumps(scan, ensure_ascii=False) if args.json else summary(scan))
        if args.annotate:
            import cv2
            target = (annotate_dir / f"{Path(path).stem}.annotated.png") if annotate_dir else Path(args.annotate)
            if not cv2.imwrite(str(target), annotate(image, scan)):
                print(f"mahjong-lens: cannot write {target}", file=sys.stderr)
                status = 1
    return status
