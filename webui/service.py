"""What the web views call: scoring, scanning, refereeing, table settlement and the live feed.

The views only turn requests into these calls and the answers into JSON or pages; every
decision (what a context field means, when two scores agree, what is stored) lives here.
Errors a user can fix raise ServiceError with a sentence and an HTTP status.
"""
from __future__ import annotations

import base64
import binascii
import dataclasses
import importlib
import json
import os
import re
import threading
import time
import typing
from collections.abc import Iterator, Mapping
from typing import Any

from rules.context import CONTEXT_FIELDS, ContextError, unknown_fields, wind_field
from rules.context import context_from_fields as rules_context
from rules.registry import RULE_SETS, OptionError, rule_set, rules_module, score
from rules.tiles import WINDS
from rules.win_tile import score_or_ask

from .desk import TournamentDesk
from .store import Check, CheckStore
from .tournament_store import TournamentStore

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
# every request without a photo: a hand, four hands, a slip, a tournament's players are a few KB
MAX_BODY_BYTES = 1024 * 1024
PREVIEW_LONG_SIDE = 1600          # the photo sent back to the page, long side in pixels


def too_large_body_message(limit: int) -> str:
    return (f"the request is too large: up to {limit / 1024:.0f} KB is accepted without a photo "
            "(a hand or a score slip is a few KB)")


def parse_json(text: str | bytes, what: str, invalid: str) -> Any:
    """JSON from a request, or a ServiceError that says why not (never a RecursionError)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ServiceError(f"{what} is nested too deeply to be a hand or a setting") from None
    except ValueError:
        raise ServiceError(invalid) from None


def too_large_message(limit: int) -> str:
    """What a player reads when the photo is over the limit."""
    return (f"the upload is too large: photos up to {limit / (1024 * 1024):.3g} MB are accepted "
            "(a phone photo is usually 2-6 MB)")


class ServiceError(Exception):
    """A request the app cannot serve, with a sentence for the user and an HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message = message
        self.status = status


# ---------------------------------------------------------------- request fields -> context

def context_from_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The hand context of a form, query string or JSON ``context`` (rules.context reads it),
    and how sure a reading must be not to be asked about (a referee may want to see more)."""
    try:
        context = rules_context(fields)
    except ContextError as error:
        raise ServiceError(str(error)) from None
    for key in ("min_confidence", "min_face_confidence"):
        if fields.get(key) not in (None, ""):
            context[key] = _share(fields[key], key)
    return context


def _share(value: Any, field: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not 0.0 <= number <= 1.0:
        raise ServiceError(f"{field} must be a number from 0 to 1 (got {value!r})")
    return number


def _options(value: Any, what: str = "options", of: str = "setting names and values") -> dict[str, Any]:
    if value in (None, ""):
        return {}
    if isinstance(value, str):
        value = parse_json(value, what, f"{what} must be a JSON object of {of}")
    if not isinstance(value, Mapping):
        raise ServiceError(f"{what} must be an object of {of}")
    return dict(value)


# a JSON ``context`` object: the hand's context fields and the photo's confidence thresholds
PHOTO_FIELDS = ("min_confidence", "min_face_confidence")


def _context_object(value: Any) -> dict[str, Any]:
    """A JSON ``context`` field: an object of known context fields (a typo is said, not ignored)."""
    context = _options(value, "context", "context fields (seat_wind, win, ...)")
    unknown = unknown_fields(context, PHOTO_FIELDS)
    if unknown:
        raise ServiceError(f"unknown context field(s): {', '.join(unknown)} "
                           f"(known: {', '.join(CONTEXT_FIELDS + PHOTO_FIELDS)})")
    return context


def _rules_name(value: Any) -> str:
    name = str(value or "rode-draak")
    if name not in RULE_SETS:
        raise ServiceError(f"unknown rule set {name!r}: choose one of {', '.join(RULE_SETS)}")
    return name


def _safe_name(filename: str | None) -> str:
    """A display name for the scan (never used as a path)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(filename or ""))[:80]
    return base or "photo"


# ---------------------------------------------------------------- recogniser and camera

class _SerialRecognizer:
    """One detect() at a time: a model is not safe to share between request threads."""

    def __init__(self, recognizer: Any):
        self._recognizer = recognizer
        self._lock = threading.Lock()

    def detect(self, image: Any) -> list:
        with self._lock:
            return self._recognizer.detect(image)


def _vision(module: str):
    """vision.<module>, imported on first use (the page's scoring needs none of it)."""
    try:
        return importlib.import_module(f"vision.{module}")
    except ImportError as error:
        raise ServiceError(f"photo reading is not available in this installation ({error})", 503) \
            from None


class LiveFeed:
    """The table camera read on a background thread: the latest annotated frame and the
    tiles seen, steady once the same tiles were read in ``stable_after`` scans in a row.

    What the camera sees is the same for everyone; the situation (seat, wind, who won,
    rules) is each viewer's own, so the feed keeps the tiles it read and every viewer's
    request lays them out and scores them under that viewer's situation.
    """

    def __init__(self, source: Any, assistant: "TableAssistant", scan_interval: float = 1.0,
                 stable_after: int = 3, idle_after: float = 60.0, frame_interval: float = 0.08):
        self.source = source
        self.idle_after = idle_after          # nobody watching this long: the camera is let go
        self.frame_interval = frame_interval  # about 12 pictures a second is enough for a table
        self._wanted = time.monotonic()
        self.assistant = assistant
        self.scan_interval = scan_interval
        self.stable_after = stable_after
        self._changed = threading.Condition()
        self._jpeg: bytes | None = None
        self._frame_number = 0
        self._seen: _Seen | None = None       # the latest reading of the tiles
        self._stable: _Seen | None = None     # the latest steady one
        self._same_count = 0
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
        except ServiceError as error:
            self.error = error.message
            return
        except Exception as error:  # a failing model must not end the stream; say it instead
            self.error = f"reading the picture failed: {type(error).__name__}"
            return
        self.error = None
        seen = _Seen(detections, width, height, plain, _tiles_key(plain))
        with self._changed:
            previous = self._seen
            same = previous is not None and seen.key is not None and seen.key == previous.key
            self._same_count = self._same_count + 1 if same else 1
            self._seen = seen
            if seen.key is not None and self._same_count >= self.stable_after:
                self._stable = seen

    def _annotated(self, frame: Any) -> Any:
        seen = self._seen
        if seen is None:
            return frame
        try:
            return _vision("drawing").annotate(frame, _boxes_only(seen.plain))
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
                                                  name="camera")

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
    plain: dict          # the scan without a situation (boxes, roles)
    key: str | None      # what makes two readings the same tiles (None: no hand in view)


def _tiles_key(scan: dict) -> str | None:
    """The tiles of the hands and where they lie in the layout; positions jitter, so not those."""
    tiles = [t for t in scan.get("tiles", []) if t.get("hand") is not None or t.get("role") == "dora"]
    if not any(t.get("hand") is not None for t in tiles):
        return None
    return "|".join(sorted(f"{t.get('hand')}:{t.get('role')}:{t.get('meld')}:{t['tile']}" for t in tiles))


def _boxes_only(scan: dict) -> dict:
    """The scan for drawing every box, without a score: the stream is shared by viewers
    whose situations (and so scores) differ; each page shows its own score."""
    return {"tiles": scan.get("tiles", []), "hands": [{"tiles": []}]}


def open_capture(source: Any) -> Any:
    """An object whose read() gives BGR frames (None at the end): the given one, or a
    vision.camera.Camera for a device number, video file or stream URL."""
    if hasattr(source, "read"):
        return source
    from vision.camera import Camera
    return Camera(source)


# ---------------------------------------------------------------- the assistant

class TableAssistant:
    """Everything the pages and the API do, behind one object per app."""

    def __init__(self, database: str, recognizer: Any = None, model: str | None = None,
                 camera: Any = None, live_interval: float = 1.0, max_upload: int = MAX_UPLOAD_BYTES):
        self.store = CheckStore(database)
        # the tournament desk keeps its slips in the same file as the referee's checks
        self.desk = TournamentDesk(TournamentStore(database))
        self.max_upload = max_upload
        self._recognizer = _SerialRecognizer(recognizer) if recognizer is not None else None
        self._model = model
        self._load_lock = threading.Lock()
        self.camera_source = camera
        self.live_interval = live_interval
        self._live: LiveFeed | None = None
        self._live_lock = threading.Lock()

    # -- rules

    def rules_catalog(self) -> list[dict[str, Any]]:
        """Each rule set with its settings (name, kind, default, choices) for the page."""
        catalog = []
        for name in RULE_SETS:
            entry: dict[str, Any] = {"name": name, "title": name}
            try:
                entry["title"] = rule_set(name).title
                settings_cls = rules_module(name).Settings
            except ImportError:  # a rule set not installed in this build
                entry.update(available=False, settings=[])
                catalog.append(entry)
                continue
            hints = typing.get_type_hints(settings_cls)
            settings = []
            for field in dataclasses.fields(settings_cls):
                kind = hints[field.name]
                item = {"name": field.name, "default": field.default}
                if typing.get_origin(kind) is typing.Literal:
                    item.update(kind="choice", choices=list(typing.get_args(kind)))
                else:
                    item["kind"] = {bool: "bool", int: "int"}.get(kind, "text")
                    if "range" in field.metadata:
                        item["min"], item["max"] = field.metadata["range"]
                settings.append(item)
            entry.update(available=True, settings=settings)
            catalog.append(entry)
        return catalog

    def score_hand(self, hand: Any, rules: Any = None, options: Any = None) -> dict[str, Any]:
        """The result of the contract for a hand dict (valid false, with the reason, for a
        hand that cannot be scored); ServiceError for a request that is not a hand at all."""
        if not isinstance(hand, Mapping):
            raise ServiceError("'hand' must be a JSON object in the hand format "
                               "(at least {\"concealed\": \"...\"})")
        name = _rules_name(rules)
        try:
            return score_or_ask(dict(hand), name, _options(options))
        except OptionError as error:
            raise ServiceError(str(error)) from None
        except ImportError:
            raise ServiceError(f"the {name} rule set is not available in this installation", 503) \
                from None

    def score_request(self, payload: Any) -> dict[str, Any]:
        """POST /api/score: {"hand": HAND, "rules": ..., "options": {...}} or a bare HAND."""
        if not isinstance(payload, Mapping):
            raise ServiceError("send a JSON object: {\"hand\": {...}, \"rules\": \"rode-draak\"}")
        if "hand" in payload:
            return self.score_hand(payload["hand"], payload.get("rules"), payload.get("options"))
        return self.score_hand(payload, payload.get("rules"), payload.get("options"))

    # -- photos

    def recognizer(self) -> Any:
        """The tile recogniser, loaded on first use; 503 with the reason when there is none."""
        if self._recognizer is None:
            with self._load_lock:
                if self._recognizer is None:
                    try:
                        from vision.recognizer import load_recognizer
                        self._recognizer = _SerialRecognizer(load_recognizer(self._model))
                    except Exception as error:  # no model file, or vision not installed
                        raise ServiceError(
                            "no tile recognition model is available, so photos cannot be read "
                            f"({error}); you can still enter the tiles on the page", 503) from None
        return self._recognizer

    def scan_image(self, image: Any, context: dict, rules: str, options: dict | None = None,
                   name: str = "photo") -> dict[str, Any]:
        scan_module = _vision("scan")
        recognizer = self.recognizer()
        try:
            return scan_module.scan_image(image, recognizer, context=context, rules=rules,
                                          options=options, name=name)
        except OptionError as error:
            raise ServiceError(str(error)) from None
        except scan_module.ScanError as error:
            raise ServiceError(str(error)) from None

    def scan_detections(self, detections: list, width: int, height: int, context: dict,
                        rules: str, options: dict | None = None, name: str = "photo") -> dict[str, Any]:
        """The scan of tiles already read (the live feed reads once, lays out per viewer)."""
        scan_module = _vision("scan")
        try:
            return scan_module.scan_detections(detections, width, height, context=context,
                                               rules=rules, options=options, name=name)
        except OptionError as error:
            raise ServiceError(str(error)) from None
        except scan_module.ScanError as error:
            raise ServiceError(str(error)) from None

    def decode(self, data: bytes) -> Any:
        """Image bytes -> BGR array; only images pass."""
        if not data:
            raise ServiceError("no photo was sent: choose or take a photo first")
        if len(data) > self.max_upload:
            raise ServiceError(too_large_message(self.max_upload), 413)
        image_input = _vision("image_input")
        try:
            return image_input.decode_image(data)
        except image_input.ScanError as error:
            raise ServiceError(str(error)) from None

    def scan_upload(self, data: bytes, fields: Mapping[str, Any], filename: str | None = None,
                    preview: bool = False) -> dict[str, Any]:
        """POST /api/scan: the photo read, the hand built and scored under the given context."""
        rules = _rules_name(fields.get("rules"))
        options = _options(fields.get("options"))
        context_fields: Any = fields
        if fields.get("context"):
            context_fields = _context_object(fields.get("context"))  # a JSON object, like options
        context = context_from_fields(context_fields)
        image = self.decode(data)
        scan = self.scan_image(image, context, rules, options, name=_safe_name(filename))
        scan.setdefault("doubtful", [])
        if preview:
            scan["preview"] = _preview(image)
        return scan

    # -- referee

    def referee(self, payload: Any) -> dict[str, Any]:
        """Score the hand, compare with the claim, record the check."""
        if not isinstance(payload, Mapping):
            raise ServiceError("send a JSON object with hand, rules and claimed_points")
        claimed_points = payload.get("claimed_points")
        if isinstance(claimed_points, str) and re.fullmatch(r"\s*-?\d+\s*", claimed_points):
            claimed_points = int(claimed_points)
        if not isinstance(claimed_points, int) or isinstance(claimed_points, bool):
            raise ServiceError("claimed_points must be a whole number (the score the players claim)")
        hand = payload.get("hand")
        rules = _rules_name(payload.get("rules"))
        options = _options(payload.get("options"))
        computed = self.score_hand(hand, rules, options)
        claimed = {"points": claimed_points}
        claimed_lines = _claimed_lines(payload.get("claimed_breakdown"))
        if claimed_lines is not None:
            claimed["breakdown"] = claimed_lines
        claimed_payments = payload.get("claimed_payments")
        if claimed_payments:
            if not isinstance(claimed_payments, Mapping) or not all(
                    k in WINDS and isinstance(v, int) for k, v in claimed_payments.items()):
                raise ServiceError("claimed_payments must map seat winds (E S W N) to whole numbers")
            claimed["payments"] = dict(claimed_payments)
        photo_name = None
        if payload.get("photo"):
            photo_name = self._keep_photo(payload["photo"])
        differences = compare_claim(claimed, computed)
        check = self.store.add(rules=rules, hand=dict(hand), options=options, claimed=claimed,
                               computed=computed, agree=not differences,
                               differences=differences, photo=photo_name)
        return {"agree": check.agree, "differences": differences, "computed": computed,
                "claimed": claimed, "check": check.to_dict()}

    def _keep_photo(self, photo: Any) -> str:
        if not isinstance(photo, str):
            raise ServiceError("photo must be the image as base64 text (a data: URL is fine)")
        encoded = photo.split(",", 1)[1] if photo.startswith("data:") else photo
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise ServiceError("photo is not valid base64") from None
        if len(data) > self.max_upload:
            raise ServiceError(too_large_message(self.max_upload), 413)
        if _vision("image_input").image_extension(data) is None:
            raise ServiceError("only photos can be attached (JPEG, PNG, WebP, GIF, BMP or TIFF)")
        try:
            self.decode(data)  # a header alone does not make a picture
        except ServiceError as error:
            if error.status != 503:
                raise
        return self.store.save_photo(data)

    def checks(self, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        return [check.to_dict() for check in self.store.list(limit, offset)]

    def check(self, check_id: int) -> Check:
        # SQLite ids are 64-bit: a larger number is no check either (not an overflow)
        check = self.store.get(check_id) if 0 < check_id < 2 ** 63 else None
        if check is None:
            raise ServiceError(f"there is no check number {check_id}", 404)
        return check

    def count_checks(self) -> int:
        return self.store.count()

    def checks_csv(self) -> str:
        return self.store.to_csv()

    def photo_path(self, name: str) -> str:
        path = self.store.photo_path(name)
        if path is None:
            raise ServiceError("no such photo", 404)
        return path

    # -- Rode Draak table

    def settle(self, payload: Any) -> dict[str, Any]:
        """Four hands (one winner or none) -> each seat's result and the net payments."""
        if not isinstance(payload, Mapping) or not isinstance(payload.get("hands"), Mapping):
            raise ServiceError("send {\"prevalent_wind\": \"E\", \"hands\": {\"E\": HAND, ...}}")
        try:
            from rules.rode_draak import TableError, settle_table
        except ImportError:
            raise ServiceError("table settlement is not available in this installation", 503) \
                from None
        try:
            table = {"rules": "rode-draak", "hands": dict(payload["hands"]),
                     "prevalent_wind": wind_field(payload.get("prevalent_wind"), "prevalent_wind") or "E"}
            return settle_table(table, _options(payload.get("options")))
        except (TableError, OptionError, ContextError) as error:
            raise ServiceError(str(error)) from None

    # -- live

    def live(self, start: bool = True) -> LiveFeed | None:
        """The table camera's feed (started on first use); None when no camera was given."""
        if self.camera_source in (None, ""):
            return None
        with self._live_lock:
            if self._live is None:
                self._live = LiveFeed(self.camera_source, self, scan_interval=self.live_interval)
            if start:
                self._live.start()
        return self._live

    def live_status(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """GET /api/live: the camera's readings, laid out and scored in the rules and
        situation of this request's query fields (named like those of a scan)."""
        feed = self.live()
        if feed is None:
            raise ServiceError("no table camera: start the app with --camera 0 (or a file or URL), "
                               "or use the browser's camera", 404)
        # every request brings its own situation: two viewers never share one
        return feed.status(context_from_fields(fields), _rules_name(fields.get("rules")),
                           _options(fields.get("options")))

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()


def _preview(image: Any) -> str:
    """The decoded photo (EXIF rotation applied, so the boxes fit) as a JPEG data URL."""
    import cv2
    height, width = image.shape[:2]
    scale = min(1.0, PREVIEW_LONG_SIDE / max(height, width))
    if scale < 1.0:
        image = cv2.resize(image, (round(width * scale), round(height * scale)),
                           interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        return ""
    return "data:image/jpeg;base64," + base64.b64encode(encoded.tobytes()).decode("ascii")


def _claimed_lines(value: Any) -> list[dict[str, str]] | None:
    """Claimed breakdown lines: [{"name", "value"}] or text "Name: value" per line."""
    if value in (None, "", []):
        return None
    if isinstance(value, str):
        value = [line for line in value.splitlines() if line.strip()]
    if not isinstance(value, list):
        raise ServiceError("claimed_breakdown must be a list of lines")
    lines = []
    for item in value:
        if isinstance(item, Mapping) and "name" in item:
            lines.append({"name": str(item["name"]).strip(), "value": str(item.get("value", "")).strip()})
        elif isinstance(item, str):
            name, _, line_value = item.rpartition(":") if ":" in item else (item, "", "")
            lines.append({"name": name.strip(), "value": line_value.strip()})
        else:
            raise ServiceError("each claimed line is {\"name\": ..., \"value\": ...} or 'Name: value'")
    return lines


def _normal(text: str) -> str:
    return " ".join(str(text).lower().split())


def compare_claim(claimed: dict[str, Any], computed: dict[str, Any]) -> list[str]:
    """The lines where the claim and the computed result differ (empty: they agree)."""
    differences = []
    if not computed.get("valid"):
        if claimed["points"] != 0 or claimed.get("breakdown"):
            differences.append(f"The hand cannot be scored as claimed: {computed.get('error')}")
    elif claimed["points"] != computed.get("points"):
        differences.append(f"Points: claimed {claimed['points']}, computed {computed.get('points')}")
    if "breakdown" in claimed and computed.get("valid"):
        computed_lines = {_normal(line["name"]): line for line in computed.get("breakdown", [])}
        claimed_lines = {_normal(line["name"]): line for line in claimed["breakdown"]}
        for key, line in claimed_lines.items():
            other = computed_lines.get(key)
            if other is None:
                differences.append(f"{line['name']} ({line['value']}): claimed, but it does not apply")
            elif line["value"] and _normal(line["value"]) != _normal(other["value"]):
                differences.append(f"{other['name']}: claimed {line['value']}, computed {other['value']}")
        for key, line in computed_lines.items():
            if key not in claimed_lines:
                differences.append(f"{line['name']} ({line['value']}): not claimed, but it applies")
    if "payments" in claimed and computed.get("valid"):
        for seat in WINDS:
            mine, theirs = claimed["payments"].get(seat), computed.get("payments", {}).get(seat)
            if mine is not None and mine != theirs:
                differences.append(f"Payment of {seat}: claimed {mine}, computed {theirs}")
    return differences
