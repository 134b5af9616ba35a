"""How well the layout turns ground-truth tiles into hands (no model: labels stand in for it).

    python benchmarks/layout_on_labels.py                    # real hand_* photos + 40 synthetic scenes
    python benchmarks/layout_on_labels.py --synthetic 100 --angles 24
    python benchmarks/layout_on_labels.py --real-only --show-failures

Two sources, each with a known truth:

- real: the ``hand_*`` photos of ``real/chinese-mixed/{train,valid}`` (Roboflow copies, many
  turned by 30-60 degrees, whose labels are the axis-aligned boxes of the turned boxes). The
  hand's tiles are every label of a photo with at most 20 (a hand with flowers), else the
  longest run of consecutive label lines that lie next to each other (the hand's row; the rest
  are discards). A photo becomes one complete hand when exactly one hand holds every one of
  those tiles and nothing else (flowers and seasons are not judged). People label a row one
  tile after another, with a slip now and then, so the order matches when every labelled run
  of tiles is read either in the label order or in its order along the run's straight line,
  either way round (the labels do not say which end is the player's left, and some copies
  are mirrored).
- synthetic: generated hands seen from above (datasets.synth), each laid out as rendered and
  turned through ``--angles`` angles in two ways: ``exact`` (the boxes of the turned tiles,
  from the generator's tile map) and ``boxes`` (the boxes of the turned boxes, as Roboflow
  makes them: larger than the tile near the diagonal). Complete: one hand holds exactly the
  player's tiles and reads as laid out (concealed tiles, winning tile, melds); order: the
  concealed tiles then the melds read in the order they were laid, from the player's left.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mahjong_lens.datasets import synth  # noqa: E402
from mahjong_lens.datasets.synth import Progress  # noqa: E402
from mahjong_lens.vision.detections import TileDetection  # noqa: E402
from mahjong_lens.vision.layout import find_layout  # noqa: E402


# --------------------------------------------------------------------------- real photos

#: More labels than this in a photo: tiles besides the hand (discards, another hand) are labelled.
MOST_HAND_LABELS = 20


def read_labels(path: Path, size: float = 640.0) -> list[TileDetection]:
    from mahjong_lens.vision.classes import CLASS_NAMES
    out = []
    for line in path.read_text().splitlines():
        if line.strip():
            c, x, y, w, h = line.split()
            x, y, w, h = (float(v) * size for v in (x, y, w, h))
            out.append(TileDetection(CLASS_NAMES[int(c)], (x - w / 2, y - h / 2, x + w / 2, y + h / 2), 1.0))
    return out


def labelled_runs(detections: list[TileDetection]) -> list[list[int]]:
    """Runs of consecutive labels that lie next to each other: rows (or parts of rows) of a hand,
    labelled one tile after another."""
    if not detections:
        return []
    size = float(np.median([math.sqrt(d.width * d.height) for d in detections]))
    runs: list[list[int]] = [[0]]
    for k in range(1, len(detections)):
        a, b = detections[k - 1].center, detections[k].center
        # a neighbour along the row, or a meld / winning tile set a little apart
        if math.hypot(a[0] - b[0], a[1] - b[1]) < 2.2 * size:
            runs[-1].append(k)
        else:
            runs.append([k])
    return runs


def labelled_hand(detections: list[TileDetection]) -> tuple[list[int], list[list[int]]]:
    """(the hand's labels, its labelled runs) of a photo: every label when there are no more
    than a hand holds (with flowers), else the longest run; ([], []) when there is no hand."""
    runs = labelled_runs(detections)
    if len(detections) <= MOST_HAND_LABELS:
        return list(range(len(detections))), [r for r in runs if len(r) >= 2]
    longest = max(runs, key=len) if runs else []
    return (longest, [longest]) if len(longest) >= 11 else ([], [])


def along_line(detections: list[TileDetection], run: list[int]) -> list[int]:
    """A run's labels sorted along its straight line (for labels written out of order)."""
    points = np.array([detections[i].center for i in run], dtype=float)
    centred = points - points.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return [run[k] for k in np.argsort(centred @ vt[0], kind="stable")]


def row_condition(detections: list[TileDetection], row: list[int]) -> float:
    """|cos 2θ| of the row's direction: 1 along an image axis, 0 on the diagonal."""
    points = np.array([detections[i].center for i in row], dtype=float)
    if len(points) < 2:
        return 1.0
    centred = points - points.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    u = vt[0]
    return abs(float(u[0] ** 2 - u[1] ** 2))


def real_photos(data: Path) -> list[tuple[str, Path]]:
    out = []
    for split in ("train", "valid"):
        folder = data / "real" / "chinese-mixed" / split
        for image in sorted((folder / "images").glob("hand_*")):
            label = folder / "labels" / (image.stem + ".txt")
            if label.exists():
                out.append((split, label))
    return out


def measure_real(data: Path, show_failures: bool) -> dict:
    photos = real_photos(data)
    progress = Progress(len(photos), "real hand photos")
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # bin -> photos, complete, ordered
    failures = []
    skipped = 0
    for split, label in photos:
        progress.update()
        detections = read_labels(label)
        row, runs = labelled_hand(detections)
        if len(row) < 10:  # no hand row in the labels (an empty label file, a table of tiles)
            skipped += 1
            continue
        condition = row_condition(detections, max(runs, key=len))
        bin_name = "diagonal (|cos 2θ| < 0.5)" if condition < 0.5 else "near an axis"
        layout = find_layout(detections)
        flowers = {i for i in range(len(detections)) if detections[i].tile[1:] == "f"}
        wanted = set(row)
        holding = [h for h in layout.hands if set(h.indices) & wanted]
        # flowers and seasons may be labelled apart from the row: they are not judged
        complete = len(holding) == 1 and (set(holding[0].indices) | set(holding[0].flowers)) - flowers == \
            wanted - flowers
        ordered = False
        if complete:
            hand = holding[0]
            order = hand.concealed_indices + [i for m in hand.melds for i in m.indices]
            position = {i: k for k, i in enumerate(order)}
            ordered = True
            for run in runs:  # each labelled run is read in its order, one way or the other
                seen = sorted((i for i in run if i not in flowers), key=position.__getitem__)
                truths = [[i for i in run if i not in flowers],
                          [i for i in along_line(detections, run) if i not in flowers]]
                ordered &= any(seen in (truth, truth[::-1]) for truth in truths)
        for key in ("all", bin_name):
            tally[key][0] += 1
            tally[key][1] += complete
            tally[key][2] += ordered
        if show_failures and not (complete and ordered):
            failures.append(f"  {split}/{label.stem}: condition {condition:.2f}, "
                            f"{'complete' if complete else 'not one complete hand'}, "
                            f"{'ordered' if ordered else 'order differs'} "
                            f"(hands: {[len(h.indices) for h in layout.hands]}, row {len(row)})")
    return {"tally": dict(tally), "failures": failures, "skipped": skipped}


# --------------------------------------------------------------------------- synthetic scenes







GROUP_RANK = {"concealed": 0, "win": 1, "meld": 2}


def laid_order(scene, player: int = 0) -> list[int]:
    """The player's labelled tiles in the order they were laid: concealed, winning tile, melds."""
    mine = [k for k, b in enumerate(scene.boxes) if b.player == player and b.group in GROUP_RANK]
    return sorted(mine, key=lambda k: (GROUP_RANK[scene.boxes[k].group], scene.boxes[k].meld or 0,
                                       scene.boxes[k].index))


def turned_detections(scene, pixels: list[np.ndarray], angle: float, exact: bool) -> list[TileDetection]:
    """The scene's labelled tiles in the photo turned by ``angle`` degrees about its centre."""
    height, width = scene.ids.shape
    a = math.radians(angle)
    turn = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    centre = np.array([width / 2, height / 2])
    out = []
    for box, points in zip(scene.boxes, pixels):
        if exact:
            # pixel centres of the tile, their corners' spread (half a pixel) kept
            p = (points - centre) @ turn.T + centre
            x1, y1 = p.min(axis=0) - 0.5
            x2, y2 = p.max(axis=0) + 0.5
        else:
            x1, y1, x2, y2 = box.box
            corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]]) - centre
            p = corners @ turn.T + centre
            (x1, y1), (x2, y2) = p.min(axis=0), p.max(axis=0)
        out.append(TileDetection(box.tile, (float(x1), float(y1), float(x2), float(y2)), 1.0))
    return out


def tile_pixels(scene) -> list[np.ndarray]:
    """(x, y) pixel centres of each labelled tile (body and face) in the generator's tile map."""
    position = {id(t): k for k, t in enumerate(scene.tiles)}
    out = []
    for box in scene.boxes:
        k = position[id(box)]
        ys, xs = np.nonzero((scene.ids == 2 * k + 2) | (scene.ids == 2 * k + 3))
        out.append(np.stack([xs + 0.5, ys + 0.5], axis=1).astype(float))
    return out


def judge_synthetic(scene, detections: list[TileDetection]) -> tuple[bool, bool]:
    hand_meta = scene.meta["hands"][0]
    layout = find_layout(detections)
    mine = set(laid_order(scene))
    holding = [h for h in layout.hands if set(h.indices) & mine]
    if len(holding) != 1:
        return False, False
    hand = holding[0]
    complete = set(hand.indices) - set(hand.flowers) == mine and hand.reading() == synth.expected_reading(hand_meta)
    order = hand.concealed_indices + [i for m in hand.melds for i in m.indices]
    return complete, complete and order == laid_order(scene)


def measure_synthetic(count: int, angles: int, seed: int, size: int, added_kongs: bool = False) -> dict:
    from mahjong_lens.datasets.art import load_styles
    styles = load_styles()
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    failures: list[str] = []
    progress = Progress(count, "synthetic scenes")
    index = found = 0
    while found < count:
        scene = synth.render_scene_full(synth.scene_rng(seed, index), size, styles=styles, kind="hand",
                                        effects=False)
        index += 1
        if not synth.clear_view(scene, scene.meta["hands"][0]) or \
                added_kongs and not any(m.get("added") for m in scene.meta["hands"][0]["melds"]):
            continue
        found += 1
        progress.update()
        features = []
        melds = scene.meta["hands"][0]["melds"]
        if any(m.get("added") for m in melds):
            features.append("added kong")
        trials = [("as rendered", [TileDetection(b.tile, tuple(float(v) for v in b.box), 1.0)
                                   for b in scene.boxes], 0.0)]
        pixels = tile_pixels(scene)
        for k in range(angles):
            angle = 360.0 * k / angles
            trials.append(("turned, exact boxes", turned_detections(scene, pixels, angle, True), angle))
            trials.append(("turned, boxes of boxes", turned_detections(scene, pixels, angle, False), angle))
        for name, detections, angle in trials:
            complete, ordered = judge_synthetic(scene, detections)
            keys = [name] + [f"{name}, {f}" for f in features]
            if name != "as rendered":
                diagonal = abs(math.cos(2 * math.radians(angle + scene.meta["camera"]["roll"])))
                keys.append(f"{name}, near diagonal" if diagonal < 0.5 else f"{name}, near an axis")
            for key in keys:
                tally[key][0] += 1
                tally[key][1] += complete
                tally[key][2] += ordered
            if not (complete and ordered):
                failures.append(f"  scene {index - 1} {name} {angle:.0f}°: "
                                f"{'complete' if complete else 'not complete'}, "
                                f"{'ordered' if ordered else 'order differs'}")
    return {"tally": dict(tally), "failures": failures}


def print_tally(title: str, tally: dict[str, list[int]]) -> None:
    print(title)
    print(f"  {'':<44} {'photos':>7} {'one complete hand':>18} {'order matches':>14}")
    for key in sorted(tally, key=lambda k: (k.split(",")[:2] if k.startswith("turned") else [k], k)):
        n, complete, ordered = tally[key]
        print(f"  {key:<44} {n:>7} {complete / n:>17.1%} {ordered / n:>14.1%}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", help="the shared data folder (default $MAHJONG_LENS_DATA or ../shared/data)")
    parser.add_argument("--synthetic", type=int, default=40, help="synthetic scenes (0: none)")
    parser.add_argument("--angles", type=int, default=24, help="turns of each synthetic scene (360/angles apart)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--size", type=int, default=640)
    parser.add_argument("--added-kongs", action="store_true", help="only synthetic hands with an added kong")
    parser.add_argument("--real-only", action="store_true")
    parser.add_argument("--synthetic-only", action="store_true")
    parser.add_argument("--show-failures", action="store_true")
    args = parser.parse_args(argv)
    from mahjong_lens.datasets.art import default_data_dir
    data = Path(args.data) if args.data else default_data_dir()

    started = time.perf_counter()
    real = measure_real(data, args.show_failures) if not args.synthetic_only else {"tally": {}}
    if args.synthetic_only:
        pass
    elif real["tally"]:
        print_tally(f"real hand_* photos (labels as detections; {real['skipped']} without a labelled "
                    "hand row left out)", real["tally"])
        for line in real["failures"]:
            print(line)
    else:
        print(f"no real hand photos under {data / 'real' / 'chinese-mixed'}")
    if args.synthetic and not args.real_only:
        try:
            synthetic = measure_synthetic(args.synthetic, args.angles, args.seed, args.size, args.added_kongs)
        except FileNotFoundError as error:
            print(f"no synthetic scenes ({error})")
        else:
            print_tally(f"synthetic hands ({args.synthetic} scenes, {args.angles} turns each)", synthetic["tally"])
            if args.show_failures:
                for line in synthetic["failures"]:
                    print(line)
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
