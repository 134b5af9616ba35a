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
import typing
from collections.abc import Mapping
from typing import Any

from mahjong_lens.rules.words import plural_word, whole_number
from mahjong_lens.rules.context import CONTEXT_FIELDS, ContextError, unknown_fields, wind_field
from mahjong_lens.rules.context import context_from_fields as rules_context
from mahjong_lens.rules.registry import RULE_SETS, OptionError, rule_set, rules_module, score
from mahjong_lens.rules.hand import HandError, hand_from_dict
from mahjong_lens.rules.referee import ClaimError, claimed_lines_from, compare_claim
from mahjong_lens.rules.tiles import WINDS
from mahjong_lens.rules.win_tile import ask_table, score_or_ask

from .desk import TournamentDesk
from .store import Check, CheckStore
from .tournament_store import TournamentStore

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
# every request without a photo: a hand, four hands, a slip, a tournament's players are a few KB
MAX_BODY_BYTES = 1024 * 1024
#: A claim beyond this is no score (riichi's largest, six yakuman for the dealer, is 288,000)
MAX_CLAIMED_POINTS = 10_000_000
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
        raise ServiceError(f"unknown context {plural_word(len(unknown), 'field')}: {', '.join(unknown)} "
                           f"(known: {', '.join(CONTEXT_FIELDS + PHOTO_FIELDS)})")
    return context


def _rules_name(value: Any) -> str:
    name = str(value or "rode-draak")
    if name not in RULE_SETS:
        raise ServiceError(f"unknown rule set {name!r}: choose one of {', '.join(RULE_SETS)}")
    return name


def _written(hand: Any) -> Any:
    """A hand as the referee log keeps it: in notation (the page sends tiles in lists), the
    winning tile among the concealed ones; one that cannot be read is kept as it came."""
    try:
        return hand_from_dict(hand).to_dict()
    except HandError:
        return dict(hand) if isinstance(hand, Mapping) else hand


def _safe_name(filename: str | None) -> str:
    """A display name for the scan (never used as a path)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(filename or ""))[:80]
    return base or "photo"


# ---------------------------------------------------------------- recogniser and camera

class _NoLock:
    """A lock that holds nothing back: for a model that any number of threads may run at once."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


def _model_lock(recognizer: Any) -> Any:
    """One detect() at a time for a PyTorch model (not safe to share between request
    threads); none for the ONNX exports on onnxruntime, whose sessions are safe to run from
    many threads at once and let go of the interpreter while they run: every core reads."""
    backend = str(getattr(recognizer, "backend", ""))
    return _NoLock() if backend and "torch" not in backend else threading.Lock()


class _SerialRecognizer:
    """The app's recogniser, run one detect() at a time where its model needs that (_model_lock)."""

    def __init__(self, recognizer: Any, lock: Any = None):
        self.model = recognizer
        self.lock = lock or _model_lock(recognizer)

    def detect(self, image: Any) -> list:
        with self.lock:
            return self.model.detect(image)

    def sharing_the_model(self, recognizer: Any) -> "_SerialRecognizer":
        """Another reader of the same model (a taught tile set's): one at a time with this one."""
        return _SerialRecognizer(recognizer, self.lock)


def _vision(module: str):
    """vision.<module>, imported on first use (the page's scoring needs none of it)."""
    try:
        return importlib.import_module(f"mahjong_lens.vision.{module}")
    except ImportError as error:
        raise ServiceError(f"photo reading is not available in this installation ({error})", 503) \
            from None


# ---------------------------------------------------------------- the assistant

class TableAssistant:
    """Everything the pages and the API do, behind one object per app."""

    def __init__(self, database: str, recognizer: Any = None, model: str | None = None,
                 camera: Any = None, live_interval: float = 1.0, max_upload: int = MAX_UPLOAD_BYTES):
        self.store = CheckStore(database)
        self.database = database  # the taught tile sets live here too (vision.tile_sets)
        self._taught: dict[str, tuple[int, Any]] = {}  # tile set -> (examples, its reader)
        # the tournament desk keeps its slips in the same file as the referee's checks
        self.desk = TournamentDesk(TournamentStore(database))
        self.max_upload = max_upload
        self._recognizer = _SerialRecognizer(recognizer) if recognizer is not None else None
        self._model = model
        self._load_lock = threading.Lock()
        self.camera_source = camera
        self.live_interval = live_interval
        self._live: Any = None
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
                        from mahjong_lens.vision.recognizer import load_recognizer
                        self._recognizer = _SerialRecognizer(load_recognizer(self._model))
                    except Exception as error:  # no model file, or vision not installed
                        raise ServiceError(
                            "no tile recognition model is available, so photos cannot be read "
                            f"({error}); you can still enter the tiles on the page", 503) from None
        return self._recognizer

    # -- taught tile sets

    def tile_sets(self) -> list[dict[str, Any]]:
        """The taught tile sets: name, and how many examples of faces and of no tile."""
        try:
            return _vision("tile_sets").TileSetStore(self.database).names()
        except ServiceError:
            return []

    def taught_recognizer(self, tile_set: Any) -> Any:
        """The recogniser reading with a taught tile set (the base one for none)."""
        base = self.recognizer()
        if tile_set in (None, ""):
            return base
        tile_sets = _vision("tile_sets")
        try:
            name = tile_sets.valid_name(tile_set)
            store = tile_sets.TileSetStore(self.database)
            count = store.count(name)
            known = self._taught.get(name)
            if known is None or known[0] != count:  # new, or taught more since: its examples read anew
                tiles, features = store.examples(name)
                reader = tile_sets.TaughtRecognizer(base.model, tiles, features, name)
                known = self._taught[name] = (count, base.sharing_the_model(reader))
        except tile_sets.TileSetError as error:
            raise ServiceError(str(error)) from None
        except AttributeError:  # a recogniser that is no model's (a test's fake)
            raise ServiceError("this recogniser cannot be taught tile sets") from None
        return known[1]

    def teach_upload(self, name: Any, data: bytes, tiles: Any, layout: bool = False) -> dict[str, Any]:
        """POST /api/tile-sets/NAME/teach: a photo and what each of its tiles truly is (boxes
        as the scan gave them, each with its face; a box left out is no tile) taught to a set;
        or (``layout``) a photo of one of each tile laid in rows in the printed order."""
        tile_sets = _vision("tile_sets")
        if isinstance(tiles, (str, bytes)):
            tiles = parse_json(tiles, "tiles", "tiles is not valid JSON")
        try:
            labels = None if layout else tile_sets.examples_from_page(tiles)
        except tile_sets.TileSetError as error:
            raise ServiceError(str(error)) from None
        image = self.decode(data)
        try:
            if labels is not None:
                tile_sets.check_inside(labels, image)
        except tile_sets.TileSetError as error:
            raise ServiceError(str(error)) from None
        base = self.recognizer()
        try:
            with base.lock:
                kept = tile_sets.teach(tile_sets.TileSetStore(self.database), base.model, name, image,
                                       labels, source="the page")
        except tile_sets.TileSetError as error:
            raise ServiceError(str(error)) from None
        except AttributeError:
            raise ServiceError("this recogniser cannot be taught tile sets") from None
        return {"tile_set": tile_sets.valid_name(name), **kept, "tile_sets": self.tile_sets()}

    def scan_image(self, image: Any, context: dict, rules: str, options: dict | None = None,
                   name: str = "photo", tile_set: Any = None) -> Any:
        """A photo scanned (vision.scan_result.ScanResult); the service's errors in words."""
        scan_module = _vision("scan")
        recognizer = self.taught_recognizer(tile_set)
        try:
            return scan_module.scan_image(image, recognizer, context=context, rules=rules,
                                          options=options, name=name)
        except OptionError as error:
            raise ServiceError(str(error)) from None
        except scan_module.ScanError as error:
            raise ServiceError(str(error)) from None

    def scan_detections(self, detections: list, width: int, height: int, context: dict,
                        rules: str, options: dict | None = None, name: str = "photo") -> Any:
        """The scan (a ScanResult) of tiles already read (the live feed reads once, lays out per viewer)."""
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
        scan = self.scan_image(image, context, rules, options, name=_safe_name(filename),
                               tile_set=fields.get("tile_set")).to_dict()
        if preview:
            scan["preview"] = _preview(image)
        return scan

    # -- referee

    def referee(self, payload: Any) -> dict[str, Any]:
        """Score the hand, compare with the claim, record the check."""
        if not isinstance(payload, Mapping):
            raise ServiceError("send a JSON object with hand, rules and claimed_points")
        claimed_points = payload.get("claimed_points")
        if isinstance(claimed_points, str) and whole_number(claimed_points) is not None:
            claimed_points = whole_number(claimed_points)
        if not isinstance(claimed_points, int) or isinstance(claimed_points, bool):
            raise ServiceError("claimed_points must be a whole number (the score the players claim)")
        if abs(claimed_points) > MAX_CLAIMED_POINTS:
            raise ServiceError(f"claimed_points must lie between -{MAX_CLAIMED_POINTS:,} and {MAX_CLAIMED_POINTS:,}: "
                               "no hand of any rule set scores more")
        hand = payload.get("hand")
        rules = _rules_name(payload.get("rules"))
        options = _options(payload.get("options"))
        computed = self.score_hand(hand, rules, options)
        claimed = {"points": claimed_points}
        try:
            claimed_lines = claimed_lines_from(payload.get("claimed_breakdown"))
        except ClaimError as error:
            raise ServiceError(str(error)) from None
        if claimed_lines is not None:
            claimed["breakdown"] = claimed_lines
        claimed_payments = payload.get("claimed_payments")
        if claimed_payments:
            if not isinstance(claimed_payments, Mapping) or not all(
                    k in WINDS and isinstance(v, int) and not isinstance(v, bool) and abs(v) <= MAX_CLAIMED_POINTS
                    for k, v in claimed_payments.items()):
                raise ServiceError("claimed_payments must map seat winds (E S W N) to whole numbers")
            claimed["payments"] = dict(claimed_payments)
        photo_name = None
        if payload.get("photo"):
            photo_name = self._keep_photo(payload["photo"])
        differences = compare_claim(claimed, computed)
        check = self.store.add(rules=rules, hand=_written(hand), options=options, claimed=claimed,
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
            from mahjong_lens.rules.rode_draak import TableError, settle_table
        except ImportError:
            raise ServiceError("table settlement is not available in this installation", 503) \
                from None
        try:
            table = {"rules": "rode-draak", "hands": dict(payload["hands"]),
                     "prevalent_wind": wind_field(payload.get("prevalent_wind"), "prevalent_wind") or "E"}
            options = _options(payload.get("options"))
            # the winner's hand without its winning tile marked: asked, or taken where every
            # answer scores alike, before the table is settled (never called a dead hand)
            open_question = ask_table(table, "rode-draak", options)
            if open_question is not None and open_question.get("question"):
                return open_question
            if open_question is not None and open_question.get("win_tile_taken"):
                seat = open_question["seat"]
                table["hands"][seat] = {**table["hands"][seat], "win_tile": open_question["win_tile_taken"],
                                        **open_question.get("way_taken", {})}
            outcome = settle_table(table, options)
            if open_question is not None and open_question.get("note"):
                outcome["note"] = open_question["note"]
            return outcome
        except (TableError, OptionError, ContextError) as error:
            raise ServiceError(str(error)) from None

    # -- live

    def live(self, start: bool = True) -> Any:
        """The table camera's feed (vision.live.LiveFeed, started on first use); None when
        no camera was given."""
        if self.camera_source in (None, ""):
            return None
        with self._live_lock:
            if self._live is None:
                self._live = _vision("live").LiveFeed(self.camera_source, self, scan_interval=self.live_interval)
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
