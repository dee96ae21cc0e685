"""What the hard AI believes of each other player's bids, from what its seat has seen.

Pure and standard library only. For every other player it weighs the
hypotheses of ``auction.beliefs`` -- how often the player enters a round, the
level of its bids and how widely they spread -- by how well each explains the
rounds played: who won, the bid this seat won or lost with, the winning bid or
all bids where the room reveals them, and rounds nobody bid in; a player who
wins on a beat is read from the rounds on its beat. Older rounds
count for less (players change their minds). From the beliefs it gives the
chance that every other player bids below a given bid: :meth:`Table.chance_below`.

Bids are measured in *paces*, the starting bank over the rounds, so one table
of numbers serves every bank and round count.
"""

from __future__ import annotations

from dataclasses import dataclass

from .beliefs import (ABOVE, AT, BELOW, LEVEL_HIGH, LEVEL_LOW, OUT, Grid, below_each, cell,
                      grid_for, posterior, split_prior)
from .rivals import rhythm, winners_of
from .seat import Seat

DECAY = 0.9  # the weight of a round's evidence shrinks by this each round after it
# Soft evidence: a player who did not win bid below the going price; one who won
# without our seeing its bid bid above it. Weighed less than what was seen.
SOFT = 0.5
# A player who wins on a beat (every 2nd, 3rd or 4th round: ``rivals.rhythm``) is
# read from its rounds on the beat only, and off the beat bids with this chance.
OFF_BEAT = 0.1
# A player who changes its play is expected to bid its bank left over the rounds
# left, times this.
BUDGET = 1.0


def evidence(seat: Seat, grid: Grid, pace: float, going: int | None) -> dict[str, list]:
    """What each other player's past rounds say about its bids.

    ``going`` is the cell of the going price (what the top bid has been
    selling for, :func:`_going_cell`), or None on a first pass that uses
    only what was seen.
    """
    out: dict[str, list] = {p["id"]: [] for p in seat.opponents}
    for h in seat.history:
        age = seat.round - 1 - h["round"]  # 0: the last round
        weight = DECAY ** age
        winners = winners_of(h)
        mine = h.get("my_bid_ms")
        bids = h.get("bids")
        won_bid = h.get("winning_bid_ms")
        for pid, ev in out.items():
            if bids is not None:  # all bids revealed
                b = bids.get(pid)
                ev.append((OUT, 0, weight, age) if b is None
                          else (AT, cell(grid, b / pace), weight, age))
            elif pid in winners:
                if won_bid is not None:
                    ev.append((AT, cell(grid, won_bid / pace), weight, age))
                elif mine is not None:
                    ev.append((ABOVE, cell(grid, mine / pace), weight, age))
                elif going is not None:
                    ev.append((ABOVE, going, weight * SOFT, age))
            elif won_bid is not None:
                ev.append((BELOW, cell(grid, won_bid / pace), weight, age))
            elif mine is not None and seat.me in winners:
                ev.append((BELOW, cell(grid, mine / pace), weight, age))
            elif not winners and not h.get("tie"):
                ev.append((OUT, 0, weight, age))  # nobody bid at all
            elif going is not None:
                ev.append((BELOW, going, weight * SOFT, age))
    return out


def spent(seat: Seat, pace: float, going: float) -> dict[str, float]:
    """What each other player has at least spent, in paces, as far as this seat can tell.

    A bid seen counts whole; a win over this seat's bid counts that bid; any
    other win counts the going price (``going``, paces).
    """
    out = {p["id"]: 0.0 for p in seat.opponents}
    for h in seat.history:
        bids = h.get("bids")
        winners = winners_of(h)
        for pid in out:
            if bids is not None:
                out[pid] += (bids.get(pid) or 0) / pace
            elif pid in winners:
                known = h.get("winning_bid_ms") or h.get("my_bid_ms")
                out[pid] += known / pace if known else going
    return out


def _all_below(grid: Grid, ev: dict, fresh: dict, beats: dict, round_: int) -> tuple:
    """For each grid cell, the chance that every player in ``ev`` bids below it.

    ``beats``: the (period, phase) of each player who wins on a beat; such a
    player is read from the rounds on its beat, and off it is mostly out.
    """
    all_below = [1.0] * len(grid.points)
    for pid, mine in ev.items():
        beat = beats.get(pid)
        if beat is not None:
            period, phase = beat
            mine = [e for e in mine if (round_ - 1 - e[3]) % period == phase]
        below = below_each(grid, posterior(grid, mine, fresh.get(pid)))
        if beat is not None and round_ % beat[0] != beat[1]:
            below = [1.0 - OFF_BEAT + OFF_BEAT * q for q in below]
        all_below = [a * q for a, q in zip(all_below, below)]
    return tuple(all_below)


def _going_cell(all_below: tuple) -> int:
    """The cell where the top other bid is as likely below as above."""
    for k, q in enumerate(all_below):
        if q >= 0.5:
            return max(0, k - 1)
    return len(all_below) - 1


@dataclass(frozen=True)
class Table:
    """The seat's beliefs: for each grid point, the chance every other bid is lower."""

    grid: Grid
    pace: float
    all_below: tuple[float, ...]
    left: dict  # each other player's bank left at most, as far as seen, paces

    @classmethod
    def from_seat(cls, seat: Seat) -> Table:
        """Two passes: what was seen gives the going price; then everything, soft
        evidence at that price included, gives the beliefs."""
        grid = grid_for(seat.rounds)
        pace = seat.start_bank_ms / seat.rounds
        rivals = {p["id"] for p in seat.opponents if not p.get("left")}

        def of_rivals(ev: dict) -> dict:
            return {pid: e for pid, e in ev.items() if pid in rivals}

        going = _going_cell(_all_below(grid, of_rivals(evidence(seat, grid, pace, None)),
                                       {}, {}, seat.round))
        paid = spent(seat, pace, grid.points[going])
        fresh = {pid: split_prior(grid, min(LEVEL_HIGH, max(
            LEVEL_LOW, BUDGET * (seat.rounds - paid[pid]) / seat.rounds_left))) for pid in rivals}
        beats = {pid: beat for pid in rivals if (beat := rhythm(seat, pid)) is not None}
        all_below = _all_below(grid, of_rivals(evidence(seat, grid, pace, going)), fresh, beats,
                               seat.round)
        return cls(grid, pace, all_below,
                   {pid: max(0.0, seat.rounds - paid[pid]) for pid in rivals})

    def chance_below(self, k: int) -> float:
        """The chance that every other player's bid is below grid point ``k``."""
        return self.all_below[k]
