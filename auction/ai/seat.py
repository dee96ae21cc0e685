"""What an AI seat knows: the facts a policy reads from its own seat's view.

Pure and standard library only. ``auction.ai.bots`` (the policies) and the hard
AI's modules (``auction.ai.hard``, ``people``, ``price``, ``rivals``, ``known``) all
read a :class:`Seat`; it lives here so that none of them imports ``bots`` for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..game import rules, views


@dataclass(frozen=True)
class Seat:
    """The facts a policy uses, all read from the seat's own view."""

    me: str
    bank_ms: int  # own bank: shown, or counted from the start bank and own bids
    start_bank_ms: int
    tokens: int
    round: int
    rounds: int
    rounds_left: int  # including this one
    ready_ms: int
    tie: str
    tie_margin_ms: int
    opponents: tuple[views.PlayerView, ...]  # the other players' public entries
    history: tuple[views.RoundView, ...]
    rank_ties: str = "time_left"  # the final table's tie-break: more time left, or shared


def own_bank(view: views.View) -> int:
    """The seat's bank: shown in the view, or counted as a human would.

    A hidden bank's bids come to the tenth the page shows (views.py); where bids
    are kept in milliseconds (margin ties) each may have cost up to 99 ms more:
    count that in, and never plan past the bank.
    """
    me = view["me"]
    shown = me["bank_ms"] if me else None
    if shown is not None:
        return shown
    bids = [bid for h in view["history"] if (bid := h["my_bid_ms"])]
    slack = 99 * len(bids) if view["settings"]["tie"] == "margin" else 0
    return max(0, view["settings"]["bank_ms"] - sum(bids) - slack)


def read_seat(view: views.View) -> Seat | None:
    """The seat's facts, or None when the view is not a seat's countdown."""
    me = view["me"]
    if not me or me["left"] or view["phase"] != rules.Phase.COUNTDOWN.value:
        return None
    s = view["settings"]
    rounds = view["rounds"]
    return Seat(
        me=me["id"],
        bank_ms=own_bank(view),
        start_bank_ms=s["bank_ms"],
        tokens=me["tokens"],
        round=view["round"],
        rounds=rounds,
        rounds_left=max(1, rounds - view["round"] + 1),
        ready_ms=s["ready_ms"],
        tie=s["tie"],
        tie_margin_ms=s["tie_margin_ms"],
        opponents=tuple(p for p in view["players"] if p["id"] != me["id"]),
        history=tuple(view["history"]),
        rank_ties=s["rank_ties"],
    )
