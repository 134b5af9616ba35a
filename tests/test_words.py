"""Every message the rules and the scan give is in a player's words: no tile notation ("5m",
"37f"), no field or setting names ("win_tile", "red_fives=false"), no "tile(s)" or the code's
own words ("arrangement", "shape", "payoff", "base points")."""
from __future__ import annotations

import random
import re

import pytest

from mahjong_lens.rules.generate import random_losing_hand, random_winning_hand
from mahjong_lens.rules.tiles import parse_tiles
from mahjong_lens.rules.win_tile import score_or_ask
from mahjong_lens.vision.detections import TileDetection
from mahjong_lens.vision.scan import scan_detections

NOTATION = re.compile(r"\b\d+[mpszf]\b")
CODE_WORDS = ("(s)", "arrangement", "shape", "payoff", "zung-jung", "base points", "total before", "_")
SETTING = re.compile(r"\w=\w")  # red_fives=false, as the command line writes a setting


def _variants(hand: dict) -> list[dict]:
    """A hand and what goes wrong with hands: no winning tile marked, a tile short, five of a
    tile, a flower, no word of how it was won."""
    tiles = hand["concealed"]
    return [hand, {**hand, "win_tile": None}, {**hand, "concealed": tiles[1:]},
            {**hand, "concealed": "1111" + tiles[-1] + tiles}, {**hand, "concealed": tiles + "1f"},
            {**hand, "self_drawn": False, "discarder": None}]


def _texts(answer: dict) -> list[str]:
    out = [answer.get("error") or "", answer.get("note") or "", *answer.get("facts", [])]
    out += [f"{line['name']} {line['value']}" for line in answer.get("breakdown", [])]
    return [text for text in out if text]


def _not_in_words(text: str) -> list[str]:
    found = [f"notation {m.group()}" for m in NOTATION.finditer(text)] + [m.group() for m in SETTING.finditer(text)]
    return found + [f"'{word}'" for word in CODE_WORDS if word in text]


@pytest.mark.parametrize("rules", ["rode-draak", "riichi", "wsom"])
def test_every_message_of_the_rules_is_in_words(rules):
    rng = random.Random(7)
    seen = 0
    for number in range(250):
        hand = (random_winning_hand if number % 2 else random_losing_hand)(rng).to_dict()
        for variant in _variants(hand):
            for text in _texts(score_or_ask(variant, rules)):
                seen += 1
                assert not _not_in_words(text), (text, _not_in_words(text))
    assert seen > 1000


def test_every_message_of_the_scan_is_in_words():
    rng = random.Random(11)
    seen = 0
    for number in range(120):
        hand = (random_winning_hand if number % 2 else random_losing_hand)(rng).to_dict()
        for variant in _variants(hand):
            try:
                tiles = parse_tiles(variant["concealed"])
            except ValueError:
                continue
            found = [TileDetection(tile, (20.0 + 50 * k, 100.0, 66.0 + 50 * k, 162.0), 0.9,
                                   face_confidence=0.6 if k == 2 else 0.99, alternatives=[("9p", 0.3)])
                     for k, tile in enumerate(tiles)]
            context = {"self_drawn": True} if variant.get("win_tile") else {}
            for rules in ("rode-draak", "riichi", "wsom"):
                scan = scan_detections(found, 60 * len(tiles) + 40, 260, context, rules)
                texts = [scan.error or "", *scan.problems]
                for entry in scan.hands:
                    texts += [entry.error or "", *entry.problems, *_texts(entry.result or {})]
                for text in filter(None, texts):
                    seen += 1
                    assert not _not_in_words(text), (text, _not_in_words(text))
    assert seen > 300
