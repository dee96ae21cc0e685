"""AI players: pure policies that decide a round from their own seat's view.

An AI seat knows exactly what a human in its seat would know: the ``View`` that
``views.view_for`` gives that seat at the start of the countdown. From it and
a seeded random generator, ``decide`` returns a :class:`Plan` for the round —
whether to press, when during the countdown, and how long to keep holding
once spending starts (the bid). ``bot_actions`` turns plans into the same
``Press``/``Release`` actions a human's hold socket produces, so AI players go
through the same rules and timers as everyone else.

Standard library only; no clock is read. ``round_plans`` seeds each seat's
generator from the room's seed, the round and the seat, and hands each seat its
own seed for the whole game (``game_seed``), so a game can be replayed from its
seed alone and the caller keeps no AI state between rounds.

Difficulties:

* easy (``auction.ai.simple``) spends without a plan: a random share of whatever
  is left, whatever the round;
* medium (``auction.ai.simple``) paces its bank: what is left, spread over the
  rounds it still expects to enter;
* hard (``auction.ai.hard``) bids from the all-pay equilibrium, dealt over the
  game so that its bank lasts, leaning toward the bids that have been paying
  (``auction.ai.price``: what a token has been selling for; ``auction.ai.known``:
  what the public rule book says the easy and medium seats bid) and answering
  a leader who runs away (``auction.ai.rivals``).

Styles change how often a seat enters and how big it bids: aggressive enters
most rounds, patient skips more and bids bigger, random varies both. How they
play and how well is in docs/ai.md; bench/tournament.py measures it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Literal, NamedTuple

from ..game import rules, views
from .hard import hard
from .simple import easy, medium
# Re-exported (``as``): part of the bots interface.
from .seat import Seat as Seat, own_bank as own_bank, read_seat as read_seat

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


class BotStep(NamedTuple):
    """An AI seat's press or release as the server queues it: when, which, whose.
    A tuple: it is stored as the JSON list [at_ms, kind, player], and sorts by time."""

    at_ms: int
    kind: Literal["press", "release"]
    player: str


# -- the public interface --------------------------------------------------


def decide(view: views.View, rng: random.Random, *, difficulty: str, style: str,
           game_seed: str | None = None) -> Plan:
    """The plan for this round of the seat whose ``view`` this is.

    ``game_seed`` is the seat's own seed for the whole game (the same every
    round): the hard AI deals its rounds' strata from it (``auction.ai.hard``).
    """
    if difficulty not in POLICIES:
        raise ValueError(f"difficulty must be one of {', '.join(POLICIES)}")
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(STYLES)}")
    seat = read_seat(view)
    if seat is None or seat.bank_ms <= 0:
        return SIT_OUT
    # Draw the press moment first so it does not depend on the decision.
    press = press_moment(seat.ready_ms, rng)
    bid = POLICIES[difficulty](seat, rng, style, game_seed)
    if bid is None or bid <= 0:
        return SIT_OUT
    return Plan(True, press, natural_hold(bid, seat.bank_ms, rng))


def round_plans(game: rules.Game, now_ms: int, seed: str) -> dict[str, Plan]:
    """Every AI seat's plan for the round whose countdown starts at ``now_ms``."""
    plans = {}
    for p in game.players:
        if p.bot and not p.left:
            rng = random.Random(f"{seed}:{game.round}:{p.id}")
            view = views.view_for(game, p.id, now_ms)
            plans[p.id] = decide(view, rng, difficulty=p.difficulty or "medium",
                                 style=p.style or "random", game_seed=f"{seed}:{p.id}")
    return plans


def bot_actions(game: rules.Game,
                plans: dict[str, Plan]) -> list[tuple[int, rules.Press | rules.Release]]:
    """The plans as (moment in ms, Press/Release) pairs, in time order."""
    rnd = game.current
    if rnd is None:
        return []
    actions: list[tuple[int, rules.Press | rules.Release]] = []
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


# A policy: the bid (ms) for this seat's round, or None to sit out.
Policy = Callable[[Seat, random.Random, str, str | None], float | None]
POLICIES: dict[str, Policy] = {"easy": easy, "medium": medium, "hard": hard}
