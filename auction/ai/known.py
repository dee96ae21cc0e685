"""What one seat expects of each other player's bid before it has seen any of it.

Pure and standard library only (the hard AI in ``auction.ai.hard`` uses it). Every
screen shows which seats are AI players and of what difficulty (their styles
stay hidden until the game ends), and the AI rule book is public (docs/ai.md):
so a player who knows how an "easy" or "medium" seat bids may expect it to bid
that way. This module writes that rule book (``auction.ai.simple``) as a chance:
the chance that a seat's bid this round is below b, averaged over the three
styles it may have. A hard AI, a human or a seat of unknown kind is expected
to bid from the all-pay equilibrium at the fair price -- the one expectation
no single strategy gains against -- until its bids say otherwise
(``auction.ai.price``).
"""

from __future__ import annotations

import math
from typing import Callable

from ..game import views
from . import simple
from .seat import Seat

# How much of easy's bank is left after each round, per style: easy spends a
# share of what it has whenever it enters (entry chance x mean share).
EASY_KEEPS = {"aggressive": 0.913, "patient": 0.918, "random": 0.889}
# The entry chances a random-style medium seat may draw, as a mixture.
RANDOM_CHANCES = (0.3, 0.45, 0.6, 0.75, 0.9)
KNOWN = ("easy", "medium", "hard")  # difficulties whose rule book a player can know


def kind(p: views.PlayerView) -> str | None:
    """The difficulty a player's public entry shows, for an AI seat (None for a human)."""
    return p["difficulty"] if p["bot"] else None


def told(p: views.PlayerView) -> bool:
    """An easy or medium seat: the public rule book tells how it bids."""
    return kind(p) in ("easy", "medium")


def normal_below(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def lognormal_below(b: float, median: float, sigma: float) -> float:
    if b <= 0 or median <= 0:
        return 0.0 if b <= 0 else 1.0
    return normal_below(math.log(b / median) / sigma)


def easy_below(seat: Seat, b: float) -> float:
    total = 0.0
    for style, keeps in EASY_KEEPS.items():
        bank = seat.start_bank_ms * keeps ** (seat.round - 1)
        if style == "random":
            chance = sum(simple.RANDOM_ENTRY) / 2
            low, high = simple.RANDOM_SHARE
            share = min(1.0, max(0.0, (b / bank - low) / (high - low)))
        else:
            chance = simple.ENTRY[style]
            share = lognormal_below(b, bank * simple.SHARE[style][0], simple.SHARE[style][1])
        total += (1 - chance) + chance * share
    return total / len(EASY_KEEPS)


def medium_below(seat: Seat, b: float) -> float:
    # It never bids over its ceiling (the clock's recent tops, which this seat reads too).
    top = simple.ceiling(seat)
    if top is not None and b > top:
        return 1.0
    # A medium seat paces itself, so it has about its share of the start left.
    bank = seat.start_bank_ms * seat.rounds_left / seat.rounds
    total = 0.0
    for style, sigma in simple.SPREAD.items():
        chances = RANDOM_CHANCES if style == "random" else (simple.ENTRY[style],)
        part = 0.0
        for c in chances:
            median = bank / max(1.0, c * seat.rounds_left)
            part += (1 - c) + c * lognormal_below(b, median, sigma)
        total += part / len(chances)
    return total / len(simple.SPREAD)


def equilibrium_below(b: float, top: float, players: int) -> float:
    """The all-pay equilibrium of ``players`` players whose highest bid is ``top``."""
    if players < 2 or top <= 0:
        return 1.0
    return math.pow(min(1.0, max(0.0, b / top)), 1.0 / (players - 1))


def prior(seat: Seat, top: float) -> tuple[Callable[[float], float], float]:
    """(the chance that every other player bids below b, the share of them whose
    rule book is known); ``top`` is the fair equilibrium's highest bid."""
    others = [p for p in seat.opponents if not p["left"]]
    players = len(others) + 1

    def below(p: views.PlayerView, b: float) -> float:
        label = kind(p)
        if label == "easy":
            return easy_below(seat, b)
        if label == "medium":
            return medium_below(seat, b)
        return equilibrium_below(b, top, players)

    def chance(b: float) -> float:
        out = 1.0
        for p in others:
            out *= below(p, b)
        return out

    known = sum(1 for p in others if kind(p) in KNOWN)
    return chance, known / len(others) if others else 0.0


def split_prior(seat: Seat, top: float) -> tuple[Callable[[float], float],
                                                  Callable[[float], float], float]:
    """``prior`` in two parts: (the chance that every other *hard* seat bids below b,
    the chance that every other player bids below b, the share of the latter whose
    rule book is known). A hard seat is expected at the equilibrium and nothing it
    does is learned (``auction.ai.price.read_clock``): the others are."""
    others = [p for p in seat.opponents if not p["left"]]
    players = len(others) + 1
    hards = sum(1 for p in others if kind(p) == "hard")
    rest = [p for p in others if kind(p) != "hard"]

    def hard_below(b: float) -> float:
        return equilibrium_below(b, top, players) ** hards

    def rest_below(b: float) -> float:
        out = 1.0
        for p in rest:
            label = kind(p)
            out *= (easy_below(seat, b) if label == "easy" else medium_below(seat, b)
                    if label == "medium" else equilibrium_below(b, top, players))
        return out

    told_share = sum(1 for p in rest if told(p)) / len(rest) if rest else 0.0
    return hard_below, rest_below, told_share
