"""The hard AI: the all-pay equilibrium, dealt over the game, leaning toward the
bids that have been paying.

Pure and standard library only (``random`` is only the generator it is handed).
``auction.ai.bots`` calls :func:`hard` as the "hard" policy.

*The equilibrium.* With ``n`` players each spending a pace ``t`` a round, a bid
drawn as V * u ** (n - 1) (u uniform, V = n * t) leaves a rival nothing to gain
from any fixed bid: whatever one trick a player tries, it buys tokens at a fair
price. Drawn independently each round, though, the bids of a table of hard AIs
drift apart -- one ran dry early, one sits on a big bank -- and a player who
waits finds the last rounds cheap. So each seat *deals* its draws: from its own
seed for the game it shuffles the rounds' strata (round r draws u from
[perm[r] / R, (perm[r] + 1) / R)), so that over a game it draws across the whole
range, big bids and small, in an order no one can read, and it sizes V so that
what it expects to spend in the rounds left is exactly its bank.

*The lean.* ``auction.ai.price`` estimates from this seat's own history (and the
reveals) the chance G(b) that a bid b beats everyone else; before it has seen
anything, what it expects of each labelled AI seat from the public rule book
(``auction.ai.known``). The seat weighs each bid by exp(LEAN * (G(b) - lam * b / t)),
with lam set so its expected bid stays t: against a table that bids less than
the equilibrium it wins tokens for less; against one that bids more it steps
aside and keeps its time for later. At the equilibrium itself the weights are
flat (G(b) = b / V, lam = 1 / n): it is the equilibrium.

*The schedule.* It leans its spending a little toward the later rounds
(round a ahead weighs exp(TILT * a / (rounds - 1))), so a player who saves for a late surge
meets a full bank; against a table of easy AIs, which spend early and run dry,
more so. When a player ahead of it has won the last rounds (``rivals.runaway``),
this round weighs RUNAWAY times more.

*First place.* Only first place wins: ahead of the other players it presses its
lead (this round weighs more), behind it keeps its time for the rounds that can
still turn the game (``standing``).

*The end of the game.* The last round is drawn afresh, not dealt, so no seat comes
to it having spent its bank before; and where more time left breaks a tie on tokens,
each seat keeps back an amount of its bank no one can read, and in the last round more
than a player level with it can have left (``tie_keep``).

*Playing people.* At a table of mostly players whose play it cannot know, and no
other hard AI, it reads the table as a player would (``auction.ai.people``).
docs/ai.md tells how it plays and how well.
"""

from __future__ import annotations

import math
import random

from ..game import views
from . import known, people, price
from .rivals import runaway
from .seat import Seat

# How hard it leans toward the bids that pay: LEAN, plus LEAN_KNOWN times the
# share of easy and medium seats, whose bids the public rule book tells. (Measured,
# 1,000 quick games of hard + 4 medium: 30 won 32.8 %, 80 35.0 %; but against 4
# hard AIs, leaning at 80 let a saver, spread(h=0.2,k=7), win 33.6 %.)
LEAN, LEAN_KNOWN = 30.0, 50.0
CELLS = 60  # log-spaced bid cells between LOWEST paces and the equilibrium's top
LOWEST = 0.02
PRIOR = 1.0  # rounds' worth of weight of the equilibrium prior for every seat...
KNOWN_PRIOR = 10.0  # ...and more, by the share of AI seats whose rule book it knows
# Later rounds weigh exp(TILT * a / (rounds - 1)): the last round weighs e ** TILT
# times the first. It comes in over the first TRUST of the game. (Measured, 400
# games each against 4 hard AIs, 19 rounds: at TILT 0 a late saver,
# chosen(every=2,h=3.62,start=10), won 41.5 %; at 2.7 a martingale won 48 %; at
# 0.75 every one tried stayed under 29 %. In the 9-round quick game the same
# tilt took ramp(h=0.94,slope=1.8) from 33 % to 28 % and chosen(every=4) from 36 % to 31 %.)
TILT, TRUST = 0.75, 0.25
# A short game (under SHORT_ROUNDS rounds, the 9-round quick game) is won with 3
# tokens or so, and a steady tilt left its middle rounds cheap: a player who reads
# the clock and spends its bank there, clock(cap=2.55,h=1.41,q=0.6,trim=1,up=1.5,w=7),
# won 25.8 % of 600 quick games against 4 hard AIs, ramp(h=2,slope=1.63) 27.0 %. So
# there the rounds weigh the same (TILT_SHORT) but the last, which weighs LAST_SHORT
# times more: a player saving for the end still meets full banks there. (Measured,
# 600 quick games each, seeds 4,000,000+, with the standing below read against the
# other hard seats: tilt 0.3, 0.3 with the last round at 1.25 or 1.6, 0 with 1.6:
# the best of six strong strategies won 25.0, 22.8, 27.2 and 22.5 %, their mean
# 20.5, 20.7, 21.5 and 19.9 %; bench/results/clock-exploit.txt.)
SHORT_ROUNDS = 12
TILT_SHORT, LAST_SHORT = 0.0, 1.6
# The tilt a labelled AI seat calls for: easy seats spend early and run dry, so
# wait for them; medium seats pace their banks, so pace too.
LABEL_TILT: dict[str | None, float] = {"easy": 3.2, "medium": 0.0}
RUNAWAY = 3.0  # the weight of this round when a leader is running away
# Playing for first place: this round weighs exp(LEAD_PUSH * gap) when the seat is
# `gap` tokens ahead of the others' mean, exp(LEAD_SAVE * gap) when behind (gap < 0).
# (Measured, 400 games each, 19 rounds: with neither, a hard seat among four
# exploiters won 19.2 % and the best of 11 known exploiters against 4 hard AIs 29.5 %;
# saving when behind alone (0.7): 20.5 % and 26.0 %; pushing when ahead alone (0.7):
# 54.5 % but 52.0 %, its lead burnt before the late savers come in; 0.7 behind and
# 0.35 ahead: 28.8 % and 29.2 %; the gap counted up to LEAD_CAP tokens: 29.5 % and
# 28.5 %, where a cap of 2 gave 25.8 % and 27.8 %. But the full search then found a
# late steady spender, chosen(every=1,h=2.5,start=9), winning 33.3 % of 1,000: the
# hard seats had pressed their early leads over a player sitting on its bank. Coming
# in over the first LEAD_TRUST of the game: that one 27.0 %, the field 22.5 %.)
LEAD_SAVE, LEAD_PUSH = 0.7, 0.35
LEAD_CAP = 3.0
LEAD_TRUST = 0.5
# Wherever time left breaks a tie on tokens, it keeps back TIE_KEEP * u paces for
# the whole game, u uniform, drawn once a game. (Measured, 600 quick games each
# against 4 hard AIs, the last round drawn afresh: ramp(h=0.94,slope=-1.13), which
# spends all but half a pace, won 30.8 % keeping none, most of them on the
# tie-break against a seat run dry; 21.3 % with TIE_KEEP 2. A fixed reserve only
# moved the win to a player keeping a little more: at 0.6 paces, ramp(h=0.85,...) 34.8 %.)
TIE_KEEP = 2.0
# In a short game (under SHORT_ROUNDS rounds) TIE_KEEP_SHORT instead, and in the last
# round, against a player (not a hard seat) within TIE_NEAR tokens of it, at least that
# player's time left at most (``price.bank_left``: the start bank less the tops of the
# rounds it won) and TIE_MARGIN paces more, where its bank holds that. The time kept
# back was time not spent on the rounds a front-loader bought; kept back at random
# only, lowered, it lost the tie-break to a saver who bought two rounds dear and kept
# the rest, chosen(every=4,h=3.8,start=4) (26.2 % keeping at most 1 pace), whose wins
# tell, to the tenth, how little it can have left. (Measured, 600 quick games each
# against 4 hard AIs, seeds 5,200,000+, ten strong strategies; the best and the mean:
# keeping up to 2 paces 23.3 / 15.7 %; up to 1, 23.5 / 16.5 % (that saver); up to 1
# and the last round's rule, 19.8 / 13.3 %; up to 0.5 and the rule 17.7 / 12.7 %;
# bench/results/ai/clock-exploit.txt, section 7.)
TIE_KEEP_SHORT = 0.5
TIE_NEAR, TIE_MARGIN = 1, 0.05
PROBE = (0.05, 0.15)  # an aggressive seat's smallest bid, in paces: it stays in
# A patient seat sits out a bid under this many paces. (0.4 until a seat pressed its
# lead: then patient hard seats entered 51.2 % of quick-game rounds, over the style's
# 50 %; at 0.5, 49.4 %.)
PATIENT_FLOOR = 0.5
MIN_BID_MS = 300  # anything less is not worth a press


def hard(seat: Seat, rng: random.Random, style: str, game_seed: str | None = None) -> float | None:
    """This round's bid in ms, or None to sit out.

    ``game_seed`` (the seat's seed for the whole game) deals the strata; without
    one, every round draws from the whole range.
    """
    others = [p for p in seat.opponents if not p["left"]]
    bank, left = seat.bank_ms, seat.rounds_left
    if not others or bank <= 0:
        return None
    keep = tie_keep(seat, game_seed)
    pace = bank / left
    if seat.tokens - max(p["tokens"] for p in others) > left:
        return in_style(0.0, pace, bank, rng, style)  # nobody can catch it: keep the time
    power = len(others)  # n - 1
    u, strata = deal(seat, rng, game_seed, power)
    weights = schedule(seat, others)
    if runaway(seat):
        weights[0] *= RUNAWAY
    weights[0] *= standing(seat, others)
    spend = max(0.0, bank - keep)
    top = weights[0] * spend / sum(w * s for w, s in zip(weights, strata))
    target = top / (power + 1)  # the expected bid this round
    high = min(top, spend)
    if high <= MIN_BID_MS:
        return in_style(high, pace, bank, rng, style)
    edges = bid_edges(LOWEST * pace, high)
    points = [math.sqrt(a * b) for a, b in zip(edges[1:-1], edges[2:])]
    if price.clocked(seat):
        # The rounds' tops, read off the clock: learn what the players it cannot know
        # bid, and expect the other hard seats at the equilibrium (price.read_clock).
        hard_below, rest_below, told = known.split_prior(seat, (power + 1) * pace)
        hards = {p["id"] for p in others if known.kind(p) == "hard"}
        wins = price.read_clock(seat, points, hard_below, rest_below,
                                PRIOR + KNOWN_PRIOR * told, hards)
    else:
        chance, share = known.prior(seat, (power + 1) * pace)
        wins = price.chance_below(seat, points, chance, PRIOR + KNOWN_PRIOR * share)
    base = [min(1.0, (e / top)) ** (1.0 / power) for e in edges[:-1]] + [1.0]
    cells = [(base[k + 1] - base[k], 0.0 if k == 0 else wins[k - 1],
              0.0 if k == 0 else points[k - 1]) for k in range(len(edges) - 1)]
    simple = sum(1 for p in others if known.told(p))
    probs = lean(cells, target, LEAN + LEAN_KNOWN * simple / len(others))
    bid = draw(probs, edges, u)
    if people.among(others):
        bid = people.adjust(seat, others, bid, (power + 1) * pace / 2)
    return in_style(bid, pace, bank, rng, style)


def tie_keep(seat: Seat, game_seed: str | None) -> float:
    """The time (ms) the seat keeps back for the final table's tie-break: where more
    time left breaks a tie on tokens, TIE_KEEP * u paces (TIE_KEEP_SHORT * u in a short
    game), u drawn once a game from its seed -- a random amount, so that no player can
    count on keeping just a little more (without a seed, half of it). In the last
    round, at least a little more than any player who may end level with it (within
    TIE_NEAR tokens, not a hard seat) can have left, where its bank holds that: what a
    person counts from the clock's tops of the rounds each player won."""
    if seat.rank_ties != "time_left":
        return 0.0
    u = random.Random(f"{game_seed}:keep").random() if game_seed is not None else 0.5
    pace = seat.start_bank_ms / seat.rounds
    drawn = (TIE_KEEP_SHORT if seat.rounds < SHORT_ROUNDS else TIE_KEEP) * u * pace
    if seat.rounds_left > 1:
        return drawn
    # The last round: more than any player who may end level with it can have left.
    near = [price.bank_left(seat, p["id"]) for p in seat.opponents
            if not p["left"] and known.kind(p) != "hard"
            and abs(p["tokens"] - seat.tokens) <= TIE_NEAR]
    need = max(near, default=0.0) + TIE_MARGIN * pace
    return max(drawn, need) if near and need < seat.bank_ms else drawn


def deal(seat: Seat, rng: random.Random, game_seed: str | None,
         power: int) -> tuple[float, list[float]]:
    """(this round's u, the mean of u ** power in each round left, this one first).

    The last round is not dealt but drawn afresh: dealt to the end, a seat whose
    last stratum is low spends its bank before it, and at the table of 4 hard AIs
    over half of them came to the quick game's last round with under 0.1 pace,
    their last round cheap and their tie-break lost.
    """
    rounds = max(1, seat.rounds - 1)  # the strata: every round but the last
    free = [1.0 / (power + 1)] * (seat.rounds - rounds)
    if game_seed is None or seat.round > rounds:
        return rng.random(), [1.0 / (power + 1)] * seat.rounds_left
    order = random.Random(f"{game_seed}:strata").sample(range(rounds), rounds)
    u = (order[seat.round - 1] + rng.random()) / rounds

    def mean(j: int) -> float:
        # Whole numbers to whole powers are whole (typeshed cannot tell for a variable power).
        above: int = (j + 1) ** (power + 1)
        below: int = j ** (power + 1)
        scale: int = (power + 1) * rounds ** power
        return (above - below) / scale

    return u, [mean(j) for j in order[seat.round - 1:]] + free


def schedule(seat: Seat, others: list[views.PlayerView]) -> list[float]:
    """The weight of each round left (this one first) in what it spends.

    Each other player adds its share of the tilt: a labelled AI seat the tilt its
    rule book calls for (LABEL_TILT), anyone else TILT, once TRUST of the game has
    been seen. In a short game (under SHORT_ROUNDS rounds) anyone else adds
    TILT_SHORT instead, and its share of a last round LAST_SHORT times heavier.
    """
    short = seat.rounds < SHORT_ROUNDS
    trust = min(1.0, (seat.round - 1) / max(1.0, TRUST * seat.rounds))
    mine = TILT_SHORT if short else TILT * trust
    tilt = sum(LABEL_TILT.get(known.kind(p), mine) for p in others) / max(1, len(others))
    slope = tilt / max(1, seat.rounds - 1)
    out = [math.exp(slope * a) for a in range(seat.rounds_left)]
    if short:  # (by the share of players whose tilt is not their label's)
        out[-1] *= LAST_SHORT ** (sum(1 for p in others if not known.told(p)) / max(1, len(others)))
    return out


def standing(seat: Seat, others: list[views.PlayerView]) -> float:
    """This round's weight for the seat's place: ahead of the others' mean it presses
    its lead, behind it keeps its time for the rounds that can still turn the game.

    Only players whose bids the rule book does not tell count (easy seats win early
    and run dry, medium ones pace: the schedule's tilt already answers them), by
    their share of the table; a gap counts up to LEAD_CAP tokens, and in full once
    LEAD_TRUST of the game has been played (early leads are mostly luck). Where
    other hard seats play, the gap is to their mean only: a person's lead is
    answered by contesting the rounds it still buys, not by saving (behind a
    person who spends its bank early, every hard seat saved, and clock and ramp
    players took their third token cheap: see SHORT_ROUNDS).
    """
    rivals = [p for p in others if not known.told(p)]
    if not rivals:
        return 1.0
    hards = [p for p in rivals if known.kind(p) == "hard"]
    ref = hards or rivals
    gap = seat.tokens - sum(p["tokens"] for p in ref) / len(ref)
    gap = max(-LEAD_CAP, min(LEAD_CAP, gap)) * len(rivals) / len(others)
    trust = min(1.0, (seat.round - 1) / max(1.0, LEAD_TRUST * seat.rounds))
    return math.exp((LEAD_PUSH if gap > 0 else LEAD_SAVE) * gap * trust)


def bid_edges(low: float, high: float) -> list[float]:
    """0, then CELLS + 1 log-spaced edges from ``low`` to ``high`` (ms)."""
    low = min(low, high / 2)
    step = (high / low) ** (1.0 / CELLS)
    return [0.0] + [low * step ** i for i in range(CELLS)] + [high]


def lean(cells: list[tuple[float, float, float]], target: float,
         strength: float = LEAN) -> list[float]:
    """Each cell's chance: (equilibrium chance, chance to win, bid) weighed by
    exp(strength * (win - lam * bid / target)), lam >= 0 set so the mean bid is ``target``."""
    logs = [(math.log(base) + strength * win if base > 0 else -math.inf, bid / target)
            for base, win, bid in cells]

    def chances(lam: float) -> list[float]:
        raw = [g - strength * lam * cost for g, cost in logs]
        peak = max(raw)
        out = [math.exp(x - peak) for x in raw]
        total = sum(out)
        return [x / total for x in out]

    def spend(lam: float) -> float:
        return sum(c * cost for c, (_, cost) in zip(chances(lam), logs))

    if spend(0.0) <= 1.0:
        return chances(0.0)
    lo, hi = 0.0, 1.0
    while spend(hi) > 1.0 and hi < 1e3:
        lo, hi = hi, hi * 2
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if spend(mid) > 1.0 else (lo, mid)
    return chances(hi)


def draw(probs: list[float], edges: list[float], u: float) -> float:
    """The bid at quantile ``u`` of the cells' chances (log-uniform within a cell)."""
    for k, p in enumerate(probs):
        if u < p or k == len(probs) - 1:
            if k == 0:
                return 0.0
            frac = min(1.0, u / p) if p > 0 else 0.5
            return edges[k] * math.pow(edges[k + 1] / edges[k], frac)
        u -= p
    return 0.0


def in_style(bid: float, pace: float, bank: float, rng: random.Random,
             style: str) -> float | None:
    """The bid as this style plays it: aggressive stays in with a small bid,
    patient sits out the small ones."""
    if style == "aggressive" and bid < PROBE[0] * pace:
        bid = pace * rng.uniform(*PROBE)
    elif style == "patient" and bid < PATIENT_FLOOR * pace:
        return None
    if bid < MIN_BID_MS:
        return None
    return min(bid, bank)
