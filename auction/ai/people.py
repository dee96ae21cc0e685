"""How the hard AI plays at a table of people: reading the table as a player would.

Pure and standard library only (``auction.ai.hard`` uses it). At a table of mostly
players whose play it cannot know, and no other hard AI (``among``), the hard AI's
equilibrium draw is only where it starts:

* *Win-stay, lose-shift, odd and even rounds apart* (``by_kind``). People play in
  patterns -- a level that rises after each loss and falls after a win, a player who
  holds in every other round -- so odd and even rounds are read as two kinds. In a
  round of a kind it has bid in before, it bids a little less than a bid that won
  there, more than one that lost (at least FLOOR times what is left a round), and
  after GIVE_UP losses in a row there it stays out of that kind of round. Only in
  games of CONTEXT_ROUNDS rounds or more: a shorter game has too few rounds of each
  kind to read.
* *Probing the price* (``probe``), in a round of a new kind: between the lowest bid
  that won alone and the highest that lost in its last few rounds.
* *The end* (``spend_out``): in the last END rounds, not ahead on tokens, it bids at
  least ENDF of what is left a round -- time kept to the end is worth nothing, and
  a kind of round it gave up on may have got cheap as the players who made it dear
  run dry.
* *The tie-break reserve* (``keep_reserve``): level or ahead on tokens, where more
  time left breaks a tie, it keeps a reserve.

Only what every player sees is read: its own bids, who won each round, the tokens.
"""

from __future__ import annotations

import math

from ..game import views
from . import known
from .rivals import won_alone
from .seat import Seat

# Probing the price, at a table of mostly players whose play it cannot know (its
# rule book tells what an AI seat of each difficulty expects) and no other hard AI:
# its bids of the last PROBE_WINDOW rounds set the bracket. (Measured, 300 games of a
# hard seat among the four exploiters the search had found against 4 hard AIs, 19
# rounds: without it 5.0 %, probing 16.3 % (a window of 6 or 10: 13 %). But two
# probing seats bid over each other's last loss without end: against four of them a
# late saver won 92 %, and with 3 hard AIs, fixed(h=1) and martingale(h=2,target=8,
# up=1.3) the martingale won 97.3 % of 150 games, 40.0 % with the hard AIs not probing.)
PROBE_SHARE, PROBE_WINDOW = 0.5, 3
# At such a table, time left breaks a tie on tokens: level with or ahead of everyone
# it keeps RESERVE paces. (Measured, 200 games each, probing: in that field it won
# 17.5 % keeping none, 39.5 % keeping 1.5 paces by trimming its bids, 36.5 % by
# sitting out, and 3.5, 3.5 and 11.5 % in the field of a later search, whose
# martingale player saves and takes the last seven rounds. Against hard AIs too, the
# quick game's ramp(h=0.8,slope=-1) won 41.6 % of 1,000 games against four of them,
# 27.2 % without. Then, over nine fields of exploiters at 1,000 games each, on fresh
# seeds, 1.0 pace instead of 1.5 won more in six of them -- the quick game's latest
# field 23.0 -> 27.0 %, the issue's own strategies 84.4 -> 85.2 % and 42.6 -> 46.6 % --
# and less in three, by at most 3 points; bench/results/ai/ai-history.md has the table.)
RESERVE = 1.0
# Reading the round's kind (measured, 1,000 auction games in each of five fields of
# exploiters, fresh seeds, the hard seat's wins probing only -> reading the kind by who
# won the round two before: 37.1 -> 66.0 %, 4.6 -> 6.4 %, 3.6 -> 5.0 %, 18.0 -> 24.0 %,
# and the issue's own strategies 85.2 -> 81.4 %. In the 9-round game it lost in every
# quick field, e.g. 28.3 -> 21.3 % and 60.0 -> 52.3 % of 300: too few rounds of each kind.)
CONTEXT_ROUNDS = 12
# The kind of a round is its number modulo KINDS: odd and even. (Keyed on who won the
# round two before, as first measured, the seat's own win made the next round of that
# kind a new one, met with the probe again, and a kind it had given up on stayed given
# up when the players who made it dear ran dry. By parity, with FLOOR and the end
# below, the same five fields on fresh seeds: 66.0 -> 84.2, 6.4 -> 7.4, 5.0 -> 36.3,
# 24.0 -> 27.0, 81.4 -> 87.4 %. Modulo 4, too few rounds of each kind: 72.3, 2.7, 6.3,
# 35.0, 81.3 % of 300; bench/results/ai/ai-history.md has the rest.)
KINDS = 2
STAY, SHIFT = 0.92, 1.6  # a bid that won there times STAY; one that lost, times SHIFT...
# ...but at least FLOOR times what is left a round: a loss at a token bid tells little of
# the price, and shifted 1.6x at a time from one it came too late. (300 games of each of
# the five fields: at 1.0 the seat came last in 10.7 % of one; at 1.75 and 2.0 the
# search's field rose to 56.7 and 74.0 %, but the first field fell from about 80 to
# 57.0 and 44.3 %.)
FLOOR = 1.5
CAP = 3.0  # never more than this many times what is left a round
GIVE_UP = 3  # losses in a row in rounds of one kind, then it stays out of them
# The end: in the last END rounds, not ahead, at least ENDF of what is left a round.
# (300 games of the search's field on seeds none of these were chosen on: ENDF 0.6 /
# 0.7 / 0.8 won 40.0 / 37.0 / 26.3 %, END 6 / 8 33.3 / 17.3 %; without the end, on the
# seeds the rest was chosen on, 6.0 % instead of 40.7 %. It plays in the 9-round game
# too: the quick search's field 27.0 -> 28.9 % of 1,000, fresh seeds.)
END, ENDF = 7, 0.7


def adjust(seat: Seat, others: list[views.PlayerView], bid: float, median: float) -> float:
    """The equilibrium's ``bid`` as played at a table of people: read from the rounds
    of this kind, else moved into the probe's bracket; at the end, raised to part of
    what is left a round; then the tie-break reserve. ``median`` is the top bid it
    expected of the table."""
    read = by_kind(seat)
    bid = probe(seat, bid, median) if read is None else read
    return keep_reserve(seat, others, spend_out(seat, others, bid))


def same_kind(seat: Seat) -> list[views.RoundView]:
    """The past rounds of this round's kind (odd or even) the seat bid in."""
    now = seat.round % KINDS
    return [h for h in seat.history if h["my_bid_ms"] and h["round"] % KINDS == now]


def by_kind(seat: Seat) -> float | None:
    """Win-stay, lose-shift in rounds of this kind: None in a round of a new kind, or
    in a game too short to read."""
    same = same_kind(seat) if seat.rounds >= CONTEXT_ROUNDS else []
    if not same:
        return None
    share = seat.bank_ms / seat.rounds_left
    last = same[-1]["my_bid_ms"] or 0       # (never 0: same_kind keeps rounds it bid in)
    losses = next((i for i, h in enumerate(reversed(same)) if won_alone(h, seat.me)), len(same))
    if not losses:
        return min(last * STAY, CAP * share)
    up = max(last * SHIFT, FLOOR * share)
    return 0.0 if losses >= GIVE_UP or up > CAP * share else up


def spend_out(seat: Seat, others: list[views.PlayerView], bid: float) -> float:
    """The bid, or in the last END rounds, when not ahead of every other player on
    tokens, at least ENDF of what is left a round."""
    if seat.rounds_left > END or seat.tokens > max(p["tokens"] for p in others):
        return bid
    return max(bid, ENDF * seat.bank_ms / seat.rounds_left)


def among(others: list[views.PlayerView]) -> bool:
    """A table of mostly players whose play the seat cannot know (PROBE_SHARE of the
    others or more; an AI seat's label tells its rule book) and no other hard AI:
    where it reads the table as a player would."""
    kinds = [known.kind(p) for p in others]
    return kinds.count(None) >= PROBE_SHARE * len(others) and "hard" not in kinds


def probe(seat: Seat, bid: float, median: float) -> float:
    """The bid moved into the bracket the seat's last PROBE_WINDOW bids set, as a
    player finds a price it cannot see: between the lowest bid that won alone (hi)
    and the highest that lost below it (lo). A draw that would surely lose (lo or
    less) becomes the bracket's geometric middle, and none goes over its top (hi;
    with no win yet, twice lo or the ``median`` top bid it expected, if more).
    """
    lost: list[int] = []
    won: list[int] = []
    for h in seat.history[-PROBE_WINDOW:]:
        mine = h["my_bid_ms"]
        if mine:
            (won if won_alone(h, seat.me) else lost).append(mine)
    hi = min(won, default=None)
    lo = max((b for b in lost if hi is None or b < hi), default=None)
    top = hi if hi is not None else max(median, 2 * lo) if lo is not None else median
    if lo is not None and bid <= lo:
        return math.sqrt(lo * top)
    return min(bid, top)


def keep_reserve(seat: Seat, others: list[views.PlayerView], bid: float) -> float:
    """The bid, or nothing when it would cut into the reserve: level with or ahead of
    every other player on tokens (at least one), and where more time left breaks a
    tie, the seat keeps RESERVE paces -- a rival who draws level has spent to do it.
    It sits out rather than bid less: a bid trimmed to fit is one just under the
    price, paid and lost."""
    if seat.rank_ties != "time_left" or not seat.tokens:
        return bid
    if seat.tokens < max(p["tokens"] for p in others):
        return bid
    room = seat.bank_ms - RESERVE * seat.start_bank_ms / seat.rounds
    return bid if bid <= room else 0.0
