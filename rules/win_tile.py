"""Which tile won: a hand said to be won whose winning tile is not marked.

A photo of a complete hand often lays the winning tile in the row with the others.  The hand
is not dead for that: every tile of the concealed hand could have completed it, so each one is
scored as the winning tile; where they all give the same score that is the score, otherwise
the player is asked, with the candidates ranked by their scores.  The page, the API, `score`
and `scan` all ask through here.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .words import plural
from .decompose import hand_waits
from .hand import Hand, HandError, Meld, SetType, expected_tile_count, hand_from_dict
from .registry import OptionError, make_settings, rule_set, score
from .result import Result, invalid
from .tiles import SUIT_NAMES, WIND_NAMES, WINDS, four_plain_fives, is_bonus, plain, sort_key, tile_name

# the keys of a question's candidates, whichever the question (the scan copies them through)
CANDIDATE_KEYS = ("win_candidates", "kong_candidates", "way_candidates", "red_candidates")


@dataclass(frozen=True)
class WinCandidate:
    """One tile as the winning tile, and the hand's result with it."""

    tile: str
    result: Result

    def to_dict(self) -> dict[str, Any]:
        return {"tile": self.tile, "name": tile_name(self.tile), "points": self.result.points,
                "valid": self.result.valid, "error": self.result.error or None}


def as_hand(hand: Hand | Mapping[str, Any]) -> Hand:
    """The hand, parsed once where it came as JSON (every trial below is a Hand changed with
    dataclasses.replace, not a dict parsed again). Raises HandError."""
    return hand if isinstance(hand, Hand) else hand_from_dict(hand)


def _tiles_short_of_a_win(hand: Hand) -> int:
    """How many tiles the hand lacks of a winning hand's count (0: complete, -1: one too many),
    flowers and seasons aside."""
    playing = [t for t in hand.all_tiles if not is_bonus(t)]
    return expected_tile_count(hand, winning=True) - len(playing)


def _won_tiles_short(hand: Hand) -> int | None:
    """For a hand said to be won (self-drawn, or a discarder named): how many tiles it lacks
    of a winning hand (0: complete, -1: one too many); None for a hand not said to be won."""
    if not (hand.self_drawn or hand.discarder is not None):
        return None
    return _tiles_short_of_a_win(hand)


def _short_of_a_win(hand: Hand | Mapping[str, Any]) -> int | None:
    """How many tiles a hand said to be won, with no winning tile marked, lacks of a win."""
    try:
        hand = as_hand(hand)
    except HandError:
        return None
    return _won_tiles_short(hand) if hand.win_tile is None else None


def lacks_win_tile(hand: Hand | Mapping[str, Any]) -> bool:
    """True for a hand said to be won that holds a winning hand's number of tiles but marks
    no winning tile."""
    return _short_of_a_win(hand) == 0


def lacks_a_tile(hand: Hand | Mapping[str, Any]) -> bool:
    """True for a hand said to be won that is one tile short: the winning tile is not in the
    photo (hidden, cut off, or not yet laid down)."""
    return _short_of_a_win(hand) == 1


def _question(rules: str, kind: str, error: str, **candidates: Any) -> dict[str, Any]:
    """The answer that asks instead of scoring: a result that is no score (valid false, a
    winning hand) with the question, its sentence, and the candidates, each scored."""
    return invalid(rules, error, winning=True, question=kind, **candidates).to_dict()


def win_candidates(hand: Hand | Mapping[str, Any], rules: str, options: Mapping[str, Any] | None = None
                   ) -> list[WinCandidate]:
    """Each distinct concealed tile as the winning tile, scored: valid results first, the
    highest score first, then in tile order."""
    hand = as_hand(hand)
    candidates = []
    for tile in sorted(dict.fromkeys(hand.concealed), key=sort_key):
        if is_bonus(tile):
            continue
        candidates.append(WinCandidate(tile, score(replace(hand, win_tile=tile), rules, dict(options or {}))))
    return sorted(candidates, key=lambda c: (not c.result.valid, -c.result.points, sort_key(c.tile)))


def _by_points(candidates: list[WinCandidate]) -> str:
    """'120 points with 10 of the tiles, 104 with the East': the scores, highest first."""
    groups: dict[int, list[str]] = {}
    for c in candidates:
        groups.setdefault(c.result.points, []).append(tile_name(c.tile))
    parts = []
    for k, (points, names) in enumerate(sorted(groups.items(), reverse=True)):
        which = " or ".join(f"the {n}" for n in names) if len(names) <= 3 else f"{len(names)} of the tiles"
        parts.append(f"{points}{' points' if k == 0 else ''} with {which}")
    return ", ".join(parts)


def _waits(candidates: list[WinCandidate]) -> str:
    """'the East (960 points) or the White dragon (512)'; many waits: their number and range."""
    if len(candidates) > 4:
        points = [c.result.points for c in candidates]
        return f"{len(candidates)} tiles ({min(points)}-{max(points)} points)"
    named = [f"the {tile_name(c.tile)} ({c.result.points}{' points' if k == 0 else ''})"
             for k, c in enumerate(candidates)]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " or " + named[-1]


def score_or_ask(hand: Hand | Mapping[str, Any], rules: str, options: Mapping[str, Any] | None = None
                 ) -> dict[str, Any]:
    """The result (as JSON) of a hand, asking for the winning tile only when that changes the
    score: {"question": "win_tile", "win_candidates": [...], ...} then."""
    try:
        hand = as_hand(hand)  # parsed once; every trial below is this hand changed
    except HandError:
        return score(hand, rules, dict(options or {})).to_dict()  # the scorer says why, in words
    answer = ask_red_five(hand, rules, options)
    if answer is not None:
        return answer
    short = _won_tiles_short(hand)
    marked = hand.win_tile is not None
    if short == 0 and not marked:
        return ask_win_tile(hand, rules, options)
    if short == 1 and not marked:
        answer = ask_missing_tile(hand, rules, options)
    elif short == -1:
        answer = ask_kong_in_row(hand, rules, options)
    if answer is not None:
        return answer
    if short and not marked:  # said to be won, no winning tile marked, and not a winning hand's tile count
        expected = expected_tile_count(hand, winning=True)
        advice = ("a tile may be missing from the hand: add it" if short > 0 else
                  "remove the tiles that are not part of the hand (or lay a kong apart)")
        why = f"{expected - short} tiles, but a winning hand with {plural(hand.kong_count, 'kong')} has {expected}"
        return ask_not_won(hand, rules, options, why) or invalid(rules, f"{why}: {advice}", winning=True).to_dict()
    if not marked:  # how a hand was won means nothing without the win
        hand = replace(hand, self_drawn=False, discarder=None)
    return score(hand, rules, dict(options or {})).to_dict()


def _best(answer: dict[str, Any]) -> tuple[int, str | None] | None:
    """What an answer of score_or_ask / ask_win_tile makes of a hand as a win: its points and
    None, or where the winning tile is still asked, the best candidate's points and that
    question; None where it is no win."""
    if answer.get("valid") and answer.get("winning"):
        return answer["points"], None
    if answer.get("win_candidates"):
        return max(c["points"] for c in answer["win_candidates"]), answer["question"]
    return None


def _with_one_red(hand: Hand, suit: str) -> Hand:
    """The hand with one plain five of `suit` read as its red five: a concealed one that is not
    the winning tile where there is one, else one in a meld."""
    five, red = f"5{suit}", f"0{suit}"
    concealed = list(hand.concealed)
    spare = [k for k, t in enumerate(concealed) if t == five]
    if hand.win_tile == five:
        spare = spare[:-1]  # one of them stays the winning tile
    if spare:
        concealed[spare[0]] = red
        return replace(hand, concealed=tuple(concealed))
    melds = list(hand.melds)
    for k, meld in enumerate(melds):
        if five in meld.tiles:
            tiles = list(meld.tiles)
            tiles[tiles.index(five)] = red
            melds[k] = replace(meld, tiles=tuple(tiles))
            return replace(hand, melds=tuple(melds))
    # the winning tile is the only plain five in the hand's concealed tiles and no meld holds one
    concealed[concealed.index(five)] = red
    return replace(hand, concealed=tuple(concealed), win_tile=red)


def ask_red_five(hand: Hand | Mapping[str, Any], rules: str, options: Mapping[str, Any] | None = None
                 ) -> dict[str, Any] | None:
    """Four plain fives of a suit, where the rules play one red five a suit (riichi's
    ``red_fives``): one of them is the red one (read as plain), or the set has no red fives.
    Both scored (or, where the winning tile is still to be chosen, their best score), as a
    question ("red_five"); None where the rules play no red fives or no suit has four plain
    fives.  A photo of a set without red fives (most Chinese and Western sets) shows this."""
    hand = as_hand(hand)
    suits = four_plain_fives(hand.all_tiles)
    if not suits:  # first, as it is cheap: score_or_ask asks this of every hand it scores
        return None
    try:
        settings = make_settings(rules, dict(options or {}))
    except OptionError:
        return None  # the scorer says what is wrong with the options
    if not getattr(settings, "red_fives", False):
        return None
    candidates = []
    for suit in suits:
        best = _best(score_or_ask(_with_one_red(hand, suit), rules, options))
        candidates.append({"answer": "red", "tile": f"0{suit}", "name": tile_name(f"0{suit}"),
                           "points": best[0] if best else None, "then": best[1] if best else None})
    best = _best(score_or_ask(hand, rules, {**dict(options or {}), "red_fives": False}))
    candidates.append({"answer": "no_red_fives", "tile": None, "name": "no red fives",
                       "points": best[0] if best else None, "then": best[1] if best else None})
    if all(c["points"] is None for c in candidates):
        return None  # no win either way: the scorer's own reason says more
    fives = " and ".join(f"four plain fives of {SUIT_NAMES[suit]}" for suit in suits)
    return _question(rules, "red_five", f"{fives}: with red fives each suit has one red five. Is one of them "
                                        "red, or has this set no red fives?", red_candidates=candidates)


def ask_kong_in_row(hand: Hand | Mapping[str, Any], rules: str, options: Mapping[str, Any] | None = None
                    ) -> dict[str, Any] | None:
    """A won hand one tile too many that holds four alike among its concealed tiles: a kong
    laid in the row instead of set apart.  Each such four as a concealed or an open kong,
    scored (or, where the winning tile is still to be chosen, its best score), as a question
    ("kong_in_row"); None when no four makes the hand score."""
    hand = as_hand(hand)
    copies: dict[str, list[str]] = {}
    for tile in hand.concealed:
        copies.setdefault(plain(tile), []).append(tile)
    candidates = []
    for kind, four in sorted(copies.items(), key=lambda item: sort_key(item[0])):
        if len(four) != 4:
            continue
        rest = list(hand.concealed)
        for tile in four:
            rest.remove(tile)
        for is_open in (False, True):
            trial = replace(hand, concealed=tuple(rest), melds=(*hand.melds, Meld(SetType.KONG, tuple(four), is_open)))
            if hand.win_tile is not None and plain(hand.win_tile) == kind:  # no win completes a kong: the
                trial = replace(trial, win_tile=None)                        # four were a kong, the winning tile another
            best = _best(score_or_ask(trial, rules, options))
            if best is None:
                continue
            points, then = best
            candidates.append({"tile": kind, "name": tile_name(kind), "open": is_open, "points": points,
                               "then": then})
    if not candidates:
        return None
    candidates.sort(key=lambda c: (-c["points"], sort_key(c["tile"]), c["open"]))
    words = ", ".join(f"{'an open' if c['open'] else 'a concealed'} kong of the {c['name']} "
                      f"{'up to ' if c['then'] else ''}{c['points']}" for c in candidates)
    return _question(rules, "kong_in_row", f"one tile too many for a winning hand, and four alike lie in "
                                           f"the row: a kong not set apart? ({words} points)",
                     kong_candidates=candidates)


def ask_win_way(hand: Hand | Mapping[str, Any], rules: str, options: Mapping[str, Any] | None = None
                ) -> dict[str, Any]:
    """A hand won that says neither self-drawn nor who discarded: both ways scored (the
    discard from the player before the winner: only who pays depends on who it was; without a
    winning tile, each way asks for it too, ``ask_win_tile``). Where both ways give one score,
    that is the answer (a note says so, ``way_taken`` which way was taken); where neither wins,
    the rules' answer; else the question "win_way", each way with its score (None: no win
    that way; ``then``: which tile won is asked next). Nothing is guessed: a hand that wins
    only one way is asked about too, as a referee would."""
    hand = as_hand(hand)
    before = WINDS[(WINDS.index(hand.seat_wind) - 1) % 4]  # play runs E, S, W, N: who discards to the winner
    taken = {"self_drawn": {"self_drawn": True, "discarder": None},
             "discard": {"self_drawn": False, "discarder": before}}
    ways = {way: (score(replace(hand, **taken[way]), rules, dict(options or {})).to_dict() if hand.win_tile
                  else ask_win_tile(replace(hand, **taken[way]), rules, options)) for way in taken}
    bests = {way: _best(answer) for way, answer in ways.items()}
    points = {way: best[0] if best else None for way, best in bests.items()}
    then = {way: best[1] if best else None for way, best in bests.items()}
    drawn, discard = ways["self_drawn"], ways["discard"]
    if all(value is None for value in points.values()):
        return drawn
    if drawn.get("valid") and discard.get("valid") and drawn["points"] == discard["points"]:
        # the score is the same either way: that is the answer; only who pays may differ
        answer = dict(drawn)
        answer["way_taken"] = taken["self_drawn"]
        if drawn["payments"] == discard["payments"]:
            answer["note"] = "how the hand was won was not said; self-drawn or a discard score alike"
        else:
            pays = ", ".join(f"{WIND_NAMES[seat]} {-amount}" for seat, amount in discard["payments"].items()
                             if amount < 0)
            answer["note"] = (f"{drawn['points']} points self-drawn or on a discard; the payments shown are "
                              f"for self-drawn (on a discard from {WIND_NAMES[before]}: {pays} pay)")
            answer["discard_payments"] = discard["payments"]
        return answer
    words = {way: "no win" if points[way] is None else
             f"{'up to ' if then[way] else ''}{points[way]}{' points' if way == 'self_drawn' else ''}"
             for way in ways}
    return _question(rules, "win_way", f"self-drawn or a discard? The score depends on it ({words['self_drawn']} "
                                       f"self-drawn, {words['discard']} on a discard, e.g. from "
                                       f"{WIND_NAMES[before]})",
                     way_candidates=[{"way": "self_drawn", "points": points["self_drawn"], "then": then["self_drawn"]},
                                     {"way": "discard", "discarder": before, "points": points["discard"],
                                      "then": then["discard"]}])


def ask_missing_tile(hand: Hand | Mapping[str, Any], rules: str, options: Mapping[str, Any] | None = None
                     ) -> dict[str, Any] | None:
    """A won hand one tile short, its winning tile not in view: the tiles it waits on, each
    scored as the winning tile, as a question ("missing_win_tile"); None when it waits on
    none (then it is not one tile from a win)."""
    hand = as_hand(hand)
    candidates = []
    for tile in hand_waits(replace(hand, win_tile=None)):
        trial = replace(hand, concealed=(*hand.concealed, tile), win_tile=tile)
        candidates.append(WinCandidate(tile, score(trial, rules, dict(options or {}))))
    valid = sorted((c for c in candidates if c.result.valid),
                   key=lambda c: (-c.result.points, sort_key(c.tile)))
    if not valid:
        return None
    return _question(rules, "missing_win_tile", "the winning tile is not among the tiles read (hidden, or "
                     f"cut off at the edge); the hand waits on {_waits(valid)}: which one completed it?",
                     win_candidates=[c.to_dict() for c in valid])


def ask_win_tile(hand: Hand | Mapping[str, Any], rules: str, options: Mapping[str, Any] | None = None
                 ) -> dict[str, Any]:
    """A won hand with no winning tile marked: the score when every candidate gives the same
    (``win_tile_taken`` and a ``note`` say which was taken), else the question."""
    hand = as_hand(hand)
    candidates = win_candidates(hand, rules, options)
    valid = [c for c in candidates if c.result.valid]
    if valid and len({c.result.points for c in valid}) == 1:
        chosen = valid[0]
        answer = chosen.result.to_dict()
        answer["note"] = (f"no winning tile was marked; every tile that could have completed the "
                          f"hand gives {chosen.result.points} points, so the "
                          f"{tile_name(chosen.tile)} was taken")
        answer["win_tile_taken"] = chosen.tile
        return answer
    if not valid:
        answer = candidates[0].result.to_dict() if candidates else score(hand, rules).to_dict()
        if candidates:
            answer["win_tile_taken"] = candidates[0].tile
        answer["error"] = ("no winning tile was marked, and the hand does not score with any of its "
                           f"tiles as the winning tile: {answer.get('error') or 'it is not complete'}")
        return answer
    return _question(rules, "win_tile", f"which tile completed the hand? The score depends on it "
                                        f"({_by_points(valid)})",
                     win_candidates=[c.to_dict() for c in valid])


def ask_not_won(hand: Hand | Mapping[str, Any], rules: str, options: Mapping[str, Any] | None = None,
                why: str = "these tiles are no winning hand") -> dict[str, Any] | None:
    """A hand said to be won whose tiles cannot be a win (the wrong number of them, and no tile
    that completes them), under rules that score every hand (Rode Draak): perhaps it did not
    win. Scored as a hand that did not win, and asked ("not_won", one way: "none"); None
    under rules that score only a win, or where the hand is no live hand as a loser either."""
    if not rule_set(rules).scores_every_hand:
        return None
    hand = as_hand(hand)
    lost = score(replace(hand, win_tile=None, self_drawn=False, discarder=None), rules, dict(options or {}))
    if not lost.valid or lost.extra.get("dead"):  # a dead hand is no answer: a tile is more likely missed
        return None
    return _question(rules, "not_won", f"{why}: did the hand not win? As a hand that did not win it scores "
                                       f"{lost.points} points",
                     way_candidates=[{"way": "none", "points": lost.points}])


def ask_table(table: Mapping[str, Any], rules: str = "rode-draak", options: Mapping[str, Any] | None = None
              ) -> dict[str, Any] | None:
    """What a table's four hands leave open before they can be settled, for the seat it
    concerns (``seat``): the hand that holds a winning hand's tiles with no winning tile marked
    (a seat's photo of the winner, its tiles in one row). Which tile won, and how, where its hand
    says neither self-drawn nor a discard: each answer scored (a question), or the score where
    they all agree (``win_tile_taken``, ``way_taken``). None when nothing is open: the winner's
    tile is marked, or no hand is a winner's."""
    prevalent = table.get("prevalent_wind") or "E"
    for seat, data in (table.get("hands") or {}).items():
        if not isinstance(data, Mapping) or data.get("win_tile"):
            continue
        try:
            hand = as_hand({**data, "seat_wind": seat, "prevalent_wind": prevalent})
        except HandError:  # the settlement says what is wrong with it
            continue
        if _tiles_short_of_a_win(hand) != 0:
            continue
        said = hand.self_drawn or hand.discarder is not None
        answer = ask_win_tile(hand, rules, options) if said else ask_win_way(hand, rules, options)
        return {**answer, "seat": seat}
    return None
