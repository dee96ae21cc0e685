"""What the hard AI believes of each other player's bids, from what its seat has seen.

Pure and standard library only. For every other player it keeps a small grid
of hypotheses -- how often the player enters a round, the level of its bids
and how widely they spread -- and weighs each by how well it explains the
rounds played: who won, the bid this seat won or lost with, the winning bid or
all bids where the room reveals them, and rounds nobody bid in; a player who
wins on a beat is read from the rounds on its beat. Older rounds
count for less (players change their minds). From the beliefs it gives the
chance that every other player bids below a given bid: :meth:`Table.chance_below`.

Bids are measured in *paces*, the starting bank over the rounds, so one table
of numbers serves every bank and round count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from .rivals import rhythm
from .seat import Seat

# The bid grid, in paces: the candidate bids of the hard AI and the points where
# beliefs are read. Evenly spaced in log from GRID_LOW to the whole bank.
GRID_POINTS = 28
GRID_LOW = 0.01
# Hypotheses per player: the share of rounds it enters, its median bid when in
# (the grid's points from LEVEL_LOW to LEVEL_HIGH paces, every LEVEL_STEP-th),
# and the spread of its bids (sigma of their log).
ENTRY = (0.1, 0.35, 0.6, 0.85, 1.0)
LEVEL_LOW, LEVEL_HIGH, LEVEL_STEP = 0.08, 8.0, 2
SPREAD = (0.4, 1.4)
# Before any round: bids near PRIOR_LEVEL paces, PRIOR_SIGMA wide in log.
PRIOR_LEVEL, PRIOR_SIGMA = 1.3, 1.2
DECAY = 0.9  # the weight of a round's evidence shrinks by this each round after it
# Soft evidence: a player who did not win bid below the going price; one who won
# without our seeing its bid bid above it. Weighed less than what was seen.
SOFT = 0.5
# A player may have changed its play this many rounds ago; the log prior weight
# of each such change beside playing the same all game.
SPLITS = (1, 2, 4, 7)
CHANGE = math.log(0.1)
# A player who wins on a beat (every 2nd, 3rd or 4th round: ``rivals.rhythm``) is
# read from its rounds on the beat only, and off the beat bids with this chance.
OFF_BEAT = 0.1
BUDGET = 1.0  # ...and then to bid its bank left over the rounds left, times this


@dataclass(frozen=True)
class Grid:
    """The bid grid, the hypotheses, and each hypothesis' chance of what can be seen."""

    points: tuple[float, ...]  # paces
    edges: tuple[float, ...]  # cell edges, paces: edges[k] <= points[k] < edges[k + 1]
    hypotheses: tuple[tuple[float, int, int], ...]  # (entry, level index, spread index)
    log_prior: tuple[float, ...]
    log_mass: float  # the log of the prior's total weight (log_prior is not normalised)
    levels: tuple[float, ...]  # the hypotheses' bid levels, paces
    # log_chance[kind][k][h]: hypothesis h's log chance of evidence ``kind`` at cell k
    log_chance: dict
    # mid[l][s][k]: the chance that a bid of level l, spread s, is below a bid
    # anywhere in cell k (the mean over the cell's two edges)
    mid: tuple[tuple[tuple[float, ...], ...], ...]


# Evidence about one player in one round: (kind, cell, weight, age in rounds).
OUT, AT, BELOW, ABOVE = "out", "at", "below", "above"


@lru_cache(maxsize=16)
def grid_for(rounds: int) -> Grid:
    """The grid of a game of ``rounds`` rounds (the bank is ``rounds`` paces)."""
    top = float(rounds)
    ratio = (top / GRID_LOW) ** (1 / (GRID_POINTS - 1))
    points = tuple(GRID_LOW * ratio ** k for k in range(GRID_POINTS))
    edges = (0.0,) + tuple(math.sqrt(a * b) for a, b in zip(points, points[1:])) + (math.inf,)
    levels = [p for p in points[::LEVEL_STEP] if LEVEL_LOW <= p <= LEVEL_HIGH]
    # below[l][s][k]: the chance that a bid of level l, spread s, is below edges[k]
    below = [[[_normal_cdf(math.log(x / lv) / s) if 0 < x < math.inf else float(x > 0)
               for x in edges] for s in SPREAD] for lv in levels]
    hyps, prior = [], []
    for e in ENTRY:
        for li, lv in enumerate(levels):
            for si in range(len(SPREAD)):
                hyps.append((e, li, si))
                prior.append(-0.5 * (math.log(lv / PRIOR_LEVEL) / PRIOR_SIGMA) ** 2)

    def chance(kind: str, e: float, row: list[float], k: int) -> float:
        if kind == OUT:
            return 1.0 - e
        if kind == AT:
            return e * (row[k + 1] - row[k])
        if kind == BELOW:
            return 1.0 - e + e * row[k]
        return e * (1.0 - row[k + 1])  # ABOVE

    log_chance = {kind: [tuple(math.log(max(chance(kind, e, below[li][si], k), 1e-9))
                               for e, li, si in hyps) for k in range(GRID_POINTS)]
                  for kind in (OUT, AT, BELOW, ABOVE)}
    mid = tuple(tuple(tuple(0.5 * (a + b) for a, b in zip(row, row[1:])) for row in rows)
                for rows in below)
    return Grid(points, edges, tuple(hyps), tuple(prior), _log_sum(prior), tuple(levels),
                log_chance, mid)


def _normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2))


def cell(grid: Grid, paces: float) -> int:
    """The grid cell a bid of ``paces`` falls in."""
    lo, hi = 0, len(grid.points) - 1
    while lo < hi:  # the last edge below or at the bid
        mid = (lo + hi + 1) // 2
        if grid.edges[mid] <= paces:
            lo = mid
        else:
            hi = mid - 1
    return lo


def evidence(seat: Seat, grid: Grid, pace: float, going: int | None) -> dict[str, list]:
    """What each other player's past rounds say about its bids.

    ``going`` is the cell of the going price (what the top bid has been
    selling for, :meth:`Table.going_cell`), or None on a first pass that uses
    only what was seen.
    """
    out: dict[str, list] = {p["id"]: [] for p in seat.opponents}
    for h in seat.history:
        age = seat.round - 1 - h["round"]  # 0: the last round
        weight = DECAY ** age
        winners = h.get("winners") or ([h["winner"]] if h.get("winner") else [])
        mine = h.get("my_bid_ms")
        bids = h.get("bids")
        won_bid = h.get("winning_bid_ms")
        for pid, ev in out.items():
            if bids is not None:  # all bids revealed
                b = bids.get(pid)
                ev.append((OUT, 0, weight, age) if b is None
                          else (AT, cell(grid, b / pace), weight, age))
            elif pid in winners:
                if won_bid is not None:
                    ev.append((AT, cell(grid, won_bid / pace), weight, age))
                elif mine is not None:
                    ev.append((ABOVE, cell(grid, mine / pace), weight, age))
                elif going is not None:
                    ev.append((ABOVE, going, weight * SOFT, age))
            elif won_bid is not None:
                ev.append((BELOW, cell(grid, won_bid / pace), weight, age))
            elif mine is not None and seat.me in winners:
                ev.append((BELOW, cell(grid, mine / pace), weight, age))
            elif not winners and not h.get("tie"):
                ev.append((OUT, 0, weight, age))  # nobody bid at all
            elif going is not None:
                ev.append((BELOW, going, weight * SOFT, age))
    return out


def split_prior(grid: Grid, level: float) -> list[float]:
    """The log prior of a player who has just changed its play: bids near ``level``."""
    return [-0.5 * (math.log(grid.levels[li] / level) / PRIOR_SIGMA) ** 2
            for _, li, _ in grid.hypotheses]


def spent(seat: Seat, pace: float, going: float) -> dict[str, float]:
    """What each other player has at least spent, in paces, as far as this seat can tell.

    A bid seen counts whole; a win over this seat's bid counts that bid; any
    other win counts the going price (``going``, paces).
    """
    out = {p["id"]: 0.0 for p in seat.opponents}
    for h in seat.history:
        bids = h.get("bids")
        winners = h.get("winners") or ([h["winner"]] if h.get("winner") else [])
        for pid in out:
            if bids is not None:
                out[pid] += (bids.get(pid) or 0) / pace
            elif pid in winners:
                known = h.get("winning_bid_ms") or h.get("my_bid_ms")
                out[pid] += known / pace if known else going
    return out


def posterior(grid: Grid, ev: list, fresh: list[float] | None = None) -> list[float]:
    """The weight of each hypothesis given one player's evidence (they sum to 1).

    Players change their play (one who waited starts to spend): beside "the
    same all game", each of SPLITS says "changed that many rounds ago", when
    only the rounds since count. Each is weighed by how well it explains the
    whole record (its marginal likelihood), the same as the hypotheses.
    """
    prior = grid.log_prior
    logs = prior
    recent = {}
    for kind, k, w, age in sorted(ev, key=lambda item: item[3]):  # newest first
        for split in SPLITS:
            if age >= split and split not in recent:
                recent[split] = logs
        logs = [a + w * b for a, b in zip(logs, grid.log_chance[kind][k])]
    best = logs
    evidence_all = _log_sum(logs)
    options = [(evidence_all, logs)]
    fresh = prior if fresh is None else fresh
    fresh_mass = _log_sum(fresh)
    for split, seen in recent.items():
        older = [a - b + c for a, b, c in zip(logs, seen, prior)]
        newer = [a - b + c for a, b, c in zip(seen, prior, fresh)]
        options.append((_log_sum(newer) - fresh_mass + _log_sum(older) - grid.log_mass
                        + CHANGE, newer))
    top = max(m for m, _ in options)
    out = [0.0] * len(best)
    total = 0.0
    for m, row in options:
        share = math.exp(m - top)
        total += share
        peak = max(row)
        weights = [math.exp(x - peak) for x in row]
        norm = share / sum(weights)
        out = [a + norm * x for a, x in zip(out, weights)]
    return [x / total for x in out]


def _log_sum(logs: list[float]) -> float:
    peak = max(logs)
    return peak + math.log(sum(math.exp(x - peak) for x in logs))


def below_each(grid: Grid, weights: list[float]) -> list[float]:
    """One player's chance of bidding below a bid in each grid cell (anywhere in it).

    A hypothesis' chance is (1 - e) + e * F(bid): summed over the hypotheses of
    one level and spread, a constant plus a multiple of that shape's F.
    """
    out_share = 0.0
    per_shape: dict[tuple[int, int], float] = {}
    for (e, li, si), w in zip(grid.hypotheses, weights):
        out_share += w * (1.0 - e)
        per_shape[li, si] = per_shape.get((li, si), 0.0) + w * e
    out = [out_share] * len(grid.points)
    for (li, si), w in per_shape.items():
        if w > 1e-7:
            out = [a + w * b for a, b in zip(out, grid.mid[li][si])]
    return out


@dataclass(frozen=True)
class Table:
    """The seat's beliefs: for each grid point, the chance every other bid is lower."""

    grid: Grid
    pace: float
    all_below: tuple[float, ...]
    left: dict = None  # each other player's bank left at most, as far as seen, paces

    @classmethod
    def from_seat(cls, seat: Seat) -> Table:
        grid = grid_for(seat.rounds)
        pace = seat.start_bank_ms / seat.rounds
        rivals = [p["id"] for p in seat.opponents if not p.get("left")]
        first = cls._build(grid, pace, rivals, evidence(seat, grid, pace, None), {})
        going = first.going_cell()
        paid = spent(seat, pace, grid.points[going])
        # A player who changes its play is expected to spend what it has left.
        fresh = {pid: split_prior(grid, min(LEVEL_HIGH, max(
            LEVEL_LOW, BUDGET * (seat.rounds - paid[pid]) / seat.rounds_left))) for pid in rivals}
        table = cls._build(grid, pace, rivals, evidence(seat, grid, pace, going), fresh, seat)
        return cls(table.grid, pace, table.all_below,
                   {pid: max(0.0, seat.rounds - paid[pid]) for pid in rivals})

    @classmethod
    def _build(cls, grid: Grid, pace: float, rivals: list[str], ev: dict,
               fresh: dict, seat: Seat | None = None) -> Table:
        all_below = [1.0] * len(grid.points)
        for pid in rivals:
            beat = rhythm(seat, pid) if seat is not None else None
            mine = ev[pid]
            if beat is not None:
                period, phase = beat
                on = seat.round % period == phase
                mine = [e for e in mine if (seat.round - 1 - e[3]) % period == phase]
            weights = posterior(grid, mine, fresh.get(pid))
            below = below_each(grid, weights)
            if beat is not None and not on:
                below = [1.0 - OFF_BEAT + OFF_BEAT * q for q in below]
            for k, q in enumerate(below):
                all_below[k] *= q
        return cls(grid, pace, tuple(all_below))

    def going_cell(self) -> int:
        """The cell where the top other bid is as likely below as above."""
        for k, q in enumerate(self.all_below):
            if q >= 0.5:
                return max(0, k - 1)
        return len(self.all_below) - 1

    def chance_below(self, k: int) -> float:
        """The chance that every other player's bid is below grid point ``k``."""
        return self.all_below[k]
