"""What a token has been selling for, as one seat has seen it: the chance that a
bid of a given size beats every other player's.

Pure and standard library only (the hard AI in ``auction.ai.hard`` uses it). The
unknown is G(b), the chance that the top of the other players' bids in a round
is below b. Each past round tells this seat something about that top:

* a round it won alone at its bid m: the top was below m;
* a round it bid m in and did not win: the top was m or more;
* the winning bid or all bids, where the room reveals them: the top itself;
* a round nobody won (and no tie): nobody bid, the top was nothing.

The first two are "current-status" observations (one yes/no at one point); the
estimate that fits them best while rising with b is their isotonic regression,
fitted here by pooling adjacent violators. Older rounds count DECAY times less
per round (players change their play), and a prior curve -- what the seat
expects before it has seen anything -- counts as ``prior_weight`` rounds spread
over the grid, so a point no round has touched keeps the prior's value.
"""

from __future__ import annotations

import bisect
import math
from typing import Callable, Sequence

from .rivals import winners_of, won_alone
from .seat import Seat

DECAY = 0.9  # weight of a round one round older


def observations(seat: Seat) -> tuple[list[tuple[float, float]], list[tuple[float, float, bool]]]:
    """(exact, status): ``exact`` holds (weight, top of the others' bids) and
    ``status`` (weight, this seat's bid, whether the top was below it)."""
    exact, status = [], []
    for h in seat.history:
        weight = DECAY ** max(0, seat.round - 1 - h["round"])
        winners = winners_of(h)
        mine = h["my_bid_ms"]
        bids = h["bids"]
        if bids is not None:
            others = [b for p, b in bids.items() if p != seat.me and b is not None]
            exact.append((weight, float(max(others, default=0))))
        elif not winners and not h["tie"]:
            exact.append((weight, 0.0))  # nobody bid
        elif h["winning_bid_ms"] is not None and seat.me not in winners:
            exact.append((weight, float(h["winning_bid_ms"])))
        elif mine:
            status.append((weight, float(mine), won_alone(h, seat.me)))
    return exact, status


def chance_below(seat: Seat, points: Sequence[float], prior: Callable[[float], float],
                 prior_weight: float) -> list[float]:
    """G at each of the increasing bids ``points`` (ms), rising with the bid."""
    k = len(points)
    num = [prior_weight / k * prior(b) for b in points]
    den = [prior_weight / k] * k
    exact, status = observations(seat)
    for weight, top in exact:
        for i, b in enumerate(points):
            den[i] += weight
            num[i] += weight if top < b else 0.0
    logs = [math.log(max(b, 1.0)) for b in points]
    for weight, bid, below in status:
        i = nearest(logs, math.log(max(bid, 1.0)))
        den[i] += weight
        num[i] += weight if below else 0.0
    return isotonic(num, den)


def nearest(sorted_values: Sequence[float], x: float) -> int:
    """The index of the value in ``sorted_values`` nearest ``x``."""
    i = bisect.bisect_left(sorted_values, x)
    if i == 0:
        return 0
    if i == len(sorted_values):
        return i - 1
    return i if sorted_values[i] - x < x - sorted_values[i - 1] else i - 1


def isotonic(num: Sequence[float], den: Sequence[float]) -> list[float]:
    """The rising sequence nearest num/den, weighted by den (pool adjacent violators)."""
    blocks: list[list[float]] = []  # [num, den, length]
    for n, d in zip(num, den):
        blocks.append([n, d, 1])
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] > blocks[-1][0] * blocks[-2][1]:
            n2, d2, l2 = blocks.pop()
            blocks[-1][0] += n2
            blocks[-1][1] += d2
            blocks[-1][2] += l2
    out = []
    for n, d, length in blocks:
        out += [n / d if d > 0 else 0.0] * int(length)
    return out

