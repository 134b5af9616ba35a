"""Photo -> tiles -> hand(s) -> score.

``scan_image`` reads the tiles of a decoded photo (vision.image_input) with a recogniser,
lays them out (vision.layout) and scores each hand found (rules), into a ScanResult
(vision.scan_result; JSON, the scan format of ../shared/spec/hand-format.md, only at the
edges through its to_dict); vision.drawing draws the reading on the photo, and ``mahjong-lens scan`` (mahjong_lens.scan_command) is the
command line over these.

When the photo does not give a complete hand the scan says exactly what is
wrong, and which tiles are doubtful, instead of guessing.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any, Sequence

import numpy as np

from mahjong_lens.rules.words import plural, plural_word
from mahjong_lens.rules.context import CONTEXT_FIELDS, unknown_fields
from mahjong_lens.rules.hand import HandError, hand_from_dict
from mahjong_lens.rules.registry import rule_set, score
from mahjong_lens.rules.tiles import WINDS, format_tiles, plain, tile_name
from mahjong_lens.rules.win_tile import (ask_kong_in_row, ask_missing_tile, ask_not_won, ask_red_five, ask_win_tile,
                                          ask_win_way)

from .detections import Recognizer, TileDetection
from .image_input import ScanError, _on_white
from .layout import DOUBTFUL_FACE, HandLayout, Layout, copies_problem, find_layout
from .scan_result import ScannedHand, ScannedTile, ScanResult

# what a scan's context may hold beyond the hand's context (rules.context.CONTEXT_FIELDS)
PHOTO_KEYS = ("dora_region", "seats", "min_confidence", "min_face_confidence")


# --------------------------------------------------------------------------- scanning

def scan_image(image: np.ndarray, recognizer: Recognizer, context: dict | None = None,
               rules: str = "rode-draak", options: dict | None = None, name: str = "image") -> ScanResult:
    """Read, lay out and score the hand(s) in a BGR image."""
    import cv2
    if image.ndim == 2:  # callers that skipped decode_image: grey or BGRA arrays read too
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = _on_white(image[:, :, :3], image[:, :, 3])
    detections = recognizer.detect(image)
    height, width = image.shape[:2]
    return scan_detections(detections, width, height, context, rules, options, name)


def scan_detections(detections: Sequence[TileDetection], width: int, height: int,
                    context: dict | None = None, rules: str = "rode-draak", options: dict | None = None,
                    name: str = "image") -> ScanResult:
    """The scan of a photo whose tiles were already read (scan_image without the model)."""
    context = dict(context or {})
    unknown = unknown_fields(context, PHOTO_KEYS)
    if unknown:
        raise ScanError(f"unknown context {plural_word(len(unknown), 'field')}: {', '.join(unknown)} "
                        f"(known: {', '.join(CONTEXT_FIELDS + PHOTO_KEYS)})")
    detections = list(detections)
    layout = find_layout(detections, win_tile=context.get("win_tile"), dora_region=context.get("dora_region"),
                         min_confidence=float(context.get("min_confidence", 0.5)),
                         min_face_confidence=float(context.get("min_face_confidence", DOUBTFUL_FACE)))
    reread = layout.rereadings()
    scan = ScanResult(image=name, width=int(width), height=int(height), rules=rules,
                      tiles=[ScannedTile(d, *layout.role(i), sideways=i in layout.sideways,
                                         doubtful=i in layout.doubtful, reread=reread.get(i))
                             for i, d in enumerate(detections)],
                      dora_indicators=_dora(context, layout))
    if not detections:
        scan.error = "no tiles were found in the photo"
        return scan
    doubtful = list(layout.doubtful)
    problems = list(layout.problems)
    if not layout.hands:
        scan.doubtful, scan.problems = doubtful, problems
        scan.error = (f"{plural(len(detections), 'tile')} {'was' if len(detections) == 1 else 'were'} found, but no hand laid out in a row "
                      f"(a hand is a row of at least 5 tiles)")
        return scan

    # five copies of a tile anywhere on the table (hands and dora indicators) is a misreading
    in_play = {i for hand in layout.hands for i in hand.indices} | set(layout.dora_indices)
    copies = copies_problem([(i, detections[i].tile) for i in sorted(in_play)])
    if copies:
        doubtful.extend(i for i in copies[1] if i not in doubtful)
    seats = _seats(context, len(layout.hands))
    winner = _winner(layout.hands, context, rules)
    several = len(layout.hands) > 1
    for number, hand in enumerate(layout.hands):
        is_winner = number == winner if several else True
        hand_context = _hand_context(context, seats[number], scan.dora_indicators, is_winner, several)
        scanned = _score_hand(hand, hand_context, rules, options,
                              needs_win=_needs_win(context, rules) and (not several or is_winner))
        if copies and any(i in hand.indices for i in copies[1]):
            scanned.unscored(copies[0])
        if hand.flowers:
            scanned.flowers = [detections[i].tile for i in hand.flowers]
            scanned.problems.append(f"flowers and seasons beside the hand "
                                    f"({', '.join(tile_name(t) for t in scanned.flowers)}) are not counted "
                                    f"by {rule_set(rules).title}")
        scanned.seat, scanned.tiles, scanned.direction = seats[number], hand.indices, hand.direction
        if scanned.hand and scanned.hand.get("win_tile"):  # given, or taken among equal candidates
            scanned.reading["win_tile"] = scanned.hand["win_tile"]
        for i in (i for i in hand.indices if i in layout.doubtful and i not in reread):  # re-read: said
            d = detections[i]
            alt = f" (perhaps the {tile_name(d.alternatives[0][0])})" if d.alternatives else ""
            scanned.problems.append(f"a tile was read as the {tile_name(d.tile)}, {d.face_sureness:.0%} "
                                    f"sure{alt}: check that tile (marked on the photo)")
        scan.hands.append(scanned)
    for scanned in scan.hands:
        problems.extend(p for p in scanned.problems if p not in problems)
    if copies and copies[0] not in problems:
        problems.insert(0, copies[0])
    scan.doubtful, scan.problems = sorted(set(doubtful)), problems
    if several and all(h.error is not None for h in scan.hands):
        scan.error = f"none of the {len(scan.hands)} hands found could be scored"
    if len(scan.hands) == 4 and rule_set(rules).settle_table is not None:
        scan.table = _settle(scan.hands, context, rules, options)
    return scan


def _dora(context: dict, layout: Layout) -> list[str]:
    if context.get("dora_indicators") is not None:
        given = context["dora_indicators"]
        return [given] if isinstance(given, str) else list(given)
    return list(layout.dora_indicators)


def _seats(context: dict, count: int) -> list[str]:
    """Seat winds of the hands in the layout's order (from the bottom, counter-clockwise)."""
    given = context.get("seats")
    if given:
        seats = list(given)
        if len(seats) < count or any(s not in WINDS for s in seats):
            raise ScanError(f"seats must give one wind (E S W N) per hand; {count} hands were found")
        return seats[:count]
    first = context.get("seat_wind") or "E"
    if first not in WINDS:
        raise ScanError(f"seat_wind must be one of E, S, W, N (got {first!r})")
    start = WINDS.index(first)
    return [WINDS[(start + k) % 4] for k in range(count)]


def _needs_win(context: dict, rules: str) -> bool:
    """Whether the hand must be a winning one: the context says it won, or the rules score only winners."""
    return bool(context.get("self_drawn") or context.get("discarder") or context.get("win_tile")) \
        or not rule_set(rules).scores_every_hand


def _winner(hands: list[HandLayout], context: dict, rules: str) -> int | None:
    """The hand that won: the one with a tile set apart or the tile count of a win."""
    if len(hands) == 1:
        return 0
    full = [k for k, h in enumerate(hands) if h.tile_count == 14 + h.kong_count]
    if len(full) == 1:
        return full[0]
    apart = [k for k in full if hands[k].win_index is not None]
    if len(apart) == 1:
        return apart[0]
    if not full:  # one tile over a win, four alike in the row: a winner's kong not set apart
        over = [k for k, h in enumerate(hands) if h.tile_count == 15 + h.kong_count
                and 4 in Counter(plain(t) for t in h.concealed).values()]
        if len(over) == 1:
            return over[0]
    return None


def _hand_context(context: dict, seat: str, dora: list[str], is_winner: bool, several: bool) -> dict:
    out = {"seat_wind": seat, "prevalent_wind": context.get("prevalent_wind") or "E",
           "dora_indicators": dora,
           "ura_dora_indicators": list(context.get("ura_dora_indicators") or [])}
    if is_winner or not several:
        out["self_drawn"] = bool(context.get("self_drawn", False))
        out["discarder"] = context.get("discarder")
        out["win_tile"] = context.get("win_tile")
        situation = context.get("situation") or {}
        if isinstance(situation, (list, tuple)):
            situation = {flag: True for flag in situation}
        out["situation"] = situation
    return out


def _reading(hand: HandLayout) -> dict[str, Any]:
    """What was read of a hand, in reading order, for a page to show and correct (in lists:
    the page reads no notation): each meld's tiles as seen ("back" for a face-down one) and
    as the hand holds them (hand_tiles: a kong's face-down tiles named)."""
    return {"concealed": [t for t in hand.concealed],
            "melds": [{"type": m.type, "open": m.open, "tiles": m.tiles, "hand_tiles": list(m.hand_tiles)}
                      for m in hand.melds],
            "win_tile": hand.win_tile}


def _score_hand(hand: HandLayout, context: dict, rules: str, options: dict | None,
                needs_win: bool) -> ScannedHand:
    """A hand scored, or with an error saying what is missing, or a question to ask."""
    entry = ScannedHand(reading=_reading(hand), problems=list(hand.problems))
    if hand.errors:
        entry.error = hand.errors[0]
        entry.problems.extend(hand.errors[1:])
        return entry
    count, kongs = hand.tile_count, hand.kong_count
    win_count, rest_count = 14 + kongs, 13 + kongs
    kong_words = f" and {plural(kongs, 'kong')}" if kongs else ""
    win_tile = hand.win_tile or context.get("win_tile")
    hand_dict = {
        "concealed": format_tiles(hand.concealed, sort=False),
        "melds": [{"type": m.type, "tiles": format_tiles(m.hand_tiles, sort=False), "open": m.open}
                  for m in hand.melds],
        **{k: v for k, v in context.items() if k != "win_tile"},
        "win_tile": None,
    }
    try:
        parsed = hand_from_dict(hand_dict)  # read once: every answer below is this hand changed
    except HandError:  # the scorer says why, in words
        entry.hand, entry.result = hand_dict, score(hand_dict, rules, options).to_dict()
        return entry
    if count == win_count:
        won = True
    elif count == rest_count and not needs_win and hand.win_index is None:
        won = False
    else:
        expected = win_count if (needs_win or hand.win_index is not None or count > rest_count) else rest_count
        why = ("a winning hand" + kong_words) if expected == win_count else ("a hand" + kong_words)
        if count == win_count + 1 and needs_win:
            # four alike in the row: a kong not set apart? each reading scored, one tap away
            answer = ask_kong_in_row(replace(parsed, win_tile=hand.win_tile), rules, options)
            if answer is not None:
                return entry.ask(answer)
        if count == rest_count and needs_win and hand.win_index is None:
            # the winning tile out of view: what the hand waits on, each scored, one tap away
            answer = ask_missing_tile(parsed, rules, options)
            if answer is not None:
                return entry.ask(answer)
        if needs_win and count == rest_count:
            # no tile completes it: perhaps it did not win (rules that score every hand ask)
            answer = ask_not_won(parsed, rules, options, f"{count} tiles were found where {expected} are "
                                                         f"needed for {why}, and no tile completes them")
            if answer is not None:
                return entry.ask(answer)
        if count < expected:
            entry.error = (f"{count} tiles were found where {expected} are needed for {why}: a tile may be "
                           "hidden, cut off at the edge of the photo or not recognised")
        else:
            entry.error = (f"{count} tiles were found, but {why} has {expected}: tiles that are not part of "
                           "the hand may lie in its row")
            # four alike among the concealed tiles: a kong laid in the row, not set apart
            copies = Counter(plain(t) for t in hand.concealed)
            fours = sorted(t for t, n in copies.items() if n == 4)
            if fours and count - expected <= len(fours):
                entry.error += (f"; if the four {' or the four '.join(tile_name(t) for t in fours)} are a kong, "
                                "set it a little apart from the other tiles")
        return entry
    # four plain fives of a suit where the rules play red fives: the set has none, or one is red
    answer = ask_red_five(replace(parsed, win_tile=win_tile) if won and win_tile else parsed, rules, options)
    if answer is not None:
        return entry.ask(answer)
    said = context.get("self_drawn") or context.get("discarder")  # how it was won, where the context says
    if not won:
        hand_dict["self_drawn"], hand_dict["discarder"] = False, None
        entry.hand = hand_dict
        entry.result = score(replace(parsed, self_drawn=False, discarder=None), rules, options).to_dict()
        return entry
    if win_tile is not None:
        if plain(win_tile) not in {plain(t) for t in hand.concealed}:
            entry.error = f"the winning tile, the {tile_name(win_tile)}, is not among the concealed tiles read"
            return entry
        # a red five given as "5p" is the red one when that is all the hand holds
        exact = [t for t in hand.concealed if t == win_tile] or [t for t in hand.concealed
                                                                 if plain(t) == plain(win_tile)]
        hand_dict["win_tile"] = exact[-1] if hand.win_tile is None else hand.win_tile
        parsed = replace(parsed, win_tile=hand_dict["win_tile"])
        entry.hand, entry.result = hand_dict, score(parsed, rules, options).to_dict()
        if not entry.result["valid"] and not said:
            # the rules need to know how it was won, and nothing said it (the command line
            # without --self-drawn or --discarder): both ways scored, asked where they differ
            answer = ask_win_way(parsed, rules, options)
            if answer.get("question"):
                entry.hand = entry.result = None
                entry.ask(answer)
            else:
                if answer.get("note"):
                    entry.problems.append(answer.pop("note"))
                entry.hand.update(answer.pop("way_taken", {}))
                entry.result = answer
        return entry
    # a complete hand with no tile set apart: the score may not depend on which tile won;
    # nor, where nothing said how it was won, on that (the command line without flags)
    answer = ask_win_tile(parsed, rules, options) if said else ask_win_way(parsed, rules, options)
    taken = answer.pop("win_tile_taken", None)
    if answer.get("question"):
        return entry.ask(answer)
    entry.hand = dict(hand_dict, win_tile=taken, **answer.pop("way_taken", {}))
    note = answer.pop("note", None)
    entry.result = answer
    entry.problems.append(note or "no tile was set apart as the winning tile, and the hand does not "
                                     "score with any of them")
    return entry


def _settle(entries: list[ScannedHand], context: dict, rules: str, options: dict | None) -> dict[str, Any]:
    """The settlement of a table of four scanned hands (a rule set that settles tables)."""
    broken = [e.seat for e in entries if e.hand is None]
    if broken:
        return {"error": f"the table cannot be settled: the {plural_word(len(broken), 'hand')} of {', '.join(broken)} could not be read"}
    seats = [e.seat for e in entries]
    if sorted(seats) != sorted(WINDS):
        return {"error": f"the table needs one hand per seat E, S, W, N (got {', '.join(seats)})"}
    table = {"rules": rules, "prevalent_wind": context.get("prevalent_wind") or "E",
             "hands": {e.seat: e.hand for e in entries}}
    try:
        return rule_set(rules).settle_table(table, options)
    except ValueError as error:  # the rule set's TableError: a sentence
        return {"error": str(error)}
