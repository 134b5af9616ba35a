"""`mahjong-lens scan`: the command line over vision.scan (photos in, the scan or its summary out)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from mahjong_lens.summaries import question_lines, result_lines
from mahjong_lens.rules.words import plural
from mahjong_lens.rules.context import ContextError, context_from_fields
from mahjong_lens.rules.tiles import WINDS, parse_tiles, sort_key, tile_name, tile_unicode, tiles_named
from mahjong_lens.vision.detections import TileDetection
from mahjong_lens.vision.drawing import annotate
from mahjong_lens.vision.image_input import ScanError, read_image
from mahjong_lens.vision.layout import DOUBTFUL_FACE
from mahjong_lens.vision.scan import scan_image
from mahjong_lens.vision.scan_result import ScanResult


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
    from mahjong_lens.rules.registry import RULE_SETS
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
    parser.add_argument("--tile-set", metavar="NAME", help="read with a tile set taught with `mahjong-lens teach`")
    parser.add_argument("--database", help="where the taught tile sets are kept (default: the referee's log)")
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


def summary(scan: ScanResult) -> str:
    """A readable account of a scan: tiles in Unicode and notation, the hand, the score."""
    lines = [f"{scan.image} ({scan.width} x {scan.height}): {plural(len(scan.tiles), 'tile')} seen"]
    several = len(scan.hands) > 1
    for number, entry in enumerate(scan.hands):
        prefix = f"  hand {number + 1}" + (f" (seat {entry.seat})" if entry.seat else "") if several else "  hand"
        tiles = [scan.tiles[i].tile for i in entry.tiles]
        if tiles:
            lines.append(f"{prefix}: {' '.join(tile_unicode(t) for t in tiles)}")
        hand = entry.hand
        if hand:
            melds = "; ".join(f"{m['type']} of {tiles_named(parse_tiles(m['tiles']))}"
                              f"{'' if m['open'] else ' (concealed)'}" for m in hand["melds"])
            text = f"    in the hand: {tiles_named(sorted(parse_tiles(hand['concealed']), key=sort_key))}"
            if hand.get("win_tile"):
                text += f"; winning tile: {tile_name(hand['win_tile'])}"
            if melds:
                text += f"; melds: {melds}"
            lines.append(text)
        elif entry.reading.get("concealed"):
            lines.append(f"    read: {tiles_named(entry.reading['concealed'])}")
        if entry.result:  # as `score` prints a result: the points, its lines, who pays whom
            lines += result_lines(entry.result, "    ")
        if entry.question:
            lines += question_lines({**entry.candidates, "question": entry.question, "error": entry.error},
                                    "    ", give_tile="give it with --win-tile")
        elif entry.error:
            lines.append(f"    problem: {entry.error}")
        for problem in entry.problems:
            if problem != entry.error:
                lines.append(f"    note: {problem}")
    if scan.dora_indicators:
        lines.append(f"  dora indicators: {tiles_named(scan.dora_indicators)}")
    if scan.table:
        if "error" in scan.table:
            lines.append(f"  table: {scan.table['error']}")
        else:
            lines.append("  table: " + ", ".join(f"{s} {v:+d}" for s, v in scan.table.get("payments", {}).items()))
    if scan.error:
        lines.append(f"  problem: {scan.error}")
    return "\n".join(lines)


# what --annotate can write (OpenCV's writers, chosen by the name's ending)
PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff")


def run_scan(args: argparse.Namespace) -> int:
    from mahjong_lens.rules.registry import OptionError, make_settings, parse_option_pairs

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
            from mahjong_lens.vision.recognizer import load_recognizer
            recognizer = load_recognizer(args.model)
        except Exception as error:  # no weights, a broken file: one line, not a traceback
            return fail(f"cannot load the tile recogniser: {error}")
        from mahjong_lens.vision.tile_sets import TileSetError, with_tile_set
        try:
            recognizer = with_tile_set(recognizer, args.tile_set, args.database)
        except TileSetError as error:
            return fail(str(error))
    annotate_dir = None
    if args.annotate and not (len(args.images) > 1 or Path(args.annotate).is_dir()) \
            and Path(args.annotate).suffix.lower() not in PICTURE_SUFFIXES:
        return fail(f"--annotate writes a picture: name a {', '.join(PICTURE_SUFFIXES)} file, or a folder "
                    f"(not {Path(args.annotate).name})")
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
        if not scan.scored:
            status = 1
        print(json.dumps(scan.to_dict(), ensure_ascii=False) if args.json else summary(scan))
        if args.annotate:
            import cv2
            target = (annotate_dir / f"{Path(path).stem}.annotated.png") if annotate_dir else Path(args.annotate)
            if not cv2.imwrite(str(target), annotate(image, scan)):
                print(f"mahjong-lens: cannot write {target}", file=sys.stderr)
                status = 1
    return status
