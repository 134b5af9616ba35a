"""The camera side: frames from a webcam, a video file or a stream, read into stable hands.

A hand moving into view is read differently from frame to frame (half the tiles,
then all but one, ...). ``TemporalVoter`` keeps the last few readings and reports
a hand only when most of them agree, so the page shows one steady reading rather
than a flicker. ``watch`` is the loop the web app runs: it yields each frame, the
frame with the reading drawn on it, and the stable scan (or None while there is none).

``python -m mahjong_lens.vision.camera SOURCE`` prints each newly stable reading as a JSON line.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter, deque
from typing import Any, Iterator

import numpy as np

from .detections import Recognizer
from .scan_result import ScanResult


class CameraError(RuntimeError):
    """A camera or video that cannot be opened or read; the message says which and why."""


def parse_source(source: int | str) -> int | str:
    """A device index for '0', '1', ... (webcams), otherwise a file path or stream URL."""
    if isinstance(source, int):
        return source
    text = str(source).strip()
    return int(text) if text.isdigit() else text


class Camera:
    """Frames from a webcam (device index), a video file or a stream URL, via OpenCV."""

    def __init__(self, source: int | str, width: int | None = None, height: int | None = None):
        import cv2
        self.source = parse_source(source)
        self.capture = cv2.VideoCapture(self.source)
        if not self.capture.isOpened():
            what = f"camera {self.source}" if isinstance(self.source, int) else repr(self.source)
            raise CameraError(f"cannot open {what}: no such device, file or stream, or no codec for it")
        if width:
            self.capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self.capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    @property
    def live(self) -> bool:
        """A webcam or stream (frames keep coming), not a file that ends."""
        return isinstance(self.source, int) or "://" in str(self.source)

    @property
    def frames_per_second(self) -> float | None:
        """The rate a video file was recorded at, as its header says (None where it says none)."""
        import cv2
        fps = float(self.capture.get(cv2.CAP_PROP_FPS) or 0.0)
        return fps if 0.0 < fps <= 1000.0 else None

    def read(self) -> np.ndarray | None:
        """The next frame (BGR), or None at the end of a file or when the stream stops."""
        ok, frame = self.capture.read()
        return frame if ok and frame is not None else None

    def skip(self) -> bool:
        """Pass over the next frame without decoding it; False at the end."""
        return bool(self.capture.grab())

    def frames(self, max_frames: int | None = None) -> Iterator[np.ndarray]:
        count = 0
        while max_frames is None or count < max_frames:
            frame = self.read()
            if frame is None:
                return
            count += 1
            yield frame

    def close(self) -> None:
        self.capture.release()

    def __enter__(self) -> "Camera":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def reading_key(scan: ScanResult) -> str | None:
    """What a frame's scan read, independent of where the tiles lie: the tiles of each hand
    (concealed, melds, winning tile) and the dora indicators. None when nothing was read."""
    if not scan.hands:
        return None
    hands = []
    for entry in scan.hands:
        reading = entry.reading
        hand = entry.hand or {}
        melds = sorted("".join(sorted(m["tiles"])) + ("" if m.get("open", True) else "!")
                       for m in reading.get("melds", []))
        hands.append({"concealed": sorted(reading.get("concealed", [])), "melds": melds,
                      "win": hand.get("win_tile") or reading.get("win_tile")})
    return json.dumps({"hands": hands, "dora": sorted(scan.dora_indicators)}, sort_keys=True)


class TemporalVoter:
    """Report a reading only when it was read in most of the last ``window`` frames.

    ``min_agreement`` is the share of the window that must agree (frames with nothing
    read count against every reading), so the window must be nearly full first.
    """

    def __init__(self, window: int = 8, min_agreement: float = 0.6):
        if window < 1:
            raise ValueError("window must be at least 1 frame")
        if not 0 < min_agreement <= 1:
            raise ValueError("min_agreement is a share of the window, above 0 and at most 1")
        self.window = window
        self.needed = max(1, math.ceil(min_agreement * window))
        self.history: deque[tuple[str | None, ScanResult]] = deque(maxlen=window)
        self.stable: ScanResult | None = None
        self.stable_key: str | None = None

    def add(self, scan: ScanResult) -> ScanResult | None:
        """Record a frame's scan; returns the stable scan (the latest with the agreed reading) or None."""
        key = reading_key(scan)
        self.history.append((key, scan))
        counts = Counter(k for k, _ in self.history if k is not None)
        if counts:
            best, count = counts.most_common(1)[0]
            if count >= self.needed:
                self.stable_key = best
                self.stable = next(s for k, s in reversed(self.history) if k == best)
                return self.stable
        self.stable, self.stable_key = None, None
        return None

    def reset(self) -> None:
        self.history.clear()
        self.stable, self.stable_key = None, None


def watch(source: int | str | Camera, recognizer: Recognizer, context: dict | None = None,
          rules: str = "rode-draak", options: dict | None = None, window: int = 8,
          min_agreement: float = 0.6, every: int = 1,
          max_frames: int | None = None) -> Iterator[tuple[np.ndarray, np.ndarray, ScanResult | None]]:
    """(frame, annotated frame, stable scan or None) for each frame of a source.

    Every ``every``-th frame is read by the recogniser (the others show the last reading),
    so a slow model can follow a live camera.
    """
    from .drawing import annotate
    from .scan import scan_image
    camera = source if isinstance(source, Camera) else Camera(source)
    voter = TemporalVoter(window, min_agreement)
    last_scan: ScanResult | None = None
    try:
        for number, frame in enumerate(camera.frames(max_frames)):
            if number % max(1, every) == 0:
                last_scan = scan_image(frame, recognizer, context, rules, options, name=f"frame {number}")
                voter.add(last_scan)
            shown = voter.stable or last_scan
            annotated = annotate(frame, shown) if shown else frame.copy()
            yield frame, annotated, voter.stable
    finally:
        if not isinstance(source, Camera):
            camera.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mahjong_lens.vision.camera",
                                     description="print each newly stable hand seen by a camera or in a video")
    parser.add_argument("source", help="webcam index (0), video file or stream URL")
    parser.add_argument("--rules", default="rode-draak")
    parser.add_argument("--model", help="folder of the recogniser weights")
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--agreement", type=float, default=0.6)
    parser.add_argument("--every", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        from .recognizer import load_recognizer
        recognizer = load_recognizer(args.model)
        printed = None
        started = time.perf_counter()
        for _, _, stable in watch(args.source, recognizer, rules=args.rules, window=args.window,
                                  min_agreement=args.agreement, every=args.every):
            key = reading_key(stable) if stable else None
            if key and key != printed:
                printed = key
                shown = {k: v for k, v in stable.to_dict().items() if k != "tiles"}
                shown["seconds"] = round(time.perf_counter() - started, 2)
                print(json.dumps(shown, ensure_ascii=False), flush=True)
    except CameraError as error:
        print(f"camera: {error}", file=sys.stderr)
        return 2
    except FileNotFoundError as error:
        print(f"camera: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
