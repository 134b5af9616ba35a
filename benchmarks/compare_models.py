"""Shipped weights against new ones, on every figure the model card holds them to.

    python benchmarks/compare_models.py --candidate DIR            # DIR: the weights a run brought back
    python benchmarks/compare_models.py --candidate DIR --quick    # seed 2000 alone of the synthetic sets

DIR holds any of ``tile_detector.pt``, ``tile_classifier.pt``, ``tile_classifier_2.pt`` (a
lent GPU machine's ``training/device_train.sh`` brings them back); the others are the baseline's.
The candidate folder is assembled in ``--work`` and exported to ONNX (the app reads those), then
both folders are measured the same way, one after the other on this machine:

- ``mahjong-lens eval`` over the three sets' ``valid/`` (never trained on): each source's recall,
  precision and photos read exactly, the red-table half (IMG_2761-2777) and the blue mat;
- ``benchmarks/scan_synthetic_hands.py``: hands read exactly at seeds 2000 (and, without
  ``--quick``, turned a quarter and 30 degrees, seed 3000, two rows, seed 4000);
- ``benchmarks/scan_real_hands.py``: the development hand rows (and turned a quarter) and the
  chinese-mixed ``valid/`` hands by labels.

It prints the two side by side with each target and marks every figure the candidate drops
(a candidate is shipped only where it drops none and raises what it was trained for).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"
WEIGHTS = ("tile_detector.pt", "tile_classifier.pt", "tile_classifier_2.pt")
RED_TABLE_HALF = r"^IMG_27(6[1-9]|7[0-7])_"

# (name, eval source or None, target) for the real photos' rows, in the model card's order
EVAL_ROWS = (
    ("valid/ riichi trays", "riichi-tray/tray", ">= 0.95"),
    ("valid/ chinese trays", "chinese-mixed/tray", ">= 0.95"),
    ("valid/ single tiles", "chinese-mixed/single-tiles", ">= 0.95"),
    ("valid/ screenshots", "chinese-mixed/screenshot", ">= 0.95"),
    ("valid/ hands on the table", "chinese-mixed/single-tiles: a hand on the table", ">= 0.97"),
    ("riichi-bluemat valid/", "riichi-bluemat", ">= 0.97 (issue 31)"),
    ("valid/ all", "all", ""),
)
# (name, arguments of scan_synthetic_hands.py, quick)
SYNTHETIC_SETS = (
    ("synthetic seed 2000", [], True),
    ("synthetic turned a quarter", ["--turn", "90"], False),
    ("synthetic at 30 degrees", ["--turn", "30"], False),
    ("synthetic seed 3000", ["--seed", "3000"], False),
    ("synthetic two rows", ["--rows", "2"], False),
    ("synthetic seed 4000 (100)", ["--seed", "4000", "--count", "100"], False),
)


def synthetic_figures(output: str) -> dict[str, int]:
    """Hands, read exactly, and read exactly with melds, from scan_synthetic_hands.py's table."""
    figures = {}
    for key, name in (("all", "exact"), ("with melds", "melds")):
        found = re.search(rf"^  {key}\s+(\d+)\s+\d+\s+[\d.]+%\s+(\d+)\s+[\d.]+%", output, re.M)
        if found:
            if key == "all":
                figures["hands"] = int(found.group(1))
            figures[name] = int(found.group(2))
    return figures


def real_hand_figures(output: str) -> dict[str, int]:
    """Photos, read exactly, and read exactly flowers aside, from scan_real_hands.py."""
    figures = {}
    photos = re.search(r"^hand photos: (\d+)", output, re.M)
    exact = re.search(r"^hand read exactly .*?: (\d+)/\d+", output, re.M)
    unbonused = re.search(r"^the same, flowers and seasons aside .*?: (\d+)/\d+", output, re.M)
    if photos and exact:
        figures = {"hands": int(photos.group(1)), "exact": int(exact.group(1))}
        if unbonused:
            figures["flowers aside"] = int(unbonused.group(1))
    return figures


def eval_figures(report: dict) -> dict[str, dict[str, float]]:
    """Each EVAL_ROWS source's recall, precision and exact photos from eval.json, and the
    red-table half's (``benchmarks/eval_by_group.py``)."""
    sys.path.insert(0, str(BENCHMARKS))
    from eval_by_group import group_figures
    ours = report["ours"]
    out = {source: {k: ours["sources"][source][k] for k in ("images", "recall", "precision", "exact")}
           for _, source, _ in EVAL_ROWS if source in ours["sources"]}
    half = group_figures(ours["images"], RED_TABLE_HALF, "half").get("chinese-mixed/tray: half")
    if half:
        out["red-table half"] = {k: half[k] for k in ("images", "recall", "precision", "exact")}
    return out


def assemble(candidate: Path, baseline: Path, work: Path) -> Path:
    """The baseline's weights with the candidate's in their place, exported to ONNX."""
    given = [name for name in WEIGHTS if (candidate / name).exists()]
    if not given:
        raise FileNotFoundError(f"{candidate} holds none of {', '.join(WEIGHTS)}")
    folder = work / "candidate-models"
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(baseline, folder, ignore=shutil.ignore_patterns("*.png", "README.md"))
    for name in given:
        shutil.copy(candidate / name, folder / name)
        (folder / name).with_suffix(".onnx").unlink(missing_ok=True)
    from mahjong_lens.vision.recognizer import export_onnx, quiet_ultralytics
    with quiet_ultralytics():
        exported = export_onnx(folder)
    print(f"compare: exported {', '.join(p.name for p in exported)}", file=sys.stderr)
    print(f"compare: the candidate's {', '.join(given)} with the baseline's others in {folder}", file=sys.stderr)
    return folder


def _run(arguments: list[str]) -> str:
    done = subprocess.run([sys.executable, *arguments], cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def measure(models: Path, data: Path, work: Path, quick: bool) -> dict:
    """Every figure of one models folder (see the module's doc)."""
    figures: dict = {}
    started = time.time()
    out = work / f"eval-{models.name}"
    valid = [str(p) for p in sorted((data / "real").glob("*/valid"))]
    _run(["-m", "mahjong_lens.cli", "eval", "--model", str(models), "--out", str(out), "--data", *valid])
    figures["eval"] = eval_figures(json.loads((out / "eval.json").read_text()))
    for name, extra, in_quick in SYNTHETIC_SETS:
        if quick and not in_quick:
            continue
        figures[name] = synthetic_figures(_run([str(BENCHMARKS / "scan_synthetic_hands.py"),
                                                "--model", str(models), "--show", "0", *extra]))
    real = [("development hand rows", []), ("development hand rows turned", ["--turned"]),
            ("chinese valid/ hands by labels", ["--data", str(data / "real" / "chinese-mixed" / "valid"),
                                                "--all-photos", "--by-labels"])]
    for name, extra in real:
        figures[name] = real_hand_figures(_run([str(BENCHMARKS / "scan_real_hands.py"), "--model", str(models),
                                                "--show", "0", *extra]))
    print(f"compare: {models} measured in {time.time() - started:.0f} s", file=sys.stderr)
    return figures


def rows(baseline: dict, candidate: dict) -> list[tuple[str, str, str, str, bool]]:
    """(figure, baseline, candidate, target, dropped) for the table."""
    out = []
    targets = {source: target for _, source, target in EVAL_ROWS}
    targets["red-table half"] = ">= 0.97 (issue 31)"
    names = {source: name for name, source, _ in EVAL_ROWS}
    names["red-table half"] = "red-table half (IMG_2761-2777)"
    for source in list(names):
        a, b = baseline["eval"].get(source), candidate["eval"].get(source)
        if not a or not b:
            continue
        said = lambda f: f"{f['recall']:.3f} / {f['precision']:.3f}, {f['exact']}/{f['images']}"  # noqa: E731
        dropped = b["recall"] < a["recall"] or b["precision"] < a["precision"] or b["exact"] < a["exact"]
        out.append((names[source], said(a), said(b), targets[source], dropped))
    for name, value in baseline.items():
        if name == "eval" or name not in candidate:
            continue
        a, b = value, candidate[name]
        keys = [k for k in a if k != "hands"]
        said = lambda f: " / ".join(f"{f.get(k, '-')}" for k in keys) + f" of {f.get('hands', '-')}"  # noqa: E731
        target = "48 of 60, melds 30 of 40 (issue 26)" if name.startswith("synthetic") and "4000" not in name else ""
        dropped = any(b.get(k, 0) < a.get(k, 0) for k in keys)
        out.append((f"{name} ({', '.join(keys)})", said(a), said(b), target, dropped))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", required=True, help="folder with the new weights (.pt)")
    parser.add_argument("--baseline", default=str(REPO / "models"), help="folder of the weights to beat")
    parser.add_argument("--data", default=None, help="the shared data folder (default: ../shared/data)")
    parser.add_argument("--work", default="/tmp/mahjong-lens-compare", help="scratch folder")
    parser.add_argument("--quick", action="store_true", help="of the synthetic sets, seed 2000 alone")
    parser.add_argument("--json", default=None, help="also write every figure to this file")
    args = parser.parse_args(argv)
    from mahjong_lens.datasets.art import default_data_dir
    data = Path(args.data) if args.data else default_data_dir()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    try:
        candidate = assemble(Path(args.candidate), Path(args.baseline), work)
        figures = {"baseline": measure(Path(args.baseline), data, work, args.quick),
                   "candidate": measure(candidate, data, work, args.quick)}
    except (FileNotFoundError, RuntimeError, ModuleNotFoundError) as error:
        print(f"compare: {error}", file=sys.stderr)
        return 2
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    table = rows(figures["baseline"], figures["candidate"])
    width = max(len(row[0]) for row in table)
    print(f"{'':<{width}}  {'baseline':<28} {'candidate':<28} target")
    for name, a, b, target, dropped in table:
        print(f"{name:<{width}}  {a:<28} {b:<28} {target}{'  DROPS' if dropped else ''}")
    drops = [row[0] for row in table if row[4]]
    print(f"the candidate drops {len(drops)} figure(s){': ' + '; '.join(drops) if drops else ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
