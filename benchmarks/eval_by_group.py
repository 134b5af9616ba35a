"""The figures of an `eval.json` (`mahjong-lens eval --out DIR` writes one) split, source by
source, into the photos whose names match a pattern and the rest.

    python benchmarks/eval_by_group.py /tmp/ev/eval.json --pattern '^IMG_27'
    python benchmarks/eval_by_group.py /tmp/ev/eval.json --pattern '^IMG_27' --name 'a tile set never trained on'

Why: the sources are kinds of photo, but what a recogniser most often meets at a new table
is a tile set it never saw.  In chinese-mixed the trays photographed on a red table
(IMG_2742 to IMG_2788: their own set, 伍 on the 5 of characters, red in the 5 of bamboos and
circles) are all in `valid/` and none in `train/`, so their figures are those of a set the
recogniser never saw.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path


def group_figures(records: list[dict], pattern: str, name: str) -> dict[str, dict[str, float]]:
    """Per source, and, for a source with photos whose names match `pattern` and photos whose names do not, per source
    split into those and the rest: photos, labels, recall, precision and exact photos (as
    `eval` counts them)."""
    matcher = re.compile(pattern)
    matching = {r["source"] for r in records if matcher.search(r["image"])}
    split = matching & {r["source"] for r in records if not matcher.search(r["image"])}
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for record in records:
        source = record["source"]
        keys = [source]
        if source in split:
            keys.append(f"{source}: {name}" if matcher.search(record["image"]) else f"{source}: the rest")
        for key in keys:
            total = totals[key]
            total[0] += 1
            total[1] += record["labelled"]
            total[2] += record["detected"]
            total[3] += record["correct"]
            total[4] += bool(record["exact"])
    return {key: {"images": t[0], "labelled": t[1], "detected": t[2], "correct": t[3], "exact": t[4],
                  "recall": t[3] / t[1] if t[1] else 0.0, "precision": t[3] / t[2] if t[2] else 0.0}
            for key, t in totals.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("eval_json", type=Path, help="an eval.json written by `mahjong-lens eval --out`")
    parser.add_argument("--pattern", required=True, help="a regular expression on the photo's file name")
    parser.add_argument("--name", default="matching", help="what the matching photos are, for the table")
    parser.add_argument("--recogniser", default="ours", help="whose figures (ours, or peer)")
    args = parser.parse_args(argv)
    try:
        report = json.loads(args.eval_json.read_text())
        records = report[args.recogniser]["images"]
        re.compile(args.pattern)
    except (OSError, ValueError, KeyError, TypeError, re.error) as err:
        print(f"eval_by_group: cannot use {args.eval_json} with {args.pattern!r}: {err}", file=sys.stderr)
        return 2
    figures = group_figures(records, args.pattern, args.name)
    print(f"  {'source':70s} {'images':>6s} {'tiles':>6s} {'recall':>7s} {'precis.':>7s} {'exact':>9s}")
    for key in sorted(figures):
        f = figures[key]
        if f["images"]:
            print(f"  {key:70s} {f['images']:6d} {f['labelled']:6d} {f['recall']:7.3f} {f['precision']:7.3f} "
                  f"{f['exact']:4d}/{f['images']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
