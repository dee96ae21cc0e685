"""The arithmetic of the hard AI's beliefs: hypotheses about one player's bids.

Pure and standard library only. A player's bids are described by a grid of
hypotheses -- the share of rounds it enters, the level of its bids and how
widely they spread -- each with its log chance of every piece of evidence a
seat can see, precomputed per round count. :func:`posterior` weighs them by a
player's evidence; :func:`below_each` turns the weights into the chance of a
bid below each cell of the bid grid. ``auction.table`` reads the evidence from
a seat's history. Bids are in *paces* (the starting bank over the rounds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

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
# A player may have changed its play this many rounds ago; the log prior weight
# of each such change beside playing the same all game. Above 1: changing their
# play is what players do (a saver turns spender), and the record of a steady
# one soon outweighs it. (Measured: at 0.1 a player who saved for the last
# rounds was read as one who had been losing all along, and won 42 % of games
# against four hard AIs; at 5, 27.5 % -- docs/ai.md.)
SPLITS = (1, 2, 4, 7)
CHANGE = math.log(5.0)


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


def split_prior(grid: Grid, level: float) -> list[float]:
    """The log prior of a player who has just changed its play: bids near ``level``."""
    return [-0.5 * (math.log(grid.levels[li] / level) / PRIOR_SIGMA) ** 2
            for _, li, _ in grid.hypotheses]


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
