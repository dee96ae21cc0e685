"""The easy and medium AI players: two policies without a plan of the table.

Pure and standard library only (``random`` is only the generator each is
handed). ``auction.ai.bots`` seats them; ``auction.ai.known`` reads their rule book
back, because a player who knows which seats are "easy" and "medium" knows
how those seats bid (the rule book is public: docs/ai.md).
"""

from __future__ import annotations

import math
import random

from .seat import Seat

# The chance of entering a round, per style (random: drawn afresh each round,
# uniformly between RANDOM_ENTRY), and for medium the spread of its bid around
# its pace, in log.
ENTRY = {"aggressive": 0.85, "patient": 0.38}
RANDOM_ENTRY = (0.3, 0.9)
SPREAD = {"aggressive": 0.25, "patient": 0.2, "random": 0.4}
# Easy's bid, a share of what it has left: aggressive and patient draw it
# lognormal (median, sigma), random uniformly between RANDOM_SHARE.
SHARE = {"aggressive": (0.09, 0.5), "patient": (0.2, 0.4)}
RANDOM_SHARE = (0.02, 0.35)
# Medium reads the round's clock loosely: it never bids more than OVER times the highest
# top bid the clock showed in the last SEEN rounds (what a token has lately cost at most),
# keeping the time for its later rounds. Easy ignores the clock.
OVER, SEEN = 1.5, 3


def lognormal(rng: random.Random, median: float, sigma: float) -> float:
    """A positive amount around ``median``, spread by ``sigma`` in log."""
    return median * math.exp(rng.gauss(0.0, sigma))


def entry_chance(style: str, rng: random.Random) -> float:
    """How likely an easy or medium seat of this style is to enter this round."""
    if style == "random":
        return rng.uniform(*RANDOM_ENTRY)
    return ENTRY[style]


def easy(seat: Seat, rng: random.Random, style: str,
         game_seed: str | None = None) -> float | None:
    """A random share of what is left, whatever the round (it plans no game:
    ``game_seed`` is unused)."""
    if rng.random() >= entry_chance(style, rng):
        return None
    if style == "random":
        share = rng.uniform(*RANDOM_SHARE)
    else:
        share = lognormal(rng, *SHARE[style])
    return seat.bank_ms * min(1.0, share)


def medium(seat: Seat, rng: random.Random, style: str,
           game_seed: str | None = None) -> float | None:
    """What is left, spread evenly over the rounds it expects to enter (it plans
    round by round: ``game_seed`` is unused), but never far over what tokens have
    lately cost (``ceiling``)."""
    chance = entry_chance(style, rng)
    if rng.random() >= chance:
        return None
    entries_left = max(1.0, chance * seat.rounds_left)
    bid = lognormal(rng, seat.bank_ms / entries_left, SPREAD[style])
    top = ceiling(seat)
    return bid if top is None else min(bid, top)


def ceiling(seat: Seat) -> float | None:
    """The most a medium seat bids this round: OVER times the highest top bid the
    round's clock showed in the last SEEN rounds (None: no clock read, as with
    suspense on or in the first round). Public: every player reads the same clocks."""
    shown = [h["clock_ms"] for h in seat.history[-SEEN:] if h["clock_ms"] is not None]
    return OVER * max(shown) if shown and max(shown) > 0 else None
