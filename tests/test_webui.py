"""The web app through Flask's test client: every API path, its errors, the pages, the
referee's records, the live feed and concurrent requests.  A fake recogniser stands in
for the model, so no trained weights are needed."""
from __future__ import annotations

import csv
import hashlib
import io
import threading
import time

import numpy as np
import pytest

from mahjong_lens.rules.tiles import parse_tiles
from mahjong_lens.vision.detections import TileDetection
from mahjong_lens.webui import create_app
from mahjong_lens.webui.app import configure_serve

# Rode Draak, East seat in the East round, self-drawn, concealed:
#   20 Mahjong + 8 concealed pung of White dragons + 2 pair of own wind + 2 pair of
#   prevailing wind = 32 points; pung of dragons x2, concealed and self-drawn x8
#   -> 32 x 16 = 512.  East won, so each other seat pays 512 x 2 = 1024.
DRAGON_HAND = {"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True,
               "seat_wind": "E", "prevalent_wind": "E"}
# Riichi, South seat, ron from West: riichi 1 + pinfu 1 + tanyao 1 = 3 han, 30 fu
# (20 base + 10 concealed ron); a non-dealer's 3 han 30 fu ron is 3900, all paid by West.
PINFU_HAND = {"concealed": "234m567m345p678s55p", "win_tile": "8s", "seat_wind": "S",
              "discarder": "W", "situation": {"riichi": True}}


def row_detections(concealed: str, win_tile: str | None, doubt: int | None = None) -> list[TileDetection]:
    """A hand laid out in one row, the winning tile set apart at its end."""
    detections, x = [], 40.0
    for number, tile in enumerate(parse_tiles(concealed)):
        confidence = 0.4 if number == doubt else 0.97
        detections.append(TileDetection(tile, (x, 100.0, x + 60.0, 180.0), confidence))
        x += 63.0
    if win_tile:
        x += 35.0
        detections.append(TileDetection(win_tile, (x, 100.0, x + 60.0, 180.0), 0.95))
    return detections


class RowRecognizer:
    """Reads the same hand from every image (the hand: 13 tiles + the winning tile)."""

    def __init__(self, concealed: str = "123m456p789s555z1z", win_tile: str | None = "1z",
                 doubt: int | None = None):
        self.detections = row_detections(concealed, win_tile, doubt)
        self.calls = 0

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        self.calls += 1
        return list(self.detections)


class ColourRecognizer:
    """Reads hand A from a red image and hand B from a blue one, slowly, so that
    concurrent requests overlap."""

    HAND_A = ("123m456p789s555z1z", "1z")
    HAND_B = ("234m567m345p678s5p", "5p")

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        time.sleep(0.02)
        red = image[0, 0, 2] > image[0, 0, 0]
        return row_detections(*(self.HAND_A if red else self.HAND_B))


class BrokenRecognizer:
    def detect(self, image: np.ndarray) -> list[TileDetection]:
        raise RuntimeError("cuda kernel secret-detail exploded")


def png(colour=(60, 110, 40), width: int = 1000, height: int = 300) -> bytes:
    import cv2
    image = np.zeros((height, width, 3), np.uint8)
    image[:] = colour
    ok, data = cv2.imencode(".png", image)
    assert ok
    return data.tobytes()


def make_app(tmp_path, **config):
    settings = {"DATABASE": str(tmp_path / "data" / "checks.db"), "RECOGNIZER": RowRecognizer()}
    settings.update(config)
    return create_app(settings)


@pytest.fixture()
def client(tmp_path):
    return make_app(tmp_path).test_client()


def scan(client, data: bytes | None = None, filename: str = "hand.png", **fields):
    form = dict(fields)
    if data is not None:
        form["image"] = (io.BytesIO(data), filename)
    return client.post("/api/scan", data=form, content_type="multipart/form-data")


# ------------------------------------------------------------------------------ app, pages

def test_the_app_is_not_in_debug_mode_and_serve_binds_to_localhost(tmp_path):
    import argparse
    app = make_app(tmp_path)
    assert app.debug is False
    parser = argparse.ArgumentParser()
    configure_serve(parser)
    args = parser.parse_args([])
    assert (args.host, args.port, args.camera, args.model) == ("127.0.0.1", 8000, None, None)
    args = parser.parse_args(["--camera", "0", "--port", "9001", "--database", "x.db"])
    assert (args.camera, args.port, args.database) == ("0", 9001, "x.db")


def test_serve_is_a_subcommand_of_the_cli():
    from mahjong_lens.cli import build_parser
    args = build_parser("serve").parse_args(["serve", "--port", "8123"])
    assert args.port == 8123 and args.host == "127.0.0.1"
    assert args._run.__name__ == "run_serve"


@pytest.mark.parametrize("path, words", [
    ("/", "Take a photo"), ("/live", "This device"), ("/table", "Settle the table"),
    ("/referee", "No checks yet"),
])
def test_pages_render_and_fetch_nothing_from_outside(client, path, words):
    response = client.get(path)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert words in html
    # every script, style sheet and picture comes from this server
    for attribute in ("src=", "href="):
        for value in html.split(attribute)[1:]:
            target = value[1:].split(value[0])[0]
            assert not target.startswith(("http:", "https:", "//")), target


def test_static_files_fetch_nothing_from_outside(client):
    from pathlib import Path
    modules = sorted(p.name for p in (Path(__file__).parent.parent / "webui" / "static" / "js").glob("*.js"))
    assert "main.js" in modules and len(modules) > 5
    for name in ["style.css", *(f"js/{m}" for m in modules)]:
        response = client.get(f"/static/{name}")
        text = response.get_data(as_text=True)
        assert response.status_code == 200, name
        assert "http://" not in text and "https://" not in text and "@import" not in text
        # the modules import one another by relative path only
        assert all(line.split(" from ")[-1].startswith(('"./', "'./"))
                   for line in text.splitlines() if line.startswith("import ")), name
    assert len(client.get("/static/style.css").get_data(as_text=True)) > 1000


def test_rule_sets_and_their_settings(client):
    rules = client.get("/api/rules").get_json()["rules"]
    assert [r["name"] for r in rules] == ["rode-draak", "riichi", "wsom"]
    riichi = next(r for r in rules if r["name"] == "riichi")
    kiriage = next(s for s in riichi["settings"] if s["name"] == "kiriage")
    assert kiriage == {"name": "kiriage", "default": False, "kind": "bool"}
    # the page offers them as choices
    assert '<option value="riichi"' in client.get("/").get_data(as_text=True)


def test_an_unknown_page_is_a_friendly_page_and_an_unknown_api_path_is_json(client):
    page = client.get("/no/such/page")
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert "There is no such page here." in page.get_data(as_text=True)
    api = client.get("/api/no-such-thing")
    assert api.status_code == 404 and api.get_json()["error"] == "there is no such page here"


def test_a_wrong_method_on_the_api_says_which_to_use(client):
    response = client.get("/api/score")
    assert response.status_code == 405
    assert "use POST" in response.get_json()["error"]


# ------------------------------------------------------------------------------ /api/score

def test_score_a_rode_draak_hand(client):
    response = client.post("/api/score", json={"hand": DRAGON_HAND, "rules": "rode-draak"})
    assert response.status_code == 200
    result = response.get_json()
    assert (result["valid"], result["winning"], result["points"]) == (True, True, 512)
    assert result["payments"] == {"E": 3072, "S": -1024, "W": -1024, "N": -1024}
    assert {"id": "doubling:pung-of-dragons", "name": "Pung of dragons", "value": "x2"} in result["breakdown"]


def test_score_a_riichi_hand_and_a_bare_hand_body(client):
    result = client.post("/api/score", json={"hand": PINFU_HAND, "rules": "riichi"}).get_json()
    assert (result["points"], result["han"], result["fu"]) == (3900, 3, 30)
    assert result["payments"]["W"] == -3900 and result["payments"]["S"] == 3900
    bare = client.post("/api/score", json={**PINFU_HAND, "rules": "riichi"}).get_json()
    assert bare["points"] == 3900


def test_score_with_options(client):
    # a setting of the rule set changes the score: Mahjong worth 30 instead of 20 ->
    # (30 + 12) x 16 = 672
    result = client.post("/api/score", json={"hand": DRAGON_HAND, "rules": "rode-draak",
                                             "options": {"mahjong_points": 30}}).get_json()
    assert result["points"] == 672


def test_an_unscoreable_hand_is_a_result_with_the_reason(client):
    hand = dict(DRAGON_HAND, concealed="123m456p789s555z1z")  # 13 tiles for a win
    result = client.post("/api/score", json={"hand": hand, "rules": "rode-draak"})
    assert result.status_code == 200
    body = result.get_json()
    assert body["valid"] is False and "13 tiles" in body["error"]


@pytest.mark.parametrize("body, status, words", [
    ({"hand": DRAGON_HAND, "rules": "mahjong-solitaire"}, 400, "unknown rule set"),
    ({"hand": DRAGON_HAND, "rules": "riichi", "options": {"kiriage": "maybe"}}, 400, "true or false"),
    ({"hand": DRAGON_HAND, "rules": "riichi", "options": {"no_such": 1}}, 400, "no setting"),
    ({"hand": "123m", "rules": "riichi"}, 400, "must be a JSON object"),
    ([1, 2, 3], 400, "send a JSON object"),
])
def test_score_errors_are_json_with_a_message(client, body, status, words):
    response = client.post("/api/score", json=body)
    assert response.status_code == status
    assert words in response.get_json()["error"]


def test_score_needs_json(client):
    form = client.post("/api/score", data={"hand": "x"})
    assert form.status_code == 415 and "JSON" in form.get_json()["error"]
    broken = client.post("/api/score", data="{not json", content_type="application/json")
    assert broken.status_code == 400 and broken.get_json()["error"] == "the request body is not valid JSON"


# ------------------------------------------------------------------------------ /api/scan

def test_scan_reads_boxes_builds_the_hand_and_scores_it(client):
    response = scan(client, png(), rules="rode-draak", seat_wind="E", prevalent_wind="E",
                    win="self_drawn")
    assert response.status_code == 200
    body = response.get_json()
    assert (body["width"], body["height"]) == (1000, 300)
    assert len(body["tiles"]) == 14
    assert body["tiles"][0]["box"] == [40.0, 100.0, 100.0, 180.0]
    assert body["hand"]["win_tile"] == "1z" and body["hand"]["self_drawn"] is True
    assert body["result"]["points"] == 512  # the Rode Draak hand worked at the top
    assert body["doubtful"] == []
    assert "preview" not in body


def test_scan_takes_the_riichi_context_from_the_form(tmp_path):
    app = make_app(tmp_path, RECOGNIZER=RowRecognizer("234m567m345p678s5p", "5p"))
    body = scan(app.test_client(), png(), rules="riichi", seat_wind="S", win="discard",
                discarder="W", riichi="on").get_json()
    assert body["hand"]["discarder"] == "W" and body["hand"]["situation"]["riichi"] is True
    assert body["result"]["points"] == 3900  # riichi + pinfu + tanyao, 30 fu, as above


def test_scan_marks_doubtful_tiles_and_sends_the_photo_back_when_asked(tmp_path):
    app = make_app(tmp_path, RECOGNIZER=RowRecognizer(doubt=4))
    body = scan(app.test_client(), png(), preview="1", win="self_drawn").get_json()
    assert body["doubtful"] == [4]
    assert body["preview"].startswith("data:image/jpeg;base64,")


def test_scan_asks_about_readings_below_the_sureness_the_form_gives(tmp_path):
    app = make_app(tmp_path, RECOGNIZER=RowRecognizer(doubt=4))  # tile 4 at 0.4, the rest 0.95-0.97
    client = app.test_client()
    assert scan(client, png(), win="self_drawn", min_confidence="0.3").get_json()["doubtful"] == []
    assert scan(client, png(), win="self_drawn", min_confidence="0.96").get_json()["doubtful"] == [4, 13]
    body = scan(client, png(), win="self_drawn", context='{"min_confidence": 0.3}').get_json()
    assert body["doubtful"] == []
    for wrong in ("high", "1.5", "-0.1", "nan"):
        response = scan(client, png(), min_face_confidence=wrong)
        assert response.status_code == 400
        assert "min_face_confidence must be a number from 0 to 1" in response.get_json()["error"]


def test_scan_of_an_incomplete_hand_says_what_is_missing(tmp_path):
    # one tile short of no win: the tile count is said, and (Rode Draak scores every hand)
    # whether the hand won at all is asked
    app = make_app(tmp_path, RECOGNIZER=RowRecognizer("123m456p789s55z12z", None))
    body = scan(app.test_client(), png(), win="self_drawn").get_json()
    assert "hand" not in body and body["question"] == "not_won"
    assert "13 tiles were found where 14 are needed" in body["error"]
    assert len(body["tiles"]) == 13
    # twelve: a tile was missed, no question
    app = make_app(tmp_path, RECOGNIZER=RowRecognizer("123m456p789s55z1z", None))
    body = scan(app.test_client(), png(), win="self_drawn").get_json()
    assert "hand" not in body and "question" not in body
    assert "12 tiles were found where 14 are needed" in body["error"]


def test_a_won_hand_whose_winning_tile_is_out_of_the_photo_is_asked_about(tmp_path):
    # one tile short of a win on the East: the winning tile lies outside the photo
    app = make_app(tmp_path, RECOGNIZER=RowRecognizer("123m456p789s555z1z", None))
    client = app.test_client()
    body = scan(client, png(), win="self_drawn").get_json()
    assert body["question"] == "missing_win_tile" and "waits on the East" in body["error"]
    assert [c["tile"] for c in body["win_candidates"]] == ["1z"]
    # the page's answer: the East added as the winning tile scores what the question said
    hand = {"concealed": "123m456p789s555z1z1z", "win_tile": "1z", "self_drawn": True}
    scored = client.post("/api/score", json={"hand": hand, "rules": "rode-draak"}).get_json()
    assert scored["valid"] and scored["points"] == body["win_candidates"][0]["points"]
    # the same hand entered on the page without its winning tile is asked the same way
    asked = client.post("/api/score", json={"hand": {"concealed": "123m456p789s555z1z", "self_drawn": True},
                                            "rules": "rode-draak"}).get_json()
    assert asked["question"] == "missing_win_tile" and asked["win_candidates"] == body["win_candidates"]


@pytest.mark.parametrize("data, fields, status, words", [
    (None, {}, 400, "no photo was sent"),
    (b"", {}, 400, "no photo was sent"),
    (b"these are the tiles: 123m456p", {}, 400, "the file is text, not an image"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, {}, 400, "image"),
    (png(), {"rules": "go"}, 400, "unknown rule set"),
    (png(), {"seat_wind": "X"}, 400, "seat_wind must be one of E, S, W, N"),
    (png(), {"options": "{nope"}, 400, "options must be a JSON object"),
    (png(), {"options": '{"kiriage": true}'}, 400, "no setting"),
    (png(), {"dora_indicators": "9x"}, 400, "dora indicators"),
])
def test_scan_errors_are_json_with_a_message(client, data, fields, status, words):
    response = scan(client, data, **fields)
    assert response.status_code == status
    body = response.get_json()
    assert words in body["error"] and body["status"] == status


def test_uploads_over_the_limit_are_refused_with_a_clear_message(tmp_path):
    app = make_app(tmp_path, MAX_UPLOAD_BYTES=50_000)
    message = ("the upload is too large: photos up to 0.0477 MB are accepted (a phone photo "
               "is usually 2-6 MB)")
    # a request far over the limit is cut off before it is read ...
    huge = png() + bytes(200_000)
    response = scan(app.test_client(), huge)
    assert response.status_code == 413 and response.get_json()["error"] == message
    # ... and a photo a little over it, in a request the server does read, is refused alike
    big = png() + bytes(50_000)
    response = scan(app.test_client(), big)
    assert response.status_code == 413 and response.get_json()["error"] == message
    import base64
    response = referee(app.test_client(), claimed_points=512,
                       photo="data:image/png;base64," + base64.b64encode(big).decode())
    assert response.status_code == 413 and response.get_json()["error"] == message
    # through a page (not the API) the same sentence is an HTML page
    page = app.test_client().post("/", data=huge, content_type="application/octet-stream")
    assert page.status_code in (405, 413) and "Traceback" not in page.get_data(as_text=True)
    # the default cap is 20 MB of photo
    assert make_app(tmp_path).config["MAX_UPLOAD_BYTES"] == 20 * 1024 * 1024


def test_a_photo_just_under_the_limit_is_accepted_by_scan_and_referee(tmp_path):
    # the limit is the photo's: the form fields around it, or base64 in the referee's
    # JSON (a third larger), must not push a photo that fits over the edge
    import base64
    app = make_app(tmp_path, MAX_UPLOAD_BYTES=50_000)
    photo = png() + bytes(50_000 - len(png()))
    assert len(photo) == 50_000
    body = scan(app.test_client(), photo, win="self_drawn", seat_wind="E", prevalent_wind="E")
    assert body.status_code == 200 and body.get_json()["result"]["points"] == 512
    answer = referee(app.test_client(), claimed_points=512,
                     photo="data:image/png;base64," + base64.b64encode(photo).decode())
    assert answer.status_code == 200 and answer.get_json()["agree"] is True
    # the page says the limit a player reads
    assert "Photos up to 0.0477 MB" in app.test_client().get("/").get_data(as_text=True)


def test_an_upload_is_never_written_under_the_name_it_came_with(tmp_path):
    app = make_app(tmp_path)
    before = {p for p in tmp_path.rglob("*")}
    body = scan(app.test_client(), png(), filename="../../evil name.png", win="self_drawn").get_json()
    assert body["image"] == "evil_name.png"  # a display name only
    assert {p for p in tmp_path.rglob("*")} == before
    assert not (tmp_path.parent / "evil name.png").exists()


def test_without_a_model_the_scan_says_so(tmp_path):
    app = make_app(tmp_path, RECOGNIZER=None, MODEL=str(tmp_path / "no-model-here"))
    response = scan(app.test_client(), png())
    assert response.status_code == 503
    assert "no tile recognition model is available" in response.get_json()["error"]
    # scoring by hand still works
    assert app.test_client().post("/api/score", json={"hand": DRAGON_HAND}).get_json()["points"] == 512


def test_a_failure_inside_the_recogniser_is_a_500_without_a_stack_trace(tmp_path):
    app = make_app(tmp_path, RECOGNIZER=BrokenRecognizer())
    response = scan(app.test_client(), png())
    assert response.status_code == 500
    text = response.get_data(as_text=True)
    assert "something went wrong" in response.get_json()["error"]
    assert "Traceback" not in text and "secret-detail" not in text


def test_concurrent_scans_do_not_mix_results(tmp_path):
    app = make_app(tmp_path, RECOGNIZER=ColourRecognizer())
    red, blue = png(colour=(0, 0, 200)), png(colour=(200, 0, 0))
    answers: dict[int, dict] = {}

    def worker(number: int) -> None:
        data = red if number % 2 else blue
        answers[number] = scan(app.test_client(), data, win="self_drawn").get_json()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(answers) == 12
    for number, body in answers.items():
        expected = ColourRecognizer.HAND_A if number % 2 else ColourRecognizer.HAND_B
        assert body["hand"]["win_tile"] == expected[1], number
        assert sorted(parse_tiles(body["hand"]["concealed"])) == \
            sorted(parse_tiles(expected[0]) + [expected[1]])


# ------------------------------------------------------------------------------ referee

def referee(client, **body):
    payload = {"hand": DRAGON_HAND, "rules": "rode-draak"}
    payload.update(body)
    return client.post("/api/referee", json=payload)


def test_a_right_claim_agrees(client):
    body = referee(client, claimed_points=512).get_json()
    assert body["agree"] is True and body["differences"] == []
    assert body["check"]["id"] == 1 and body["check"]["computed_points"] == 512


def test_a_wrong_claim_lists_the_lines_that_differ(client):
    claimed = ["Mahjong: 20 points", "Pung of dragons: x4", "All simples: x2"]
    body = referee(client, claimed_points=256, claimed_breakdown=claimed,
                   claimed_payments={"S": -512}).get_json()
    assert body["agree"] is False
    assert body["differences"][0] == "Points: claimed 256, computed 512"
    assert "Pung of dragons: claimed x4, computed x2" in body["differences"]
    assert "All simples (x2): claimed, but it does not count" in body["differences"]
    assert "Concealed hand, self-drawn (Verborgen spel) (x8) counts, but was not claimed" \
        in body["differences"]
    assert "Payment of S: claimed -512, computed -1024" in body["differences"]


def test_a_claim_on_an_unscoreable_hand_disagrees_with_the_reason(client):
    body = referee(client, hand=dict(DRAGON_HAND, concealed="123m456p789s555z12z"),
                   claimed_points=512).get_json()
    assert body["agree"] is False
    assert body["differences"][0].startswith("The hand cannot be scored:")


@pytest.mark.parametrize("body, status, words", [
    ({"claimed_points": "lots"}, 400, "claimed_points must be a whole number"),
    ({"claimed_points": True}, 400, "claimed_points must be a whole number"),
    ({"claimed_points": 8, "claimed_payments": {"Z": 1}}, 400, "claimed_payments"),
    ({"claimed_points": 8, "photo": "not base64!"}, 400, "not valid base64"),
    ({"claimed_points": 8, "photo": "aGVsbG8gd29ybGQ="}, 400, "only photos can be attached"),
    ({"claimed_points": 8, "hand": None}, 400, "'hand' must be a JSON object"),
])
def test_referee_errors_are_json_and_record_nothing(client, body, status, words):
    response = referee(client, **body)
    assert response.status_code == status and words in response.get_json()["error"]
    assert client.get("/api/referee/checks").get_json()["total"] == 0


def test_referee_needs_json(client):
    response = client.post("/api/referee", data={"claimed_points": "8"})
    assert response.status_code == 415


def test_checks_survive_a_restart_and_keep_the_photo_under_its_hash(tmp_path):
    photo = png(colour=(10, 20, 30))
    import base64
    first = make_app(tmp_path).test_client()
    answer = referee(first, claimed_points=512,
                     photo="data:image/png;base64," + base64.b64encode(photo).decode()).get_json()
    name = f"{hashlib.sha256(photo).hexdigest()}.png"
    assert answer["check"]["photo"] == name
    assert (tmp_path / "data" / "photos" / name).read_bytes() == photo
    referee(first, claimed_points=100)

    again = make_app(tmp_path).test_client()  # a new app on the same database
    listed = again.get("/api/referee/checks").get_json()
    assert listed["total"] == 2
    assert [c["claimed_points"] for c in listed["checks"]] == [100, 512]  # newest first
    assert [c["agree"] for c in listed["checks"]] == [False, True]
    assert listed["checks"][1]["hand"]["concealed"] == "123m456p789s11555z"  # kept in notation, in tile order
    assert again.get(listed["checks"][1]["photo_url"]).data == photo
    assert again.get("/api/referee/checks/2").get_json()["claimed_points"] == 100
    assert again.get("/api/referee/checks/9").status_code == 404
    page = again.get("/referee").get_data(as_text=True)
    assert "disagree" in page and "Points: claimed 100, computed 512" in page


def test_only_stored_photo_names_are_served(client, tmp_path):
    for name in ("..%2Fchecks.db", "checks.db", "x" * 64 + ".png", "%2Fetc%2Fpasswd"):
        assert client.get(f"/referee/photo/{name}").status_code == 404


def test_checks_export_as_csv(client):
    referee(client, claimed_points=512)
    referee(client, claimed_points=256, hand=dict(DRAGON_HAND, concealed="=cmd|123m"))
    response = client.get("/referee/checks.csv")
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [r["id"] for r in rows] == ["1", "2"]
    assert (rows[0]["concealed"], rows[0]["win_tile"], rows[0]["claimed_points"],
            rows[0]["computed_points"], rows[0]["agree"]) == ("123m456p789s11555z", "1z", "512", "512", "agree")
    assert rows[1]["agree"] == "disagree"
    assert rows[1]["concealed"].startswith("'=")  # no formula for a spreadsheet to run


def test_the_checks_list_validates_paging(client):
    assert client.get("/api/referee/checks?limit=0").status_code == 400
    assert client.get("/api/referee/checks?limit=5&offset=0").get_json() == {"checks": [], "total": 0}


# ------------------------------------------------------------------------------ table

def _table_hands() -> dict:
    # East wins with the dragon hand, self-drawn (512, above); the others did not win.
    return {
        "E": dict(DRAGON_HAND),
        "S": {"concealed": "1357m2468p13579s"},                      # no sets: 0
        "W": {"concealed": "3356p", "melds": [{"type": "pung", "tiles": "777z"},
                                              {"type": "pung", "tiles": "222s"},
                                              {"type": "chow", "tiles": "345m"}]},
        "N": {"concealed": "2468m1357p2468s9s"},                     # no sets: 0
    }


def test_a_rode_draak_table_settles(client):
    response = client.post("/api/table", json={"prevalent_wind": "E", "hands": _table_hands()})
    assert response.status_code == 200
    outcome = response.get_json()
    points = {seat: r["points"] for seat, r in outcome["seats"].items()}
    # East: 512 as worked at the top.
    # West: exposed pung of Red 4 + exposed pung of 2 bamboo 2 = 6, pung of dragons x2 -> 12.
    # South and North: no sets, 0.
    assert points == {"E": 512, "S": 0, "W": 12, "N": 0}
    # East (the winner; every payment with East doubled) gets 512 x 2 from each = 3072;
    # the others settle their differences: W gets 12 from S and 12 from N.
    assert outcome["payments"] == {"E": 3072, "S": -1036, "W": -1000, "N": -1036}
    moves = {(t["from"], t["to"]): t["amount"] for t in outcome["transfers"]}
    assert moves == {("S", "E"): 1024, ("W", "E"): 1024, ("N", "E"): 1024,
                     ("S", "W"): 12, ("N", "W"): 12}


@pytest.mark.parametrize("body, words", [
    ({"hands": "all of them"}, "send"),
    ({"hands": {"E": DRAGON_HAND}}, "missing seat"),
    ({"prevalent_wind": "Q", "hands": {}}, "prevalent_wind must be one of E, S, W, N"),
])
def test_table_errors_are_json(client, body, words):
    response = client.post("/api/table", json=body)
    assert response.status_code == 400 and words in response.get_json()["error"]


# ------------------------------------------------------------------------------ live

class FakeCamera:
    """A table camera that keeps showing the same picture."""

    def __init__(self):
        self.frame = np.full((240, 640, 3), 90, np.uint8)
        self.closed = False

    def read(self):
        time.sleep(0.01)
        return None if self.closed else self.frame.copy()

    def close(self):
        self.closed = True


def test_without_a_camera_live_says_how_to_get_one(client):
    response = client.get("/api/live")
    assert response.status_code == 404 and "--camera" in response.get_json()["error"]
    assert client.get("/live/stream").status_code == 404


def test_the_table_camera_gives_a_stream_and_a_stable_reading(tmp_path):
    camera = FakeCamera()
    app = make_app(tmp_path, CAMERA=camera, LIVE_INTERVAL=0.02)
    client = app.test_client()
    try:
        # the stream, asked for before the camera has sent anything, waits for the first picture
        stream = client.get("/live/stream")
        assert stream.mimetype == "multipart/x-mixed-replace"
        chunk = next(iter(stream.response))
        assert chunk.startswith(b"--frame\r\nContent-Type: image/jpeg")
        jpeg = chunk.split(b"\r\n\r\n", 1)[1]
        assert jpeg[:3] == b"\xff\xd8\xff"
        stream.close()

        deadline = time.monotonic() + 20
        status = client.get("/api/live").get_json()
        while not status["stable"] and time.monotonic() < deadline:
            time.sleep(0.05)
            status = client.get("/api/live").get_json()
        assert status["stable"] is True and status["running"] is True and status["error"] is None
        reading = status["reading"]["reading"]  # the tiles as read, for the page to score
        assert sorted(reading["concealed"]) == sorted("1m 2m 3m 4p 5p 6p 7s 8s 9s 5z 5z 5z 1z 1z".split())
        assert reading["win_tile"] == "1z"
        # read without a context (the page scores it with its own): self-drawn it scores, on
        # a discard (one doubling only) it is no win: asked, not guessed
        assert status["reading"]["question"] == "win_way"
        assert "no win on a discard" in status["reading"]["error"]

        # the page's situation applies to the next pictures: self-drawn -> 512, as worked above
        query = "/api/live?rules=rode-draak&seat_wind=E&prevalent_wind=E&win=self_drawn"
        status = client.get(query).get_json()
        while not (status["stable"] and status["reading"]["result"].get("valid")) \
                and time.monotonic() < deadline + 10:
            time.sleep(0.05)
            status = client.get(query).get_json()
        assert status["reading"]["result"]["points"] == 512
        assert client.get("/api/live?seat_wind=Q").status_code == 400
    finally:
        app.extensions["mahjong_lens"].close()


def test_a_camera_that_cannot_be_opened_is_reported(tmp_path):
    app = make_app(tmp_path, CAMERA=str(tmp_path / "no-such-video.mp4"))
    client = app.test_client()
    deadline = time.monotonic() + 10
    status = client.get("/api/live").get_json()
    while status["error"] is None and time.monotonic() < deadline:
        time.sleep(0.05)
        status = client.get("/api/live").get_json()
    assert status["error"].startswith("cannot open the camera")
    assert status["stable"] is False and status["reading"] is None


def test_two_viewers_of_the_table_camera_each_get_their_own_situation(tmp_path):
    # one camera, two players' browsers: East (self-drawn, 512 as worked at the top) and
    # South (the same tiles, self-drawn: no pair of own wind -> 30 points x 16 = 480)
    app = make_app(tmp_path, CAMERA=FakeCamera(), LIVE_INTERVAL=0.02)
    east, south = app.test_client(), app.test_client()
    east_query = "/api/live?rules=rode-draak&seat_wind=E&prevalent_wind=E&win=self_drawn"
    south_query = "/api/live?rules=rode-draak&seat_wind=S&prevalent_wind=E&win=self_drawn"
    try:
        deadline = time.monotonic() + 20
        status = east.get(east_query).get_json()
        while not status["stable"] and time.monotonic() < deadline:
            time.sleep(0.05)
            status = east.get(east_query).get_json()
        assert status["stable"] is True
        # turn and turn about: neither viewer's situation leaks into the other's answer
        for _ in range(3):
            mine = east.get(east_query).get_json()
            theirs = south.get(south_query).get_json()
            assert mine["reading"]["hand"]["seat_wind"] == "E"
            assert mine["reading"]["result"]["points"] == 512
            assert theirs["reading"]["hand"]["seat_wind"] == "S"
            assert theirs["reading"]["result"]["points"] == 480
            assert theirs["stable"] is True  # the tiles are steady for everyone
        # riichi for one viewer at the same time: the other still gets Rode Draak
        riichi = south.get("/api/live?rules=riichi&seat_wind=E&prevalent_wind=E&win=self_drawn").get_json()
        assert riichi["reading"]["rules"] == "riichi" and riichi["reading"]["result"]["points"] == 3900
        assert east.get(east_query).get_json()["reading"]["result"]["points"] == 512
        # and at once, from many threads
        answers: dict[int, int] = {}

        def ask(number: int) -> None:
            client, query = (east, east_query) if number % 2 else (south, south_query)
            answers[number] = app.test_client().get(query).get_json()["reading"]["result"]["points"]

        threads = [threading.Thread(target=ask, args=(n,)) for n in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert answers == {n: 512 if n % 2 else 480 for n in range(10)}
    finally:
        app.extensions["mahjong_lens"].close()


# ------------------------------------------------------------------------------ host and origin

@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000",
                                  "LOCALHOST.:8000"])
def test_the_loopback_names_are_served(client, host):
    assert client.get("/", headers={"Host": host}).status_code == 200
    assert client.get("/api/rules", headers={"Host": host}).status_code == 200


def test_an_unknown_host_name_is_refused_against_dns_rebinding(client, tmp_path):
    # a site whose name was made to resolve to 127.0.0.1 reaches the server with its own name
    page = client.get("/", headers={"Host": "rebind.attacker.example:8000"})
    assert page.status_code == 400 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert "does not answer to the name &#39;rebind.attacker.example&#39;" in text
    assert "--allowed-host" in text and "Take a photo" not in text
    api = client.get("/api/referee/checks", headers={"Host": "rebind.attacker.example"})
    assert api.status_code == 400 and "does not answer to the name" in api.get_json()["error"]
    # nothing is scored or recorded for it
    refused = client.post("/api/referee", json={"hand": DRAGON_HAND, "claimed_points": 512},
                          headers={"Host": "rebind.attacker.example"})
    assert refused.status_code == 400
    assert client.get("/api/referee/checks").get_json()["total"] == 0
    for host in ("", "127.0.0.2", "localhost.attacker.example", "192.168.1.20"):
        assert client.get("/api/rules", headers={"Host": host}).status_code == 400, host


def test_more_host_names_can_be_allowed(tmp_path):
    app = make_app(tmp_path, ALLOWED_HOSTS=["table.lan", ".club.example"], SERVER_HOST="192.168.1.20")
    client = app.test_client()
    for host in ("table.lan:8000", "club.example", "kitchen.club.example", "192.168.1.20:8000",
                 "localhost"):
        assert client.get("/api/rules", headers={"Host": host}).status_code == 200, host
    for host in ("other.lan", "evilclub.example", "192.168.1.21"):
        assert client.get("/api/rules", headers={"Host": host}).status_code == 400, host
    # bound to every interface: an address typed in the address bar is fine, a name is not
    # (a rebinding attack needs a name)
    anywhere = make_app(tmp_path, SERVER_HOST="0.0.0.0").test_client()
    assert anywhere.get("/api/rules", headers={"Host": "192.168.1.20:8000"}).status_code == 200
    assert anywhere.get("/api/rules", headers={"Host": "[fe80::1]:8000"}).status_code == 200
    assert anywhere.get("/api/rules", headers={"Host": "rebind.attacker.example"}).status_code == 400


def test_serve_takes_allowed_hosts():
    import argparse
    parser = argparse.ArgumentParser()
    configure_serve(parser)
    assert parser.parse_args([]).allowed_host == []
    args = parser.parse_args(["--allowed-host", "table.lan", "--allowed-host", "a.example,b.example"])
    assert args.allowed_host == ["table.lan", "a.example,b.example"]
    from mahjong_lens.webui.security import HostPolicy
    policy = HostPolicy(args.host, args.allowed_host)
    assert all(policy.allows(h) for h in ("table.lan", "a.example:80", "b.example", "127.0.0.1:8000"))


@pytest.mark.parametrize("headers", [
    {"Origin": "http://attacker.example"},
    {"Origin": "http://localhost:9999"},          # another program on this machine
    {"Origin": "null"},                           # a sandboxed frame or a file: page
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "https://localhost"},              # another scheme is another origin
])
def test_a_change_asked_for_by_another_sites_page_is_refused(client, headers):
    response = client.post("/api/referee", json={"hand": DRAGON_HAND, "claimed_points": 512},
                           headers=headers)
    assert response.status_code == 403 and "another web site" in response.get_json()["error"]
    # a multipart form (which any page can send without asking) is refused the same way
    form = {"image": (io.BytesIO(png()), "hand.png"), "win": "self_drawn"}
    assert client.post("/api/scan", data=form, content_type="multipart/form-data",
                       headers=headers).status_code == 403
    assert client.get("/api/referee/checks").get_json()["total"] == 0


def test_the_own_page_and_scripts_without_an_origin_may_change_things(client):
    own = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    assert referee(client, claimed_points=512, **{}).status_code == 200  # curl: no Origin
    response = client.post("/api/referee", json={"hand": DRAGON_HAND, "claimed_points": 512},
                           headers=own)
    assert response.status_code == 200
    assert client.get("/api/referee/checks").get_json()["total"] == 2
    # reading is not a change: a GET with a foreign Origin is served (the Host check applies)
    assert client.get("/api/rules", headers={"Origin": "http://attacker.example"}).status_code == 200


# ------------------------------------------------------------------------------ error paths

def _no_trace(response) -> str:
    text = response.get_data(as_text=True)
    assert "Traceback" not in text and 'File "' not in text and "Error:" not in text, text[:300]
    return text


@pytest.mark.parametrize("hand, words", [
    ({}, "no 'concealed' tiles"),
    ({"concealed": ""}, "no tiles given"),
    ({"concealed": "123x"}, "unknown suit letter 'x'"),
    ({"concealed": "11111m234p567s99s", "win_tile": "9s"}, "appears 5 times"),
    (dict(DRAGON_HAND, concealed="123m456p789s555z1z1z1z1z"), "16 tiles"),
    (dict(DRAGON_HAND, win_tile="0z"), "win_tile"),
    (dict(DRAGON_HAND, melds=[{"type": "pung", "tiles": "1z1z"}]), "not a pung"),
])
def test_a_hand_that_cannot_be_scored_says_why_in_words(client, hand, words):
    response = client.post("/api/score", json={"hand": hand, "rules": "rode-draak"})
    assert response.status_code == 200
    body = response.get_json()
    assert body["valid"] is False and words in body["error"], body["error"]
    _no_trace(response)


@pytest.mark.parametrize("concealed, win_tile, words", [
    ("123m456p789s111z1z", "1z", "5 copies of the East were read"),       # five of a tile
    ("123m456p789s55z1z", "1z", "13 tiles were found where 14"),    # one short
    ("123m456p789s555z11z1z", "1z", "16 tiles were found"),         # two too many
])
def test_a_photo_with_a_wrong_reading_says_what_is_wrong(tmp_path, concealed, win_tile, words):
    app = make_app(tmp_path, RECOGNIZER=RowRecognizer(concealed, win_tile))
    response = scan(app.test_client(), png(), win="self_drawn")
    assert response.status_code == 200
    body = response.get_json()
    assert words in body["error"] and "hand" not in body
    assert len(body["tiles"]) == len(parse_tiles(concealed)) + 1  # every tile still boxed to correct
    _no_trace(response)


@pytest.mark.parametrize("data, fields, status, words", [
    (png()[:300], {}, 400, "damaged"),                                # a cut-off photo
    (b"\xff\xd8\xff\xe0" + b"\x00" * 100, {}, 400, "not an image that can be read"),
    (b"GIF89a" + b"\x00" * 10, {}, 400, "no pixels"),
    (b"<svg xmlns='http://www.w3.org/2000/svg'></svg>", {}, 400, "not an image"),
    (b"%PDF-1.4 a scoring table", {}, 400, "not an image"),
    (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\x00\xff\xff\xff\x00\xff\xff\xff\x08\x02\0\0\0" + b"\0" * 30,
     {}, 400, "megapixels"),                                          # a decompression bomb
    (png(), {"context": "{"}, 400, "context must be a JSON object"),
    (png(), {"context": '{"seat": "E"}'}, 400, "unknown context field: seat"),
    (png(), {"win_tile": "9x"}, 400, "win tile"),
])
def test_more_scan_errors_are_sentences(client, data, fields, status, words):
    response = scan(client, data, **fields)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    _no_trace(response)


def test_a_request_that_is_not_what_the_api_expects_is_a_sentence(client):
    answers = [
        client.post("/api/scan", data=b"--x\r\nbroken", content_type="multipart/form-data; boundary=x"),
        client.post("/api/scan", data=b"\x89PNG", content_type="image/png"),   # not a form
        client.post("/api/scan", json={"image": "data:image/png;base64,AAAA"}),
        client.post("/api/score", data="", content_type="application/json"),
        client.post("/api/score", data={}),
        client.post("/api/table", json={}),
        client.post("/api/referee", json={}),
        client.get("/api/referee/checks/99999999999999999999999"),            # past SQLite's ids
    ]
    assert [a.status_code for a in answers] == [400, 400, 400, 400, 415, 400, 400, 404]
    for answer in answers:
        assert answer.get_json()["error"]
        _no_trace(answer)


def test_the_server_keeps_serving_after_every_error(tmp_path):
    app = make_app(tmp_path, RECOGNIZER=BrokenRecognizer(), MAX_UPLOAD_BYTES=10_000)
    client = app.test_client()
    bad = [scan(client, b"not a photo"), scan(client, png() + bytes(20_000)), scan(client, png()),
           client.post("/api/score", json={"hand": {"concealed": "12x"}}),
           client.get("/referee/photo/..%2F..%2Fetc%2Fpasswd"), client.post("/")]
    assert [b.status_code for b in bad] == [400, 413, 500, 200, 404, 405]
    for answer in bad:
        _no_trace(answer)
    # the HTML pages of errors are pages a player can read, with the way back
    page = _no_trace(client.post("/"))
    assert "POST is not used on /" in page and "Back to the table assistant" in page
    assert client.post("/api/score", json={"hand": DRAGON_HAND}).get_json()["points"] == 512
    assert client.get("/").status_code == 200
