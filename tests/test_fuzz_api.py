"""Random and malformed JSON bodies over every JSON route: each answers 4xx with a sentence, or
a 2xx, never a 500 (bounded: a fixed seed and count, a few seconds)."""
from __future__ import annotations

import json
import random

import pytest

from mahjong_lens.webui import create_app

ROUTES = [("POST", "/api/score"), ("POST", "/api/table"), ("POST", "/api/referee"),
          ("POST", "/api/tournaments"), ("POST", "/api/tournaments/1/slips"),
          ("PUT", "/api/tournaments/1/slips/1"), ("POST", "/api/tile-sets/x/teach")]
KEYS = ["hand", "concealed", "melds", "win_tile", "rules", "options", "hands", "prevalent_wind", "claimed_points",
        "claimed_breakdown", "name", "players", "rounds", "seed", "round", "table", "points", "mahjong", "remise",
        "dead", "version", "self_drawn", "discarder", "seat_wind", "situation", "E", "S", "type", "tiles", "open"]
ODD = [0, -1, 2 ** 63, 10 ** 30, -10 ** 30, 1e308, -0.0, 3.5, True, False, None, "", " ", "x", "--2", "²", "1" * 5000,
       "123m456p789s555z11z", "1z", "11111m", "E", "Q", "rode-draak", "riichi", "wsom", "pung", "kong", "<script>",
       "=1+1", "\u202e", "A" * 100]


def _value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 3 or roll < 0.5:
        return rng.choice(ODD)
    if roll < 0.75:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randint(0, 6))}


@pytest.fixture()
def app(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "fuzz.db")})
    client = app.test_client()
    created = client.post("/api/tournaments", json={"name": "Club", "players": list("ABCDEFGH"), "rounds": 1,
                                                    "seed": 1})
    assert created.status_code == 201
    yield app
    app.extensions["mahjong_lens"].close()


def test_random_bodies_over_every_json_route_never_give_a_500(app):
    rng = random.Random(2026)
    client = app.test_client()
    for number in range(4200):
        method, path = ROUTES[number % len(ROUTES)]
        value = _value(rng) if number % 5 else {rng.choice(KEYS): _value(rng) for _ in range(4)}
        body = json.dumps(value) if number % 11 else json.dumps(value)[: rng.randint(0, 40)]  # cut short too
        answer = client.open(path, method=method, data=body, content_type="application/json")
        assert answer.status_code < 500, (path, body[:300], answer.get_data(as_text=True)[:300])
        if answer.status_code >= 400:
            assert answer.get_json()["error"], (path, body[:300])
