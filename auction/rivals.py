"""What each other player has shown this seat: the bids of its own that they beat.

Pure and standard library only (the hard AI in ``auction.bots`` uses it). From
the seat's own history alone: when a player won a round this seat bid in, that
player held longer than this seat did -- a floor under what that player pays for
a token, and a sign of the range in which bidding against it only loses time.
"""

from __future__ import annotations

from .seat import Seat

RECENT = 6  # rounds: what a player paid longer ago says little about today
RUNAWAY = 2  # rounds in a row: a leader who has won this many is running away


def winners_of(h: dict) -> list[str]:
    """Who won a round of the seat's history (older views name one ``winner``)."""
    winners = h.get("winners")
    if winners is None:
        winners = [h["winner"]] if h.get("winner") else []
    return list(winners)


def beat_me_at(seat: Seat, pid: str) -> float | None:
    """The highest of this seat's recent bids that ``pid`` won against (ms), or None.

    Where the room reveals the winning bid, that (higher) figure counts instead.
    """
    best = None
    for h in seat.history:
        if seat.round - h["round"] > RECENT:
            continue
        winners = winners_of(h)
        mine = h.get("my_bid_ms")
        if mine is None or h.get("tie") or winners != [pid]:
            continue
        paid = max(mine, h.get("winning_bid_ms") or 0)
        best = paid if best is None else max(best, paid)
    return best


def wins(seat: Seat, pid: str) -> list[int]:
    """The rounds ``pid`` won alone."""
    out = []
    for h in seat.history:
        if winners_of(h) == [pid] and not h.get("tie"):
            out.append(h["round"])
    return out


def rhythm(seat: Seat, pid: str) -> tuple[int, int] | None:
    """(period, phase) when ``pid`` wins on a beat -- every 2nd, 3rd or 4th round.

    A beat is read when it has won at least three rounds, all on the same beat,
    and most of the rounds on that beat since its first win: a player who only
    bids in rounds of its choosing, and then bids big.
    """
    won = wins(seat, pid)
    if len(won) < 3:
        return None
    for period in (2, 3, 4):
        phase = won[0] % period
        if any(r % period != phase for r in won):
            continue
        beats = [r for r in range(won[0], seat.round) if r % period == phase]
        if len(won) >= 0.6 * len(beats):
            return period, phase
    return None


def runaway(seat: Seat, streak: int = RUNAWAY) -> str | None:
    """The player who has won each of the last ``streak`` rounds alone and has more
    tokens than this seat, if there is one: a leader running away, whom both
    minds of the hard AI answer at once (``auction.hard``, ``auction.planner``)."""
    recent = [winners_of(h) for h in seat.history[-streak:] if not h.get("tie")]
    if len(recent) < streak or len(recent[0]) != 1 or any(w != recent[0] for w in recent):
        return None
    (pid,) = recent[0]
    if any(p["id"] == pid and not p.get("left") and p["tokens"] > seat.tokens
           for p in seat.opponents):
        return pid
    return None
