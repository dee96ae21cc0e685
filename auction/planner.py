"""The hard AI's planner: the patient hard seat, which plans for first place.

Pure and standard library only (``random`` is only the generator it is handed).
``auction.hard`` plays patient hard seats with :func:`planner`; the other styles
read the table instead (``auction.hard``), so that a table of hard AIs does not
share one blind spot. The planner can play any style. It forecasts the price
of a token (``forecast``), reads the race for first place from the token counts
(``race``), answers players who have been beating it (``rivals``) -- a leader
running away at once -- and picks the bid level whose tries most likely reach
first place. docs/ai.md tells how it
thinks and how well it plays.
"""

from __future__ import annotations

import math
import random

from . import race, rivals
from .forecast import PriceModel, bid_grid
from .seat import Seat

# Styles: an aggressive hard seat is in AGGRESSIVE_SHARE of the rounds -- a try
# at its level where its plan says, else a small bid (AGGRESSIVE_SMALL of the
# likely price, at most SMALL_PACE of its pace); a patient one bids in at most
# PATIENT_SHARE of the game's rounds and never below the likely price; a random
# one weighs its levels with more jitter.
AGGRESSIVE_SHARE = 0.8
AGGRESSIVE_SMALL = 1 / 6
SMALL_PACE = 0.5
PATIENT_SHARE = 0.45
LEVEL_JITTER = {"aggressive": 0.02, "patient": 0.02, "random": 0.0625}
# How often it acts on one draw of the price model rather than on its average:
# a seat that mostly bids high so learns now and then that cheaper bids win too,
# and seats of the same table do not all answer alike.
SAMPLE = {"aggressive": 0.0, "patient": 0.0, "random": 0.5}
# A round where its level is likelier to win than on average is a try more often:
# the chance of a try goes with (chance now / chance on average) ** TILT.
TILT = 2.0
# Answering a leader: bid ANSWER_STEP above the bid the leader beat; on a beat
# player's round, take it at its price with chance ANSWER_BEAT.
ANSWER_STEP = 1.1
ANSWER_BEAT = 0.5
TIE_RESERVE = 0.05  # share of the starting bank kept back for tie-breaks
# What it expects of prices before it has seen any: that they drift down a little
# as banks run down -- a belief its own sightings soon outweigh.
DRIFT_PRIOR = (0.6, 1.0, 1.0, 0.7, 0.3, 0.1)
# A token's worth beside the chance of first place: enough to break ties between
# plans, and to keep fighting for a place when first is out of reach.
TOKEN_WORTH = 0.02
TIME_WORTH = 0.01  # the worth of keeping the whole bank (ties on tokens go to time)


def planner(seat: Seat, rng: random.Random, style: str) -> float | None:
    """Pick the bid level that gives the best chance of finishing first.

    It forecasts the top other bid (:class:`PriceModel`: what it has seen, and
    what the others can still afford), reads from the token counts how many
    more tokens first place will take (:mod:`race`: a player who keeps buying
    projects a runaway, and must be answered), and, for every bid level it
    could hold, weighs the chance that as many tries as the bank affords at
    that level win enough. The best level is its bid; it is in this round with
    the share of the rounds left that the bank affords at that level (an
    aggressive seat fills most other rounds with small bids). It stops
    spending once nobody can catch it, and keeps a little time back for ties.
    """
    left = seat.rounds_left
    gap = race.leader_gap(seat)
    if gap > left:  # nobody can catch up any more: keep the time
        if style == "aggressive" and rng.random() < AGGRESSIVE_SHARE:
            return seat.bank_ms / left * rng.uniform(0.3, 0.8)  # ...but stay in character
        return None
    bank = seat.bank_ms - min(seat.bank_ms, TIE_RESERVE * seat.start_bank_ms)
    if bank <= 0:
        return None
    model = PriceModel.from_seat(seat, style, DRIFT_PRIOR)
    sample_draw = rng.random()
    forecast = (model.sample(rng.random()) if sample_draw < SAMPLE.get(style, 0.0)
                else model.forecast())
    need = race.tokens_needed(seat)
    spread = LEVEL_JITTER[style]
    jitter = [1.0 + rng.uniform(-spread, spread) for _ in range(32)]
    draw = rng.random()
    if style == "aggressive":
        small = min(math.exp(forecast.loc) * AGGRESSIVE_SMALL, bank / left * SMALL_PACE)
        budget = bank
        for _ in range(2):  # the fight level, planned with what the small bids leave
            level, now = best_level(seat, forecast, need, budget, jitter, draw)
            fights = 0.0 if level is None else min(float(left), budget / level)
            quiet = max(0.0, AGGRESSIVE_SHARE * left - fights)
            budget = max(0.0, bank - quiet * small)
        if now:
            return vary(level, bank, rng)
        # In without a fight whenever its entries so far fall behind its share.
        entered = sum(1 for h in seat.history if h.get("my_bid_ms") is not None)
        if rng.random() < AGGRESSIVE_SHARE * seat.round + 0.5 - entered:
            return min(bank, small * math.exp(rng.uniform(-0.2, 0.2)))
        return None
    floor = 0.0
    if style == "patient":
        # Bids in at most PATIENT_SHARE of the game's rounds, never below the likely price.
        done = sum(1 for h in seat.history if h.get("my_bid_ms") is not None)
        if done >= int(PATIENT_SHARE * seat.rounds):
            return None
        floor = math.exp(forecast.loc)
    beat, off_beat = beat_rounds(seat)
    answer = answer_floor(seat, forecast, beat)
    if beat and answer and rng.random() < ANSWER_BEAT and bank >= answer:
        return vary(answer * 1.05, bank, rng)  # its round, and we know its price: take it
    floor = max(floor, answer)
    level, now = best_level(seat, forecast, need, bank, jitter, draw, floor)
    if level is not None and not now and off_beat and not beat:
        # A beat player's rounds are not for us: the others carry its share of tries.
        now = draw < min(1.0, bank / level / max(1, left - off_beat))
    if not now and level is not None and rivals.runaway(seat):
        now = True  # a leader is running away: answer it now, not in a later round
    if not now:
        return None
    return vary(level, bank, rng)


def beat_rounds(seat: Seat) -> tuple[list[str], int]:
    """Leaders who win on a beat (:func:`rivals.rhythm`) and whose beat this round is;
    and how many of the rounds left fall on such a beat."""
    now, theirs = [], set()
    for p in seat.opponents:
        if p.get("left") or p["tokens"] < seat.tokens:
            continue
        beat = rivals.rhythm(seat, p["id"])
        if beat is None:
            continue
        period, phase = beat
        if seat.round % period == phase:
            now.append(p["id"])
        theirs |= {r for r in range(seat.round, seat.rounds + 1) if r % period == phase}
    return now, len(theirs)


def answer_floor(seat: Seat, forecast, beat: list[str] = ()) -> float:
    """The least bid worth making against a leader who has been beating this seat.

    A player ahead on tokens, and projected to stay ahead, who has recently won
    against this seat's bids, will pay at least that again: bidding up to there
    only loses time. So bid above it, or not at all -- never above what the
    leader can still afford, which ends the fear.
    """
    floor = 0.0
    mine = seat.tokens
    for p, proj in zip(seat.opponents, race.projected(seat)):
        if p.get("left") or p["tokens"] <= mine or proj < mine + 1:
            continue
        if rivals.rhythm(seat, p["id"]) and p["id"] not in beat:
            continue  # not its round
        beaten = rivals.beat_me_at(seat, p["id"])
        if p["id"] in beat:
            # It buys only on its beat: its bank over its beats is what it can pay.
            period, phase = rivals.rhythm(seat, p["id"])
            first = rivals.wins(seat, p["id"])[0]
            beats = sum(1 for r in range(first, seat.rounds + 1) if r % period == phase)
            beaten = max(beaten or 0.0, seat.start_bank_ms / beats)
        if beaten is not None:
            floor = max(floor, min(beaten * ANSWER_STEP, forecast.cap + forecast.gap))
    return floor


def best_level(seat: Seat, forecast, need: float, bank: float, jitter: list[float],
               draw: float, floor: float = 0.0) -> tuple[float | None, bool]:
    """The bid level whose tries most likely win first place, and whether now is a try.

    At each level the bank affords so many tries, spread at random over the
    rounds left (so its rounds cannot be told in advance, and it keeps seeing
    prices all game); each wins with the forecast chance, averaged over those
    rounds. Beside the chance of enough wins for first place, a little worth
    for each token expected (a place still counts when first is out of reach)
    and a little for time kept. ``jitter`` tilts the choice between levels
    that look alike; ``draw`` (uniform) decides whether this round is a try.
    """
    if bank <= 0:
        return None, False
    left = seat.rounds_left
    ahead = sorted({0, left // 3, (2 * left) // 3, left - 1})
    grid = [b for b in bid_grid(int(bank)) if b >= min(floor, bank)]
    best, best_value, tilt = None, 0.0, 1.0
    for i, b in enumerate(grid):
        chances = [forecast.win_chance(b, k) for k in ahead]
        q = sum(chances) / len(ahead)
        tries = min(float(left), bank / b)
        value = (race.at_least(need, tries, q) + TOKEN_WORTH * tries * q
                 - TIME_WORTH * tries * b / seat.start_bank_ms) * jitter[i % len(jitter)]
        if value > best_value:
            best, best_value = b, value
            tilt = (chances[0] / q) ** TILT if q > 0 else 1.0
    if best is None:
        return None, False
    # A round where the level is likelier to win than on average gets a try more often.
    return best, draw < min(float(left), bank / best) / left * tilt


def vary(level: float, bank: float, rng: random.Random) -> float:
    """Anywhere between the grid's neighbours, so its bids show no pattern."""
    return min(bank, level * math.exp(rng.uniform(-0.1, 0.1)))
