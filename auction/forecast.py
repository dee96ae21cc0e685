"""The hard AI's arithmetic: what a token will cost, and where to spend for it.

Pure and standard library only, like ``auction.bots`` which uses it: a price
model of the top other bid of every round left (from what the seat has seen
and what the others can still afford), and the allocation of a bank over those
rounds that gives the most expected tokens.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .rivals import winners_of
from .seat import Seat

TIE_BREAK = 1 / 2_400_000  # what a ms kept is worth, in tokens: it breaks ties at the end


def chance_per_ms(value, grid, k, j) -> float:
    return -1.0 if j is None else value[k][j] / grid[j]


def allocate(value, grid, bank, rounds) -> dict[int, int | None]:
    """For each round in ``rounds``, the grid bid (or None) that together win most.

    Each round offers steps up the upper concave hull of its (bid, chance)
    points; the steps with the most chance per millisecond are bought first
    until the bank is spent — the Lagrangian solution of the budget, found
    without a search. A step worth less than the time kept is never bought.
    """
    steps = []
    for k in rounds:
        hull = [(0.0, 0.0, None)]
        for j, (b, v) in enumerate(zip(grid, value[k])):
            if v <= hull[-1][1]:
                continue
            while len(hull) >= 2:
                (b0, v0, _), (b1, v1, _) = hull[-2], hull[-1]
                if (v1 - v0) * (b - b0) <= (v - v0) * (b1 - b0):
                    hull.pop()  # (b1, v1) is on or under the chord: never the best
                else:
                    break
            hull.append((b, v, j))
        for (b0, v0, _), (b1, v1, j) in zip(hull, hull[1:]):
            steps.append(((v1 - v0) / (b1 - b0), b1 - b0, k, j))
    steps.sort(key=lambda step: -step[0])
    plan: dict[int, int | None] = {k: None for k in rounds}
    spent = 0.0
    for per_ms, cost, k, j in steps:
        if per_ms <= TIE_BREAK or spent + cost > bank:
            break
        spent += cost
        plan[k] = j
    return plan


def bid_grid(bank_ms: int) -> list[float]:
    """Candidate bids from a second to the whole bank, evenly spaced in log."""
    low, steps = 1000.0, 26
    if bank_ms <= low:
        return [float(bank_ms)]
    ratio = (bank_ms / low) ** (1 / (steps - 1))
    return [low * ratio**k for k in range(steps - 1)] + [float(bank_ms)]


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


class PriceModel:
    """What the highest other bid of a coming round is likely to be.

    With chance ``none`` nobody else bids; otherwise the top other bid is
    log-normal around a level that drifts by a steady factor per round (the
    opponents' money runs down, or not). Level, drift and spread are weighed on
    a grid by how well they explain what this seat has seen: its own bids won
    or lost, and whatever the reveal setting showed. No opponent can bid more
    than it can still afford, which history bounds from above.
    """

    SIGMAS = (0.3, 0.6)
    DRIFTS = (-0.12, -0.06, -0.03, 0.0, 0.03, 0.06)
    # What a seat expects before it has seen anything: that prices fall as
    # banks run down (so it is in no hurry to fight early); random is less sure.
    DRIFT_PRIOR = {
        "patient": (0.6, 1.0, 1.0, 0.7, 0.3, 0.1),
        "aggressive": (0.6, 1.0, 1.0, 0.7, 0.3, 0.1),
        "random": (0.4, 0.8, 1.0, 1.0, 0.6, 0.3),
    }
    LEVELS = 14
    DECAY = 0.95

    def __init__(self, none: float, rows: list[tuple[float, float, float, float]],
                 cap: float, gap: int):
        self.none, self.rows = none, rows  # rows: (weight, level, drift, sigma)
        self.cap, self.gap = cap, gap

    @classmethod
    def from_seat(cls, seat: Seat, style: str = "random",
                  drift_prior: tuple | None = None) -> PriceModel:
        obs, none_count, some_count, cap = observe(seat)
        drift_prior = drift_prior or cls.DRIFT_PRIOR[style]
        none = (none_count + 0.25) / (none_count + some_count + 8.0)
        n_opp = max(1, sum(1 for p in seat.opponents if not p.get("left")))
        centre = math.log(seat.start_bank_ms / seat.rounds * (1 + 0.25 * n_opp))
        levels = [centre + 2.4 * (2 * k / (cls.LEVELS - 1) - 1) for k in range(cls.LEVELS)]
        obs = [(-age, kind, math.log(value), cls.DECAY**age) for age, kind, value in obs]
        log_some = math.log(1 - none)
        erfc, log, root2 = math.erfc, math.log, math.sqrt(2.0)
        rows = []
        for sigma in cls.SIGMAS:
            scale = sigma * root2
            for drift, prior in zip(cls.DRIFTS, drift_prior):
                shifted = [(kind, lv - drift * t, w) for t, kind, lv, w in obs]
                for mu in levels:
                    logw = log(prior) - 0.5 * ((mu - centre) / 0.55) ** 2
                    for kind, x, w in shifted:
                        z = (x - mu) / scale
                        if kind == "below":  # P(top < x) = none + some * Phi
                            lik = none + (1 - none) * 0.5 * erfc(-z)
                        elif kind == "above":
                            lik = (1 - none) * 0.5 * erfc(z)
                        else:  # "exact": the density, up to a constant
                            logw += w * (log_some - z * z - log(sigma))
                            continue
                        logw += w * log(max(lik, 1e-12))
                    rows.append((logw, mu, drift, sigma))
        top = max(r[0] for r in rows)
        ws = [math.exp(r[0] - top) for r in rows]
        total = sum(ws)
        gap = seat.tie_margin_ms if seat.tie == "margin" else 100
        return cls(none, [(w / total, mu, d, sg) for w, (_, mu, d, sg) in zip(ws, rows)],
                   cap, gap)

    def sample(self, draw: float) -> Forecast:
        """One (level, drift, spread) of the grid, drawn by its weight (``draw`` in [0, 1)).

        Acting on a draw rather than on the average tries, now and then, a
        level the evidence does not rule out -- which is how a seat that mostly
        bids high learns that cheaper bids win too.
        """
        acc = 0.0
        for w, mu, drift, sigma in self.rows:
            acc += w
            if acc > draw:
                break
        return Forecast(self.none, self.cap, self.gap, mu, drift, sigma * sigma, 0.0, 0.0)

    def forecast(self) -> Forecast:
        """One log-normal per round ahead, matching the whole weighed grid."""
        e_m = e_d = e_mm = e_md = e_dd = e_s2 = 0.0
        for w, mu, drift, sigma in self.rows:
            e_m += w * mu
            e_d += w * drift
            e_mm += w * mu * mu
            e_md += w * mu * drift
            e_dd += w * drift * drift
            e_s2 += w * sigma * sigma
        return Forecast(self.none, self.cap, self.gap, e_m, e_d,
                        e_s2 + e_mm - e_m * e_m, e_md - e_m * e_d, e_dd - e_d * e_d)


@dataclass(frozen=True)
class Forecast:
    """Top other bid ``ahead`` rounds from now: log-normal, centre loc + drift*ahead."""

    none: float  # chance that nobody else bids
    cap: float  # the most any opponent can still afford
    gap: int  # how far ahead a bid must be not to tie
    loc: float
    drift: float
    var: float  # variance of the log at ahead=0, then + 2*cov*ahead + var_drift*ahead**2
    cov: float
    var_drift: float

    def win_chance(self, bid: float, ahead: int = 0) -> float:
        """The chance that ``bid`` beats every other bid ``ahead`` rounds from now."""
        beat = bid - self.gap  # keep clear of a tie
        if beat > self.cap:
            return 1.0
        if beat <= 0:
            return self.none
        centre = self.loc + self.drift * ahead
        var = self.var + 2 * self.cov * ahead + self.var_drift * ahead * ahead
        z = (math.log(beat) - centre) / math.sqrt(max(var, 1e-6))
        return self.none + (1 - self.none) * _phi(z)


def observe(seat: Seat):
    """Sightings of the top other bid in past rounds, from the seat's own history.

    Returns the sightings as (age in rounds, kind, ms) — kind "below" (this seat
    won with that bid), "above" (it lost with it) or "exact" (revealed) — the
    counts of rounds where nobody else bid and where someone did, and the most
    any opponent still in the game can still afford.
    """
    gap = seat.tie_margin_ms if seat.tie == "margin" else 100
    obs = []
    none_count = some_count = 0
    spent_at_least = {p["id"]: 0 for p in seat.opponents}
    for h in seat.history:
        age = seat.round - h["round"]
        mine = h.get("my_bid_ms")
        winners = winners_of(h)
        tie = bool(h.get("tie"))
        bids = h.get("bids")
        if bids is not None:
            others = [b for pid, b in bids.items() if pid != seat.me and b is not None]
            for pid, b in bids.items():
                if pid in spent_at_least and b is not None:
                    spent_at_least[pid] += b
            if others:
                some_count += 1
                obs.append((age, "exact", max(max(others), 50)))
            else:
                none_count += 1
            continue
        top = h.get("winning_bid_ms")
        i_won = seat.me in winners
        if top is not None:
            for pid in winners:
                if pid in spent_at_least:
                    spent_at_least[pid] += top
        if mine is None:
            if winners or tie:
                some_count += 1
                if top is not None:
                    obs.append((age, "exact", max(top, 50)))
            else:
                none_count += 1
            continue
        if i_won and not tie:
            obs.append((age, "below", max(mine, 50)))
            continue
        some_count += 1
        if top is not None and top > mine:
            obs.append((age, "exact", top))
        else:
            obs.append((age, "above", max(mine, 50)))
            if top is None and not tie:
                for pid in winners:
                    if pid in spent_at_least:
                        spent_at_least[pid] += mine + gap  # beat it, no tie
    active = [p["id"] for p in seat.opponents if not p.get("left")]
    cap = max((seat.start_bank_ms - spent_at_least[pid] for pid in active), default=0)
    return obs, none_count, some_count, cap
