"""The table assistant in a real browser: headless Debian Chromium driven by Playwright.

Nothing downloads a browser: Playwright launches /usr/bin/chromium.  The test skips with
the reason when that browser or the Playwright library is missing.  A fake recogniser
reads a fixed hand, so no trained model is needed; the photo is drawn with OpenCV.
"""
from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from mahjong_lens.rules.tiles import parse_tiles
from mahjong_lens.vision.detections import TileDetection

CHROMIUM = "/usr/bin/chromium"

if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian package 'chromium')", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

# One row of tiles: 1-2-3 characters, 4-5-6 dots, 7-8-9 bamboo, three White dragons of which
# the camera doubts the last (it read Green dragon, White as runner-up), an East; the
# winning East set apart.
READ_TILES = parse_tiles("123m456p789s556z1z")
DOUBTED = 11  # the third White dragon, read as 6z
WIDTH, HEIGHT = 1280, 400


def _boxes() -> list[tuple[float, float, float, float]]:
    boxes, x = [], 60.0
    for _ in READ_TILES:
        boxes.append((x, 150.0, x + 66.0, 240.0))
        x += 70.0
    x += 40.0
    boxes.append((x, 150.0, x + 66.0, 240.0))  # the winning tile, set apart
    return boxes


class FakeRecognizer:
    """Returns the fixed reading whatever the image (the page flow is under test, not the
    model); ``misread`` makes the third White dragon a doubtful Green one (White its runner-up,
    so the layout re-reads it to make the hand a win, and asks)."""

    def __init__(self, misread: bool = True):
        self.misread = misread

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        detections = []
        for number, (tile, box) in enumerate(zip(READ_TILES + ["1z"], _boxes())):
            if number == DOUBTED and self.misread:
                detections.append(TileDetection(tile, box, 0.42, [("5z", 0.39)]))
            elif number == DOUBTED:
                detections.append(TileDetection("5z", box, 0.97))
            else:  # as the shipped model reads a small tile: an unsure box, a sure face
                detections.append(TileDetection(tile, box, 0.56, face_confidence=0.98))
        return detections


class FakeCamera:
    """A table camera that keeps showing one picture."""

    def __init__(self):
        self.frame = np.full((HEIGHT, WIDTH, 3), (60, 110, 40), np.uint8)

    def read(self) -> np.ndarray:
        time.sleep(0.02)
        return self.frame.copy()


def _photo(path: str) -> None:
    """A table-green photo with ivory tiles where the fake recogniser says they are."""
    import cv2
    image = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    image[:] = (60, 110, 40)
    shown = parse_tiles("123m456p789s555z1z") + ["1z"]
    for tile, (x1, y1, x2, y2) in zip(shown, _boxes()):
        cv2.rectangle(image, (int(x1), int(y1)), (int(x2), int(y2)), (225, 240, 245), -1)
        cv2.rectangle(image, (int(x1), int(y2) - 10), (int(x2), int(y2)), (70, 140, 60), -1)
        cv2.putText(image, tile, (int(x1) + 10, int(y1) + 52), cv2.FONT_HERSHEY_SIMPLEX, 0.9,
                    (40, 40, 160), 2, cv2.LINE_AA)
    assert cv2.imwrite(path, image)


@pytest.fixture()
def shot(tmp_path):
    """shot(name) -> where to save a screenshot: the test's own temporary folder, or the
    folder $MAHJONG_LENS_SCREENSHOTS names (to look at them afterwards)."""
    folder = os.environ.get("MAHJONG_LENS_SCREENSHOTS") or str(tmp_path)
    os.makedirs(folder, exist_ok=True)
    return lambda name: os.path.join(folder, f"{name}.png")


@pytest.fixture()
def serve(tmp_path):
    """Starts the app on a free localhost port: serve(**config) -> its address."""
    from werkzeug.serving import make_server

    from mahjong_lens.webui import create_app
    running = []

    def start(**config) -> str:
        settings = {"DATABASE": str(tmp_path / "checks.db"), "RECOGNIZER": FakeRecognizer()}
        settings.update(config)
        app = create_app(settings)
        httpd = make_server("127.0.0.1", 0, app, threaded=True)
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        running.append((app, httpd, thread))
        return f"http://127.0.0.1:{httpd.server_port}"

    yield start
    for app, httpd, thread in running:
        app.extensions["mahjong_lens"].close()
        httpd.shutdown()
        thread.join(timeout=5)


@pytest.fixture()
def server(serve):
    return serve()


@pytest.fixture()
def page():
    with sync_api.sync_playwright() as playwright:
        # a fake camera (a test pattern) stands in for the device's own
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"])
        context = browser.new_context(viewport={"width": 1360, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        # a blocked resource (the page's security policy) or a script error shows here
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.js_errors = errors
        try:
            yield page
        finally:
            browser.close()


def test_upload_correct_a_tile_and_the_score_follows(server, page, tmp_path, shot):
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    page.goto(server + "/")
    page.check("input[name=win][value=self_drawn]")
    page.set_input_files("#photo-file", photo)
    page.wait_for_selector("#photo-status.ok, #photo-status.warn, #photo-status.error")
    status = page.text_content("#photo-status")
    assert "14 tiles found" in status, status

    # every tile boxed on the photo, the doubted one highlighted
    assert page.locator("#photo-boxes .box").count() == 14
    assert page.locator("#photo-boxes .box.doubtful").count() == 1
    assert page.locator("#doubtful").is_visible()
    # how sure the reading is of the face, not of the box
    assert page.locator("#photo-boxes .box").first.get_attribute("title").endswith("(98% sure)")
    # the camera read a Green dragon among the Whites, no Mahjong; its next choice, White,
    # makes the hand a win: scored so, the tile asked about
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("512")
    assert ("Taken as the White dragon (the camera first read the Green dragon): its next choice, "
            "which makes the hand a win" in page.text_content("#doubtful"))

    # the doubted tile in the hand picture -> the picker, the camera's first reading offered first
    page.click("#hand .tile.doubtful")
    page.wait_for_selector("#picker[open]")
    assert page.text_content("#picker-title") == "Is this the White dragon?"
    assert page.locator("#picker-grid .picker-row.suggestions .tile").first.get_attribute("data-tile") == "6z"
    page.click("#picker-grid .picker-row.suggestions .tile[data-tile='6z']")
    # as first read (a Green dragon among the Whites) the hand is no Mahjong
    sync_api.expect(page.locator("#score .badge.bad")).to_have_count(1)
    assert page.locator("#photo-boxes .box.doubtful").count() == 0

    # and back: the tile is the White dragon after all
    page.click("#hand .tile.edited")
    page.wait_for_selector("#picker[open]")
    assert page.text_content("#picker-title") == "Change the Green dragon"
    page.click("#picker-grid .picker-row:not(.suggestions) .tile[data-tile='5z']")
    # Rode Draak, East seat and round, self-drawn concealed win:
    #   20 Mahjong + 8 concealed pung of White + 2 pair of own wind + 2 pair of prevailing
    #   wind = 32 points; pung of dragons x2, concealed self-drawn x8 -> 32 x 16 = 512
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("512")
    assert page.locator("#photo-boxes .box.edited").count() == 1
    assert "Pung of dragons" in page.text_content("#score")
    assert "North pays East 1024" in page.text_content("#score")  # 512 x 2 from each non-dealer

    # the referee: a claim of 256 is wrong by the points line, and is recorded
    page.fill("input[name=claimed_points]", "256")
    page.click("#referee-check")
    page.wait_for_selector("#referee-verdict.bad")
    assert "Points: claimed 256, computed 512" in page.text_content("#referee-verdict")

    page.screenshot(path=shot("photo-page"), full_page=True)

    page.goto(server + "/referee")
    assert page.locator("table.checks tbody tr").count() == 1
    assert page.locator("table.checks .tile").count() == 14
    assert page.js_errors == []


def test_a_hand_entered_tile_by_tile_is_scored(server, page):
    page.goto(server + "/")
    page.select_option("select[name=rules]", "rode-draak")
    page.check("input[name=win][value=none]")
    # a pung of Red dragons declared open, then ten loose tiles: 13 tiles, a hand that did not win
    page.click("[data-add-meld=pung]")
    page.click("#picker-grid .tile[data-tile='7z']")
    for tile in ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "2z"]:
        page.click("[data-add=concealed]")
        page.click(f"#picker-grid .tile[data-tile='{tile}']")
    # a non-winner in Rode Draak: exposed pung of dragons 4 points, doubled once for the
    # dragons -> 8
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("8")
    assert page.locator("#hand .group.meld .tile").count() == 3
    # a wind is drawn as any tile is: as wide, its letter above its name (the desk's seat-wind
    # label once shared the class `wind` and widened them)
    tile = page.locator("#hand .tile[data-tile='2z']").first
    wind, number = tile.bounding_box(), page.locator("#hand .tile[data-tile='1m']").first.bounding_box()
    assert abs(wind["width"] - number["width"]) < 1 and abs(wind["height"] - number["height"]) < 1
    assert tile.locator(".face").bounding_box()["y"] + tile.locator(".face").bounding_box()["height"] <= \
        tile.locator(".sub").bounding_box()["y"] + 1
    assert page.js_errors == []


def test_a_chow_changed_into_a_pung_is_scored_as_the_server_reads_its_tiles(server, page):
    page.goto(server + "/")
    page.select_option("select[name=rules]", "rode-draak")
    page.check("input[name=win][value=none]")
    page.click("[data-add-meld=chow]")
    page.click("#picker-grid .tile[data-tile='2m']")  # 2-3-4 of characters, open
    for tile in ["1p", "2p", "3p", "4p", "5p", "6p", "7s", "8s", "9s", "2z"]:
        page.click("[data-add=concealed]")
        page.click(f"#picker-grid .tile[data-tile='{tile}']")
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("0")  # a chow scores nothing
    for tile in ("3m", "4m"):  # the chow's 3 and 4 were 2s: a pung of 2s, which the page does not guess
        page.click(f"#hand .group.meld .tile[data-tile='{tile}']")
        page.click("#picker-grid .picker-row:not(.suggestions) .tile[data-tile='2m']")
    # an exposed pung of simples: 2 points (the server inferred the pung from the tiles)
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("2")
    assert "Pung of simples" in page.text_content("#score")
    assert page.js_errors == []


def test_a_tile_set_taught_on_the_page_reads_the_next_photo_of_it(serve, page, tmp_path):
    """A photo of the hand with a book's red spine beside it, read as the 1 of bamboo: the
    player removes that box, teaches the set, chooses it, and the next photo reads without it."""
    import cv2

    from teachable import TeachableFake
    spine = (1100.0, 40.0, 1130.0, 140.0)
    readings = [("5z" if k == DOUBTED else t, box) for k, (t, box) in enumerate(zip(READ_TILES + ["1z"], _boxes()))]
    base = serve(RECOGNIZER=TeachableFake(readings + [("1s", spine)]))
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    picture = cv2.imread(photo)
    cv2.rectangle(picture, (1100, 40), (1130, 140), (40, 40, 200), -1)
    assert cv2.imwrite(photo, picture)
    page.goto(base + "/")
    page.check("input[name=win][value=self_drawn]")
    page.set_input_files("#photo-file", photo)
    page.wait_for_selector("#photo-status.ok, #photo-status.warn")
    assert page.locator("#photo-boxes .box").count() == 15  # the 14 tiles and the spine
    # teaching: every box the hand keeps is taught as it is; the spine's box is in none
    page.click("#teach summary")
    page.fill("#teach-name", "club set")
    page.click("#teach-button")
    sync_api.expect(page.locator("#teach-status")).to_contain_text("Taught to “club set”: 14 tiles and 1 box on no tile")
    page.select_option("#tile-set", "club set")
    page.set_input_files("#photo-file", photo)
    sync_api.expect(page.locator("#photo-boxes .box")).to_have_count(14)
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("512")
    # the set is kept: a fresh page offers it
    page.goto(base + "/")
    assert page.locator("#tile-set option[value='club set']").count() == 1
    assert page.js_errors == []


def test_live_with_the_browsers_camera_reads_and_scores_a_steady_hand(serve, page):
    base = serve(RECOGNIZER=FakeRecognizer(misread=False))
    page.goto(base + "/live")
    page.check("input[name=win][value=self_drawn]")
    page.click("#live-browser")
    # a frame a second goes to /api/scan; two equal readings in a row make it stable
    sync_api.expect(page.locator("#live-reading")).to_have_class("status ok", timeout=15000)
    assert page.locator("#hand .tile").count() == 14
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("512")  # as worked above
    page.click("#live-stop")
    assert page.js_errors == []


def test_live_with_the_table_camera_shows_the_stream_and_the_stable_reading(serve, page):
    base = serve(RECOGNIZER=FakeRecognizer(misread=False), CAMERA=FakeCamera(), LIVE_INTERVAL=0.05)
    page.goto(base + "/live")
    page.check("input[name=win][value=self_drawn]")
    page.click("#live-table")
    sync_api.expect(page.locator("#live-reading")).to_have_class("status ok", timeout=15000)
    # the MJPEG stream is showing pictures
    # (wait_for_function evaluates a string, which the page's security policy forbids: poll)
    deadline = time.monotonic() + 10
    while page.locator("#live-stream").evaluate("img => img.naturalWidth") == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert page.locator("#live-stream").evaluate("img => img.naturalWidth") == WIDTH
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("512")
    page.click("#live-stop")
    assert page.js_errors == []


def test_the_photo_page_right_after_a_scan_is_readable_on_a_desktop_and_a_phone(server, page, tmp_path, shot):
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    for width, height, path in ((1360, 1000, shot("scan-1360")), (390, 844, shot("scan-390"))):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(server + "/")
        page.check("input[name=win][value=self_drawn]")
        page.set_input_files("#photo-file", photo)
        page.wait_for_selector("#photo-status.ok, #photo-status.warn, #photo-status.error")
        sync_api.expect(page.locator("#score [data-points]")).to_have_text("512")
        page.screenshot(path=path, full_page=True)
        # a doubted tile is not "all read" in green: the status says to check it
        assert "status warn" in page.get_attribute("#photo-status", "class")
        assert "not sure of one" in page.text_content("#photo-status")
        # nothing wider than the screen (no sideways scrolling on a phone)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, width
        # every box on the photo is named in words a player reads, not in notation
        tags = page.locator("#photo-boxes .box .tag").all_text_contents()
        assert "White" in tags and "5z" not in tags, tags
        # the doubtful tile says so on the photo too
        assert page.locator("#photo-boxes .box.doubtful .tag").text_content().endswith("?")
    assert page.js_errors == []


def test_a_bad_file_is_said_in_words_on_the_page_and_the_page_keeps_working(serve, page, tmp_path):
    base = serve(MAX_UPLOAD_BYTES=200_000)
    text = tmp_path / "notes.txt"
    text.write_text("123m456p789s555z11z")
    cut = tmp_path / "cut.png"
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    cut.write_bytes(open(photo, "rb").read()[:400])
    big = tmp_path / "big.png"
    big.write_bytes(open(photo, "rb").read() + bytes(250_000))
    page.goto(base + "/")
    assert "Photos up to 0.191 MB" in page.text_content("#photo-status")
    for path, words in ((text, "is not a photo"), (cut, "The image file is damaged"),
                        (big, "photos up to 0.191 MB are accepted")):
        page.set_input_files("#photo-file", str(path))
        page.wait_for_selector("#photo-status.error")
        message = page.text_content("#photo-status")
        assert words in message, message
        assert "Traceback" not in message and "Error" not in message
        assert page.locator("#photo-view").is_hidden()
        page.evaluate("document.querySelector('#photo-status').className = 'status'")
    # a good photo after all that is read as usual
    page.set_input_files("#photo-file", photo)
    page.wait_for_selector("#photo-status.ok, #photo-status.warn")
    assert "14 tiles found" in page.text_content("#photo-status")
    # the refused uploads show in the console as failed loads (400/413); nothing else may
    assert [e for e in page.js_errors if not e.startswith("Failed to load resource")] == []


def test_another_sites_page_cannot_post_to_the_assistant(server, page):
    # a page of another origin (here a data: page, Origin "null") submits a form to the API
    form = (f"<form method=post enctype=multipart/form-data action='{server}/api/scan'>"
            "<input name=win value=self_drawn><button id=go>go</button></form>")
    page.goto("data:text/html," + form)
    with page.expect_navigation():
        page.click("#go")
    assert "another web site" in page.text_content("body")
    page.js_errors.clear()  # the refusal itself shows as a failed load in the console


def test_the_tournament_desk_from_schedule_to_standings_on_a_desktop_and_a_phone(server, page, shot):
    """A referee starts an 8-player tournament, enters slips (one refused with its reason),
    corrects one, and shows the standings; no desk page scrolls sideways at 390 or 1280 px."""
    names = ["Anna", "Bart", "Cor", "Dirk", "Eva", "Fleur", "Gijs", "Hendrika-Wilhelmina van Oranje"]
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server + "/")
    page.click("text=Tournament")
    page.fill("input[name=name]", "Club evening")
    page.fill("textarea[name=players]", "\n".join(names[:7]))
    page.click("text=Draw the schedule")
    assert "7 participants do not make tables of four" in page.text_content("#desk-error")
    page.fill("textarea[name=players]", "\n".join(names))
    page.fill("input[name=rounds]", "2")
    page.fill("input[name=seed]", "5")
    page.click("text=Draw the schedule")
    page.wait_for_selector("#schedule")
    assert page.locator("#schedule .desk-table").count() == 4  # 2 rounds of 2 tables
    overview = page.url

    def seats_on_form() -> dict[str, str]:
        return {row.locator("td.seat-wind").text_content()[0]: row.locator("td").nth(1).text_content()
                for row in page.locator("table.slip-table tbody tr").all()}

    page.click("text=Enter a score slip")
    first = seats_on_form()
    assert set(first.values()) <= set(names) and len(set(first.values())) == 4
    # a slip that cannot be (the Mahjong marked on a player with 0 points) is refused with
    # the reason, and what was typed stays
    for wind, points in (("E", "100"), ("S", "20"), ("W", "0"), ("N", "40")):
        page.fill(f"input[name=points_{wind}]", points)
    page.check("input[name=mahjong][value=W]")
    page.click("button:has-text('Enter the slip')")
    assert "a winner holds at least 40" in page.text_content("#slip-error")
    assert page.input_value("input[name=points_E]") == "100"
    page.check("input[name=mahjong][value=E]")
    page.click("button:has-text('Enter the slip')")
    entered = page.text_content("#slip-entered")
    assert f"{first['E']} +600" in entered and f"{first['W']} -260" in entered, entered
    # the next hand of the same table comes up, the wind turned: South is now East
    second = seats_on_form()
    assert second["E"] == first["S"]
    page.check("input[name=remise]")
    page.click("button:has-text('Enter the slip')")
    assert "a remise, nothing settled" in page.text_content("#slip-entered")
    # after a remise the wind turns too: the third hand comes up, West of the first is East
    assert seats_on_form()["E"] == first["W"]
    page.screenshot(path=shot("desk-slip-390"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    # the correction: the first slip's Mahjong was South's, with 40
    page.goto(overview)
    page.locator("#slips .slip").last.locator("text=Correct slip").click()
    page.fill("input[name=points_S]", "40")
    page.check("input[name=mahjong][value=S]")
    page.click("text=Save the correction")
    assert "corrected" in page.text_content(".status.ok")
    standings = {row.locator("td").nth(1).text_content(): int(row.locator("td").nth(2).text_content())
                 for row in page.locator("#standings tbody tr").all()}
    # by hand: S (Mahjong, 40) receives 80 from East, 40 from West and North;
    # East pays W nothing, N pays... E 100 vs W 0: W pays E 200; E vs N 40: N pays E 120;
    # W vs N: W pays N 40.  E: -80 + 200 + 120 = +240; S +160; W -200 - 40 - 40 = -280; N -40 - 120 + 40 = -120
    assert {first[w]: standings[first[w]] for w in "ESWN"} == {
        first["E"]: 240, first["S"]: 160, first["W"]: -280, first["N"]: -120}
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        for path in ("", "/standings", "/schedule", "/slip"):
            page.goto(overview + path)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (width, path)
        page.goto(overview + "/standings")
        page.screenshot(path=shot(f"desk-standings-{width}"), full_page=True)
    # the two refused forms (HTTP 400) show in the console as failed loads; nothing else may
    assert [e for e in page.js_errors if not e.startswith("Failed to load resource")] == []


class RowRecognizer:
    """A complete hand read in one even row: nothing set apart as the winning tile."""

    TILES = parse_tiles("123m456p789s55z111z")

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        return [TileDetection(tile, (60.0 + 70 * k, 150.0, 126.0 + 70 * k, 240.0), 0.9, face_confidence=0.98)
                for k, tile in enumerate(self.TILES)]


def _no_sideways_scroll(page, width: int, where: str) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, (where, width)


def _read_photo(page, base: str, width: int, win: str, photo: str) -> None:
    """The photo page at `width` px, 'won by' set to `win`, the photo read."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(base + "/")
    page.check(f"input[name=win][value={win}]")
    page.set_input_files("#photo-file", photo)


def test_a_hand_without_its_winning_tile_asks_which_and_one_tap_scores_it(serve, page, tmp_path, shot):
    base = serve(RECOGNIZER=RowRecognizer())
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    for width in (390, 1280):
        _read_photo(page, base, width, "discard", photo)
        page.wait_for_selector("#score .question")
        # not a dead hand: the question, with every candidate and its score, highest first
        assert "dead" not in page.text_content("#score").lower()
        assert "Tap the tile that completed the hand" in page.text_content("#photo-status")
        choices = page.locator("#score .win-choice")
        assert choices.count() == 11
        points = [int(text.split()[0]) for text in page.locator("#score .win-points").all_text_contents()]
        assert points == sorted(points, reverse=True) and points[-1] == 104, points
        assert "--" not in page.text_content("body") and "#1" not in page.text_content("#photo-status")
        page.screenshot(path=shot(f"question-{width}"), full_page=True)
        _no_sideways_scroll(page, width, "the question")
        # the East completed it (a pung won on a discard is open: fewer points)
        page.click("#score .win-choice[data-win-tile='1z']")
        sync_api.expect(page.locator("#score [data-points]")).to_have_text("104")
        assert "The hand is scored: 104 points" in page.text_content("#photo-status")
        assert "status ok" in page.get_attribute("#photo-status", "class")
        assert page.locator("#hand .group.win .tile").count() == 1
        _no_sideways_scroll(page, width, "the scored hand")
    assert page.js_errors == []


class NoWinRecognizer(RowRecognizer):
    """Thirteen tiles that no fourteenth makes a winning hand: a hand that did not win."""

    TILES = parse_tiles("147m258p369s1255z")


def test_a_hand_no_tile_makes_a_win_asks_whether_it_won_and_one_tap_scores_it(serve, page, tmp_path):
    base = serve(RECOGNIZER=NoWinRecognizer())
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    for width in (390, 1280):
        _read_photo(page, base, width, "discard", photo)  # the form's default: won on a discard
        page.wait_for_selector("#score .question")
        assert "Did this hand win?" in page.text_content("#score")
        assert "dead" not in page.text_content("#score").lower()
        assert "Answer the question" in page.text_content("#photo-status")
        _no_sideways_scroll(page, width, "the question whether it won")
        page.click("#score .win-choice[data-way='none']")
        # as a hand that did not win (Rode Draak scores it): a pair of dragons, 2 points
        sync_api.expect(page.locator("#score [data-points]")).to_have_text("2")
        assert page.is_checked("input[name=win][value=none]")
    assert page.js_errors == []


def test_the_longest_messages_scroll_no_page_sideways_on_a_phone_or_a_desktop(serve, page, tmp_path, shot):
    base = serve(RECOGNIZER=RowRecognizer())
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    for width in (390, 1280):
        # a dead hand (14 tiles, and the player says it did not win): the longest reason
        _read_photo(page, base, width, "none", photo)
        sync_api.expect(page.locator("#score")).to_contain_text("a dead hand scores nothing")
        _no_sideways_scroll(page, width, "a dead hand")
        # the reason wraps inside the card instead of stretching it
        card = page.locator("#score").bounding_box()
        assert card["x"] + card["width"] <= width
        # a claim the referee disagrees with, line by line, recorded
        page.check("input[name=win][value=discard]")
        page.wait_for_selector("#score .question")
        page.click("#score .win-choice[data-win-tile='1z']")
        sync_api.expect(page.locator("#score [data-points]")).to_be_visible()
        page.fill("input[name=claimed_points]", "12")
        page.click("text=claimed lines (optional)")
        page.fill("textarea[name=claimed_breakdown]", "A very long claimed line that nobody would ever "
                  "write at a real table but which a referee might paste from a score sheet: 99 points")
        page.click("#referee-check")
        page.wait_for_selector("#referee-verdict.bad")
        _no_sideways_scroll(page, width, "the referee's verdict")
        page.screenshot(path=shot(f"longest-photo-{width}"), full_page=True)
        for path in ("/referee", "/table", "/live", "/tournament"):
            page.goto(base + path)
            _no_sideways_scroll(page, width, path)
        page.goto(base + "/referee")
        page.screenshot(path=shot(f"longest-referee-{width}"), full_page=True)
        # the referee sees the situation the hand was scored under
        assert "seat East, round wind East; on a discard from South" in page.text_content("table.checks")
    assert [e for e in page.js_errors if not e.startswith("Failed to load resource")] == []


def test_ura_dora_indicators_entered_on_the_page_count_for_a_riichi_winner(serve, page, tmp_path):
    base = serve(RECOGNIZER=FakeRecognizer(misread=False))
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    page.goto(base + "/")
    page.select_option("select[name=rules]", "riichi")
    page.check("input[name=win][value=self_drawn]")
    page.check("input[name=riichi]")
    assert page.locator("[data-add=ura]").is_visible()
    page.set_input_files("#photo-file", photo)
    sync_api.expect(page.locator("#score [data-points]")).to_be_visible()
    before = page.text_content("#score")
    han_before = int(next(tag for tag in page.locator("#score .badge").all_text_contents() if " han " in tag).split()[0])
    # the Red dragon turned over as ura-dora indicator makes the White dragons dora
    page.click("[data-add=ura]")
    page.click("#picker-grid .picker-row:not(.suggestions) .tile[data-tile='7z']")
    sync_api.expect(page.locator("#score .badge", has_text=f"{han_before + 3} han ")).to_have_count(1)
    assert page.text_content("#score") != before
    assert page.locator("[data-strip=ura] .tile").count() == 1
    assert page.js_errors == []


def _row_of(tiles: str):
    """A recogniser that reads one row of these tiles, nothing set apart."""
    return type("Row", (RowRecognizer,), {"TILES": parse_tiles(tiles)})()


@pytest.mark.parametrize("tiles, width, words, choices, answer, then", [
    # a won hand whose winning tile is out of the photo: 13 tiles, waiting on the East
    ("123m456p789s555z1z", 390, "not on the photo", 1, "[data-win-tile='1z']",
     "#hand .group.win .tile[data-tile='1z']"),
    # a kong of 8 characters laid in the row, not set apart: 15 tiles
    ("8888m456p789s55z111z", 1280, "Four alike lie in the row", 2, "[data-kong='8m:concealed']",
     "#hand .group.meld .tile[data-tile='8m']"),
], ids=["winning tile out of the photo", "kong in the row"])
def test_a_won_hand_that_is_one_tile_off_is_asked_about_and_one_tap_scores_it(
        serve, page, tmp_path, tiles, width, words, choices, answer, then):
    base = serve(RECOGNIZER=_row_of(tiles))
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    _read_photo(page, base, width, "self_drawn", photo)
    page.wait_for_selector("#score .question")
    assert words in page.text_content("#score .question")
    assert page.locator("#score .win-choice").count() == choices
    _no_sideways_scroll(page, width, words)
    page.click(f"#score .win-choice{answer}")
    sync_api.expect(page.locator("#score [data-points]")).to_be_visible()
    assert page.locator(then).count() >= 1
    assert "status ok" in page.get_attribute("#photo-status", "class")
    assert page.js_errors == []


@pytest.mark.parametrize("width, answer, then", [
    (390, "none", "this set has no red fives"),
    (1280, "0p", "one is red"),
], ids=["no red fives", "one red"])
def test_four_plain_fives_under_riichi_ask_whether_one_is_red_and_one_tap_scores_it(
        serve, page, tmp_path, shot, width, answer, then):
    # a photo of a set without red fives (a Chinese set) scored under riichi, which plays them
    base = serve(RECOGNIZER=_row_of("123m456m345p555p99s"))
    photo = str(tmp_path / "hand.png")
    _photo(photo)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(base + "/")
    page.select_option("select[name=rules]", "riichi")
    page.check("input[name=win][value=self_drawn]")
    page.set_input_files("#photo-file", photo)
    page.wait_for_selector("#score .question")
    assert "Is one of these fives red?" in page.text_content("#score .question")
    assert "dead" not in page.text_content("#score").lower()
    assert page.locator("#score .win-choice").count() == 2
    _no_sideways_scroll(page, width, "the red five question")
    page.screenshot(path=shot(f"red-five-{width}"), full_page=True)
    choice = page.locator(f"#score .win-choice[data-red='{answer}']")
    assert then in choice.text_content()
    promised = int(choice.text_content().split(":")[-1].split()[-2])
    choice.click()
    sync_api.expect(page.locator("#score [data-points]")).to_have_text(str(promised))
    if answer == "none":
        assert not page.is_checked(".settings-fields [data-setting=red_fives]")
    else:
        assert page.locator("#hand .tile[data-tile='0p']").count() == 1
    assert page.js_errors == []


EVERY_FACE = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)] + \
    [f"{n}f" for n in range(1, 9)] + ["0m", "0p", "0s", "back"]


def test_every_surface_of_the_page_names_a_tile_as_the_rules_do(server, page):
    """The page's name (titles, questions), the photo overlay's label and the hand editor's
    tile drawing, for all 42 faces, the red fives and a back: rules.tiles' words, nothing else."""
    from mahjong_lens.rules.tiles import tile_face, tile_label, tile_name
    page.goto(server)
    shown = page.evaluate("""async (codes) => {
        const tiles = await import('/static/js/tiles.js');
        return codes.map((code) => {
            const drawn = tiles.tileElement(code);
            return [tiles.tileName(code), tiles.shortName(code), drawn.title,
                    drawn.querySelector('.face').textContent, drawn.querySelector('.sub').textContent];
        });
    }""", EVERY_FACE)
    for code, (name, label, title, face, word) in zip(EVERY_FACE, shown):
        assert (name, label, title) == (tile_name(code), tile_label(code), tile_name(code)), code
        assert (face, word) == (tile_face(code) if code != "back" else ("", "")), code


class SeatRecognizer:
    """Reads the hand of the seat whose grey the photo is: East a winning hand in one row (no
    tile set apart as the winning one), the others 13 tiles each."""

    HANDS = {10: "123m456p789s55z111z", 20: "22m345p777s666z19s", 30: "111p234s567m88p3z4z",
             40: "13579m2468p1359s"}

    def detect(self, image: np.ndarray) -> list[TileDetection]:
        tiles = parse_tiles(self.HANDS[int(image[5, 5, 0])])
        return [TileDetection(tile, (60.0 + 70 * k, 150.0, 126.0 + 70 * k, 240.0), 0.9, face_confidence=0.98)
                for k, tile in enumerate(tiles)]


@pytest.mark.parametrize("width", [390, 1280])
def test_a_seat_photo_of_a_win_is_settled_as_the_win_after_one_question(serve, page, tmp_path, shot, width):
    import cv2
    server = serve(RECOGNIZER=SeatRecognizer())
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(server + "/table")
    for grey, wind in zip((10, 20, 30, 40), "ESWN"):
        photo = str(tmp_path / f"{wind}.png")
        cv2.imwrite(photo, np.full((400, 1280, 3), grey, np.uint8))
        page.set_input_files(f"input[data-seat-photo={wind}]", photo)
        sync_api.expect(page.locator("#table-status")).to_contain_text("hand read")
    page.click("#table-settle")
    # nothing said how East won: the one question, in East's place, answered with one tap
    east = page.locator(".seat[data-seat=E]")
    sync_api.expect(east.locator(".question")).to_contain_text("Self-drawn or a discard?")
    page.screenshot(path=shot(f"table-question-{width}"), full_page=True)
    east.locator("button[data-way=self_drawn]").click()
    sync_api.expect(page.locator("#table-status")).to_contain_text("Settled")
    assert east.locator(".seat-result").text_content() == "960 points"  # a win, not a dead hand
    assert not page.locator("#table-outcome").is_hidden()
    page.screenshot(path=shot(f"table-settled-{width}"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.js_errors == []


@pytest.mark.parametrize("width", [390, 1280])
def test_live_asks_its_question_with_buttons_and_scores_a_still_hand_with_its_defaults(serve, page, shot, width):
    # a complete hand in one row: which tile won is not set apart, and the score depends on it
    base = serve(RECOGNIZER=RowRecognizer(), CAMERA=FakeCamera(), LIVE_INTERVAL=0.05)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(base + "/live")
    page.check("input[name=win][value=discard]")  # on a discard from South the tiles score apart
    page.click("#live-table")
    question = page.locator("#score .question")
    sync_api.expect(question).to_contain_text("Which tile completed the hand?", timeout=15000)
    page.screenshot(path=shot(f"live-question-{width}"), full_page=True)
    question.locator("button[data-win-tile='1z']").click()
    sync_api.expect(page.locator("#score [data-points]")).to_have_count(1)
    page.click("#live-stop")
    # a still hand with its winning tile set apart: scored with the page's defaults, no tap
    page.goto(serve(RECOGNIZER=FakeRecognizer(misread=False), CAMERA=FakeCamera(), LIVE_INTERVAL=0.05) + "/live")
    started = time.monotonic()
    page.click("#live-table")
    sync_api.expect(page.locator("#score [data-points]")).to_have_text("512", timeout=10000)
    assert time.monotonic() - started < 3.0
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.js_errors == []
