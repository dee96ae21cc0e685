"""The hard AI: two minds, so that a table of hard seats shares no one blind spot.

Pure and standard library only (``random`` is only the generator it is handed).
``auction.bots`` calls :func:`hard` as the "hard" policy. A patient or random
hard seat plans for first place (``auction.planner``: it forecasts prices,
answers leaders and keeps its bank for the rounds that decide the game). An
aggressive one is the equilibrium bidder below, which reads the table and
answers a runaway leader. Each mind alone has a trick that beats it -- the
planner lets an early big spender run away, the bidder runs dry before a
player who waited for the last rounds -- but not the same trick, and a seat of
the other mind spoils each.

The bidder's starting point is the symmetric equilibrium of an all-pay auction: with
``n`` players each spending a pace ``t`` a round, a bid drawn with
P(bid <= b) = (b / nt) ** (1 / (n - 1)) leaves a rival nothing to gain from any
fixed bid -- whatever one trick a player tries, it buys tokens at a fair price.
From there it leans: :class:`auction.table.Table` says how likely each bid is
to beat everyone else, given how the others have been bidding, and the AI
shifts its draw toward the bids that win more than they cost. Against players
who are cheap it takes tokens cheaply; against one who overpays it steps aside;
and because the lean is soft, what it does next cannot be read off its past.
docs/ai.md tells how it thinks and how well it plays.
"""

from __future__ import annotations

import math
import random

from .planner import planner
from .rivals import runaway
from .seat import Seat
from .table import Table

# How hard it leans toward the bids that pay: the weight of a bid goes with
# exp(LEAN * (chance to win - price of the time it costs)).
LEAN = 50.0
TIE_RESERVE = 0.05  # share of the starting bank kept back for tie-breaks
# An aggressive seat fills the rounds it would sit out with a small bid (PROBE
# of its pace); any other sits them out. (In play only aggressive seats lean.)
PROBE = (0.1, 0.5)
# Saving for a player who has kept its bank: until SAVE_UNTIL of the game, its
# pace is cut by (own bank / the largest bank that a player with fewer tokens
# may still hold) ** SAVE. (Players with more tokens are fought, not waited for.)
SAVE, SAVE_UNTIL = 2.0, 2 / 3
LEAN_ROUNDS = 12  # the fewest rounds in which a hard seat reads the table
# The styles that lean; the others plan. (Measured before the planner answered
# runaways: with random seats leaning too, a hard AI won 33.9 % of 1,000 games
# against four medium ones, with them planning 37.4 %.)
LEANERS = ("aggressive",)
# Answering a runaway (``rivals.runaway``: a player ahead of it has won the last
# rounds): a win now is worth 1 + DENY tokens (it is one the leader does not
# get) and its pace this round is DENY_SPEND times the usual.
DENY, DENY_SPEND = 1.0, 3.0


def hard(seat: Seat, rng: random.Random, style: str) -> float | None:
    """This round's bid in ms, or None to sit out: an aggressive seat leans, others plan.

    Reading the table takes rounds to read: in a game shorter than LEAN_ROUNDS
    every hard seat plans (measured: in the 9-round quick game the lean bidder
    loses more to medium AIs and to a player who bids big every fourth round).
    """
    if style not in LEANERS or seat.rounds < LEAN_ROUNDS:
        return planner(seat, rng, style)
    return lean(seat, rng, style)


def lean(seat: Seat, rng: random.Random, style: str) -> float | None:
    """The equilibrium bid, leaning toward the bids that have been paying.

    It paces its bank over the rounds left -- slower while a player behind it
    may be sitting on a bigger bank (a player who has won little has spent
    little, as far as anyone can tell) -- and keeps a little for tie-breaks. Once
    nobody can catch it, it keeps its time.
    """
    left = seat.rounds_left
    rivals = [p for p in seat.opponents if not p.get("left")]
    ahead = seat.tokens - max((p["tokens"] for p in rivals), default=0)
    if ahead > left:  # nobody can catch it any more: keep the time
        if style == "aggressive":
            return seat.bank_ms / left * rng.uniform(*PROBE)  # ...but stay in character
        return None
    bank = seat.bank_ms - min(seat.bank_ms, TIE_RESERVE * seat.start_bank_ms)
    if bank <= 0 or not rivals:
        return None
    table = Table.from_seat(seat)
    target = bank / left
    if seat.round <= SAVE_UNTIL * seat.rounds:
        mine = seat.bank_ms / table.pace
        threat = max((table.left[p["id"]] for p in rivals if p["tokens"] < seat.tokens),
                     default=0.0)
        if threat > mine:
            target *= (mine / threat) ** SAVE
    value = 1.0
    if runaway(seat):
        value, target = 1.0 + DENY, min(bank, target * DENY_SPEND)
    k = choose(table, len(rivals) + 1, target, bank, rng, value)
    if k is None:
        if style == "aggressive":
            return min(bank, target * rng.uniform(*PROBE))
        return None
    edges = table.grid.edges
    low = max(edges[k], table.grid.points[0] * 0.8)
    high = min(edges[k + 1], table.grid.points[-1])
    return min(bank, table.pace * math.exp(rng.uniform(math.log(low), math.log(high))))


def choose(table: Table, players: int, target: float, bank: float,
           rng: random.Random, value: float = 1.0) -> int | None:
    """The grid cell of this round's bid, or None to sit out.

    The equilibrium's chances of each cell (its lowest cell means sitting
    out), each weighed by exp(LEAN * (value * chance to win - lam * cost)),
    with lam set so the expected bid is the pace ``target``; ``value`` is what
    a win is worth, in tokens.
    """
    grid, pace = table.grid, table.pace
    top = players * target / pace  # the equilibrium's highest bid, paces
    power = 1.0 / (players - 1)

    def spread(x: float) -> float:
        return min(1.0, x / top) ** power

    cells = []  # (k, equilibrium chance, win chance, cost in paces of target)
    sit_out = spread(grid.edges[1])
    for k in range(1, len(grid.points)):
        if grid.points[k] * pace > bank:
            break
        base = spread(grid.edges[k + 1]) - spread(grid.edges[k])
        if base <= 0:
            continue
        cells.append((k, base, table.chance_below(k), grid.points[k] * pace / target))
    options = [(None, sit_out, 0.0, 0.0)] + cells
    # weight = base * exp(LEAN * (value * win - lam * cost)), in logs; only lam changes
    gain = [math.log(base) + LEAN * value * win for _, base, win, _ in options]

    def weights(lam: float) -> list[float]:
        logs = [g - LEAN * lam * cost for g, (_, _, _, cost) in zip(gain, options)]
        peak = max(logs)
        raw = [math.exp(x - peak) for x in logs]
        total = sum(raw)
        return [w / total for w in raw]

    def spend(lam: float) -> float:
        return sum(w * cost for w, (_, _, _, cost) in zip(weights(lam), options))

    lo, hi = 0.0, 1.0
    if spend(lo) > 1.0:
        while spend(hi) > 1.0 and hi < 64:
            hi *= 2
        for _ in range(20):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if spend(mid) > 1.0 else (lo, mid)
        lam = hi
    else:
        lam = 0.0
    draw = rng.random()
    for w, (k, *_rest) in zip(weights(lam), options):
        draw -= w
        if draw < 0:
            return k
    return options[-1][0]
