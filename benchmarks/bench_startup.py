"""Whole-process start-up of the `mahjong-lens` command: what a user waits for each time.

    python benchmarks/bench_startup.py                       # the mahjong-lens on PATH
    python benchmarks/bench_startup.py --exe /venv/bin/mahjong-lens --photo hand.jpg --runs 7

Times, over several runs after one warm-up, `score` of a hand on stdin, `scan` of a missing
file (start-up and a clear error), `scan` of one photo (loading the recogniser and reading;
a drawn photo unless --photo gives one) and `serve --help`; prints min / median / max wall
seconds of each.  Also says whether a scan imported torch or ultralytics (it should not).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HAND = '{"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": true, "seat_wind": "E"}'


def timed(command: list[str], stdin: str | None, runs: int) -> list[float]:
    times = []
    for k in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(command, input=stdin, capture_output=True, text=True)
        if k:  # the first is a warm-up (file cache)
            times.append(time.perf_counter() - start)
    return times


def drawn_photo(folder: Path) -> Path:
    """A 1280 x 960 photo of light boxes on green felt, when no real one is given."""
    import cv2
    import numpy as np
    photo = np.full((960, 1280, 3), (40, 110, 30), np.uint8)
    for k in range(14):
        cv2.rectangle(photo, (200 + 62 * k, 400), (258 + 62 * k, 480), (235, 235, 235), -1)
    path = folder / "drawn.jpg"
    cv2.imwrite(str(path), photo)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--exe", default=shutil.which("mahjong-lens") or "mahjong-lens",
                        help="the mahjong-lens command to time (default: the one on PATH)")
    parser.add_argument("--photo", help="a photo to scan (default: a drawn one)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        photo = Path(args.photo) if args.photo else drawn_photo(Path(folder))
        cases = [("score (hand on stdin)", [args.exe, "score", "-"], HAND),
                 ("scan of a missing file", [args.exe, "scan", str(Path(folder) / "missing.jpg")], None),
                 (f"scan of one photo ({photo.name[:30]})", [args.exe, "scan", str(photo)], None),
                 ("serve --help", [args.exe, "serve", "--help"], None)]
        print(f"{args.exe}: {args.runs} runs each after a warm-up, wall seconds")
        print(f"{'command':<48} {'min':>7} {'median':>7} {'max':>7}")
        for name, command, stdin in cases:
            times = timed(command, stdin, args.runs)
            print(f"{name:<48} {min(times):7.3f} {statistics.median(times):7.3f} {max(times):7.3f}")
        python = Path(args.exe).with_name("python")
        if python.exists():
            probe = ("import sys; from mahjong_lens.cli import main; main(['scan', sys.argv[1]]); "
                     "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'ultralytics'}))")
            done = subprocess.run([str(python), "-c", probe, str(photo)], capture_output=True, text=True)
            print(f"a scan imports torch or ultralytics: {done.stdout.strip().splitlines()[-1:] or '?'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
