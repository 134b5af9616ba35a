"""The photo and the recording in ``examples/``: hands this project renders itself (never the
shared photos, which stay out of the repository), in the CC0 FluffyStuff art, each kept only
where the shipped recogniser reads it as rendered, so the README's commands show a real
reading.

    python -m mahjong_lens.datasets.examples --out examples      # needs ../shared/data/art
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from . import synth

# CC0 (FluffyStuff/riichi-mahjong-tiles): no attribution asked of a picture rendered from it
STYLE = "fluffy_regular"
SEED = 77  # a seed of its own: no benchmark or training run renders it


def hands_read_as_rendered(count: int, size: tuple[int, int], seed: int = SEED, first: int = 0,
                           limit: int = 2000, log=print):
    """The first ``count`` rendered hands in clear view (scenes ``first`` on) that the shipped
    recogniser reads tile for tile as rendered (melds and winning tile too) and that score as a
    self-drawn Rode Draak win: (image, the rendered hand's meta)."""
    from mahjong_lens.vision.layout import find_layout
    from mahjong_lens.vision.recognizer import load_recognizer
    from mahjong_lens.vision.scan import scan_detections
    reader = load_recognizer()
    styles = synth.load_styles()
    kept = []
    for index in range(first, first + limit):
        scene = synth.render_scene_full(synth.scene_rng(seed, index), size, styles=styles,
                                        style=STYLE, kind="hand", winning=True)
        hand = scene.meta["hands"][0]
        if not hand["win_tile"] or not synth.clear_view(scene, hand, min_elevation=60):
            continue
        detections = reader.detect(scene.image)
        readings = [h.reading() for h in find_layout(detections).hands]
        scan = scan_detections(detections, size[0], size[1], {"self_drawn": True}, "rode-draak")
        if readings == [synth.expected_reading(hand)] and scan.scored:
            kept.append((scene.image, hand))
            log(f"scene {index}: read as rendered ({len(kept)}/{count})")
            if len(kept) == count:
                break
    return kept


def write_recording(path: Path, frames: list[np.ndarray], seconds_each: float = 6.0, fps: int = 1) -> None:
    """Each picture held for ``seconds_each`` seconds, as a still hand under a table camera."""
    import cv2
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (width, height))
    for frame in frames:
        for _ in range(int(seconds_each * fps)):
            writer.write(frame)
    writer.release()


def main(argv: list[str] | None = None) -> int:
    import cv2
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("examples"))
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    photos = hands_read_as_rendered(1, (960, 640), args.seed)
    frames = hands_read_as_rendered(3, (720, 480), args.seed, first=1000)
    if len(photos) < 1 or len(frames) < 3:
        print("too few hands read as rendered", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    photo, hand = photos[0]
    cv2.imwrite(str(args.out / "hand.jpg"), photo, [cv2.IMWRITE_JPEG_QUALITY, 88])
    print(f"{args.out / 'hand.jpg'}: {hand['concealed']} melds {[m['tiles'] for m in hand['melds']]}"
          f" win {hand['win_tile']}")
    write_recording(args.out / "table.avi", [image for image, _ in frames])
    print(f"{args.out / 'table.avi'}: {len(frames)} hands, 6 s each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
