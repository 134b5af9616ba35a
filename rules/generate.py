"""Random legal hands, for property tests, differential tests and benchmarks."""
from __future__ import annotations

import random
from collections import Counter

from .hand import Hand, Meld, SetType, Situation
from .tiles import WINDS, kind_tile

_SUITED = [k for k in range(27)]


def _take(pool: Counter, kinds: list[int]) -> bool:
    need = Counter(kinds)
    if any(pool[k] < n for k, n in need.items()):
        return False
    pool.subtract(need)
    return True


def _codes(kinds: list[int], red_fives: set[str], rng: random.Random, red_rate: float) -> tuple[str, ...]:
    """Tile codes for kinds, turning some fives red (at most one per suit)."""
    out = []
    for k in kinds:
        tile = kind_tile(k)
        if tile[0] == "5" and tile[1] in "mps" and tile[1] not in red_fives and rng.random() < red_rate:
            red_fives.add(tile[1])
            tile = "0" + tile[1]
        out.append(tile)
    return tuple(out)


def random_winning_hand(rng: random.Random, meld_rate: float = 0.3, kong_rate: float = 0.1,
                        red_rate: float = 0.0, honour_rate: float = 0.3,
                        seven_pairs_rate: float = 0.05) -> Hand:
    """A random complete, legal winning hand with random context."""
    pool = Counter({k: 4 for k in range(34)})
    red: set[str] = set()
    seat, prevalent = rng.choice(WINDS), rng.choice(WINDS)
    self_drawn = rng.random() < 0.5
    if rng.random() < seven_pairs_rate:
        kinds = rng.sample(range(34), 7)
        concealed = list(_codes(sorted(kinds * 2), red, rng, red_rate))
        melds: list[Meld] = []
    else:
        concealed, melds = [], []
        while len(melds) * 3 + len(concealed) < 12:
            honours = rng.random() < honour_rate
            if not honours and rng.random() < 0.5:
                first = rng.choice([k for k in _SUITED if k % 9 <= 6])
                kinds, set_type = [first, first + 1, first + 2], SetType.CHOW
            else:
                k = rng.randrange(27, 34) if honours else rng.choice(_SUITED)
                is_kong = rng.random() < kong_rate
                kinds, set_type = [k] * (4 if is_kong else 3), SetType.KONG if is_kong else SetType.PUNG
            if not _take(pool, kinds):
                continue
            tiles = _codes(kinds, red, rng, red_rate)
            if set_type == SetType.KONG:
                melds.append(Meld(SetType.KONG, tiles, open=rng.random() < 0.5))
            elif rng.random() < meld_rate:
                melds.append(Meld(set_type, tiles, open=True))
            else:
                concealed.extend(tiles)
        while True:
            k = rng.randrange(34)
            if _take(pool, [k, k]):
                concealed.extend(_codes([k, k], red, rng, red_rate))
                break
    if red_rate > 0:  # with red fives in play, a suit's four fives include its red one
        concealed, melds = _redden_fourth_fives(concealed, melds)
    win_tile = rng.choice(concealed)
    discarder = None if self_drawn else rng.choice([w for w in WINDS if w != seat])
    indicators, wanted = [], rng.choice([1, 1, 1, 2])  # wall tiles: copies the hand does not hold
    while len(indicators) < wanted:
        k = rng.randrange(34)
        if _take(pool, [k]):
            indicators.append(kind_tile(k))
    indicators = tuple(indicators)
    return Hand(concealed=tuple(concealed), melds=tuple(melds), win_tile=win_tile,
                self_drawn=self_drawn, discarder=discarder, seat_wind=seat,
                prevalent_wind=prevalent, dora_indicators=indicators, situation=Situation())


def _redden_fourth_fives(concealed: list[str], melds: list[Meld]) -> tuple[list[str], list[Meld]]:
    for suit_letter in "mps":
        five, red = f"5{suit_letter}", f"0{suit_letter}"
        held = concealed + [t for m in melds for t in m.tiles]
        if held.count(five) == 4:
            if five in concealed:
                concealed[concealed.index(five)] = red
            else:
                meld = next(m for m in melds if five in m.tiles)
                tiles = list(meld.tiles)
                tiles[tiles.index(five)] = red
                melds[melds.index(meld)] = Meld(meld.type, tuple(tiles), meld.open)
    return concealed, melds


def random_losing_hand(rng: random.Random, meld_rate: float = 0.3) -> Hand:
    """A legal 13-tile (+ kongs) hand that did not win: a winning hand less its win tile."""
    hand = random_winning_hand(rng, meld_rate=meld_rate)
    concealed = list(hand.concealed)
    concealed.remove(hand.win_tile)
    return Hand(concealed=tuple(concealed), melds=hand.melds, seat_wind=hand.seat_wind,
                prevalent_wind=hand.prevalent_wind)
