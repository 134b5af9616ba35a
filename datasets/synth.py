"""Synthetic photographs of mahjong hands with exact labels.

``render_scene(rng)`` lays out a table the way people play on it (a concealed
row standing or lying, melds with the called tile turned sideways, concealed
kongs with face-down ends, a dead wall with dora indicators turned up, other
players' hands and discards, or tiles scattered on a desk or in a tray), puts a
camera over it anywhere from straight above to a low angle, renders tile bodies
with thickness from one of the art styles, adds light, shadows, glare, blur,
noise and a colour cast, and returns the photo with a box per visible tile.

``mahjong-lens synth --out DIR --count N --seed S`` writes such photos as a
YOLO dataset (``images/``, ``labels/``, ``meta/`` JSON sidecars with the scene,
``data.yaml``, ``train.txt``, ``val.txt``) and a contact sheet to check by eye.
The same seed gives byte-identical files, whatever the number of workers.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from . import render as R
from .art import Style, default_art_dir, load_styles
from mahjong_lens.vision.classes import (
    BACK,
    CLASS_NAMES,
    FLOWERS,
    NUM_CLASSES,
    PLAYING_TILES,
    RED_FIVES,
    class_index,
    names_dict,
    plain_five,
    tiles_to_notation,
)

#: How often each art style is drawn, relative to 1 (line art looks least like real tiles).
STYLE_WEIGHTS = {"font_noto": 0.5, "fluffy_black": 0.7}
KINDS = ("hand", "table", "scatter", "tray")
KIND_WEIGHTS = (0.5, 0.2, 0.15, 0.15)
MIN_VISIBLE = 0.6  # share of a tile's face (or back) that must show for it to be labelled
MIN_FORESHORTEN = 0.18  # ... seen at no more of a slant than this (projected / head-on area)
MIN_FACE_PX = 24  # ... and covering at least this many pixels


# --------------------------------------------------------------------------- results


@dataclass
class TileBox:
    """One tile in a rendered photo."""

    tile: str  # the class to detect: the face name, or "back" for a tile showing its back
    cls: int
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels
    face: str  # what is printed on the tile, also when it lies face down
    face_down: bool  # the back is what the camera sees (unseen tiles: the tile lies face down)
    sideways: bool  # turned 90 degrees (a called tile, a riichi discard)
    standing: bool
    group: str  # concealed | win | meld | flower | dora | dead_wall | discard | wall | scatter | tray
    player: int  # seat: 0 the photographer's, 1 right, 2 across, 3 left; -1 none
    meld: int | None = None  # index into that player's melds
    index: int = 0  # position in its row, meld, pond or wall, left to right for its owner
    visible: float = 1.0  # share of the face (or back) that is visible
    labelled: bool = True  # written to the label file

    def yolo(self, width: int, height: int) -> str:
        x1, y1, x2, y2 = self.box
        return (
            f"{self.cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
            f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}"
        )

    def to_dict(self) -> dict:
        d = asdict(self)
        d["box"] = [round(v, 2) for v in self.box]
        d["visible"] = round(self.visible, 3)
        return d


@dataclass
class SceneResult:
    image: np.ndarray  # BGR uint8
    boxes: list[TileBox]  # labelled tiles
    tiles: list[TileBox]  # every tile placed, labelled or not (boxes of unseen ones are empty)
    meta: dict  # the scene: style, camera, hands, dead wall, ...
    ids: np.ndarray | None = None  # uint16 map: 2k+2 body of tiles[k], 2k+3 its face/back side

    @property
    def jpeg_quality(self) -> int:
        return int(self.meta["jpeg_quality"])


# --------------------------------------------------------------------------- layout


@dataclass
class Placed:
    face: str
    pose: R.TilePose
    face_up: bool  # the face side is the one turned to the sky / the camera's side
    sideways: bool
    standing: bool
    group: str
    player: int = -1
    meld: int | None = None
    index: int = 0


@dataclass
class Frame:
    """A player's place at the table: local x along their row, local y away from them."""

    ox: float
    oy: float
    rot: float  # degrees

    def to_world(self, x: float, y: float) -> tuple[float, float]:
        c, s = math.cos(math.radians(self.rot)), math.sin(math.radians(self.rot))
        return self.ox + c * x - s * y, self.oy + s * x + c * y


def seat_frame(seat: int, dist: float) -> Frame:
    rot = 90.0 * seat
    c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    return Frame(s * dist, -c * dist, rot)


class Wall:
    """The tiles of one set, drawn without replacement (so no hand holds five of a kind)."""

    def __init__(self, rng: np.random.Generator, style: Style, red: bool, flowers: bool):
        self.rng = rng
        tiles: list[str] = []
        for n in PLAYING_TILES:
            if style.has(n):
                tiles += [n] * 4
        if red:
            for r in RED_FIVES:
                p = plain_five(r)
                if style.has(r) and p in tiles:
                    tiles.remove(p)
                    tiles.append(r)
        self.tiles = Counter(tiles)
        self.flowers = [f for f in FLOWERS if flowers and style.has(f)]
        rng.shuffle(self.flowers)

    def _pick(self, names: Sequence[str]) -> str | None:
        names = [n for n in names if self.tiles[n] > 0]
        if not names:
            return None
        w = np.array([self.tiles[n] for n in names], float)
        return names[int(self.rng.choice(len(names), p=w / w.sum()))]

    def take(self, name: str) -> str | None:
        """One copy of a tile; a red five stands in for a plain five and vice versa."""
        alts = [name]
        if name[0] in "05" and name[1] in "mps":
            alts = [f"5{name[1]}", f"0{name[1]}"]
        got = self._pick(alts)
        if got is not None:
            self.tiles[got] -= 1
        return got

    def draw(self, n: int) -> list[str]:
        out = []
        for _ in range(n):
            got = self._pick(list(self.tiles))
            if got is None:
                break
            self.tiles[got] -= 1
            out.append(got)
        return out

    def flower(self) -> str | None:
        return self.flowers.pop() if self.flowers else None

    def draw_winning(self, n: int) -> list[str]:
        """``n`` tiles (2, 5, ... 14) that form sets and a pair: a hand that wins, shuffled as drawn,
        or ``n`` tiles drawn at random where the wall can no longer make one."""
        sets = []
        for _ in range((n - 2) // 3):
            got = self.meld("chow" if self.rng.random() < 0.6 else "pung")
            if got is None:
                return sum(sets, []) + self.draw(n - 3 * len(sets))
            sets.append(got)
        pairs = [t for t in PLAYING_TILES if self.tiles[t] >= 2]
        if not pairs:
            return sum(sets, []) + self.draw(2)
        pair = pairs[int(self.rng.integers(len(pairs)))]
        tiles = sum(sets, []) + [self.take(pair), self.take(pair)]
        self.rng.shuffle(tiles)
        return tiles  # type: ignore[return-value]

    def meld(self, kind: str) -> list[str] | None:
        rng = self.rng
        for _ in range(12):
            if kind == "chow":
                s = "mps"[int(rng.integers(3))]
                start = int(rng.integers(1, 8))
                names = [f"{start + i}{s}" for i in range(3)]
                if all(self.tiles[n] + (self.tiles[f"0{s}"] if n[0] == "5" else 0) > 0 for n in names):
                    return [self.take(n) for n in names]  # type: ignore[misc]
            else:
                need = 3 if kind == "pung" else 4
                cands = [n for n in PLAYING_TILES if self.tiles[n] + (self.tiles.get(f"0{n[1]}", 0) if n[0] == "5" and n[1] in "mps" else 0) >= need]
                if cands:
                    n = cands[int(rng.integers(len(cands)))]
                    return [self.take(n) for _ in range(need)]  # type: ignore[misc]
        return None


def sort_hand(tiles: list[str], suit_order: str) -> list[str]:
    order = {s: i for i, s in enumerate(suit_order + "zf")}
    return sorted(tiles, key=lambda t: (order[t[1]], int(plain_five(t)[0]), t[0] == "0"))


class Builder:
    """Places tiles for one scene and remembers the hands it laid out."""

    def __init__(self, rng: np.random.Generator, style: Style, W: float, H: float, T: float):
        self.rng, self.style = rng, style
        self.W, self.H, self.T = W, H, T
        self.tiles: list[Placed] = []
        self.hands: list[dict] = []
        self.focus: list[int] = []  # indices of tiles the camera should frame
        self.decals: list[tuple[np.ndarray, tuple]] = []  # flat things under the tiles
        self.dead_wall: dict | None = None
        self.ckong_down = (True, False, False, True)  # which tiles of a concealed kong lie face down

    # -- single tiles --------------------------------------------------------
    def lie(self, frame: Frame, x, y, face, *, yaw=0.0, face_up=True, sideways=False, z0=0.0, **meta) -> int:
        rng = self.rng
        jx, jy, jyaw = rng.normal(0, 0.015 * self.W, 2).tolist() + [rng.normal(0, 0.7)]
        wx, wy = frame.to_world(x + jx, y + jy)
        yaw_w = frame.rot + yaw + (90.0 if sideways else 0.0) + jyaw
        pose = R.pose_lying(wx, wy, yaw_w, self.W, self.H, self.T, z0=z0, face_up=face_up)
        self.tiles.append(Placed(face, pose, face_up, sideways, False, **meta))
        return len(self.tiles) - 1

    def stand(self, frame: Frame, x, y, face, *, yaw=0.0, lean=0.0, **meta) -> int:
        rng = self.rng
        wx, wy = frame.to_world(x + rng.normal(0, 0.01 * self.W), y + rng.normal(0, 0.02 * self.T))
        pose = R.pose_standing(wx, wy, frame.rot + yaw + rng.normal(0, 0.8), self.W, self.H, self.T, lean + rng.normal(0, 1.5))
        self.tiles.append(Placed(face, pose, True, False, True, **meta))
        return len(self.tiles) - 1

    # -- groups --------------------------------------------------------------
    def row(self, frame, names, x0, y_front, *, standing, gap, lean=0.0, group="concealed", player=0,
            face_up=True, start_index=0) -> tuple[list[int], float]:
        """A row of tiles left to right from x0; returns indices and the x where it ends."""
        W, H, T = self.W, self.H, self.T
        out = []
        x = x0
        for i, n in enumerate(names):
            cx = x + W / 2
            if standing:
                k = self.stand(frame, cx, y_front + T / 2, n, lean=lean, group=group, player=player, index=start_index + i)
            else:
                k = self.lie(frame, cx, y_front + H / 2, n, face_up=face_up, group=group, player=player, index=start_index + i)
            out.append(k)
            x += W + gap * abs(self.rng.normal(1, 0.4))
        return out, x

    def meld(self, frame, kind, names, x0, y_front, *, called, player, meld_index, gap, added=False) -> tuple[list[int], float]:
        """Lay one meld face up from x0, bottom edges on y_front; the called tile sideways."""
        W, H = self.W, self.H
        out = []
        x = x0
        for i, n in enumerate(names[:3] if added else names):
            face_up = True
            side = kind != "ckong" and i == called
            if kind == "ckong":
                face_up = not self.ckong_down[i]
            w = H if side else W
            k = self.lie(frame, x + w / 2, y_front + (W if side else H) / 2, n, face_up=face_up, sideways=side,
                         group="meld", player=player, meld=meld_index, index=i)
            out.append(k)
            if side and added:
                k2 = self.lie(frame, x + w / 2, y_front + W + W / 2 + 0.02 * W, names[-1], sideways=True, group="meld",
                              player=player, meld=meld_index, index=len(names) - 1)
                out.append(k2)
            x += w + gap * abs(self.rng.normal(1, 0.4))
        return out, x

    def pond(self, frame, names, y_far, *, player, riichi_at=None, per_row=6) -> list[int]:
        W, H = self.W, self.H
        out = []
        for i, n in enumerate(names):
            r, c = divmod(i, per_row)
            if r >= 3:  # the last row runs on
                r, c = 2, i - 2 * per_row
            side = riichi_at == i
            x = -per_row * W / 2 + c * (W + 0.03 * W)
            if riichi_at is not None and r == riichi_at // per_row and c > riichi_at % per_row:
                x += H - W
            k = self.lie(frame, x + (H if side else W) / 2, y_far - r * (H + 0.04 * W) - H / 2 + (H - W) / 2 * side, n,
                         sideways=side, group="discard", player=player, index=i)
            out.append(k)
        return out

    def dead_wall_at(self, frame, x0, y_front, wall: Wall, *, stacks=7, n_dora=1) -> list[int]:
        W, T = self.W, self.T
        out, dora = [], []
        gap = 0.02 * W
        taken = self.rng.random() < 0.25  # a kong's replacement tile already drawn
        for i in range(stacks):
            x = x0 + i * (W + gap) + W / 2
            lower = wall.draw(1) or ["1z"]
            out.append(self.lie(frame, x, y_front + self.H / 2, lower[0], face_up=False, group="dead_wall", index=2 * i + 1))
            if taken and i == 0:
                continue
            upper = wall.draw(1) or ["1z"]
            up = 2 <= i < 2 + n_dora
            out.append(self.lie(frame, x, y_front + self.H / 2, upper[0], face_up=up, z0=T,
                                group="dora" if up else "dead_wall", index=2 * i))
            if up:
                dora.append(upper[0])
        self.dead_wall = {"stacks": stacks, "dora_indicators": dora}
        return out

    # -- a player's whole hand ----------------------------------------------
    def hand(self, frame: Frame, wall: Wall, *, player: int, standing: bool, revealed: bool, melds_where: str,
             complete: bool, flowers: int, n_melds: int, concealed_rows: int = 1,
             winning: bool = False) -> list[int]:
        """Concealed row (with the winning tile apart), melds and flowers of one seat.
        ``concealed_rows=2``: a hand lying open laid in two rows, one behind the other (the
        second ends with the winning tile apart). ``winning``: a complete hand's tiles form sets
        and a pair (a hand that won), not tiles drawn at random."""
        rng = self.rng
        W, H, T = self.W, self.H, self.T
        melds = []
        for m in range(n_melds):
            kind = str(rng.choice(["chow", "pung", "kong", "ckong"], p=[0.45, 0.33, 0.12, 0.10]))
            tiles = wall.meld(kind)
            if tiles is None:
                continue
            if kind != "chow":
                tiles = sorted(tiles, key=lambda t: t[0] == "0")  # a red five goes to the middle below
                if any(t[0] == "0" for t in tiles):
                    tiles.insert(1, tiles.pop())
            melds.append((kind, tiles))
        n_conc = 13 - 3 * len(melds) + (1 if complete else 0)
        conc = wall.draw_winning(n_conc) if winning and complete else wall.draw(n_conc)
        win = conc.pop() if complete and conc else None
        suit_order = "".join(rng.permutation(list("mps")))
        if rng.random() < 0.85:
            conc = sort_hand(conc, suit_order)
        fl = [f for f in (wall.flower() for _ in range(flowers)) if f]
        gap = rng.uniform(0.0, 0.04) * W
        lean = rng.uniform(0, 18) if standing else 0.0
        face_up = revealed or standing
        # widths to centre the whole line on the seat
        meld_w = sum(H + (len(t) - 1) * W + 0.1 * W for _, t in melds) + len(melds) * 0.3 * W
        row_w = len(conc) * (W + gap) + (1.3 * W if win else 0)
        beside = melds_where == "right"
        total = row_w + ((rng.uniform(0.8, 2.5) * W + meld_w) if beside and melds else 0)
        x = -total / 2
        y_row = 0.0  # the front edge of the row the winning tile ends
        if concealed_rows == 2 and not standing and len(conc) >= 4:
            split = (len(conc) + 1) // 2
            idx, _ = self.row(frame, conc[:split], x, 0.0, standing=False, gap=gap, player=player, face_up=face_up)
            y_row = H + float(rng.uniform(0.05, 0.4)) * W  # the second row, behind the first
            more, x = self.row(frame, conc[split:], x + float(rng.uniform(-0.3, 0.3)) * W, y_row, standing=False,
                               gap=gap, player=player, face_up=face_up, start_index=split)
            idx += more
        else:
            idx, x = self.row(frame, conc, x, 0.0, standing=standing, gap=gap, lean=lean, player=player,
                              face_up=face_up)
        if win:
            x += rng.uniform(0.25, 0.9) * W
            if standing and rng.random() < 0.2:  # winning tile laid down in front of the rack
                k = self.lie(frame, x + W / 2, -H / 2 - 0.3 * W, win, group="win", player=player, index=len(conc))
                x += W
            elif standing:
                k = self.stand(frame, x + W / 2, T / 2, win, lean=lean, group="win", player=player, index=len(conc))
                x += W
            else:
                k = self.lie(frame, x + W / 2, y_row + H / 2, win, face_up=face_up, group="win", player=player,
                             index=len(conc))
                x += W
            idx.append(k)
        meld_out = []
        depth = T if standing else H
        if beside:
            mx = x + rng.uniform(0.8, 2.5) * W
            my = 0.0 if not standing else rng.uniform(-0.2, 0.5) * H
        else:  # in front, towards the middle of the table
            mx = -total / 2 + rng.uniform(-0.5, 1.0) * W
            my = y_row + depth + rng.uniform(0.3, 1.2) * H
        for mi, (kind, tiles) in enumerate(melds):
            called = int(rng.integers(0, len(tiles)))  # whose discard: left, across or right
            added = kind == "kong" and rng.random() < 0.3  # the fourth tile laid on the called one
            if added:
                called = min(called, 2)
            ks, mx = self.meld(frame, kind, tiles, mx, my, called=called, player=player, meld_index=mi,
                               gap=rng.uniform(0, 0.03) * W, added=added)
            idx += ks
            meld_out.append({"type": "kong" if kind == "ckong" else kind, "tiles": tiles_to_notation(tiles),
                             "open": kind != "ckong", "called": None if kind == "ckong" else called,
                             "added": added})
            mx += rng.uniform(0.15, 0.6) * W
        if fl:
            fx = mx + rng.uniform(0.3, 1.0) * W
            for i, f in enumerate(fl):
                idx.append(self.lie(frame, fx + W / 2, my + H / 2, f, group="flower", player=player, index=i))
                fx += W + 0.03 * W
        hand = {
            "player": player,
            "concealed": tiles_to_notation(conc + ([win] if win else [])),
            "melds": meld_out,
            "win_tile": win,
            "flowers": fl,
            "standing": standing,
            "revealed": face_up,
        }
        self.hands.append(hand)
        return idx

    def scatter(self, names: list[str], radius: float, *, face_up_p=0.85, stand_p=0.08) -> list[int]:
        rng = self.rng
        W, H = self.W, self.H
        placed: list[tuple[float, float]] = []
        r_min = math.hypot(W, H) * 1.02
        out = []
        f0 = Frame(0, 0, 0)
        for i, n in enumerate(names):
            for _ in range(30):
                x, y = rng.uniform(-radius, radius, 2)
                if all((x - a) ** 2 + (y - b) ** 2 > r_min**2 for a, b in placed):
                    break
            else:
                continue
            placed.append((x, y))
            yaw = rng.uniform(0, 360)
            if rng.random() < stand_p:
                out.append(self.stand(f0, x, y, n, yaw=yaw, group="scatter", index=i))
            else:
                out.append(self.lie(f0, x, y, n, yaw=yaw, face_up=rng.random() < face_up_p, group="scatter", index=i))
        return out

    def grid(self, names: list[str], cols: int, gap: float, yaw: float = 0.0) -> list[int]:
        W, H = self.W, self.H
        rows = math.ceil(len(names) / cols)
        f0 = Frame(0, 0, yaw)
        out = []
        for i, n in enumerate(names):
            r, c = divmod(i, cols)
            x = (c - (cols - 1) / 2) * (W + gap)
            y = ((rows - 1) / 2 - r) * (H + gap)
            out.append(self.lie(f0, x, y, n, group="tray", index=i))
        return out


def _uniform_faces(rng, style: Style, n: int) -> list[str]:
    """Faces drawn evenly over every class the style has (flowers and red fives too)."""
    names = list(style.names)
    return [names[int(i)] for i in rng.integers(0, len(names), n)]


def build_scene(rng: np.random.Generator, style: Style, kind: str, concealed_rows: int = 1,
                winning: bool = False) -> tuple[Builder, dict]:
    """Lay out the tiles of one scene; returns the builder and camera hints (``concealed_rows``:
    the photographer's hand in one row or two; ``winning``: a complete hand is a hand that won)."""
    W = float(rng.uniform(24, 31))
    H = W * float(rng.uniform(1.3, 1.42))
    T = W * float(rng.uniform(0.6, 0.85))
    b = Builder(rng, style, W, H, T)
    has_flowers = any(style.has(f) for f in FLOWERS)
    chinese = has_flowers and rng.random() < 0.5
    wall = Wall(rng, style, red=rng.random() < 0.7, flowers=chinese)
    hints: dict = {"kind": kind, "chinese": chinese}
    if kind == "hand":
        standing = rng.random() < 0.5
        seat0 = Frame(0, 0, 0)
        n_melds = int(rng.choice([0, 1, 2, 3, 4], p=[0.3, 0.3, 0.22, 0.12, 0.06]))
        if rng.random() < 0.2:
            b.ckong_down = (True, True, True, True)
        idx = b.hand(seat0, wall, player=0, standing=standing, revealed=not standing or rng.random() < 0.5,
                     melds_where="right" if rng.random() < 0.6 else "front", complete=rng.random() < 0.75,
                     flowers=int(rng.integers(0, 4)) if chinese else 0, n_melds=n_melds,
                     concealed_rows=concealed_rows, winning=winning)
        b.focus += idx
        if not standing and rng.random() < 0.2:
            # two hands laid open face to face (scoring every hand after a game)
            ys = [float(v[1]) for i in idx for p in [b.tiles[i].pose] for v in (p.O, p.O + p.U, p.O + p.V, p.O + p.U + p.V)]
            oy = max(ys) + rng.uniform(0.8, 3.0) * H + H
            other = Frame(float(rng.normal(0, 1.5 * W)), oy, 180.0)
            b.focus += b.hand(other, wall, player=2, standing=False, revealed=True, melds_where="right",
                              complete=rng.random() < 0.3, flowers=int(rng.integers(0, 3)) if chinese else 0,
                              n_melds=int(rng.choice([0, 1, 2, 3], p=[0.35, 0.35, 0.2, 0.1])))
        else:
            if rng.random() < 0.55:  # the dead wall with its dora indicators, just beyond the hand
                xs = [b.tiles[i].pose.O[0] for i in idx]
                x0 = rng.uniform(min(xs), max(max(xs) - 7 * W, min(xs) + 1))
                y0 = (T if standing else H) + rng.uniform(1.0, 3.5) * H
                dw = b.dead_wall_at(seat0, x0, y0, wall, stacks=int(rng.integers(5, 8)),
                                    n_dora=int(rng.choice([1, 2, 3], p=[0.7, 0.2, 0.1])))
                b.focus += dw
                b.hands[0]["dora_indicators"] = b.dead_wall["dora_indicators"]  # type: ignore[index]
            # some of the rest of the table at the edges of the photo
            far = (T if standing else H) + rng.uniform(4, 7) * H
            if rng.random() < 0.35:
                names = wall.draw(int(rng.integers(3, 15)))
                b.pond(Frame(0, far, 0), names, 0.0, player=0, riichi_at=int(rng.integers(len(names))) if rng.random() < 0.3 else None)
            if rng.random() < 0.3:
                seat = int(rng.integers(1, 4))
                fr = seat_frame(seat, far + 6 * W)
                fr = Frame(fr.ox, fr.oy + far / 2, fr.rot)
                b.hand(fr, wall, player=seat, standing=rng.random() < 0.6, revealed=rng.random() < 0.3, melds_where="right",
                       complete=False, flowers=0, n_melds=int(rng.integers(0, 3)))
        hints.update(az=(-40, 40), el=(25, 68) if standing else (35, 90), roll="upright")
    elif kind == "table":
        D = rng.uniform(11.5, 13.5) * W
        seats = [0, 1, 2, 3] if rng.random() < 0.7 else [0, 1, 2]
        revealed_all = rng.random() < 0.5
        for s in seats:
            fr = seat_frame(s, D)
            standing = not revealed_all and rng.random() < 0.6
            idx = b.hand(fr, wall, player=s, standing=standing, revealed=revealed_all or (s == 0 and rng.random() < 0.5),
                         melds_where="front" if rng.random() < 0.5 else "right", complete=s == 0 and rng.random() < 0.6,
                         flowers=int(rng.integers(0, 3)) if chinese else 0, n_melds=int(rng.choice([0, 1, 2, 3], p=[0.4, 0.3, 0.2, 0.1])))
            b.focus += idx
            if rng.random() < 0.7:
                names = wall.draw(int(rng.integers(4, 19)))
                b.focus += b.pond(seat_frame(s, 3.2 * W + 2.5 * H), names, 0.0, player=s,
                                  riichi_at=int(rng.integers(len(names))) if rng.random() < 0.25 else None)
        if rng.random() < 0.6:
            s = int(rng.integers(0, 4))
            fr = seat_frame(s, 3.2 * W + 3.0 * H + 1.2 * H)
            b.focus += b.dead_wall_at(fr, -3.5 * W, 0.0, wall, stacks=7, n_dora=int(rng.choice([1, 2], p=[0.8, 0.2])))
        hints.update(az=(-180, 180), el=(40, 90), roll="any")
    elif kind == "scatter":
        n = int(rng.integers(6, 36))
        names = _uniform_faces(rng, style, n)
        b.focus += b.scatter(names, radius=math.sqrt(n) * H * rng.uniform(0.8, 1.6))
        hints.update(az=(-180, 180), el=(35, 90), roll="any")
    else:  # tray
        cols = int(rng.integers(4, 10))
        rows = int(rng.integers(2, 7))
        names = _uniform_faces(rng, style, cols * rows - int(rng.integers(0, cols)))
        yaw = rng.uniform(-8, 8)
        b.focus += b.grid(names, cols, rng.uniform(0, 0.08) * W, yaw=yaw)
        if rng.random() < 0.6:
            hw, hh = cols * W * 0.5 + 0.25 * W, rows * H * 0.5 + 0.25 * W
            rect = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
            c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
            rect = rect @ np.array([[c, s], [-s, c]])
            b.decals.append((rect, tuple(rng.uniform(10, 90, 3))))
        hints.update(az=(-180, 180), el=(55, 90), roll="any")
    return b, hints


# --------------------------------------------------------------------------- rendering


def _pick_roll(rng, mode: str) -> float:
    r = rng.random()
    if mode == "upright":
        if r < 0.8:
            return float(rng.normal(0, 6))
        if r < 0.95:
            return float(rng.choice([-90, 90]) + rng.normal(0, 6))
        return float(rng.uniform(-180, 180))
    if r < 0.45:
        return float(rng.normal(0, 8))
    if r < 0.7:
        return float(rng.choice([-90, 90, 180]) + rng.normal(0, 8))
    return float(rng.uniform(-180, 180))


def _body_look(rng, style: Style, use_back_tex: bool) -> R.BodyLook:
    front = np.array(style.face_colour, float)
    front = np.clip(front + rng.normal(0, 5, 3), 0, 255)
    if use_back_tex and style.back_colour is not None:
        back = np.array(style.back_colour, float)
    else:
        palette = [(60, 140, 40), (30, 90, 20), (160, 90, 30), (200, 150, 80), (40, 190, 230), (30, 120, 230),
                   (40, 40, 180), (170, 140, 230), (30, 30, 30), (120, 60, 120), (200, 215, 225), (110, 150, 60)]
        back = np.array(palette[int(rng.integers(len(palette)))], float)
        back = np.clip(back + rng.normal(0, 12, 3), 0, 255)
    return R.BodyLook(front=front, back=back, front_frac=float(rng.uniform(0.45, 0.72)),
                      radius=float(rng.uniform(1.5, 4.0)), seam=float(rng.uniform(0.1, 0.35)))


def render_scene_full(
    rng: np.random.Generator,
    size: int | tuple[int, int] = 640,
    *,
    styles: Sequence[Style] | None = None,
    style: str | None = None,
    kind: str | None = None,
    effects: bool = True,
    concealed_rows: int = 1,
    winning: bool = False,
) -> SceneResult:
    """Render one photo; returns the image, the labelled boxes, every tile and the scene metadata.

    ``size`` is the output size (an int for a square, or (width, height)). ``styles``
    defaults to every style of the shared art folder; ``style`` picks one by name,
    ``kind`` one of ``hand``, ``table``, ``scatter``, ``tray``. ``effects=False``
    leaves out light, blur and noise (clean renders for debugging). ``concealed_rows=2`` lays
    the photographer's open hand in two rows; ``winning=True`` makes a complete hand one that
    won (sets and a pair).
    """
    if styles is None:
        styles = load_styles()
    if style is not None:
        cands = [s for s in styles if s.name == style]
        if not cands:
            raise ValueError(f"no art style {style!r}; have {[s.name for s in styles]}")
        st = cands[0]
    else:
        w = np.array([STYLE_WEIGHTS.get(s.name, 1.0) for s in styles])
        st = styles[int(rng.choice(len(styles), p=w / w.sum()))]
    if kind is None:
        kind = str(rng.choice(KINDS, p=KIND_WEIGHTS))
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    out_w, out_h = (size, size) if isinstance(size, int) else size
    builder, hints = build_scene(rng, st, kind, concealed_rows, winning)
    # ---- canvas: most photos fill the frame; some are letterboxed or stretched like the real sets
    cw, ch, ox, oy = out_w, out_h, 0, 0
    pad = None
    if effects and rng.random() < 0.12:
        if rng.random() < 0.5:
            cw, ch = out_w, int(out_h * rng.choice([0.75, 0.5625]))
        else:
            cw, ch = int(out_w * rng.choice([0.75, 0.5625])), out_h
        ox, oy = (out_w - cw) // 2, (out_h - ch) // 2
        pad = int(rng.choice([0, 114]))
    # ---- camera
    W = builder.W
    hfov = rng.uniform(45, 70)
    fx = (cw / 2) / math.tan(math.radians(hfov / 2))
    fy = fx * (1.0 if rng.random() < 0.75 else rng.uniform(0.8, 1.25))
    az = rng.uniform(*hints["az"])
    if hints["roll"] == "upright" and rng.random() < 0.12:
        az = rng.uniform(-90, 90)
    el = rng.uniform(*hints["el"])
    el = min(el, 89.5)
    roll = _pick_roll(rng, hints["roll"])
    Rm = R.camera_rotation(az, el, roll)
    fpts = []
    for i in builder.focus:
        p = builder.tiles[i].pose
        fpts += [p.O, p.O + p.U, p.O + p.V, p.O + p.U + p.V, p.O - p.N]
    fpts = np.array(fpts) if fpts else np.zeros((1, 3))
    lo, hi = fpts.min(axis=0), fpts.max(axis=0)
    target = (lo + hi) / 2
    target[2] = 0.0
    fill = rng.uniform(0.6, 0.97)
    d_fit = R.fit_distance(Rm, target, fpts, fx, fy, cw / 2 * fill, ch / 2 * fill)
    # Tile size in the photo: the whole scene in view if that leaves tiles of a
    # readable size, else (and sometimes anyway) a closer view of part of it.
    # (pixel sizes are for a 640 px photo and scale with the canvas)
    unit = max(cw, ch) / 640.0
    px_fit = fx * W / d_fit
    px_want = float(np.exp(rng.normal(math.log(38), 0.55))) * unit
    if rng.random() < 0.12:
        px_want = float(rng.uniform(80, 200)) * unit
    px = max(px_fit * rng.uniform(0.8, 1.0), px_want)
    if kind == "table" and rng.random() < 0.5:  # the whole table, however small its tiles
        px = px_fit * rng.uniform(0.85, 1.0)
    if px > px_fit * 1.1 and builder.focus:  # a close-up: move towards one of the tiles
        k = builder.focus[int(rng.integers(len(builder.focus)))]
        p = builder.tiles[k].pose
        toward = p.O + (p.U + p.V) / 2
        toward[2] = 0.0
        share = 1.0 if px > 2 * px_fit else min(1.0, rng.uniform(0.3, 1.2) * (1 - px_fit / px))
        target = target + (toward - target) * share + np.array([*rng.normal(0, 0.3 * W, 2), 0])
    else:
        target = target + np.array([*rng.normal(0, 0.05, 2) * (hi - lo)[:2], 0])
    d = fx * W / px
    d = float(np.clip(d, fx * W / (210 * unit), fx * W / max(10.0, 16 * unit)))  # tiles ~16 to ~210 px wide
    cam = R.make_camera(target, az, el, roll, d, fx, fy, cw, ch)
    tile_px = fx * W / d
    # ---- light
    l_az, l_el = rng.uniform(0, 2 * np.pi), math.radians(rng.uniform(35, 85))
    light = np.array([math.cos(l_az) * math.cos(l_el), math.sin(l_az) * math.cos(l_el), math.sin(l_el)])
    ambient = float(rng.uniform(0.45, 0.75))
    # ---- background and shadows
    img = np.empty((ch, cw, 3), np.uint8)
    avoid = [(float(builder.tiles[i].pose.O[0]), float(builder.tiles[i].pose.O[1]), 2.0 * W) for i in builder.focus[::3]]
    R.render_table(rng, cam, img, (float(target[0]), float(target[1])), avoid, decals=builder.decals)
    poses = [t.pose for t in builder.tiles]
    if rng.random() < 0.85:
        sscale = 0.25
        sh = np.zeros((max(1, int(ch * sscale)), max(1, int(cw * sscale))), np.uint8)
        R.draw_shadows(sh, cam, poses, light, sscale)
        sh = cv2.GaussianBlur(sh, (0, 0), max(0.6, tile_px * sscale * rng.uniform(0.05, 0.2)))
        shf = cv2.resize(sh, (cw, ch), interpolation=cv2.INTER_LINEAR)
        strength = rng.uniform(0.25, 0.6) / 255.0
        fac = 1.0 - shf.astype(np.float32) * strength
        img = (img.astype(np.float32) * fac[..., None]).astype(np.uint8)
    # ---- tiles
    use_back_tex = st.back is not None and rng.random() < 0.7
    look = _body_look(rng, st, use_back_tex)
    tmpl = R.TileTemplate(builder.W, builder.H, builder.T, look)
    # texture getters per tile; a face-down tile's pose still has its face on the face side
    fronts = [(lambda h, n=t.face: st.texture(n, h)) if st.has(t.face) else None for t in builder.tiles]
    back_get = (lambda h: st.texture(BACK, h)) if use_back_tex else None
    backs = [back_get] * len(builder.tiles)
    ids = np.zeros((ch, cw), np.uint16)
    drawn = R.draw_tiles(img, ids, cam, poses, fronts, backs, tmpl, look, light, ambient)
    # ---- labels
    tiles_out: list[TileBox] = []
    for k, (t, dt) in enumerate(zip(builder.tiles, drawn)):
        tb = TileBox(tile=t.face, cls=-1, box=(0.0, 0.0, 0.0, 0.0), face=t.face, face_down=not t.face_up,
                     sideways=t.sideways, standing=t.standing, group=t.group, player=t.player, meld=t.meld,
                     index=t.index, visible=0.0, labelled=False)
        if dt.ok and dt.box is not None and dt.ident_visible:
            x0, y0, x1, y1 = dt.box
            sub = ids[y0:y1, x0:x1]
            kid = 2 * (k + 1)
            ident = sub == kid + 1
            body = ident | (sub == kid)
            n_ident = int(np.count_nonzero(ident))
            vis = n_ident / max(dt.ident_area, 1.0)
            tb.visible = float(min(1.0, vis))
            ys, xs = np.nonzero(body)
            if len(xs):
                tb.box = (float(x0 + xs.min()), float(y0 + ys.min()), float(x0 + xs.max() + 1), float(y0 + ys.max() + 1))
            tb.face_down = dt.ident_visible == "back"
            tb.tile = BACK if tb.face_down else t.face
            readable = dt.ident_area / max(dt.frontal_area, 1.0) >= MIN_FORESHORTEN
            tb.labelled = bool(len(xs) and vis >= MIN_VISIBLE and readable and n_ident >= MIN_FACE_PX
                               and (tb.face_down or st.has(t.face)))
            tb.cls = class_index(tb.tile)
        tiles_out.append(tb)
    # ---- camera effects
    applied: dict = {}
    if effects:
        img = R.apply_light(rng, img, ids, tile_px, applied)
    if pad is not None:
        canvas = np.full((out_h, out_w, 3), pad, np.uint8)
        canvas[oy : oy + ch, ox : ox + cw] = img
        img = canvas
        full_ids = np.zeros((out_h, out_w), np.uint16)
        full_ids[oy : oy + ch, ox : ox + cw] = ids
        ids = full_ids
        for tb in tiles_out:
            x1, y1, x2, y2 = tb.box
            tb.box = (x1 + ox, y1 + oy, x2 + ox, y2 + oy)
    boxes = [t for t in tiles_out if t.labelled]
    meta = {
        "width": out_w,
        "height": out_h,
        "style": st.name,
        "kind": kind,
        "chinese": hints["chinese"],
        "tile_mm": [round(builder.W, 2), round(builder.H, 2), round(builder.T, 2)],
        "camera": {"azimuth": round(az, 2), "elevation": round(el, 2), "roll": round(roll, 2),
                   "hfov": round(hfov, 2), "distance_mm": round(d, 1), "tile_px": round(tile_px, 1),
                   "content_box": [ox, oy, ox + cw, oy + ch]},
        "hands": builder.hands,
        "dead_wall": builder.dead_wall,
        "jpeg_quality": int(rng.integers(35, 96)) if effects else 95,
        "effects": applied,  # the blur, zoom and noise drawn (render.apply_light)
    }
    return SceneResult(img, boxes, tiles_out, meta, ids)


def render_scene(rng: np.random.Generator, size: int | tuple[int, int] = 640, **options) -> tuple[np.ndarray, list[TileBox]]:
    """A synthetic photo (BGR) and its labelled tiles; options as :func:`render_scene_full`."""
    res = render_scene_full(rng, size, **options)
    return res.image, res.boxes


def expected_reading(hand: dict) -> tuple[list[str], str | None, list[tuple[str, bool, str]]]:
    """A rendered hand (an entry of ``meta["hands"]``) in the form of
    vision.layout.HandLayout.reading: sorted concealed tiles, the winning tile, sorted melds."""
    from mahjong_lens.rules.tiles import parse_tiles
    melds = sorted((m["type"], m["open"], "".join(sorted(parse_tiles(m["tiles"])))) for m in hand["melds"])
    return sorted(parse_tiles(hand["concealed"])), hand["win_tile"], melds


# the groups of a player's own hand, as a scan reads it (not discards, walls or flowers)
HAND_GROUPS = ("concealed", "win", "meld")


def clear_view(scene: SceneResult, hand: dict, min_elevation: float = 55.0, upright: bool = False) -> bool:
    """Whether a rendered hand (an entry of ``scene.meta["hands"]``) can be read from the photo:
    lying face up, every tile labelled, photographed from well above (and, if ``upright``,
    with the camera turned less than 15 degrees)."""
    placed = [t for t in scene.tiles if t.player == hand["player"] and t.group in HAND_GROUPS]
    camera = scene.meta["camera"]
    all_backs = any(not m["open"] and sum(b.face_down for b in scene.boxes
                                          if b.player == hand["player"] and b.meld == number) == 4
                    for number, m in enumerate(hand["melds"]))
    return (hand["revealed"] and not all_backs and not hand["standing"] and all(t.labelled for t in placed)
            and camera["elevation"] >= min_elevation and camera["tile_px"] >= 22
            and (not upright or abs(camera["roll"]) < 15))


def render_screen_capture(rng: np.random.Generator, size: int | tuple[int, int] = 640, *,
                          styles: Sequence[Style] | None = None) -> tuple[np.ndarray, list[TileBox]]:
    """A screen capture of a digital hand, the way the real sets hold them: flat tiles in one
    column (or row), faces mostly upright, the narrow picture STRETCHED to ``size`` (so a
    tile's box is the full width and a tenth of the height).  Real training photos have none
    of these; the detector and classifier learn them from here."""
    if styles is None:
        styles = load_styles()
    st = styles[int(rng.integers(len(styles)))]
    names = [n for n in st.names if n != BACK] or list(st.names)
    count = int(rng.integers(5, 15))
    column = rng.random() < 0.75
    turn = int(rng.choice([1, 3])) if rng.random() < 0.3 else 0  # mostly upright faces, as captured
    tex_h = 128
    ivory = np.array(st.face_colour, np.float32)
    tiles: list[np.ndarray] = []
    faces = [str(rng.choice(names)) for _ in range(count)]
    for face in faces:
        tex = cv2.resize(st.texture(face, tex_h), (tex_h * 3 // 4, tex_h), interpolation=cv2.INTER_AREA)
        body = np.empty((tex_h + 12, tex_h * 3 // 4 + 12, 3), np.float32)
        body[:] = ivory * rng.uniform(0.92, 1.02)
        body[6:-6, 6:-6] = tex[:, :, :3]
        body[:, :3] *= 0.8  # a bevel edge, as the game draws its tiles
        body[-3:, :] *= 0.75
        tiles.append(np.ascontiguousarray(np.rot90(body, turn)))
    gap = int(rng.integers(0, 4))
    if column:
        width = max(t.shape[1] for t in tiles)
        strip = np.full((sum(t.shape[0] + gap for t in tiles), width, 3), 60, np.float32)
    else:
        height = max(t.shape[0] for t in tiles)
        strip = np.full((height, sum(t.shape[1] + gap for t in tiles), 3), 60, np.float32)
    spans, at = [], 0
    for t in tiles:
        if column:
            strip[at:at + t.shape[0], :t.shape[1]] = t
            spans.append((0, at, t.shape[1], at + t.shape[0]))
            at += t.shape[0] + gap
        else:
            strip[:t.shape[0], at:at + t.shape[1]] = t
            spans.append((at, 0, at + t.shape[1], t.shape[0]))
            at += t.shape[1] + gap
    # soft light across the strip, a colour cast, then the stretch to the output size
    ramp = np.linspace(rng.uniform(0.75, 1.0), rng.uniform(0.9, 1.1), strip.shape[0 if column else 1])
    strip *= ramp[:, None, None] if column else ramp[None, :, None]
    strip *= np.array([rng.uniform(0.9, 1.08) for _ in range(3)], np.float32)
    out_w, out_h = (size, size) if isinstance(size, int) else size
    sx, sy = out_w / strip.shape[1], out_h / strip.shape[0]
    image = cv2.resize(np.clip(strip, 0, 255).astype(np.uint8), (out_w, out_h), interpolation=cv2.INTER_LINEAR)
    boxes = [TileBox(tile=face, cls=class_index(face), box=(x1 * sx, y1 * sy, x2 * sx, y2 * sy), face=face,
                     face_down=False, sideways=turn % 2 == 1, standing=False, group="screen", player=-1,
                     index=k)
             for k, (face, (x1, y1, x2, y2)) in enumerate(zip(faces, spans))]
    return image, boxes


def generate_screen_captures(out: Path, count: int, seed: int = 0, *, size: int = 640,
                             art_dirs=None) -> int:
    """Write ``count`` screen captures (``render_screen_capture``) as YOLO samples under
    ``out`` (images/, labels/), named ``screen_s{seed}_{index}``; returns the labels written."""
    out = Path(out)
    for sub in ("images", "labels"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    styles = load_styles(art_dirs)
    written = 0
    for index in range(count):
        image, boxes = render_screen_capture(scene_rng(seed + 7919, index), size, styles=styles)
        stem = f"screen_s{seed}_{index:06d}"
        (out / "images" / f"{stem}.jpg").write_bytes(R.jpeg(image, 90))
        (out / "labels" / f"{stem}.txt").write_text("".join(b.yolo(size, size) + "\n" for b in boxes))
        written += len(boxes)
    return written


def scene_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of image ``index`` of a run with ``seed`` (independent of workers)."""
    return np.random.default_rng([int(seed), int(index)])


# --------------------------------------------------------------------------- dataset writing


def image_stem(seed: int, index: int) -> str:
    return f"synth_s{seed}_{index:06d}"


def write_sample(out: Path, seed: int, index: int, size, styles) -> tuple[str, list[int]]:
    res = render_scene_full(scene_rng(seed, index), size, styles=styles)
    stem = image_stem(seed, index)
    h, w = res.image.shape[:2]
    (out / "images" / f"{stem}.jpg").write_bytes(R.jpeg(res.image, res.jpeg_quality))
    (out / "labels" / f"{stem}.txt").write_text("".join(b.yolo(w, h) + "\n" for b in res.boxes))
    meta = dict(res.meta, image=f"images/{stem}.jpg", seed=seed, index=index,
                tiles=[t.to_dict() for t in res.boxes],
                unlabelled=[t.to_dict() for t in res.tiles if not t.labelled and t.visible > 0])
    (out / "meta" / f"{stem}.json").write_text(json.dumps(meta, separators=(",", ":")))
    return stem, [b.cls for b in res.boxes]


_WORKER: dict = {}


def _worker_init(out, seed, size, art_dirs):
    # Workers start clean (forkserver/spawn): forking a process whose OpenCV thread
    # pool is running can deadlock the child.
    cv2.setNumThreads(1)
    _WORKER.update(out=Path(out), seed=seed, size=size, styles=load_styles(art_dirs))


def _worker_job(index: int):
    w = _WORKER
    return index, write_sample(w["out"], w["seed"], index, w["size"], w["styles"])[1]


class Progress:
    """A plain text progress bar on stderr: on a terminal one line rewritten in place; into
    a file or a pipe (a training log) a whole line at each tenth of the way, so that the log
    shows how far a long render has gone without filling with bars."""

    def __init__(self, total: int, label: str = "", stream=None, enabled: bool = True):
        self.total, self.label = total, label
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.n = 0
        self.t0 = time.perf_counter()
        self._last = 0.0
        self._tenths = 0  # tenths of the way already written (not on a terminal)
        isatty = getattr(self.stream, "isatty", None)
        self.in_place = bool(isatty and isatty())

    def update(self, k: int = 1) -> None:
        self.n += k
        if not self.enabled:
            return
        now = time.perf_counter()
        tenths = 10 * self.n // max(self.total, 1)
        if self.in_place and (now - self._last > 0.25 or self.n >= self.total):
            self._last = now
            self.stream.write("\r" + self._line(now))
            if self.n >= self.total:
                self.stream.write("\n")
            self.stream.flush()
        elif not self.in_place and tenths > self._tenths:
            self._tenths = tenths
            self.stream.write(self._line(now) + "\n")
            self.stream.flush()

    def _line(self, now: float) -> str:
        elapsed = now - self.t0
        rate = self.n / elapsed if elapsed > 0 else 0.0
        frac = min(self.n / max(self.total, 1), 1.0)
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        eta = (self.total - self.n) / rate if rate > 0 else 0
        return f"{self.label} [{bar}] {self.n}/{self.total} {rate:5.1f} img/s eta {eta:4.0f}s"


def write_data_yaml(path: Path, root: Path, train: str, val: str) -> None:
    """A YOLO data.yaml with the project's class list."""
    lines = ["# mahjong-lens classes: vision/classes.py", f"path: {root}", f"train: {train}", f"val: {val}",
             f"nc: {NUM_CLASSES}", "names:"]
    lines += [f"  {i}: '{n}'" for i, n in names_dict().items()]
    path.write_text("\n".join(lines) + "\n")


def generate(out: Path, count: int, seed: int = 0, *, size: int = 640, art_dirs=None, workers: int = 1,
             sheet: Path | None = None, val_every: int = 20, progress: bool = True) -> dict:
    """Write ``count`` synthetic photos and their labels under ``out``; returns a summary."""
    out = Path(out).resolve()
    for sub in ("images", "labels", "meta"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    if art_dirs is None:
        art_dirs = [default_art_dir()]
    elif isinstance(art_dirs, (str, os.PathLike)):
        art_dirs = [art_dirs]
    art_dirs = [str(Path(a).resolve()) for a in art_dirs]
    styles = load_styles(art_dirs)  # also checks that there is art before starting workers
    counts = np.zeros(NUM_CLASSES, np.int64)
    bar = Progress(count, "synth", enabled=progress)
    t0 = time.perf_counter()
    workers = max(1, min(workers, count))
    if workers == 1:
        prev = cv2.getNumThreads()
        cv2.setNumThreads(1)
        try:
            for i in range(count):
                _, cls = write_sample(out, seed, i, size, styles)
                np.add.at(counts, cls, 1)
                bar.update()
        finally:
            cv2.setNumThreads(prev)
    else:
        import multiprocessing as mp

        ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
        with ctx.Pool(workers, initializer=_worker_init, initargs=(str(out), seed, size, art_dirs)) as pool:
            for _, cls in pool.imap_unordered(_worker_job, range(count), chunksize=4):
                np.add.at(counts, cls, 1)
                bar.update()
    elapsed = time.perf_counter() - t0
    stems = [image_stem(seed, i) for i in range(count)]
    val = [s for i, s in enumerate(stems) if val_every and i % val_every == 0]
    train = [s for i, s in enumerate(stems) if not (val_every and i % val_every == 0)] or val
    (out / "train.txt").write_text("".join(f"./images/{s}.jpg\n" for s in train))
    (out / "val.txt").write_text("".join(f"./images/{s}.jpg\n" for s in (val or train)))
    write_data_yaml(out / "data.yaml", out, "train.txt", "val.txt")
    if sheet is None:
        sheet = out / "contact_sheet.png"
    if sheet:
        contact_sheet(out, stems[:16], Path(sheet))
    rate = count / elapsed if elapsed > 0 else float("inf")
    summary = {
        "out": str(out),
        "count": count,
        "seed": seed,
        "workers": workers,
        "seconds": round(elapsed, 2),
        "images_per_s": round(rate, 2),
        "images_per_s_per_core": round(rate / workers, 2),
        "labels": int(counts.sum()),
        "class_counts": {CLASS_NAMES[i]: int(c) for i, c in enumerate(counts)},
        "styles": [s.name for s in styles],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


# --------------------------------------------------------------------------- contact sheet

_GROUP_COLOURS = {"m": (60, 60, 230), "p": (230, 120, 40), "s": (60, 180, 60), "z": (200, 60, 200), "f": (0, 160, 255)}


def draw_boxes(img: np.ndarray, labels: list[tuple[int, float, float, float, float]], scale: float = 1.0) -> np.ndarray:
    """Boxes and class names drawn onto a copy of an image (labels as YOLO rows)."""
    out = img.copy()
    h, w = out.shape[:2]
    for c, xc, yc, bw, bh in labels:
        name = CLASS_NAMES[int(c)]
        colour = (160, 160, 160) if name == BACK else (0, 0, 255) if name[0] == "0" else _GROUP_COLOURS[name[1]]
        x1, y1 = int((xc - bw / 2) * w), int((yc - bh / 2) * h)
        x2, y2 = int((xc + bw / 2) * w), int((yc + bh / 2) * h)
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 1, cv2.LINE_AA)
        fs = 0.32 * scale
        (tw, th), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_SIMPLEX, fs, 1)
        ty = y1 - 2 if y1 - th - 3 > 0 else y2 + th + 2
        cv2.rectangle(out, (x1, ty - th - 1), (x1 + tw + 1, ty + 1), colour, -1)
        cv2.putText(out, name, (x1 + 1, ty), cv2.FONT_HERSHEY_SIMPLEX, fs, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def read_labels(path: Path) -> list[tuple[int, float, float, float, float]]:
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 5:
                rows.append((int(parts[0]), *map(float, parts[1:])))  # type: ignore[arg-type]
    return rows


def contact_sheet(root: Path, stems: Sequence[str], path: Path, cols: int = 4, cell: int = 400) -> Path:
    """A PNG grid of samples with their boxes and class names drawn."""
    cells = []
    for stem in stems:
        img = cv2.imread(str(root / "images" / f"{stem}.jpg"))
        if img is None:
            continue
        scale = cell / max(img.shape[:2])
        img = cv2.resize(img, (int(img.shape[1] * scale), int(img.shape[0] * scale)), interpolation=cv2.INTER_AREA)
        img = draw_boxes(img, read_labels(root / "labels" / f"{stem}.txt"))
        canvas = np.full((cell, cell, 3), 40, np.uint8)
        canvas[: img.shape[0], : img.shape[1]] = img
        cv2.putText(canvas, stem, (4, cell - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
        cells.append(canvas)
    if not cells:
        cells = [np.zeros((cell, cell, 3), np.uint8)]
    while len(cells) % cols:
        cells.append(np.full((cell, cell, 3), 40, np.uint8))
    rows = [np.hstack(cells[i : i + cols]) for i in range(0, len(cells), cols)]
    sheet = np.vstack(rows)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), sheet)
    return path


# --------------------------------------------------------------------------- CLI


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``mahjong-lens synth``."""
    parser.description = "Render synthetic, labelled photos of mahjong hands (a YOLO dataset)."
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument("--count", type=int, default=1000, help="number of images (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed; the same seed gives the same files")
    parser.add_argument("--size", type=int, default=640, help="image size in pixels (square, default 640)")
    parser.add_argument("--art", type=Path, action="append", default=None,
                        help="folder of tile-art styles (repeatable); default $MAHJONG_LENS_DATA/art or ../shared/data/art")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    parser.add_argument("--sheet", type=Path, default=None,
                        help="contact sheet PNG (default OUT/contact_sheet.png; '-' for none)")
    parser.add_argument("--val-every", type=int, default=20, help="every Nth image goes to val.txt (0: none)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--screens", action="store_true",
                        help="screen captures of a game client's flat tile art instead of photos")


def run(args: argparse.Namespace) -> int:
    """Run ``mahjong-lens synth``; returns the exit code."""
    if args.count < 1:
        print("synth: --count must be at least 1", file=sys.stderr)
        return 2
    art = args.art or [default_art_dir()]
    sheet = None if args.sheet is None else (False if str(args.sheet) == "-" else args.sheet)
    try:
        if args.screens:
            labels = generate_screen_captures(args.out, args.count, args.seed, size=args.size, art_dirs=art)
            print(f"wrote {args.count} screen captures, {labels} labels to {args.out}")
            return 0
        s = generate(args.out, args.count, args.seed, size=args.size, art_dirs=art, workers=args.workers,
                     sheet=sheet, val_every=args.val_every, progress=not args.quiet)
    except FileNotFoundError as e:
        print(f"synth: {e}", file=sys.stderr)
        return 2
    missing = [n for n, c in s["class_counts"].items() if c == 0]
    print(f"wrote {s['count']} images, {s['labels']} labels to {s['out']}")
    if missing and s["count"] >= 200:
        print(f"classes never drawn: {' '.join(missing)}")
    print(f"speed: {s['images_per_s']:.1f} images/s with {s['workers']} worker(s) = "
          f"{s['images_per_s_per_core']:.1f} images/s per core at {args.size} px")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mahjong-lens synth")
    configure_parser(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
