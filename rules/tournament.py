"""A Rode Draak tournament: rotation schedule, score slips, payments and standings.

What the seeds (000, 002) describe, as the computer's part of a tournament:
- "Rouleerschema": the computer spreads the participants over tables of four at random and
  says, for each round, at which table each plays and with which wind he starts the round.
- A round is four hands; after each hand (a remise included) the wind turns: East becomes
  North, South becomes East, West South, North West, so every player is East once.  "Een
  remise kan worden overgespeeld, als iedere speler een keer Oost geweest is en de 50 minuten
  speeltijd nog niet verstreken zijn": a hand that was a remise is replayed only once every
  hand of the table's round has its slip, while the playing time lasts (the players know).
- At the table the players only note each player's points and the Mahjong maker on the score
  slip; "the receipts and payments are computed by the computer": the Mahjong maker only
  receives, the others settle their differences, East pays and receives double (the
  settlement of rules.rode_draak), and a dead hand scores 0 and pays.

Everything here is pure: the schedule is drawn from a seed, standings are computed afresh
from the slips, so a corrected slip changes everything after it.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations
from typing import Any

from .words import holds_lone_surrogate, plural, plural_word, readable, whole_number
from .rode_draak import Settings, transfers
from .tiles import WINDS

HANDS_PER_ROUND = 4          # every player East once
MAX_ROUNDS = 20
MAX_PLAYERS = 400
# tries of a round's tables from a fresh shuffle, each improved by swapping players
SHUFFLES_PER_ROUND = 40
# swaps tried over the whole schedule while pairs still meet twice (``_spread``)
SPREAD_STEPS = 100_000


class TournamentError(ValueError):
    """A tournament, schedule or slip that cannot be: the message says what and why."""


# -------------------------------------------------------------------------- the schedule

@dataclass(frozen=True)
class Schedule:
    """Who sits where: ``rounds[r][t]`` are the four players of table t+1 in round r+1, in
    the order of the wind they start the round with (East, South, West, North)."""

    players: tuple[str, ...]
    rounds: tuple[tuple[tuple[str, str, str, str], ...], ...]
    seed: int | None = None

    @property
    def table_count(self) -> int:
        return len(self.players) // 4

    def table(self, round_number: int, table_number: int) -> tuple[str, str, str, str]:
        """The players of a table (1-based numbers) in their starting winds' order."""
        if not 1 <= round_number <= len(self.rounds):
            raise TournamentError(f"there is no round {round_number}: the tournament has rounds "
                                  f"1-{len(self.rounds)}")
        if not 1 <= table_number <= self.table_count:
            raise TournamentError(f"there is no table {table_number}: the tournament has tables "
                                  f"1-{self.table_count}")
        return self.rounds[round_number - 1][table_number - 1]

    def seats(self, round_number: int, table_number: int, hand: int) -> dict[str, str]:
        """Wind -> player for hand `hand` (1-4) of a round at a table: the wind turns after
        every hand, East becoming North and South East."""
        if not 1 <= hand <= HANDS_PER_ROUND:
            raise TournamentError(f"hand {hand}: a round has hands 1-{HANDS_PER_ROUND}")
        start = self.table(round_number, table_number)
        return {WINDS[(k - (hand - 1)) % 4]: player for k, player in enumerate(start)}

    def meetings(self) -> dict[frozenset[str], int]:
        """How often each pair of players shares a table."""
        met: dict[frozenset[str], int] = {}
        for tables in self.rounds:
            for table in tables:
                for pair in combinations(table, 2):
                    met[frozenset(pair)] = met.get(frozenset(pair), 0) + 1
        return met

    def repeats(self) -> list[tuple[str, str, int]]:
        """The pairs that meet more than once, with how often, the most frequent first."""
        order = {name: k for k, name in enumerate(self.players)}
        out = [(*sorted(pair, key=order.__getitem__), times) for pair, times in self.meetings().items()
               if times > 1]
        return sorted(out, key=lambda item: (-item[2], order[item[0]], order[item[1]]))

    def second_meetings(self) -> int:
        """Meetings of pairs that had met before: a pair that meets m times counts m - 1."""
        return sum(times - 1 for times in self.meetings().values())

    def fewest_second_meetings(self) -> int:
        """How many of those no schedule of as many players over as many rounds avoids."""
        return fewest_second_meetings(len(self.players), len(self.rounds))

    def repeats_in_words(self) -> str:
        """For the organiser: how many meetings repeat, against how few must."""
        again, fewest = self.second_meetings(), self.fewest_second_meetings()
        if not again:
            return "no two players meet twice"
        said = f"{plural(again, 'meeting')} of players who met before"
        if fewest:
            return (f"{said}; no schedule of {len(self.players)} players over {len(self.rounds)} rounds "
                    f"has fewer than {fewest}")
        return f"{said}; a schedule with none may exist: draw again with another seed"

    def for_player(self, player: str) -> list[tuple[int, int, str]]:
        """(round, table, starting wind) of each round for one player."""
        out = []
        for r, tables in enumerate(self.rounds, 1):
            for t, table in enumerate(tables, 1):
                if player in table:
                    out.append((r, t, WINDS[table.index(player)]))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"players": list(self.players), "seed": self.seed,
                "rounds": [[list(table) for table in tables] for tables in self.rounds]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Schedule":
        rounds = tuple(tuple(tuple(table) for table in tables) for tables in data["rounds"])
        return cls(tuple(data["players"]), rounds, data.get("seed"))


def check_players(players: Iterable[str]) -> tuple[str, ...]:
    """The participants' names, trimmed: refused when empty, repeated, or not a multiple of
    four (a table is four players: no byes, no tables of three, in these rules)."""
    names = tuple(" ".join(str(name).split()) for name in players)
    if len(names) > MAX_PLAYERS:  # before anything else is looked at: a list may be huge
        raise TournamentError(f"{len(names)} participants: at most {MAX_PLAYERS}")
    if any(not name for name in names):
        raise TournamentError("a participant has no name")
    if any(len(name) > 60 for name in names):
        raise TournamentError("a participant's name is longer than 60 characters")
    odd = next((name for name in names if not name.isprintable() or holds_lone_surrogate(name)), None)
    if odd is not None:
        raise TournamentError(f"the name {readable(odd)!r} holds characters that are not letters, digits or "
                              "punctuation: write it as it is printed")
    doubled = sorted(name for name, count in Counter(names).items() if count > 1)
    if doubled:
        raise TournamentError(f"two participants have the same name: {', '.join(doubled)} "
                              "(add a number or an initial)")
    if len(names) < 4:
        raise TournamentError(f"{plural(len(names), 'participant')}: a tournament needs at least one table of four")
    if len(names) % 4:
        short = 4 - len(names) % 4
        raise TournamentError(
            f"{len(names)} participants do not make tables of four: every table seats four "
            f"players (the rules have no byes or tables of three), so add {short} more "
            f"(reserves) or take {len(names) % 4} out")
    return names


def fewest_second_meetings(players: int, rounds: int) -> int:
    """How many meetings of a pair that met before no schedule of `players` over `rounds` can
    avoid (a lower bound, ``Schedule.second_meetings``), the larger of two counts:

    - each player sits with 3 opponents a round, 3 x rounds in all, among players - 1 others:
      the excess is a meeting again, and each such meeting is counted by both its players;
    - with fewer than four tables, a table of a later round takes its four players from the
      first round's tables, so some of them sat together then (two tables: two pairs at best).
    """
    tables = players // 4
    if tables < 1 or rounds < 2:
        return 0
    excess = max(0, 3 * rounds - (players - 1))
    by_count = math.ceil(players * excess / 2)
    # the four seats of a table shared as evenly as can be over the first round's tables
    shares = [4 // tables + (1 if k < 4 % tables else 0) for k in range(tables)]
    together = sum(n * (n - 1) // 2 for n in shares)
    return max(by_count, (rounds - 1) * tables * together)


def make_schedule(players: Sequence[str], rounds: int, seed: int | None = None) -> Schedule:
    """A random rotation schedule that spreads opponents: round by round, tables drawn at
    random and improved by swapping players between tables while that lowers the repeated
    meetings (a pair that met m times before costs m squared); then the whole schedule
    improved by swaps in any round while pairs still meet twice (``_spread``: the greedy draw
    alone repeated pairs where none need be, e.g. 16 players over 4 rounds); then each
    table's starting winds chosen so that every player starts with each wind as evenly as can
    be.  The same players, rounds and seed give the same schedule."""
    names = check_players(players)
    if not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise TournamentError(f"the number of rounds must be 1-{MAX_ROUNDS} (got {rounds!r})")
    rng = random.Random(seed)
    count = len(names)
    met = [[0] * count for _ in range(count)]
    drawn: list[list[list[int]]] = []
    for _ in range(rounds):
        best, best_cost = None, None
        for _ in range(SHUFFLES_PER_ROUND):
            order = list(range(count))
            rng.shuffle(order)
            tables = [order[k:k + 4] for k in range(0, count, 4)]
            cost = _improve(tables, met)
            if best_cost is None or cost < best_cost:
                best, best_cost = tables, cost
            if best_cost == 0:
                break
        for table in best:
            for a, b in combinations(table, 2):
                met[a][b] += 1
                met[b][a] += 1
        drawn.append(best)
    _spread(drawn, rng)
    started = [[0] * 4 for _ in range(count)]
    schedule = []
    for tables in drawn:
        seated = []
        for table in tables:
            winds = min(permutations(table), key=lambda order: (
                sum(started[p][w] ** 2 for w, p in enumerate(order)), rng.random()))
            for w, p in enumerate(winds):
                started[p][w] += 1
            seated.append(tuple(names[p] for p in winds))
        schedule.append(tuple(seated))
    return Schedule(names, tuple(schedule), seed)


def _table_cost(table: Sequence[int], met: list[list[int]]) -> int:
    return sum(met[a][b] ** 2 for a, b in combinations(table, 2))


def _improve(tables: list[list[int]], met: list[list[int]]) -> int:
    """Swap players between tables while a swap lowers the cost; returns the cost."""
    improved = True
    while improved:
        improved = False
        for t, u in combinations(range(len(tables)), 2):
            for i in range(4):
                for j in range(4):
                    a, b = tables[t], tables[u]
                    before = _table_cost(a, met) + _table_cost(b, met)
                    a[i], b[j] = b[j], a[i]
                    if _table_cost(a, met) + _table_cost(b, met) < before:
                        improved = True
                    else:
                        a[i], b[j] = b[j], a[i]
    return sum(_table_cost(table, met) for table in tables)


def _spread(rounds: list[list[list[int]]], rng: random.Random, steps: int | None = None) -> int:
    """Lower the schedule's repeated meetings, all rounds at once (a pair that meets m times
    costs (m - 1) squared: 0 when no pair meets twice), as the social golfer problem is
    usually searched: take a pair that meets twice and a round where they share a table, swap
    one of them with a player of another table of that round; a swap that costs no more is
    taken, a worse one now and then (simulated annealing), and the best schedule seen is
    kept (`rounds` is changed in place).  Returns the cost left."""
    if len(rounds[0]) < 2:
        return 0
    steps = SPREAD_STEPS if steps is None else steps
    count = sum(len(table) for table in rounds[0])
    met = [[0] * count for _ in range(count)]  # pair -> meetings, kept up to date by the swaps
    for tables in rounds:
        for table in tables:
            for x, y in combinations(table, 2):
                met[x][y] += 1
                met[y][x] += 1
    where = [[0] * count for _ in rounds]  # round -> player -> table
    for r, tables in enumerate(rounds):
        for t, table in enumerate(tables):
            for p in table:
                where[r][p] = t
    clashes = {(a, b) for a in range(count) for b in range(a + 1, count) if met[a][b] > 1}
    cost = sum((met[a][b] - 1) ** 2 for a, b in clashes)
    best_cost, best = cost, [[list(table) for table in seated] for seated in rounds]

    def meet(x: int, y: int, change: int) -> None:
        met[x][y] += change
        met[y][x] += change
        pair = (x, y) if x < y else (y, x)
        if met[x][y] > 1:
            clashes.add(pair)
        else:
            clashes.discard(pair)

    for step in range(steps):
        if cost == 0:
            break
        a, c = rng.choice(list(clashes))  # a set of int pairs iterates the same on every run
        shared = [r for r in range(len(rounds)) if where[r][a] == where[r][c]]
        r = rng.choice(shared)
        tables = rounds[r]
        if rng.random() < 0.5:
            a, c = c, a
        t = where[r][a]
        u = rng.choice([k for k in range(len(tables)) if k != t])
        first, second = tables[t], tables[u]
        i, j = first.index(a), rng.randrange(4)
        b = second[j]
        delta = sum(_joined(met[b][x]) - _joined(met[a][x] - 1) for x in first if x != a) + \
            sum(_joined(met[a][x]) - _joined(met[b][x] - 1) for x in second if x != b)
        temperature = 0.6 * (1 - step / steps) + 0.05
        if delta > 0 and rng.random() >= math.exp(-delta / temperature):
            continue
        for x in first:
            if x != a:
                meet(a, x, -1)
                meet(b, x, +1)
        for x in second:
            if x != b:
                meet(b, x, -1)
                meet(a, x, +1)
        first[i], second[j] = b, a
        where[r][a], where[r][b] = u, t
        cost += delta
        if cost < best_cost:
            best_cost, best = cost, [[list(table) for table in seated] for seated in rounds]
    if best_cost < cost:  # back to the best seen
        rounds[:] = best
    return best_cost


def _joined(meetings: int) -> int:
    """What a pair that met `meetings` times adds to the cost by meeting once more: a pair
    that meets m times costs (m - 1) squared, so a third meeting weighs three second ones."""
    return 2 * meetings - 1 if meetings >= 1 else 0


# ---------------------------------------------------------------------------- score slips

@dataclass(frozen=True)
class Slip:
    """One hand at one table as the players note it: each player's points and the Mahjong
    maker; or a remise (no Mahjong, nothing settled).  `dead`: players whose hand was dead
    (0 points, and they pay)."""

    round: int
    table: int
    hand: int
    points: Mapping[str, int] = field(default_factory=dict)
    mahjong: str | None = None
    remise: bool = False
    dead: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "table": self.table, "hand": self.hand, "points": dict(self.points),
                "mahjong": self.mahjong, "remise": self.remise, "dead": list(self.dead)}


def _whole_number(value: Any, what: str) -> int:
    if isinstance(value, bool) or value is None:
        raise TournamentError(f"{what} must be a whole number")
    if isinstance(value, str):
        value = value.strip()
        if not value:
            return 0
        number = whole_number(value)
        if number is None:
            raise TournamentError(f"{what} must be a whole number (got {readable(value)[:40]!r})")
        value = number
    if isinstance(value, float):
        if not value.is_integer():
            raise TournamentError(f"{what} must be a whole number (got {value})")
        value = int(value)
    if not isinstance(value, int):
        raise TournamentError(f"{what} must be a whole number")
    return value


def slip_from_dict(data: Any) -> Slip:
    """A slip from JSON or a form: {"round", "table", "hand", "points": {player: n},
    "mahjong": player | null, "remise": bool, "dead": [player, ...]}; shape only (see
    ``check_slip`` for what the tournament allows)."""
    if not isinstance(data, Mapping):
        raise TournamentError("a slip must be an object with round, table, hand, points and mahjong")
    numbers = {key: _whole_number(data.get(key), key) for key in ("round", "table", "hand")}
    points = data.get("points") or {}
    if not isinstance(points, Mapping):
        raise TournamentError('points must be an object: {"player name": points, ...}')
    mahjong = data.get("mahjong")
    if isinstance(mahjong, (list, tuple)):
        makers = [m for m in mahjong if m]
        if len(makers) > 1:
            raise TournamentError(f"two Mahjong makers ({', '.join(map(str, makers))}): a hand has one, "
                                  "or none for a remise")
        mahjong = makers[0] if makers else None
    if mahjong is not None and not isinstance(mahjong, str):
        raise TournamentError("mahjong must be the name of the player who made Mahjong")
    dead = data.get("dead") or ()
    if isinstance(dead, str):
        dead = (dead,)
    if not isinstance(dead, (list, tuple)) or not all(isinstance(d, str) for d in dead):
        raise TournamentError("dead must be a list of player names")
    remise = data.get("remise", False)
    if isinstance(remise, str):
        remise = remise.lower() in ("1", "true", "on", "yes")
    return Slip(round=numbers["round"], table=numbers["table"], hand=numbers["hand"],
                points={str(name): _whole_number(value, f"the points of {name}") for name, value in points.items()},
                mahjong=mahjong or None, remise=bool(remise), dead=tuple(dead))


def check_slip(schedule: Schedule, slip: Slip, earlier: Sequence[Slip] = (),
               settings: Settings = Settings()) -> Slip:
    """The slip, checked against the schedule, the rules and the slips already entered
    (`earlier`, the same table's included); raises TournamentError with the reason."""
    players = schedule.table(slip.round, slip.table)
    schedule.seats(slip.round, slip.table, slip.hand)  # the hand number is checked
    where = f"round {slip.round}, table {slip.table}, hand {slip.hand}"
    unknown = [name for name in [*slip.points, *slip.dead, *([slip.mahjong] if slip.mahjong else [])]
               if name not in players]
    if unknown:
        listed = "not a participant" if unknown[0] not in schedule.players else "not at this table"
        raise TournamentError(f"{unknown[0]} is {listed} ({where} seats {', '.join(players)})")
    if slip.remise:
        if slip.mahjong or any(slip.points.values()) or slip.dead:
            raise TournamentError(f"{where}: a remise has no Mahjong maker and settles no points; "
                                  "leave the points empty")
    else:
        if not slip.mahjong:
            raise TournamentError(f"{where}: who made Mahjong? (a hand without Mahjong is a remise)")
        missing = [name for name in players if name not in slip.points]
        if missing:
            raise TournamentError(f"{where}: no points for {', '.join(missing)} (0 if they scored nothing)")
        for name, points in slip.points.items():
            if points < 0 or points > settings.hand_cap:
                raise TournamentError(f"{name}: {points} points cannot be a score (scores run "
                                      f"0-{settings.hand_cap})")
            if points % 2:
                raise TournamentError(f"{name}: {points} points cannot be a score (every Rode Draak "
                                      "score is even: sets, pairs and Mahjong count in twos, then double)")
        lowest = lowest_winning_score(settings)
        if slip.points[slip.mahjong] < lowest:
            raise TournamentError(
                f"{slip.mahjong} made Mahjong with {slip.points[slip.mahjong]} points: a winner holds at "
                f"least {lowest} (Mahjong alone is worth {settings.mahjong_points}, doubled at least once: "
                f"a schoon spel is a doubling, else {settings.min_doublings_to_win} doublings are needed)")
        if slip.mahjong in slip.dead:
            raise TournamentError(f"{slip.mahjong} made Mahjong, so the hand was not dead")
        for name in slip.dead:
            if slip.points.get(name):
                raise TournamentError(f"{name}'s hand was dead: a dead hand scores 0 (and pays)")
    same_hand = [s for s in earlier if (s.round, s.table, s.hand) == (slip.round, slip.table, slip.hand)]
    if any(not s.remise for s in same_hand):
        raise TournamentError(f"{where} already has a slip with a Mahjong; correct that slip instead")
    if same_hand:  # a replay of a remise
        unplayed = unplayed_hands(earlier, slip.round, slip.table)
        if unplayed:
            raise TournamentError(
                f"{where} was a remise: after a remise the wind turns, and a remise is replayed only "
                f"once every player has been East ({plural_word(len(unplayed), 'hand')} "
                f"{', '.join(map(str, unplayed))} of this round still to play)")
    return slip


def lowest_winning_score(settings: Settings = Settings()) -> int:
    """The least a Mahjong maker can hold: Mahjong's points, doubled once for a schoon spel
    (one suit with honours is a doubling) or as often as the doublings a win needs."""
    return settings.mahjong_points * 2 ** min(1, settings.min_doublings_to_win)


def unplayed_hands(slips: Sequence[Slip], round_number: int, table: int) -> list[int]:
    """The hands of a table's round with no slip yet (a remise counts as played: the wind
    turned after it)."""
    played = {s.hand for s in slips if (s.round, s.table) == (round_number, table)}
    return [h for h in range(1, HANDS_PER_ROUND + 1) if h not in played]


def replayable_remises(slips: Sequence[Slip], round_number: int, table: int) -> list[int]:
    """The hands of a table's round that were a remise and may be replayed now: every hand
    has its slip (every player was East) and none of theirs has a Mahjong yet."""
    if unplayed_hands(slips, round_number, table):
        return []
    mine = [s for s in slips if (s.round, s.table) == (round_number, table)]
    return sorted({s.hand for s in mine if s.remise} - {s.hand for s in mine if not s.remise})


def next_hand(schedule: Schedule, slips: Sequence[Slip], at: tuple[int, int] | None = None
              ) -> tuple[int, int, int] | None:
    """The first hand in playing order with no slip yet; with `at` (round, table) only that
    table's round. After a remise the wind turns, so a remise is not the next hand: it may be
    replayed once the round's four hands are played (``replayable_remises``)."""
    for r in range(1, len(schedule.rounds) + 1):
        for t in range(1, schedule.table_count + 1):
            if at is not None and (r, t) != at:
                continue
            unplayed = unplayed_hands(slips, r, t)
            if unplayed:
                return r, t, unplayed[0]
    return None


def slip_transfers(schedule: Schedule, slip: Slip) -> list[tuple[str, str, int]]:
    """Every payment (payer, payee, amount) of a slip, between players."""
    if slip.remise:
        return []
    seats = schedule.seats(slip.round, slip.table, slip.hand)
    wind_of = {player: wind for wind, player in seats.items()}
    scores = {wind: 0 if player in slip.dead else slip.points.get(player, 0) for wind, player in seats.items()}
    return [(seats[payer], seats[payee], amount)
            for payer, payee, amount in transfers(scores, wind_of[slip.mahjong])]


def slip_payments(schedule: Schedule, slip: Slip) -> dict[str, int]:
    """Each player's net gain from one slip (sums to zero)."""
    net = {player: 0 for player in schedule.table(slip.round, slip.table)}
    for payer, payee, amount in slip_transfers(schedule, slip):
        net[payer] -= amount
        net[payee] += amount
    return net


# ------------------------------------------------------------------------------ standings

@dataclass(frozen=True)
class Standing:
    rank: int
    player: str
    total: int
    hands: int       # hands played (remises included)
    mahjongs: int


def standings(schedule: Schedule, slips: Sequence[Slip]) -> list[Standing]:
    """Players ranked by their total (equal totals share a rank: 1, 2, 2, 4), then by name."""
    total = {p: 0 for p in schedule.players}
    hands = {p: 0 for p in schedule.players}
    mahjongs = {p: 0 for p in schedule.players}
    for slip in slips:
        for player, amount in slip_payments(schedule, slip).items():
            total[player] += amount
            hands[player] += 1
        if slip.mahjong:
            mahjongs[slip.mahjong] += 1
    order = sorted(schedule.players, key=lambda p: (-total[p], p.casefold()))
    out: list[Standing] = []
    for k, player in enumerate(order):
        rank = out[-1].rank if out and out[-1].total == total[player] else k + 1
        out.append(Standing(rank, player, total[player], hands[player], mahjongs[player]))
    return out


def running_totals(schedule: Schedule, slips: Sequence[Slip]) -> list[dict[str, int]]:
    """After each slip (in the order given), every player's total so far."""
    total = {p: 0 for p in schedule.players}
    out = []
    for slip in slips:
        for player, amount in slip_payments(schedule, slip).items():
            total[player] += amount
        out.append(dict(total))
    return out


def slip_order(slip: Slip) -> tuple[int, int, int]:
    """Slips in playing order: round, table, hand (replays after the remise they replay,
    as entered: sort stably)."""
    return slip.round, slip.table, slip.hand
