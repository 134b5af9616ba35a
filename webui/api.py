"""The JSON API: request in, service call, JSON out.  Errors are {"error": sentence} + 4xx."""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from mahjong_lens.rules.words import holds_lone_surrogate

from .state import assistant
from .service import ServiceError, parse_json

api = Blueprint("api", __name__, url_prefix="/api")
SLIP_EXAMPLE = '{"round": 1, "table": 1, "hand": 1, "points": {"Anna": 100, ...}, "mahjong": "Anna"}'


def _json_body(example: str) -> dict:
    """The request's JSON object; a browser form from another site cannot send this.  Every
    route here takes an object: a list, a string or a number is refused with the `example`
    of what the route takes."""
    if not request.is_json:
        raise ServiceError("send JSON (Content-Type: application/json)", 415)
    body = parse_json(request.get_data(), "the request body", "the request body is not valid JSON")
    if not isinstance(body, dict):
        raise ServiceError(f"send a JSON object: {example} (the body was {_json_kind(body)})")
    if holds_lone_surrogate(body):  # "\ud800": no page could show it again once stored
        raise ServiceError("the request holds text that is no valid Unicode (a lone surrogate such as "
                           "\\ud800): send the names and words as ordinary text")
    return body


def _json_kind(value: object) -> str:
    """A JSON value's kind in words: 'a list', 'a string', 'a number', 'true or false', 'null'."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {list: "a list", str: "a string"}.get(type(value), "a number")


@api.get("/rules")
def rules():
    """The rule sets and their settings."""
    return jsonify(rules=assistant().rules_catalog())


@api.post("/score")
def score():
    """{"hand": HAND, "rules": "riichi", "options": {...}} -> RESULT."""
    return jsonify(assistant().score_request(_json_body('{"hand": {...}, "rules": "rode-draak"}')))


@api.post("/scan")
def scan():
    """multipart: image (the photo), rules, options (JSON), context fields -> SCAN."""
    upload = request.files.get("image") or request.files.get("photo")
    if upload is None:
        raise ServiceError("no photo was sent: attach it as the form field 'image'")
    data = upload.read()
    preview = request.form.get("preview", "") in ("1", "true", "on")
    return jsonify(assistant().scan_upload(data, request.form, upload.filename, preview=preview))


@api.get("/tile-sets")
def tile_sets():
    """The taught tile sets: [{name, examples, not_a_tile, faces}]."""
    return jsonify(tile_sets=assistant().tile_sets())


@api.post("/tile-sets/<name>/teach")
def teach(name: str):
    """multipart: image (the photo), tiles (JSON: [{box, tile}], as the player corrected them;
    a box of the scan left out is no tile), or layout=1 for a photo of one of each tile in the
    printed order -> {tile_set, faces, not_a_tile, tile_sets}."""
    upload = request.files.get("image")
    if upload is None:
        raise ServiceError("no photo was sent: attach it as the form field 'image'")
    layout = request.form.get("layout", "") in ("1", "true", "on")
    return jsonify(assistant().teach_upload(name, upload.read(), request.form.get("tiles"), layout=layout))


@api.post("/referee")
def referee():
    """{"hand", "rules", "options", "claimed_points", "claimed_breakdown"?, "photo"?} ->
    {"agree", "differences", "computed", "check"}; the check is recorded."""
    return jsonify(assistant().referee(_json_body('{"hand": {...}, "rules": "rode-draak", "claimed_points": 512}')))


@api.get("/referee/checks")
def checks():
    limit = request.args.get("limit", 100, type=int)
    offset = request.args.get("offset", 0, type=int)
    if not 1 <= limit <= 1000 or offset < 0:
        raise ServiceError("limit runs 1-1000 and offset from 0")
    service = assistant()
    return jsonify(checks=service.checks(limit, offset), total=service.count_checks())


@api.get("/referee/checks/<int:check_id>")
def check(check_id: int):
    return jsonify(assistant().check(check_id).to_dict())


@api.post("/table")
def table():
    """Rode Draak: {"prevalent_wind", "hands": {"E": HAND, ...}, "options"} -> settlement."""
    return jsonify(assistant().settle(_json_body('{"hands": {"E": {...}, "S": {...}, "W": {...}, "N": {...}}}')))


@api.get("/live")
def live():
    """The table camera's stable reading (and the latest one); query fields: the context."""
    return jsonify(assistant().live_status(request.args))


# ------------------------------------------------------------------ the tournament desk

@api.get("/tournaments")
def tournaments():
    return jsonify(tournaments=assistant().desk.tournaments())


@api.post("/tournaments")
def new_tournament():
    """{"name", "players": [...], "rounds", "seed"?} -> the tournament with its schedule."""
    desk = assistant().desk
    tournament = desk.create(_json_body('{"name": "...", "players": [...], "rounds": 4}'))
    return jsonify(desk.overview(tournament)), 201


@api.get("/tournaments/<int:tournament>")
def tournament(tournament: int):
    """The schedule, every slip with its payments and running totals, the standings."""
    return jsonify(assistant().desk.overview(tournament))


@api.post("/tournaments/<int:tournament>/slips")
def add_slip(tournament: int):
    """{"round", "table", "hand", "points": {player: n}, "mahjong": player, "remise", "dead"}
    -> the slip with each player's net and who pays whom."""
    return jsonify(assistant().desk.add_slip(tournament, _json_body(SLIP_EXAMPLE))), 201


@api.put("/tournaments/<int:tournament>/slips/<int:slip_id>")
def correct_slip(tournament: int, slip_id: int):
    """The corrected slip (same fields); everything after it is recomputed."""
    return jsonify(assistant().desk.correct_slip(tournament, slip_id, _json_body(SLIP_EXAMPLE)))


@api.get("/tournaments/<int:tournament>/standings")
def standings(tournament: int):
    return jsonify(assistant().desk.standings(tournament))
