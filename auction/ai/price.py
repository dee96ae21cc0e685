"""What a token has been selling for, as one seat has seen it: the chance that a
bid of a given size beats every other player's.

Pure and standard library only (the hard AI in ``auction.ai.hard`` uses it). The
unknown is G(b), the chance that the top of the other players' bids in a round
is below b. Each past round tells this seat something about that top:

* a round it won alone at its bid m: the top was below m;
* a round it bid m in and did not win: the top was m or more;
* the winning bid or all bids, where the room reveals them: the top itself;
* a round nobody won (and no tie): nobody bid, the top was nothing.

Where the round's clock is read (``clock_ms``: shown unless suspense is on), every round
tells the top bid of the table as every person watching read it, and who won it, and
``read_clock`` estimates G otherwise (below).

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
# ...and where the clock is read (read_clock): 0.7, players who read the clock move fast.
# (Measured, 600 quick games each against 4 hard AIs, five of the strongest strategies:
# at 0.9 the two best won 24.5 and 23.5 %, at 0.7 23.3 and 22.2 %, the others within 1
# point; bench/results/clock-exploit.txt.)
CLOCK_DECAY = 0.7


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


# -- the clock: every round's top bid, as everyone watching read it --------------------
#
# Read naively (the top of the others' bids, exactly, in every round the seat did not
# win alone), the clock made a table of hard AIs easy prey: all of them read the same
# tops, which are mostly each other's draws, and leaned the same way at once (a rising
# ramp won 44.3 % of 1,000 quick games against four of them, 27.5 % before; the story is
# in bench/results/ai/clock-exploit.txt). So the seat learns from the clock only what the
# players it cannot know bid: G(b) = (the hard seats' equilibrium, never learned) x K(b),
# K the chance that every other player (not a hard seat) bids below b. A round's clock
# and winner tell K's top exactly where one of those players won it alone, and that it
# was below the clock where a hard seat or this seat won (or a tie); that is
# left-censored data, whose estimate is the reverse Kaplan-Meier below.


def clocked(seat: Seat) -> bool:
    """Whether the seat has read any round's clock (never with suspense on)."""
    return any(h["clock_ms"] is not None for h in seat.history)


def read_clock(seat: Seat, points: Sequence[float], hard_below: Callable[[float], float],
               rest_below: Callable[[float], float], prior_weight: float,
               hards: set[str]) -> list[float]:
    """G at each of the increasing ``points``: ``hard_below`` (the other hard seats, at
    the equilibrium) times K, the others' top, estimated from the clocks and winners of
    past rounds with ``rest_below`` as a prior worth ``prior_weight`` rounds; ``hards``
    the ids of the other hard seats."""
    # (weight, value, exact): exact, K's top was the value; else it was below it.
    seen: list[tuple[float, float, bool]] = []
    for h in seat.history:
        weight = CLOCK_DECAY ** max(0, seat.round - 1 - h["round"])
        winners = winners_of(h)
        top = h["clock_ms"] if h["clock_ms"] is not None else h["winning_bid_ms"]
        if h["bids"] is not None:
            rest = [b for p, b in h["bids"].items()
                    if p != seat.me and p not in hards and b is not None]
            seen.append((weight, float(max(rest, default=0)), True))
        elif not winners and not h["tie"]:
            seen.append((weight, 0.0, True))  # nobody bid
        elif top is None:
            continue  # this round's top was not read (suspense)
        elif len(winners) == 1 and not h["tie"] and winners[0] != seat.me \
                and winners[0] not in hards:
            seen.append((weight, float(top), True))
        else:
            seen.append((weight, float(top) + 1.0, False))  # a tie, or won by a hard seat or me
    # What a person at the table can count: each player has paid at least the tops of
    # the rounds it won, so none bids more than its start bank less those (a player
    # who spent big on its wins can bid no more than what is left of it).
    most = max((bank_left(seat, p["id"]) for p in seat.opponents
                if not p["left"] and p["id"] not in hards), default=0.0)
    # The prior as exact pseudo-rounds: its mass between two points just under the upper
    # one (so that at the points K starts as the prior itself).
    k = len(points)
    mass = [rest_below(b) for b in points]
    spread = [(prior_weight * (m - (mass[i - 1] if i else 0.0)), points[i] - 1e-3)
              for i, m in enumerate(mass)]
    spread.append((prior_weight * (1.0 - mass[-1]), points[-1] * 2))   # above every point
    seen += [(w, v, True) for w, v in spread if w > 0]
    # Reverse Kaplan-Meier: P(K's top < x) is the product, over the exact values v >= x,
    # of 1 - (weight exactly at v) / (weight known to be at or below v).
    values = sorted({v for _, v, exact in seen if exact}, reverse=True)
    below = [1.0] * k
    factor = 1.0
    i = k - 1
    for v in values:
        while i >= 0 and points[i] > v:
            below[i] = factor
            i -= 1
        at = sum(w for w, x, exact in seen if exact and x == v)
        risk = sum(w for w, x, _ in seen if x <= v)
        factor *= 1.0 - at / risk if risk > 0 else 1.0
    while i >= 0:
        below[i] = factor
        i -= 1
    return [hard_below(b) * (1.0 if b > most else g) for b, g in zip(points, below)]


def bank_left(seat: Seat, pid: str) -> float:
    """The most ``pid`` can have left: the start bank less the tops of the rounds it
    won (read off the clock, or revealed). Public: the clock and the winners are."""
    paid = 0.0
    for h in seat.history:
        top = h["clock_ms"] if h["clock_ms"] is not None else h["winning_bid_ms"]
        if pid in winners_of(h):
            paid += float(top or 0)
    return max(0.0, seat.start_bank_ms - paid)

