"""End to end on real photos of hands: recognise, lay out, and compare the hand found with
the photo's labels.

    python benchmarks/scan_real_hands.py                       # chinese-mixed hand rows, development photos
    python benchmarks/scan_real_hands.py --model /tmp/cand --all-copies
    python benchmarks/scan_real_hands.py --data ../shared/data/real/chinese-mixed/valid
    python benchmarks/scan_real_hands.py --turned            # the photos turned a quarter
    python benchmarks/scan_real_hands.py --by-labels --data ../shared/data/real/chinese-mixed/valid

A photo's hand is *read exactly* when the tiles of the largest hand the layout finds (its
concealed tiles, melds and flowers) are the tiles of the hand the photo's labels lay out as
(``training.evaluate.reference_hand``), as a multiset: tiles on the table around the hand do
not count against it, labelled or not, as the scan ignores them too.  Where the labels lay
out as no whole hand (13 tiles or more: hand_009 and hand_010, melds in a block beside the
row), the reference is every label; the benchmark also says how many read every label.
*All labelled tiles right* is the evaluation's stricter box-by-box test (IoU >= 0.5, right
face) without penalising those extra tiles.  *Tiles of the hands found* counts,
over all photos, the labelled tiles the hand holds (recall) and the hand's tiles that are
labelled (precision), as multisets: the recogniser's figures on the tiles the scan uses.
By default only the development photos (held out of training) are used, and Roboflow's
rotated copies, whose labels are inflated boxes, are left out (``--all-copies`` keeps them).
``--by-labels`` also takes the "single tiles" photos whose labels lay out as a hand of 13
or more tiles (``training.evaluate.lays_out_as_hand``), as the evaluation reports them:
chinese-mixed's ``valid/`` holds no ``hand_*`` photo but 73 such photos of a hand on the table.
In them a few tiles among the discards around the hand are labelled too.
``--turned`` reads every photo turned a quarter instead (labels turned exactly): the hand
running up the picture, as a camera over the table sees the players at its sides.
``--outcome RULES`` scans each photo whose hand is read exactly (flowers aside) as a
self-drawn win under RULES and counts how it ends: a score, one question (which tile won),
or a refusal (listed by its reason): a hand read right should never end in a refusal.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mahjong_lens.training.evaluate import (as_labelled, inflated_labels, labelled_images,  # noqa: E402
                                           largest_hand_tiles, read_truths, reference_hand,
                                           score_image, turned_quarter)
from mahjong_lens.vision.classes import FLOWERS  # noqa: E402
from mahjong_lens.training.train import default_data_dir  # noqa: E402


def _without_bonus(tiles: Counter) -> Counter:
    return Counter({tile: n for tile, n in tiles.items() if tile not in FLOWERS})


_SAY_REFUSALS = False  # --refusals: each refusal's whole reason as it happens


def could_win(tiles: Counter) -> bool:
    """Whether these tiles (flowers aside) can be a winning hand at all: complete as they lie,
    one tile short of one, or complete with some four alike laid apart as kongs.  The real
    photos' hands are whatever tiles were laid out, mostly no win; for those "no win, and why"
    is the right answer."""
    from itertools import combinations
    from mahjong_lens.rules.decompose import waits
    from mahjong_lens.rules.tiles import plain, to_counts
    from mahjong_lens.vision.layout.sets import complete_anywhere
    counts = to_counts(plain(t) for t in _without_bonus(tiles).elements())
    fours = [k for k, n in enumerate(counts) if n == 4]
    for kongs in range(len(fours) + 1):
        for chosen in combinations(fours, kongs):
            rest = [n - (4 if k in chosen else 0) for k, n in enumerate(counts)]
            if sum(rest) == 14 - 3 * kongs and complete_anywhere(tuple(rest)) or \
                    sum(rest) == 13 - 3 * kongs and waits(rest):
                return True
    return False


def _outcome(detections, image, rules: str, winnable: bool = True) -> str:
    """How a scan of the photo ends: 'score', 'question: which tile won', 'no win, said why'
    (a refusal where the labelled tiles make no winning hand: the right answer), or
    'refused: ...'."""
    from mahjong_lens.vision.scan import scan_detections
    scan = scan_detections(detections, image.shape[1], image.shape[0], {"self_drawn": True}, rules)
    if not scan.hands:
        reason = scan.error or "?"
    else:
        entry = max(scan.hands, key=lambda e: len(e.tiles))
        if entry.question:
            return f"one question ({entry.question})"
        if (entry.result or {}).get("valid") and not entry.error:
            return "score"
        reason = entry.error or (entry.result or {}).get("error") or scan.error or "?"
    if not winnable:
        return "no win, said why (the labelled tiles make no winning hand)"
    if _SAY_REFUSALS:
        print(f"    refused: {reason[:150]}", file=sys.stderr)
    return "refused: " + reason.split(":")[0][:70]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(default_data_dir() / "real" / "chinese-mixed" / "train"))
    parser.add_argument("--model", default=None, help="folder of the recogniser weights (default: models/)")
    parser.add_argument("--all-copies", action="store_true", help="keep rotated copies with inflated labels")
    parser.add_argument("--all-photos", action="store_true", help="not only the development photos")
    parser.add_argument("--turned", action="store_true", help="read each photo turned a quarter")
    parser.add_argument("--by-labels", action="store_true",
                        help="also the single-tile photos whose labels lay out as a hand")
    parser.add_argument("--show", type=int, default=10, help="list this many misread photos")
    parser.add_argument("--outcome", metavar="RULES", default=None,
                        help="scan the photos read exactly as a self-drawn win under these rules and "
                             "count how they end (score, question, refusal)")
    parser.add_argument("--refusals", action="store_true", help="with --outcome: print each refusal's reason")
    args = parser.parse_args(argv)
    global _SAY_REFUSALS
    _SAY_REFUSALS = args.refusals

    import cv2

    from mahjong_lens.vision.recognizer import load_recognizer
    # the development tenth is held out of train/ folders only
    dev_only = not args.all_photos and "train" in Path(args.data).resolve().parts
    items = [item for item in labelled_images(Path(args.data), dev_only=dev_only)
             if item[0].endswith("hand-rows") or args.by_labels and item[0].endswith("single-tiles")]
    if not items:
        print(f"no hand-row photos under {args.data}")
        return 1
    recognizer = load_recognizer(args.model)
    photos = exact = exact_unbonused = exact_every_label = all_right = 0
    outcomes: Counter = Counter()
    labelled = held = right = 0
    seconds = 0.0
    misread = []
    for n, (source, image_path, label_path) in enumerate(items, 1):
        image = cv2.imread(str(image_path))
        truths = read_truths(label_path, image.shape[1], image.shape[0])
        if not truths or (inflated_labels(truths) and not args.all_copies):
            continue
        # the reference is the hand the labels lay out as, not the few labelled tiles around
        # it (discards); where they lay out as no whole hand, every label.  A "single tiles"
        # photo is a hand on the table only if they do.
        wanted = reference_hand(truths, source.endswith("hand-rows"))
        if wanted is None:
            continue
        if args.turned:
            image, truths = turned_quarter(image, truths)
        started = time.perf_counter()
        detections = recognizer.detect(image)
        found = as_labelled(Counter(largest_hand_tiles(detections)), wanted)
        seconds += time.perf_counter() - started
        photos += 1
        every_label = Counter(t.tile for t in truths)
        exact += found == wanted  # training.evaluate.hand_read_exactly, the layout run once
        exact_every_label += found == every_label
        # no rule set here scores flowers and seasons: the hand the score is taken from
        exact_unbonused += _without_bonus(found) == _without_bonus(wanted)
        labelled, held = labelled + sum(wanted.values()), held + sum(found.values())
        right += sum((found & wanted).values())
        all_right += score_image(detections, truths).correct == len(truths)
        if args.outcome and _without_bonus(found) == _without_bonus(wanted):
            outcomes[_outcome(detections, image, args.outcome, could_win(wanted))] += 1
        if found != wanted:
            misread.append(f"  {image_path.name[:40]}: missing {sorted((wanted - found).elements())}, "
                           f"extra {sorted((found - wanted).elements())}")
        if n % 20 == 0:
            print(f"  {n}/{len(items)} photos", file=sys.stderr, flush=True)
    print(f"hand photos: {photos}")
    print(f"hand read exactly (tiles of the hand found = the labelled hand): {exact}/{photos} = {exact / max(photos, 1):.3f}")
    print(f"the same, flowers and seasons aside (none scores them): {exact_unbonused}/{photos} = "
          f"{exact_unbonused / max(photos, 1):.3f}")
    print(f"the same against every label (discards labelled too):  {exact_every_label}/{photos} = "
          f"{exact_every_label / max(photos, 1):.3f}")
    print(f"all labelled tiles read right (IoU >= 0.5):          {all_right}/{photos} = "
          f"{all_right / max(photos, 1):.3f}")
    print(f"tiles of the hands found: recall {right / max(labelled, 1):.3f} ({right}/{labelled}), "
          f"precision {right / max(held, 1):.3f} ({right}/{held})")
    print(f"seconds per photo (recognise + lay out): {seconds / max(photos, 1):.3f}")
    if args.outcome:
        print(f"how the {sum(outcomes.values())} photos read exactly end, scanned as a self-drawn "
              f"{args.outcome} win:")
        for what, count in outcomes.most_common():
            print(f"  {count:3d}  {what}")
    if misread and args.show:
        print("misread:")
        print("\n".join(misread[: args.show]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
