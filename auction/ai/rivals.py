"""Who won what, as one seat saw it: the winners of a round, and a leader running away.

Pure and standard library only (the hard AI in ``auction.ai.hard`` and its price
estimate in ``auction.ai.price`` use it). Only the winners of past rounds and the
token counts are read -- everything here is on every player's screen.
"""

from __future__ import annotations

from ..game import views
from .seat import Seat

RUNAWAY = 2  # rounds in a row: a leader who has won this many is running away


def winners_of(h: views.RoundView) -> list[str]:
    """Who won a round of the seat's history."""
    return list(h["winners"])


def won_alone(h: views.RoundView, me: str) -> bool:
    """Whether ``me`` took a round of its history alone (no tie)."""
    return winners_of(h) == [me] and not h["tie"]


def runaway(seat: Seat, streak: int = RUNAWAY) -> str | None:
    """The player who has won each of the last ``streak`` rounds alone and has more
    tokens than this seat, if there is one: a leader running away, whom the
    hard AI answers at once (``auction.ai.hard``)."""
    recent = [winners_of(h) for h in seat.history[-streak:] if not h["tie"]]
    if len(recent) < streak or len(recent[0]) != 1 or any(w != recent[0] for w in recent):
        return None
    (pid,) = recent[0]
    if any(p["id"] == pid and not p["left"] and p["tokens"] > seat.tokens
           for p in seat.opponents):
        return pid
    return None
