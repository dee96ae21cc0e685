"""AI players: pure policies that decide a round from their own seat's view.

An AI seat knows exactly what a human in its seat would know: the dict that
``views.view_for`` gives that seat at the start of the countdown. From it and
a seeded random generator, ``decide`` returns a :class:`Plan` for the round —
whether to press, when during the countdown, and how long to keep holding
once spending starts (the bid). ``bot_actions`` turns plans into the same
``Press``/``Release`` actions a human's hold socket produces, so AI players go
through the same rules and timers as everyone else.

Standard library only; no clock is read. ``round_plans`` seeds each seat's
generator from the room's seed, the round and the seat, so a game can be
replayed from its seed alone and the caller keeps no AI state between rounds.

Difficulties:

* easy spends without a plan: a random share of whatever is left, whatever
  the round;
* medium paces its bank: what is left, spread over the rounds it still expects
  to enter;
* hard plays for first place: it forecasts the price of a token (the top
  other bid) from what it has seen and what the others can still afford
  (``forecast``), reads from the token counts how many tokens first place will
  take (``race``), picks the bid level whose tries, spread at random over the
  rounds left, most likely get there, answers a leader who has been beating
  its bids or who wins on a beat (``rivals``), stops spending once nobody can
  catch it and keeps some time back for tie-breaks.

Styles change how often a seat enters and how big it bids: aggressive enters
most rounds, patient skips more and bids bigger, random varies both. How they
play and how well is in docs/ai.md; bench/tournament.py measures it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from . import race, rivals, rules, views
from .forecast import PriceModel, bid_grid
from .seat import Seat, own_bank, read_seat  # noqa: F401  (part of the bots interface)

STYLES = rules.BOT_STYLES
DIFFICULTIES = rules.DIFFICULTIES

# The shortest hold an AI plans (shorter ones round away to almost nothing);
# never more than its bank.
MIN_HOLD_MS = 300


@dataclass(frozen=True)
class Plan:
    """One seat's round: press or not, when in the countdown, how long to hold."""

    enter: bool
    press_after_ms: int  # after the countdown starts; always < settings ready_ms
    hold_ms: int  # time held after spending starts (the bid), ms


SIT_OUT = Plan(False, 0, 0)


# -- the public interface --------------------------------------------------


def decide(view: dict, rng: random.Random, *, difficulty: str, style: str) -> Plan:
    """The plan for this round of the seat whose ``view`` this is."""
    if difficulty not in POLICIES:
        raise ValueError(f"difficulty must be one of {', '.join(POLICIES)}")
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}")
    seat = read_seat(view)
    if seat is None or seat.bank_ms <= 0:
        return SIT_OUT
    # Draw the press moment first so it does not depend on the decision.
    press = press_moment(seat.ready_ms, rng)
    bid = POLICIES[difficulty](seat, rng, style)
    if bid is None or bid <= 0:
        return SIT_OUT
    return Plan(True, press, natural_hold(bid, seat.bank_ms, rng))


def round_plans(game: rules.Game, now_ms: int, seed) -> dict[str, Plan]:
    """Every AI seat's plan for the round whose countdown starts at ``now_ms``."""
    plans = {}
    for p in game.players:
        if p.bot and not p.left:
            rng = random.Random(f"{seed}:{game.round}:{p.id}")
            view = views.view_for(game, p.id, now_ms)
            plans[p.id] = decide(view, rng, difficulty=p.difficulty or "medium",
                                 style=p.style or "random")
    return plans


def bot_actions(game: rules.Game, plans: dict[str, Plan]) -> list[tuple[int, object]]:
    """The plans as (moment in ms, Press/Release) pairs, in time order."""
    rnd = game.current
    if rnd is None:
        return []
    actions = []
    for pid, plan in plans.items():
        if not plan.enter:
            continue
        press = rnd.start_ms + min(plan.press_after_ms, rnd.go_ms - rnd.start_ms - 1)
        actions.append((press, rules.Press(pid)))
        actions.append((rnd.spend_ms + plan.hold_ms, rules.Release(pid)))
    actions.sort(key=lambda pair: (pair[0], isinstance(pair[1], rules.Release)))
    return actions


# -- shared helpers --------------------------------------------------------


def press_moment(ready_ms: int, rng: random.Random) -> int:
    """When a seat presses: early in the countdown, never at or after go."""
    return min(ready_ms - 1, int(ready_ms * rng.uniform(0.12, 0.55)))


def natural_hold(bid_ms: float, bank_ms: int, rng: random.Random) -> int:
    """A hold time near ``bid_ms`` with millisecond spread, within the bank."""
    hold = bid_ms * rng.uniform(0.985, 1.015) + rng.uniform(0, 100)
    return int(min(bank_ms, max(MIN_HOLD_MS, hold)))


def lognormal(rng: random.Random, median: float, sigma: float) -> float:
    """A positive amount around ``median``, spread by ``sigma`` in log."""
    return median * math.exp(rng.gauss(0.0, sigma))


# Easy and medium, per style: the chance of entering a round (random: drawn
# afresh each round), and for medium the spread of its bid around its pace.
ENTRY = {"aggressive": 0.85, "patient": 0.38}
SPREAD = {"aggressive": 0.25, "patient": 0.2, "random": 0.4}


def entry_chance(style: str, rng: random.Random) -> float:
    """How likely an easy or medium seat of this style is to enter this round."""
    if style == "random":
        return rng.uniform(0.3, 0.9)
    return ENTRY[style]


# -- easy: spends without a plan ---------------------------------------------


def easy(seat: Seat, rng: random.Random, style: str) -> float | None:
    """A random share of what is left, whatever the round."""
    if rng.random() >= entry_chance(style, rng):
        return None
    if style == "aggressive":
        share = lognormal(rng, 0.09, 0.5)
    elif style == "patient":
        share = lognormal(rng, 0.2, 0.4)
    else:
        share = rng.uniform(0.02, 0.35)
    return seat.bank_ms * min(1.0, share)


# -- medium: paces its bank ------------------------------------------------


def medium(seat: Seat, rng: random.Random, style: str) -> float | None:
    """What is left, spread evenly over the rounds it expects to enter."""
    chance = entry_chance(style, rng)
    if rng.random() >= chance:
        return None
    entries_left = max(1.0, chance * seat.rounds_left)
    return lognormal(rng, seat.bank_ms / entries_left, SPREAD[style])


# -- hard: plays for first place ---------------------------------------------

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


def hard(seat: Seat, rng: random.Random, style: str) -> float | None:
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


POLICIES = {"easy": easy, "medium": medium, "hard": hard}
