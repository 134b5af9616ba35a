"""Photo-to-score latency: decode, recognise, lay out, score, per image.

    python benchmarks/bench_scan.py                 # 12 synthetic photos (needs the shared tile art)
    python benchmarks/bench_scan.py photo1.jpg ...  # your own photos
    python benchmarks/bench_scan.py --model models/ --count 30 --size 1280

With the recogniser's weights (models/tile_detector.pt and models/tile_classifier.pt)
every photo goes through the whole pipeline; without them that part is skipped with a
message, and only the layout and scoring are timed, on the synthetic photos' true tiles.
The first photo also pays for warming up the model; it is reported apart.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mahjong_lens.vision.detections import TileDetection  # noqa: E402
from mahjong_lens.vision.image_input import ScanError, decode_image  # noqa: E402
from mahjong_lens.vision.scan import scan_detections  # noqa: E402


def synthetic_photos(count: int, size: int, seed: int) -> list[tuple[str, bytes, list[TileDetection]]]:
    """(name, JPEG bytes, true tiles) of generated photos of hands; [] without the tile art."""
    import cv2
    try:
        from mahjong_lens.datasets import synth
        from mahjong_lens.datasets.art import load_styles
        styles = load_styles()
    except (ImportError, FileNotFoundError) as error:
        print(f"no synthetic photos ({error})")
        return []
    out = []
    for index in range(count):
        scene = synth.render_scene_full(synth.scene_rng(seed, index), size, styles=styles, kind="hand")
        ok, jpeg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        truth = [TileDetection(b.tile, tuple(float(v) for v in b.box), 1.0) for b in scene.boxes]
        out.append((f"synth_{seed}_{index}.jpg", jpeg.tobytes(), truth))
    return out


def load(path: str) -> tuple[str, bytes, None]:
    return path, Path(path).read_bytes(), None


def summary_line(label: str, values: list[float]) -> str:
    if not values:
        return f"{label}: -"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return (f"{label}: median {statistics.median(values):7.1f} ms   p90 {p90:7.1f} ms   "
            f"max {max(values):7.1f} ms   (n={len(values)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("images", nargs="*", help="photos to scan (default: synthetic ones)")
    parser.add_argument("--model", help="folder of the recogniser weights (default models/)")
    parser.add_argument("--count", type=int, default=12, help="synthetic photos to make")
    parser.add_argument("--size", type=int, default=1024, help="synthetic photo size in pixels")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--rules", default="rode-draak")
    args = parser.parse_args(argv)

    photos = [load(p) for p in args.images] if args.images else synthetic_photos(args.count, args.size, args.seed)
    if not photos:
        print("nothing to scan")
        return 0
    recogniser = None
    try:
        from mahjong_lens.vision.recognizer import load_recognizer
        started = time.perf_counter()
        recogniser = load_recognizer(args.model)
        print(f"recogniser loaded in {(time.perf_counter() - started) * 1000:.0f} ms "
              f"on {getattr(recogniser, 'device', '?')}")
    except Exception as error:  # no weights yet: say so, time what can be timed
        print(f"skipping the recogniser: {error}")

    print(f"{'image':<24} {'size':>11} {'tiles':>5} {'decode':>8} {'detect':>8} {'layout+score':>13} {'total':>8}  result")
    decode_ms, detect_ms, layout_ms, total_ms = [], [], [], []
    for number, (name, data, truth) in enumerate(photos):
        t0 = time.perf_counter()
        try:
            image = decode_image(data)
        except ScanError as error:
            print(f"{name:<24} {'':>11} {'':>5} {'':>8} {'':>8} {'':>13} {'':>8}  {error}")
            continue
        t1 = time.perf_counter()
        if recogniser is not None:
            detections = recogniser.detect(image)
        elif truth is not None:
            detections = truth
        else:
            print(f"{name:<24} no recogniser and no true tiles: skipped")
            continue
        t2 = time.perf_counter()
        scan = scan_detections(detections, image.shape[1], image.shape[0], {}, args.rules, name=name)
        t3 = time.perf_counter()
        winner = scan.winner
        result = (winner.result if winner else None) or {}
        outcome = (f"{result['points']} points" if scan.scored
                   else (scan.error or (winner.error if winner else None) or result.get("error") or "")[:48])
        times = [(t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000, (t3 - t0) * 1000]
        size = f"{image.shape[1]}x{image.shape[0]}"
        detect_text = f"{times[1]:6.1f}ms" if recogniser is not None else "  (truth)"
        print(f"{name:<24} {size:>11} {len(detections):>5} {times[0]:6.1f}ms {detect_text:>8} "
              f"{times[2]:11.1f}ms {times[3]:6.1f}ms  {outcome}")
        if number == 0 and recogniser is not None:
            print("  (first photo: includes the model's warm-up, left out of the summary)")
            continue
        for store, value in zip((decode_ms, detect_ms, layout_ms, total_ms), times):
            store.append(value)
    print()
    print(summary_line("decode        ", decode_ms))
    if recogniser is not None:
        print(summary_line("detect        ", detect_ms))
    print(summary_line("layout + score", layout_ms))
    print(summary_line("photo to score" if recogniser is not None else "without model ", total_ms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
