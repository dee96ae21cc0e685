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
* hard forecasts the price of a token (the top other bid) from what it has
  seen and what the others can still afford, shares its bank among the rounds
  left where a second buys the most chance of a token, stops spending once
  nobody can catch it and keeps a little time back for tie-breaks.

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

# Styles: an aggressive hard seat plans bids it can afford in at least
# AGGRESSIVE_SHARE of the rounds left; a patient one only bids it can afford in
# at most PATIENT_SHARE of them (so, bigger); a random one jitters its plan more.
AGGRESSIVE_SHARE = 0.8
PATIENT_SHARE = 0.45
AGGRESSIVE_SMALL = 1 / 6  # an aggressive seat's small bid, of the likely price
SELECT = False
ANSWER = True
RHYTHM = True
ANSWER_BEAT = 0.5
ANSWER_STEP = 1.1
SAMPLE = False
AGG_RESTRICT = False
JIT = 1.0
TIE_RESERVE = 0.03  # share of the starting bank kept back for tie-breaks
# What it expects of prices before it has seen any: as likely to rise as to fall.
NEUTRAL_DRIFT = (0.3, 0.7, 1.0, 1.0, 0.7, 0.3)
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
    model = PriceModel.from_seat(seat, style, NEUTRAL_DRIFT)
    forecast = model.sample(rng.random()) if SAMPLE else model.forecast()
    need = race.tokens_needed(seat)
    spread = 0.25 if style == "random" else 0.08
    jitter = [1.0 + JIT * rng.uniform(-spread, spread) for _ in range(left)]
    draw = rng.random()
    if style == "aggressive" and AGG_RESTRICT:
        level, now = best_level(seat, forecast, need, bank, jitter, draw, 0.0,
                                bank / (AGGRESSIVE_SHARE * left))
        return vary(level, bank, rng) if now else None
    if style == "aggressive":
        small = min(math.exp(forecast.loc) * AGGRESSIVE_SMALL, bank / left / 2)
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
    floor = bank / (PATIENT_SHARE * left) if style == "patient" else 0.0
    beat, off_beat = beat_rounds(seat)
    answer = answer_floor(seat, forecast, beat)
    if beat and answer and rng.random() < ANSWER_BEAT and bank >= answer:
        return vary(answer * 1.05, bank, rng)  # its round, and we know its price: take it
    floor = max(floor, answer)
    level, now = best_level(seat, forecast, need, bank, jitter, draw, floor)
    if level is not None and not now and off_beat and not beat:
        # A beat player's rounds are not for us: the others carry its share of tries.
        rounds = seat.rounds_left
        theirs = off_beat
        now = draw < min(1.0, bank / level / max(1, rounds - theirs))
    if not now:
        return None
    return vary(level, bank, rng)


def beat_rounds(seat: Seat) -> tuple[list[str], int]:
    """Leaders who win on a beat (:func:`rivals.rhythm`) and whose beat this round is;
    and how many of the rounds left fall on such a beat."""
    if not RHYTHM:
        return [], 0
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
    if not ANSWER:
        return 0.0
    floor = 0.0
    mine = seat.tokens
    for p, proj in zip(seat.opponents, race.projected(seat)):
        if p.get("left") or p["tokens"] <= mine or proj < mine + 1:
            continue
        if RHYTHM and rivals.rhythm(seat, p["id"]) and p["id"] not in beat:
            continue  # not its round
        beaten = rivals.beat_me_at(seat, p["id"])
        if beaten is not None:
            floor = max(floor, min(beaten * ANSWER_STEP, forecast.cap + forecast.gap))
    return floor


def best_level(seat: Seat, forecast, need: float, bank: float, jitter: list[float],
               draw: float, floor: float = 0.0, ceiling: float = math.inf
               ) -> tuple[float | None, bool]:
    """The bid level whose tries most likely win first place, and whether now is a try.

    At each level the bank affords so many tries; they go to the rounds left
    where that level is likeliest to win (prices forecast to fall: later; to
    rise: now; ``jitter`` decides between rounds alike). Beside the chance of
    enough wins for first place, a little worth for each token expected (a
    place still counts when first is out of reach) and a little for time kept.
    """
    if bank <= 0:
        return None, False
    left = seat.rounds_left
    grid = [b for b in bid_grid(int(bank)) if min(floor, bank) <= b <= max(ceiling, 1000)]
    best, best_value, now = None, 0.0, False
    for b in grid:
        chances = sorted(((forecast.win_chance(b, k) * jitter[k % len(jitter)], k)
                          for k in range(left)), reverse=True)
        if not SELECT:
            chances = [(sum(c for c, _ in chances) / left, k) for k in range(left)]
        tries = min(float(left), bank / b)
        whole = int(tries)
        picked = chances[:whole] + ([chances[whole]] if whole < left else [])
        weights = [1.0] * whole + ([tries - whole] if whole < left else [])
        q = sum(w * c for w, (c, _) in zip(weights, picked)) / max(tries, 1e-9)
        value = (race.at_least(need, tries, q) + TOKEN_WORTH * tries * q
                 - TIME_WORTH * tries * b / seat.start_bank_ms)
        if value > best_value:
            rank = next(i for i, (_, k) in enumerate(chances) if k == 0)
            best, best_value = b, value
            now = rank < whole or (rank == whole and draw < tries - whole)
            if not SELECT:
                now = draw < tries / left
    return best, now


def vary(level: float, bank: float, rng: random.Random) -> float:
    """Anywhere between the grid's neighbours, so its bids show no pattern."""
    return min(bank, level * math.exp(rng.uniform(-0.1, 0.1)))


POLICIES = {"easy": easy, "medium": medium, "hard": hard}
