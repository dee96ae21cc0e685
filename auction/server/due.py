"""What is due in a room before any action: its timers and its AI seats' moves.

``Rooms.act`` runs these on every write, so a room's timers and AI players move
at their own moments whichever writer comes first (a request, a hold socket or
the scheduler). They change only the room they are handed; the store is the
composer's (rooms.py).
"""

from __future__ import annotations

from ..ai import bots
from ..game import rules
from .record import Room


def run_due(room: Room, now: int) -> list[rules.Event]:
    """Apply due timers and AI actions in time order, each at its own moment."""
    events: list[rules.Event] = []
    while True:
        timer = rules.next_deadline(room.game)
        bot = room.bot_queue[0] if room.bot_queue else None
        if bot and bot[0] <= now and (timer is None or bot[0] <= timer):
            room.bot_queue.pop(0)
            at, kind, pid = bot
            action = rules.Press(pid, at) if kind == "press" else rules.Release(pid, at)
            try:
                room.game, more = rules.apply(room.game, action, at)
            except rules.PressRefused:
                continue  # e.g. its bank ran dry; an AI never insists
        elif timer is not None and timer <= now:
            room.game, more = rules.apply(room.game, rules.Tick(), timer)
        else:
            return events
        events += more
        plan_bots(room, more)


def plan_bots(room: Room, events: list[rules.Event]) -> None:
    """At each countdown's start, queue the AI seats' presses and releases."""
    started = any(isinstance(e, rules.PhaseChanged) and e.phase is rules.Phase.COUNTDOWN
                  for e in events)
    if not started or room.game.phase is not rules.Phase.COUNTDOWN:
        if room.game.phase in (rules.Phase.RESULT, rules.Phase.ENDED):
            room.bot_queue = []
        return
    game, rnd = room.game, room.game.current
    assert rnd is not None                      # a countdown is a round's
    plans = bots.round_plans(game, rnd.start_ms, room.bot_seed)
    actions = bots.bot_actions(game, plans)
    room.bot_queue = sorted(
        bots.BotStep(at, "press" if isinstance(a, rules.Press) else "release", a.player)
        for at, a in actions)
