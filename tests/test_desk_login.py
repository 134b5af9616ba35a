"""Who may write: served beyond this computer, a change of the records from another machine
needs the desk's login; scoring a photo and reading the standings stay open."""
from __future__ import annotations

import pytest

from mahjong_lens.webui import create_app

LAN = {"REMOTE_ADDR": "192.168.1.20"}
EIGHT = ["Anna", "Bart", "Cor", "Dirk", "Eva", "Fleur", "Gijs", "Hans"]
HAND = {"concealed": "123m456p789s555z11z", "win_tile": "1z", "self_drawn": True}


@pytest.fixture()
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "desk.db"), "DESK_PASSWORD": "red dragon 7",
                      "SERVER_HOST": "0.0.0.0"})
    yield app
    app.extensions["mahjong_lens"].close()


def _tournament(client, **kwargs):
    return client.post("/api/tournaments", json={"name": "Club", "players": EIGHT, "rounds": 1, "seed": 1},
                       **kwargs)


def test_writes_from_another_machine_need_the_login_and_work_with_it(app):
    client = app.test_client()
    refused = _tournament(client, environ_base=LAN)
    assert refused.status_code == 401 and "/login" in refused.get_json()["error"]
    assert client.post("/tournament", data={"name": "Club", "players": "\n".join(EIGHT), "rounds": "1"},
                       environ_base=LAN).status_code == 401
    assert client.post("/api/referee", json={"hand": HAND, "claimed_points": 512}, environ_base=LAN).status_code == 401
    # reading and scoring stay open
    assert client.post("/api/score", json={"hand": HAND}, environ_base=LAN).status_code == 200
    assert client.get("/tournament", environ_base=LAN).status_code == 200
    # a wrong password, then the desk's
    wrong = client.post("/login", data={"password": "guess", "next": "/tournament"}, environ_base=LAN)
    assert wrong.status_code == 401 and "That is not the desk" in wrong.text
    logged = client.post("/login", data={"password": "red dragon 7", "next": "/tournament"}, environ_base=LAN)
    assert logged.status_code == 303 and logged.headers["Location"].endswith("/tournament")
    assert "Logged in as the desk" in client.get("/tournament", environ_base=LAN).text
    assert _tournament(client, environ_base=LAN).status_code == 201
    client.post("/logout", environ_base=LAN)
    assert _tournament(client, environ_base=LAN).status_code == 401


def test_the_desks_own_computer_writes_without_a_login(app):
    assert _tournament(app.test_client()).status_code == 201  # from 127.0.0.1


def test_without_a_password_no_other_machine_writes(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "desk.db")})
    answer = _tournament(app.test_client(), environ_base=LAN)
    assert answer.status_code == 403 and "--password" in answer.get_json()["error"]
    app.extensions["mahjong_lens"].close()


def test_the_password_is_kept_hashed_and_the_next_page_is_this_sites(app):
    assert "DESK_PASSWORD" not in app.config and "red dragon 7" not in str(app.config["DESK_PASSWORD_HASH"])
    client = app.test_client()
    answer = client.post("/login", data={"password": "red dragon 7", "next": "https://evil.example/"},
                         environ_base=LAN)
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/tournament")
