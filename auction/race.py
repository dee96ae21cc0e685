"""The race for first place, as one seat sees it: who leads, what first place will
take, and how likely a plan of bids is to get there.

Pure and standard library only (the hard AI in ``auction.bots`` uses it). Only
token counts and the round are read -- everything here is on every player's
screen.
"""

from __future__ import annotations

import math

from .seat import Seat

# How many rounds' worth of "everyone wins their share" a player's own record is
# weighed against when projecting how many tokens it will end with.
PRIOR_ROUNDS = 3.0
# The share of rounds that end with a winner (the rest: nobody bid, or a tie).
SOLD = 0.9


def leader_gap(seat: Seat) -> int:
    """My tokens minus the most any other player still in the game has."""
    return seat.tokens - max((p["tokens"] for p in seat.opponents if not p.get("left")),
                             default=0)


def projected(seat: Seat) -> list[float]:
    """Each other player's tokens at the end, if it keeps winning at its rate so far.

    A player's rate is its wins over the rounds played, pulled towards a fair
    share by PRIOR_ROUNDS, so two early wins do not project a runaway -- but a
    player who keeps buying does.
    """
    players = 1 + sum(1 for p in seat.opponents if not p.get("left"))
    fair = SOLD / players
    played = seat.round - 1
    out = []
    for p in seat.opponents:
        if p.get("left"):
            out.append(float(p["tokens"]))
            continue
        rate = (p["tokens"] + fair * PRIOR_ROUNDS) / (played + PRIOR_ROUNDS)
        out.append(p["tokens"] + rate * seat.rounds_left)
    return out


def tokens_needed(seat: Seat) -> float:
    """How many more tokens first place will likely take (may be <= 0: ahead).

    A half token more than the best projection: level on tokens, first place
    goes to whoever kept more time, which is no sure thing.
    """
    best = max(projected(seat), default=0.0)
    return best + 0.5 - seat.tokens


def at_least(k: float, n: float, q: float) -> float:
    """The chance of ``k`` or more wins in ``n`` tries at ``q`` each.

    Fractional ``k`` and ``n`` are interpolated between their neighbours, so
    the chance moves smoothly as a plan's bid (and so its number of tries) moves.
    """
    if k <= 0:
        return 1.0
    n = max(0.0, n)
    lo_n, frac_n = int(n), n - int(n)
    lo_k, frac_k = math.floor(k), k - math.floor(k)

    def tail(kk: int, nn: int) -> float:
        if kk <= 0:
            return 1.0
        if kk > nn:
            return 0.0
        return sum(math.comb(nn, i) * q**i * (1 - q) ** (nn - i) for i in range(kk, nn + 1))

    def at_n(nn: int) -> float:
        return (1 - frac_k) * tail(lo_k, nn) + frac_k * tail(lo_k + 1, nn)

    return (1 - frac_n) * at_n(lo_n) + frac_n * at_n(lo_n + 1)
