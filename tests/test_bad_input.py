"""Input that must be refused with a clear answer (issue 28): HTTP 400/413 with a sentence, the
CLI's exit 2 with one line; never a 500, a stack trace, or a score for an impossible hand."""
from __future__ import annotations

import io
import json
import subprocess

import numpy as np
import pytest

from commands import run_cli
from mahjong_lens.rules.registry import OptionError, make_settings, score

WON = {"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True}
# a Rode Draak winner with a kong: 1111m kong, 456m, 777z, 11z pair, won on 4m
WITH_KONG = {"concealed": "456m777z11z", "melds": [{"type": "chow", "tiles": "123m"},
                                                    {"type": "kong", "tiles": "9999m"}],
             "win_tile": "4m", "seat_wind": "S"}


# ------------------------------------------------------------------ the scorers' refusals

@pytest.mark.parametrize("situation, reason", [
    ({"self_drawn": True, "situation": {"robbing_kong": True}}, "not a self-drawn win"),
    ({"discarder": "W", "situation": {"kong_replacement": True}}, "kong replacement tile is self-drawn"),
])
def test_rode_draak_refuses_contradictory_win_circumstances(situation, reason):
    result = score({**WITH_KONG, **situation}, "rode-draak")
    assert not result.valid and reason in result.error


def test_a_kong_replacement_win_without_a_kong_is_refused_in_every_rule_set():
    for rules in ("rode-draak", "riichi", "wsom"):
        result = score({**WON, "situation": {"kong_replacement": True}}, rules)
        assert not result.valid and "needs a kong among the melds" in result.error, rules


@pytest.mark.parametrize("indicators, reason", [
    ({"dora_indicators": ["1f"]}, "Plum (1) cannot be a dora indicator"),
    ({"ura_dora_indicators": ["3f"], "situation": {"riichi": True}}, "cannot be a dora indicator"),
    # the hand holds three White dragons: two more as indicators make five
    ({"dora_indicators": ["5z", "5z"]}, "appears 5 times with the dora indicators"),
    ({"dora_indicators": ["2z"] * 6}, "appears 6 times"),
    ({"dora_indicators": ["1m"], "ura_dora_indicators": ["1m", "1m", "1m"],
      "situation": {"riichi": True}}, "the 1 of characters appears 5 times"),
])
def test_riichi_refuses_indicators_that_are_flowers_or_a_fifth_copy(indicators, reason):
    result = score({**WON, **indicators}, "riichi")
    assert not result.valid and reason in result.error


def test_a_flower_indicator_on_a_hand_without_yaku_is_refused_not_raised():
    no_yaku = {"concealed": "123m456p789s234s99m", "win_tile": "9m", "discarder": "W",
               "melds": [], "dora_indicators": ["2f"]}
    result = score(no_yaku, "riichi")
    assert not result.valid and "cannot be a dora indicator" in result.error


def test_four_copies_with_the_indicators_are_still_fine():
    result = score({**WON, "dora_indicators": ["5z"]}, "riichi")  # 555z + one indicator = 4
    assert result.valid, result.error


@pytest.mark.parametrize("hand, reason", [
    ({**WON, "win_tile": 5}, "win_tile is one tile written as text, such as 5p or 1z (got the number 5)"),
    ({**WON, "concealed": None}, "got nothing"),
    ({**WON, "concealed": ""}, "no tiles given: write them as numbers and a suit letter"),
    ({**WON, "dora_indicators": 7}, "dora_indicators is a list of tiles"),
])
def test_wrong_kinds_of_value_are_named_in_a_players_words(hand, reason):
    result = score(hand, "riichi")
    assert not result.valid and reason in result.error
    assert "NoneType" not in result.error and "notation)" not in result.error


def test_indicators_may_be_written_as_one_notation():
    written = score({**WON, "dora_indicators": "4z"}, "riichi")   # 4z indicates 5z (White)
    listed = score({**WON, "dora_indicators": ["4z"]}, "riichi")
    assert written.valid and written.points == listed.points > score(WON, "riichi").points


@pytest.mark.parametrize("rules, name, value", [
    ("wsom", "limit", -5), ("wsom", "limit", 1e308), ("wsom", "limit", 0), ("wsom", "limit", 2.5),
    ("wsom", "limit", True), ("riichi", "honba", -1), ("riichi", "riichi_sticks", 10 ** 9),
    ("rode-draak", "min_doublings_to_win", -1), ("rode-draak", "limit", "1e308"),
])
def test_every_numeric_setting_has_a_range(rules, name, value):
    with pytest.raises(OptionError, match=name):
        make_settings(rules, {name: value})


def test_settings_inside_their_range_are_taken():
    assert make_settings("wsom", {"limit": "500"}).limit == 500
    assert make_settings("riichi", {"honba": 3.0}).honba == 3


# ------------------------------------------------------------------------------ the API

def test_a_json_body_nested_100000_deep_is_a_400_not_a_500(client):
    deep = "[" * 100_000 + "]" * 100_000
    for route in ("/api/score", "/api/table", "/api/referee", "/api/tournaments"):
        response = client.post(route, data=deep, content_type="application/json")
        assert response.status_code == 400, route
        assert "nested too deeply" in response.json["error"]


@pytest.mark.parametrize("body, kind", [
    ('"x"', "a string"), ("[1, 2]", "a list"), ("7", "a number"), ("null", "null"), ("true", "true or false")])
def test_a_body_that_is_no_json_object_is_a_400_on_every_route(client, body, kind):
    # the tournament desk read a string body with .get(): a 500 (found by posting random bodies)
    routes = [("post", "/api/score"), ("post", "/api/table"), ("post", "/api/referee"),
              ("post", "/api/tournaments"), ("post", "/api/tournaments/1/slips"), ("put", "/api/tournaments/1/slips/1")]
    for method, route in routes:
        response = getattr(client, method)(route, data=body, content_type="application/json")
        assert response.status_code == 400, route
        assert response.json["error"].startswith("send a JSON object: {"), route
        assert response.json["error"].endswith(f"(the body was {kind})"), route
    assert client.get("/api/tournaments").json["tournaments"] == []


@pytest.mark.parametrize("claim, words", [
    ({"claimed_points": 10 ** 20}, "claimed_points must lie between -10,000,000 and 10,000,000"),
    ({"claimed_points": "-99999999999999999999"}, "claimed_points must lie between"),
    ({"claimed_points": 512, "claimed_payments": {"S": 10 ** 20}}, "claimed_payments must map seat winds"),
    ({"claimed_points": 512, "claimed_payments": {"S": True}}, "claimed_payments must map seat winds"),
])
def test_a_claim_too_large_for_any_score_is_a_400_and_records_nothing(client, claim, words):
    # 10**20 points reached SQLite, which holds 64 bits: a 500 (found by posting random bodies)
    response = client.post("/api/referee", json={"hand": WON, "rules": "rode-draak", **claim})
    assert response.status_code == 400 and words in response.json["error"]
    assert client.get("/api/referee/checks").json["total"] == 0


def test_deep_options_in_a_scan_form_are_a_400(client):
    import io

    import cv2
    import numpy as np
    photo = cv2.imencode(".png", np.zeros((40, 40, 3), np.uint8))[1].tobytes()
    response = client.post("/api/scan", data={"options": "[" * 20_000, "rules": "riichi",
                                              "image": (io.BytesIO(photo), "table.png")})
    assert response.status_code == 400 and "nested too deeply" in response.json["error"]


def test_one_body_limit_for_every_route_without_a_photo(client):
    padding = "x" * (2 * 1024 * 1024)
    body = json.dumps({"hand": WON, "rules": "rode-draak", "padding": padding})
    for route in ("/api/score", "/api/table", "/api/tournaments"):
        response = client.post(route, data=body, content_type="application/json")
        assert response.status_code == 413, route
        assert "up to 1024 KB is accepted without a photo" in response.json["error"]
    page = client.post("/tournament", data={"name": "x", "players": padding})
    assert page.status_code == 413 and "without a photo" in page.text and "Traceback" not in page.text
    # a photo route keeps the photo's room: this body is read, and refused for what it says
    referee = client.post("/api/referee", data=body, content_type="application/json")
    assert referee.status_code == 400


def test_out_of_range_settings_through_the_api_are_a_400_with_the_range(client):
    for options, words in (({"limit": -5}, "runs from 1 to 100000"), ({"limit": 1e308}, "runs from 1")):
        response = client.post("/api/score", json={"hand": WON, "rules": "wsom", "options": options})
        assert response.status_code == 400 and words in response.json["error"]
    catalog = {rule["name"]: {s["name"]: s for s in rule["settings"]}
               for rule in client.get("/api/rules").json["rules"]}
    assert (catalog["wsom"]["limit"]["min"], catalog["wsom"]["limit"]["max"]) == (1, 100_000)
    assert catalog["riichi"]["honba"]["min"] == 0


# ------------------------------------------------------------------------------ the CLI

def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return run_cli(*args, stdin=stdin, module="mahjong_lens.cli", timeout=60)


def test_the_cli_refuses_a_camera_it_cannot_open_at_start(tmp_path):
    empty = tmp_path / "table.mp4"
    empty.write_text("not a video")
    for source in ("7", str(tmp_path / "missing.mp4"), str(empty)):
        run = _cli("serve", "--camera", source, "--port", "0", "--database", str(tmp_path / "c.db"))
        assert run.returncode == 2, (source, run.stderr)
        assert "Traceback" not in run.stderr and "give --camera a device number" in run.stderr


def test_the_cli_refuses_deep_json_and_an_out_of_range_setting_in_one_line():
    deep = _cli("score", "-", stdin="[" * 100_000)
    assert deep.returncode == 2 and "nested too deeply" in deep.stderr and "Traceback" not in deep.stderr
    limit = _cli("score", "--rules", "wsom", "--option", "limit=-5", "-", stdin=json.dumps(WON))
    assert limit.returncode == 2 and "runs from 1 to 100000" in limit.stderr


def test_an_image_whose_size_cannot_be_read_before_decoding_is_refused_unread(monkeypatch):
    """A 1 KB JPEG 2000 may decode to 15000 x 15000 pixels: formats whose header this module
    does not read are refused before anything is decoded."""
    import cv2
    from mahjong_lens.vision.image_input import ScanError, decode_image
    decoded = []
    monkeypatch.setattr(cv2, "imdecode", lambda *a, **k: decoded.append(1))
    for head in (b"\x00\x00\x00\x0cjP  \r\n\x87\n" + bytes(1000), b"\xffO\xffQ" + bytes(1000),
                 b"\x00\x00\x00\x1cftypavif" + bytes(1000)):
        with pytest.raises(ScanError, match="JPEG 2000, AVIF or HEIC"):
            decode_image(head)
    assert decoded == []


def test_a_transparent_photo_is_laid_on_white_a_band_at_a_time():
    from mahjong_lens.vision.image_input import _on_white
    rng = np.random.default_rng(1)
    colour = rng.integers(0, 256, (1100, 37, 3), dtype=np.uint8)
    alpha = rng.integers(0, 256, (1100, 37), dtype=np.uint8)
    expected = (colour * (alpha[..., None] / 255.0) + 255.0 * (1 - alpha[..., None] / 255.0)).round()
    assert np.abs(_on_white(colour, alpha).astype(int) - expected).max() <= 1


def test_odd_records_are_refused_at_the_door_and_old_ones_still_show(client, tmp_path):
    """A name with a lone surrogate, a referee check whose melds are ["x"]: refused, or
    stored and shown; every page, list and CSV still answers 200."""
    body = '{"name": "T", "players": ["A\\ud800", "B", "C", "D"], "rounds": 1}'
    answer = client.post("/api/tournaments", data=body, content_type="application/json")
    assert answer.status_code == 400 and "lone surrogate" in answer.get_json()["error"]
    assert client.get("/api/tournaments").get_json()["tournaments"] == []  # nothing was created
    check = client.post("/api/referee", json={"hand": {"concealed": "123m456p789s555z11z", "win_tile": "1z",
                                                       "self_drawn": True, "melds": ["x"]}, "claimed_points": 512})
    assert check.status_code in (200, 400)
    for path in ("/referee", "/referee/checks.csv", "/tournament", "/api/tournaments"):
        assert client.get(path).status_code == 200, path
    # a record stored before the door checked it: a name no UTF-8 holds, written straight in
    import sqlite3
    from mahjong_lens.webui.tournament_store import TournamentStore
    database = client.application.extensions["mahjong_lens"].database
    store = TournamentStore(database)
    tournament = store.create("Club", ["Anna", "Bart", "Cor", "Dirk"], 1, seed=1)
    with sqlite3.connect(database) as db:
        schedule = db.execute("SELECT schedule FROM tournaments WHERE id = ?", (tournament,)).fetchone()[0]
        # the JSON escape of a lone surrogate, as json.dumps wrote such a name before the fix
        db.execute("UPDATE tournaments SET schedule = ? WHERE id = ?",
                   (schedule.replace("Anna", "An\\ud800na"), tournament))
    assert "\ud800" in "".join(json.loads(schedule.replace("Anna", "An\\ud800na"))["players"])
    for path in (f"/tournament/{tournament}", f"/api/tournaments/{tournament}", f"/tournament/{tournament}/slips.csv",
                 f"/tournament/{tournament}/standings", "/tournament"):
        assert client.get(path).status_code == 200, path


@pytest.mark.parametrize("box", [[1e308, 0, 2e308, 10], [float("nan"), 0, 10, 10], [-5, 0, 10, 10],
                                 [30, 30, 10, 10], [0, 0, 100000, 100000]])
def test_teaching_refuses_boxes_that_are_no_box(client, box):
    import cv2
    ok, png = cv2.imencode(".png", np.full((120, 160, 3), 90, np.uint8))
    answer = client.post("/api/tile-sets/club/teach",
                         data={"image": (io.BytesIO(png.tobytes()), "p.png"),
                               "tiles": json.dumps([{"box": box, "tile": "1m"}])},
                         content_type="multipart/form-data")
    assert answer.status_code == 400 and "box" in answer.get_json()["error"], answer.get_json()
