"""End to end on the project's own synthetic hands: render, recognise, lay out, and compare
the hand found with the hand that was rendered.

    python benchmarks/scan_synthetic_hands.py                  # 60 hands in clear view, a fresh seed (printed)
    python benchmarks/scan_synthetic_hands.py --seed 2000      # the development seed
    python benchmarks/scan_synthetic_hands.py --count 200 --model /tmp/cand
    python benchmarks/scan_synthetic_hands.py --min-elevation 70 --show 10
    python benchmarks/scan_synthetic_hands.py --turn 90          # the photo turned a quarter
    python benchmarks/scan_synthetic_hands.py --turn 30 --rows 2 # at 30 degrees, hands in two rows
    python benchmarks/scan_synthetic_hands.py --truth            # the layout alone, on the true boxes
    python benchmarks/scan_synthetic_hands.py --turn-boxes 90    # the same boxes read, turned: the layout alone under a turn

`datasets/synth.py` renders a table scene around one player's revealed hand (melds,
sideways called tiles, face-down kong tiles, a winning tile set apart, flowers) in one of
the 11 art styles, under random light, blur and noise.  A scene counts when that hand is in
clear view (``datasets.synth.clear_view``: lying face up, every tile labelled, the camera
at least ``--min-elevation`` degrees above the table, tiles at least 22 px wide): what a
player photographing a winning hand, or a webcam over the table, shows.  The real
``valid/`` photos hold no melds, no sideways or face-down tiles; these scenes do, so they
measure what the real photos cannot, on faces of other sets than the real photos'.

*Tiles right*: the hand found (the layout's hand holding most of the rendered hand's
tiles) holds exactly the rendered hand's tiles, melds' tiles included, as a multiset,
flowers aside.  *Read exactly*: also the same melds (kind, open or concealed) and winning
tile (``vision.layout.HandLayout.reading`` against ``datasets.synth.expected_reading``).
Tile recall and precision are counted over all hands as multisets.  Scenes are judged by
their camera's elevation and the tiles' size in the photo.

*What the player meets*: each hand is also scanned as a player scans it (``vision.scan``,
``--rules``, self-drawn where it has a winning tile) and its end compared with the rendered
hand's own score under the same rules: the right score with no question; the right score
among the answers of one question; a wrong score with a tile of the hand marked to check
(doubtful or re-read); a wrong score with nothing marked (the one a user cannot catch); or no
score (apart: no score for a hand that has none, such as a false Mahjong). ``--winning`` renders hands that won (sets and a pair), as players photograph them. The
last line is a JSON summary.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mahjong_lens.datasets import synth  # noqa: E402
from mahjong_lens.rules.registry import score  # noqa: E402
from mahjong_lens.rules.tiles import parse_tiles  # noqa: E402
from mahjong_lens.rules.win_tile import CANDIDATE_KEYS  # noqa: E402
from mahjong_lens.training.evaluate import band  # noqa: E402
from mahjong_lens.vision.layout import HandLayout, find_layout  # noqa: E402


def reading_tiles(reading: tuple) -> Counter:
    """Every tile of a hand's reading (concealed tiles, the melds' tiles) as a multiset."""
    concealed, _, melds = reading
    return Counter(list(concealed) + [tile for _, _, tiles in melds if tiles for tile in parse_tiles(tiles)])


def turned(image: np.ndarray, boxes: list, degrees: float) -> tuple[np.ndarray, list]:
    """The photo turned counter-clockwise by ``degrees`` on a canvas that holds all of it, and
    the labelled boxes where their tiles now lie (each the upright box round its turned corners)."""
    import cv2
    height, width = image.shape[:2]
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    out_w, out_h = int(round(height * sin + width * cos)), int(round(height * cos + width * sin))
    matrix[0, 2] += out_w / 2 - width / 2
    matrix[1, 2] += out_h / 2 - height / 2
    picture = cv2.warpAffine(image, matrix, (out_w, out_h), borderMode=cv2.BORDER_REPLICATE)
    moved = []
    for b in boxes:
        x1, y1, x2, y2 = b.box
        corners = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]]) @ matrix.T
        (a1, c1), (a2, c2) = corners.min(axis=0), corners.max(axis=0)
        moved.append(dataclasses.replace(b, box=(float(a1), float(c1), float(a2), float(c2))))
    return picture, moved


def read_given_boxes(reader, image: np.ndarray, boxes: list) -> list:
    """What the recogniser reports of a photo where the detector found exactly `boxes` (x1y1x2y2),
    each at confidence 0.9: its classifiers' readings, dropped and joined as ever."""
    from mahjong_lens.vision.recognizer import crops_read, detections_of

    class GivenBoxes:  # the recogniser with its detector replaced by the given boxes
        class_names, crop_size, classify = reader.class_names, reader.crop_size, reader.classify

        @staticmethod
        def boxes(_image):
            return np.asarray(boxes, np.float32).reshape(-1, 4), np.full(len(boxes), 0.9, np.float32)

    found, confidence, probabilities, _ = crops_read(GivenBoxes, image)
    return detections_of(image, found, confidence, probabilities, reader.class_names, reader.unsure_box)


def hand_found(boxes: list, hand_meta: dict, detections: list) -> HandLayout | None:
    """The layout's hand that holds most of the rendered hand's tiles (by box centre)."""
    mine = [b.box for b in boxes if b.player == hand_meta["player"] and b.group in synth.HAND_GROUPS]

    def inside(detection) -> bool:
        x, y = detection.center
        return any(x1 <= x <= x2 and y1 <= y <= y2 for x1, y1, x2, y2 in mine)

    layout = find_layout(detections)
    held = [(sum(inside(detections[i]) for i in hand.indices), hand) for hand in layout.hands]
    best = max(held, key=lambda pair: pair[0], default=(0, None))
    return best[1] if best[0] else None


OUTCOMES = ("right score", "right after one question", "wrong score, tile marked",
            "wrong score, nothing marked", "no score, as the hand has none", "no score")


def true_result(hand_meta: dict, rules: str) -> dict:
    """The rendered hand's own score: what a player should end with."""
    hand = {"concealed": hand_meta["concealed"], "melds": hand_meta["melds"],
            "win_tile": hand_meta["win_tile"], "self_drawn": bool(hand_meta["win_tile"])}
    return score(hand, rules).to_dict()


def outcome(scan, hand_boxes: list, truth: dict) -> str:
    """How the scan of a photo ends for the player, against the rendered hand's score."""
    def inside(index: int) -> bool:
        x, y = scan.tiles[index].detection.center
        return any(x1 <= x <= x2 and y1 <= y <= y2 for x1, y1, x2, y2 in hand_boxes)
    held = [(sum(inside(i) for i in hand.tiles), hand) for hand in scan.hands]
    count, hand = max(held, key=lambda pair: pair[0], default=(0, None))
    if not count:
        return "no score" if truth["valid"] else "no score, as the hand has none"
    result = hand.result or {}
    if result.get("valid") and hand.question is None:
        if truth["valid"] and result["points"] == truth["points"]:
            return "right score"
        marked = any(scan.tiles[i].doubtful or scan.tiles[i].reread for i in hand.tiles)
        return "wrong score, tile marked" if marked else "wrong score, nothing marked"
    answers = [c.get("points") for key in CANDIDATE_KEYS for c in hand.candidates.get(key, [])]
    if hand.question and truth["valid"] and truth["points"] in answers:
        return "right after one question"
    if not truth["valid"]:
        return "no score, as the hand has none"
    return "no score"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=60, help="hands in clear view to read")
    parser.add_argument("--seed", type=int, default=None,
                        help="scenes of this seed (default: a fresh one, printed; 2000 is the development seed)")
    parser.add_argument("--rules", default="rode-draak", help="the rule set the hands are scanned under")
    parser.add_argument("--winning", action="store_true",
                        help="render hands that won (sets and a pair), as players photograph them")
    parser.add_argument("--size", type=int, default=640)
    parser.add_argument("--model", default=None, help="folder of the recogniser weights (default: models/)")
    parser.add_argument("--min-elevation", type=float, default=55.0, help="degrees above the table")
    parser.add_argument("--show", type=int, default=8, help="list this many misread hands")
    parser.add_argument("--turn", type=float, default=0.0, help="turn each photo by this many degrees")
    parser.add_argument("--rows", type=int, choices=(1, 2), default=1,
                        help="the hand's concealed tiles in one row or two, one behind the other")
    parser.add_argument("--truth", action="store_true",
                        help="lay out the true boxes (every labelled tile read right): the layout alone")
    parser.add_argument("--true-boxes", action="store_true",
                        help="the classifiers read the true boxes (the detector made perfect): with the "
                             "plain run and --truth, what the detector, the classifiers and the layout each lose")
    parser.add_argument("--turn-boxes", type=int, choices=(0, 90, 180, 270), default=0,
                        help="read the photo as it is, then turn the boxes read (and the labels) by this "
                             "many degrees: the layout alone under a turn, which should read the same "
                             "(quarter turns only: the upright box round a turned box is no tile's box)")
    args = parser.parse_args(argv)
    if args.seed is None:  # far from the small seeds training renders
        args.seed = random.SystemRandom().randrange(100_000, 1_000_000)
        print(f"a fresh seed: {args.seed}", file=sys.stderr)
    import cv2
    from mahjong_lens.vision.scan import scan_detections
    from mahjong_lens.datasets.art import load_styles
    from mahjong_lens.vision.recognizer import load_recognizer
    try:
        styles = load_styles()
    except FileNotFoundError as error:
        print(f"no tile art, no synthetic hands ({error})")
        return 1
    from mahjong_lens.vision.detections import TileDetection
    reader = None if args.truth else load_recognizer(args.model)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    ends: Counter = Counter()
    held = wanted = right = 0
    misread: list[str] = []
    seconds = 0.0
    index = done = 0
    while done < args.count:
        scene = synth.render_scene_full(synth.scene_rng(args.seed, index), args.size, styles=styles, kind="hand",
                                        concealed_rows=args.rows, winning=args.winning)
        index += 1
        hand_meta = scene.meta["hands"][0]
        if not synth.clear_view(scene, hand_meta, min_elevation=args.min_elevation):
            continue
        done += 1
        ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        image = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        boxes = scene.boxes
        if args.turn:
            image, boxes = turned(image, boxes, args.turn)
        started = time.perf_counter()
        if reader is None:
            detections = [TileDetection(b.tile, b.box, 1.0) for b in boxes]
        elif args.true_boxes:
            detections = read_given_boxes(reader, image, [b.box for b in boxes])
        else:
            detections = reader.detect(image)
        if args.turn_boxes:
            _, detections = turned(image, detections, args.turn_boxes)
            image, boxes = turned(image, boxes, args.turn_boxes)
        hand = hand_found(boxes, hand_meta, detections)
        seconds += time.perf_counter() - started
        mine = [b.box for b in boxes if b.player == hand_meta["player"] and b.group in synth.HAND_GROUPS]
        context = {"self_drawn": True} if hand_meta["win_tile"] else {}
        scanned = scan_detections(detections, image.shape[1], image.shape[0], context, args.rules)
        ends[outcome(scanned, mine, true_result(hand_meta, args.rules))] += 1
        expected = synth.expected_reading(hand_meta)
        expected_tiles = reading_tiles(expected)
        found_tiles = reading_tiles(hand.reading()) if hand else Counter()
        tiles_ok = found_tiles == expected_tiles
        exact = tiles_ok and hand.reading() == expected
        wanted += sum(expected_tiles.values())
        held += sum(found_tiles.values())
        right += sum((found_tiles & expected_tiles).values())
        camera = scene.meta["camera"]
        features = ["all", "elevation " + band(camera["elevation"], (70,), "deg"),
                    "tiles " + band(camera["tile_px"], (30, 45), "px wide")]
        if hand_meta["melds"]:
            features.append("with melds")
        # the camera effects drawn (datasets.render.apply_light): how much of what is lost is
        # a photo blurred past reading rather than the reader
        effects = scene.meta.get("effects", {})
        features.append({"none": "blur: none", "focus": "blur: out of focus",
                         "shake": "blur: hand shake"}.get(effects.get("blur"), "blur: none"))
        if effects.get("blur") == "shake" and effects.get("blur_px", 0) >= camera["tile_px"] / 3:
            features.append("shake streak >= 1/3 tile")
        if effects.get("zoom", 1.0) < 1.0:
            features.append("digital zoom")
        if effects.get("noise", 0) >= 7:
            features.append("heavy noise (sigma >= 7)")
        for key in features:
            tally[key][0] += 1
            tally[key][1] += tiles_ok
            tally[key][2] += exact
        if not exact and len(misread) < args.show:
            missing, extra = expected_tiles - found_tiles, found_tiles - expected_tiles
            misread.append(f"  scene {index - 1} ({scene.meta['style']}, {camera['elevation']:.0f} deg, "
                           f"{camera['tile_px']:.0f} px): missing {sorted(missing.elements())}, "
                           f"extra {sorted(extra.elements())}"
                           + ("" if not tiles_ok else ", tiles right, melds or winning tile not"))
        print(f"\r  {done}/{args.count} hands ({index} scenes rendered)", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"synthetic hands in clear view (seed {args.seed}, camera >= {args.min_elevation:g} deg above the table"
          f"{f', turned {args.turn:g} deg' if args.turn else ''}{', in two rows' if args.rows == 2 else ''}"
          f"{f', the boxes read turned {args.turn_boxes:g} deg' if args.turn_boxes else ''}"
          f"{', the true boxes laid out' if args.truth else ''}"
          f"{', the true boxes read by the classifiers' if args.true_boxes else ''})")
    print(f"  {'':<26} {'hands':>6} {'tiles right':>12} {'read exactly':>13}")
    for key in sorted(tally, key=lambda k: (k != "all", k)):
        n, tiles_ok, exact = tally[key]
        print(f"  {key:<26} {n:>6} {tiles_ok:>5} {tiles_ok / n:>6.1%} {exact:>6} {exact / n:>6.1%}")
    print(f"tiles of the hands found: recall {right / max(wanted, 1):.3f} ({right}/{wanted}), "
          f"precision {right / max(held, 1):.3f} ({right}/{held})")
    print(f"seconds per photo (recognise + lay out): {seconds / max(done, 1):.3f}")
    print(f"what the player meets ({args.rules}, scanned as a self-drawn win where the hand has a winning tile):")
    for name in OUTCOMES:
        print(f"  {name:<30} {ends[name]:>4}")
    if misread:
        print("misread:")
        print("\n".join(misread))
    n, tiles_ok, exact = tally["all"]
    print(json.dumps({"seed": args.seed, "rules": args.rules, "winning": args.winning, "hands": n,
                      "tiles_right": tiles_ok, "read_exactly": exact,
                      **{name.split(" as ")[0].replace(",", "").strip().replace(" ", "_") + ("_right" if " as " in name else ""):
                         ends[name] for name in OUTCOMES},
                      "recall": round(right / max(wanted, 1), 3), "precision": round(right / max(held, 1), 3),
                      "seconds_per_photo": round(seconds / max(done, 1), 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
