"""What a new table asks before the first hand: who breaks the wall and where, the dead wall
and the dora indicator, and the WSOM seat draw.  Seats are winds E S W N; each player's wall
lies in front of him, its stacks numbered 1-17 from his right.

- Dice count (all three texts): counter-clockwise round the table, the thrower counting as 1:
  East 1, South 2, West 3, North 4, East 5 ...  South sits at East's right, so counting
  along a wall from its right end, past its left end, goes on at the right end of the left
  neighbour's wall, and the other way round.
- Rode Draak (seeds 000/002): East throws; the player so counted throws too and counts the
  sum of both throws along his wall from the right; the break is after that stack.
- Ari Ari (seed 001, 2.5-2.7): East throws; the player counted breaks his wall after that
  many stacks from the right; the seven stacks to the right of the break are the dead wall
  (round the corner if need be); the dora indicator is the top tile of the third of them.
- WSOM (seed 003, "Picking Seats"): a player throws; the player counted throws again; the
  one the second count gives takes the first wind tile, from the odd end of the row if the
  second throw is odd, else from the even end, then the others counter-clockwise.
"""
from __future__ import annotations

from dataclasses import dataclass

from .tiles import WINDS

STACKS = 17       # a wall is 17 stacks of two
DEAD_WALL = 7     # Ari Ari 2.6
DORA_STACK = 3    # Ari Ari 2.7: the third stack into the dead wall


class SetupError(ValueError):
    """Dice or seats that cannot be: the message says why."""


def _throw(total: int, dice: int = 2) -> int:
    if isinstance(total, bool) or not isinstance(total, int) or not dice <= total <= 6 * dice:
        raise SetupError(f"a throw of {dice} dice is {dice}-{6 * dice} (got {total!r})")
    return total


def _seat(wind: str) -> int:
    if wind not in WINDS:
        raise SetupError(f"a seat is one of E, S, W, N (got {wind!r})")
    return WINDS.index(wind)


def dice_count(total: int, thrower: str = "E") -> str:
    """The seat a throw points at: counter-clockwise, the thrower counting as 1."""
    return WINDS[(_seat(thrower) + _throw(total) - 1) % 4]


def _left_of(wind: str) -> str:
    return WINDS[(_seat(wind) - 1) % 4]


def _right_of(wind: str) -> str:
    return WINDS[(_seat(wind) + 1) % 4]


@dataclass(frozen=True)
class Stack:
    """A stack of two tiles: whose wall, and its number from that wall's right end."""
    wall: str
    number: int

    def __str__(self) -> str:
        return f"{self.wall} wall, stack {self.number} from its right end"


@dataclass(frozen=True)
class WallBreak:
    breaker: str                 # whose wall is broken
    after: Stack                 # the break lies to the left of this stack
    dead_wall: tuple[Stack, ...] = ()
    dora_indicator: Stack | None = None


def _counted(wall: str, count: int) -> Stack:
    """The stack `count` stacks from the right end of `wall`, counting on along the left
    neighbour's wall past its end."""
    while count > STACKS:
        wall, count = _left_of(wall), count - STACKS
    return Stack(wall, count)


def _rightwards(stack: Stack, steps: int) -> Stack:
    """The stack `steps` stacks to the right of `stack`, round the corner if need be."""
    wall, number = stack.wall, stack.number - steps
    while number < 1:
        wall, number = _right_of(wall), number + STACKS
    return Stack(wall, number)


def rode_draak_break(east_throw: int, breaker_throw: int) -> WallBreak:
    """Rode Draak: East's throw names the breaker, who counts both throws along his wall."""
    breaker = dice_count(east_throw, "E")
    return WallBreak(breaker, _counted(breaker, east_throw + _throw(breaker_throw)))


def ari_ari_break(east_throw: int) -> WallBreak:
    """Ari Ari: the break, the seven stacks of the dead wall and the dora indicator."""
    breaker = dice_count(east_throw, "E")
    after = Stack(breaker, east_throw)
    dead = tuple(_rightwards(after, k) for k in range(DEAD_WALL))
    return WallBreak(breaker, after, dead, dead[DORA_STACK - 1])


@dataclass(frozen=True)
class SeatDraw:
    second_thrower: str
    first_taker: str
    from_end: str                # "odd" or "even": the end of the row of wind tiles
    taking_order: tuple[str, ...]


def wsom_seat_draw(first_thrower: str, first_throw: int, second_throw: int) -> SeatDraw:
    """WSOM "Picking Seats" steps 4-5, in the seats the players happen to sit at."""
    second = dice_count(first_throw, first_thrower)
    taker = dice_count(second_throw, second)
    order = tuple(WINDS[(_seat(taker) + k) % 4] for k in range(4))
    return SeatDraw(second, taker, "odd" if second_throw % 2 else "even", order)
