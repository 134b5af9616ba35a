"""The table camera for the web page: read on a background thread, drawn as a stream, its
steady reading scored for each viewer in that viewer's situation."""
from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from typing import Any

from .camera import Camera, TemporalVoter, reading_key
from .drawing import annotate
from .scan_result import ScanResult


class LiveFeed:
    """The table camera read on a background thread: the latest annotated frame and the
    tiles seen, steady once the same tiles were read in ``stable_after`` scans in a row.

    What the camera sees is the same for everyone; the situation (seat, wind, who won,
    rules) is each viewer's own, so the feed keeps the tiles it read and every viewer's
    request lays them out and scores them under that viewer's situation.
    """

    def __init__(self, source: Any, assistant: Any, scan_interval: float = 1.0,
                 stable_after: int = 3, idle_after: float = 60.0, frame_interval: float = 0.08):
        self.source = source
        self.idle_after = idle_after          # nobody watching this long: the camera is let go
        self.frame_interval = frame_interval  # about 12 pictures a second is enough for a table
        self._wanted = time.monotonic()
        self.assistant = assistant
        self.scan_interval = scan_interval
        # steady: the same tiles in all of the last `stable_after` readings (camera.TemporalVoter,
        # the rule `python -m mahjong_lens.vision.camera` uses too)
        self._voter = TemporalVoter(window=stable_after, min_agreement=1.0)
        self._changed = threading.Condition()
        self._jpeg: bytes | None = None
        self._frame_number = 0
        self._seen: _Seen | None = None       # the latest reading of the tiles
        self._stable: _Seen | None = None     # the latest steady one
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._wanted = time.monotonic()
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="live-feed", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        import cv2
        try:
            capture = open_capture(self.source)
        except Exception as error:  # a camera that is missing or busy: say so on the page
            self.error = f"cannot open the camera {self.source!r}: {error}"
            return
        last_scan = 0.0
        try:
            while not self._stop.is_set() and time.monotonic() - self._wanted < self.idle_after:
                try:
                    frame = capture.read()
                except Exception as error:  # a camera that fails mid-stream
                    self.error = f"the camera stopped: {error}"
                    break
                if frame is None:
                    self.error = "the camera sends no pictures (unplugged, or the video ended)"
                    break
                now = time.monotonic()
                if now - last_scan >= self.scan_interval:
                    last_scan = now
                    self._read(frame)
                picture = self._annotated(frame)
                ok, encoded = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 80])
                if ok:
                    with self._changed:
                        self._jpeg = encoded.tobytes()
                        self._frame_number += 1
                        self._changed.notify_all()
                time.sleep(self.frame_interval)
        finally:
            close = getattr(capture, "close", None) or getattr(capture, "release", None)
            if close:
                close()

    def _read(self, frame: Any) -> None:
        if getattr(frame, "ndim", 3) == 2:  # a grey camera: the model reads colour pictures
            import cv2
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        height, width = frame.shape[:2]
        try:
            detections = list(self.assistant.recognizer().detect(frame))
            # the layout without any viewer's situation: what the boxes and steadiness use
            plain = self.assistant.scan_detections(detections, width, height, {}, "rode-draak",
                                                   {}, name="camera")
        except Exception as error:  # a failing model must not end the stream; say it instead
            # the service's errors carry a sentence for the page; others only their kind
            self.error = getattr(error, "message", None) or f"reading the picture failed: {type(error).__name__}"
            return
        self.error = None
        seen = _Seen(detections, width, height, plain, reading_key(plain))
        with self._changed:
            self._seen = seen
            if self._voter.add(plain) is not None:
                self._stable = seen

    def _annotated(self, frame: Any) -> Any:
        seen = self._seen
        if seen is None:
            return frame
        try:
            return annotate(frame, seen.plain, scores=False)
        except Exception:  # a drawing problem must never stop the stream
            return frame

    def status(self, context: dict[str, Any] | None = None, rules: str = "rode-draak",
               options: dict[str, Any] | None = None) -> dict[str, Any]:
        """The camera's state, and its readings scored in the asking viewer's situation."""
        with self._changed:
            seen, stable = self._seen, self._stable
            running = bool(self._thread and self._thread.is_alive())
            frames, error = self._frame_number, self.error
        steady = stable is not None and seen is not None and seen.key == stable.key

        def scored(reading: _Seen | None) -> dict | None:
            if reading is None:
                return None
            return self.assistant.scan_detections(reading.detections, reading.width, reading.height,
                                                  dict(context or {}), rules, dict(options or {}),
                                                  name="camera").to_dict()

        stable_scan = scored(stable)
        latest = stable_scan if seen is stable else scored(seen)
        return {"camera": True, "running": running, "error": error, "frames": frames,
                "stable": steady, "reading": stable_scan, "latest": latest}

    def frames(self, limit: int | None = None, timeout: float = 10.0) -> Iterator[bytes]:
        """JPEG frames as they come (blocks between them); ends when the camera stops."""
        seen = 0  # frame numbers start at 1: wait for the first
        sent = 0
        while limit is None or sent < limit:
            self._wanted = time.monotonic()
            with self._changed:
                if not self._changed.wait_for(lambda: self._frame_number != seen or self._stop.is_set(),
                                              timeout=timeout):
                    return
                if self._stop.is_set() or self._jpeg is None:
                    return
                seen, jpeg = self._frame_number, self._jpeg
            sent += 1
            yield jpeg


@dataclasses.dataclass(frozen=True)
class _Seen:
    """One reading of the table camera: the tiles as read, before any situation applies."""
    detections: list
    width: int
    height: int
    plain: ScanResult    # the scan without a situation (boxes, roles)
    key: str | None      # what makes two readings the same tiles (None: no hand in view)


def open_capture(source: Any) -> Any:
    """An object whose read() gives BGR frames (None at the end): the given one, or a
    vision.camera.Camera for a device number, video file or stream URL; a video file played at
    the pace it was recorded (``RealTime``)."""
    if hasattr(source, "read"):
        return source
    camera = Camera(source)
    fps = camera.frames_per_second
    return camera if camera.live or fps is None else RealTime(camera, fps)


class RealTime:
    """A video file's frames at the pace it was recorded, as a camera would send them: the
    frames due by now are passed over, and a frame not yet due is waited for.  Without it the
    feed read a file as fast as it reads a camera (about 12 frames a second): a 30 fps recording
    played at 0.4 times its speed, and a 5 fps one at 2.4 times, where a hand shown for a second
    was scanned once, too few times to become steady."""

    def __init__(self, camera: Any, frames_per_second: float,
                 clock: Any = time.monotonic, sleep: Any = time.sleep) -> None:
        self.camera, self.fps = camera, float(frames_per_second)
        self.clock, self.sleep = clock, sleep
        self.started: float | None = None
        self.played = 0  # frames read or passed over so far

    def read(self) -> Any:
        now = self.clock()
        if self.started is None:
            self.started = now
        due = (now - self.started) * self.fps  # frame k is shown k / fps after the first
        if self.played > due:
            self.sleep((self.played - due) / self.fps)
        while self.played + 1 <= due:  # a later frame is due: this one is passed over
            if not self.camera.skip():
                return None
            self.played += 1
        frame = self.camera.read()
        self.played += 1
        return frame

    def close(self) -> None:
        self.camera.close()
