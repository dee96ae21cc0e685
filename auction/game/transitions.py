"""The timed transitions of a round: when the next one is due, and what each does.

Standard library only; ``auction.game.rules`` calls these on a game it has
already copied. Go, the end of the free window, a bank running out, the end of
a decided round (after its suspense pause) and the end of the result screen each
happen *at their own moment*: ``advance`` applies every one due by a given time
in order, so a late caller charges exactly what a punctual one would.
"""

from __future__ import annotations

from . import suspense
from .moves import Event, PhaseChanged, Released, RoundEnded
from .state import Game, Hold, Phase, Player, Round, RoundResult


# The result screen ends, and so the next round starts, on a whole tenth of a second.
# Views name a round's moments on the server's clock (views.View.deadline_at_ms: go, so
# a page counts to the true go however late its stream), and go is the previous round's
# end plus the result and countdown times: off the grid it would tell that end -- the
# top bid -- to the millisecond. On it, it tells the tenth, as the result's own arrival
# already does over the network.
RESULT_GRID_MS = 100


def on_grid(moment: int) -> int:
    """``moment``, moved later to the next whole tenth of a second (if not on one)."""
    return -(-moment // RESULT_GRID_MS) * RESULT_GRID_MS


def next_deadline(game: Game) -> int | None:
    """The moment of the next timed transition, or None if none is pending."""
    if game.phase in (Phase.COUNTDOWN, Phase.RESULT):
        return game.phase_end_ms
    if game.phase in (Phase.FREE, Phase.SPENDING):
        if not current(game).holders():
            # Nobody holds (any more): the round ends once the entry has closed, or once
            # decided, when its suspense pause has passed.
            close = suspense.reveal_ms(game)
            close = entry_close(game) if close is None else close
            return min(_phase_end(game), close) if game.phase is Phase.FREE else close
        if game.phase is Phase.FREE:
            return game.phase_end_ms
        return min(_exhaustion_times(game).values())
    return None


def entry_close(game: Game) -> int:
    """The moment the current round's entry closes: go plus the grace. Until
    then no press can be ruled out, so the round does not end."""
    return current(game).go_ms + game.grace_ms


def current(game: Game) -> Round:
    """The round in progress: in the round's phases there always is one."""
    assert game.current is not None, game.phase
    return game.current


def _phase_end(game: Game) -> int:
    """When the timed phase in progress (the countdown, the free window) ends."""
    assert game.phase_end_ms is not None, game.phase
    return game.phase_end_ms


def seat(game: Game, pid: str) -> Player:
    """A seat the round names (a holder, a bidder): always in the game."""
    player = game.player(pid)
    assert player is not None, pid
    return player


def advance(game: Game, now: int, events: list[Event]) -> None:
    """Apply every transition due at or before ``now``, each at its own moment."""
    while (due := next_deadline(game)) is not None and due <= now:
        if game.phase is Phase.COUNTDOWN:
            _go(game, due, events)
        elif game.phase is Phase.FREE and due == game.phase_end_ms:
            _set_phase(game, Phase.SPENDING, None, due, events)
        elif game.phase is Phase.FREE:
            over(game, due, events)      # nobody holds and the entry has closed, or the pause ended
        elif game.phase is Phase.SPENDING:
            for pid, at in _exhaustion_times(game).items():
                if at == due:
                    current(game).holds[pid].release_ms = at
                    events.append(Released(pid, "bank_empty", at))
            if not current(game).holders() and due >= entry_close(game):
                over(game, due, events)
        else:
            _next_round_or_end(game, due, events)


def _exhaustion_times(game: Game) -> dict[str, int]:
    rnd = current(game)
    return {pid: rnd.spend_ms + seat(game, pid).bank_ms for pid in rnd.holders()}


def _set_phase(game: Game, phase: Phase, end: int | None, at: int, events: list[Event]) -> None:
    game.phase = phase
    game.phase_end_ms = end
    events.append(PhaseChanged(phase, at))


def start_round(game: Game, at: int, events: list[Event]) -> None:
    s = game.settings
    game.round += 1
    go = at + s.ready_ms
    game.current = Round(game.round, at, go, go + s.free_ms)
    _set_phase(game, Phase.COUNTDOWN, go, at, events)


def _go(game: Game, at: int, events: list[Event]) -> None:
    # With a grace, go looks the same whether or not anyone holds: an empty
    # round is only called once the grace has passed (next_deadline).
    rnd = current(game)
    if not rnd.holders() and at >= entry_close(game) and not suspense.on(game):
        _end_round(game, at, events)
    elif game.settings.free_ms:
        _set_phase(game, Phase.FREE, rnd.spend_ms, at, events)
    else:
        _set_phase(game, Phase.SPENDING, None, at, events)


def bid_of(game: Game, hold: Hold | None) -> int | None:
    """What a hold costs: None if it never reached spending, truncated to tenths by setting."""
    rnd = current(game)
    if hold is None or hold.release_ms is None or hold.release_ms <= rnd.spend_ms:
        return None
    held = hold.release_ms - rnd.spend_ms
    return held - held % 100 if game.settings.tie == "tenth" else held


def over(game: Game, at: int, events: list[Event]) -> None:
    """The round is decided at ``at``: nobody holds and the entry has closed. With suspense
    on, the first call only notes it; the phase stays as it is (the wait looks like a
    holder still holding) until the pause has passed and ``_advance`` calls again."""
    rnd = current(game)
    if suspense.on(game) and rnd.over_ms is None:
        rnd.over_ms = at
    else:
        _end_round(game, at, events)


def _end_round(game: Game, at: int, events: list[Event]) -> None:
    rnd = current(game)
    bids = {p.id: bid_of(game, rnd.holds.get(p.id)) for p in game.players}
    bidders = {pid: bid for pid, bid in bids.items() if bid is not None}
    winners: tuple[str, ...] = ()
    tie = False
    if bidders:
        top = max(bidders.values())
        floor = top - game.settings.tie_margin_ms if game.settings.tie == "margin" else top
        tied = tuple(pid for pid, bid in bidders.items() if bid >= floor)
        tie = len(tied) > 1
        if not tie or game.settings.tie_rule == "all":
            winners = tied
    for pid, bid in bidders.items():
        seat(game, pid).bank_ms -= bid
    for pid in winners:
        seat(game, pid).tokens += 1
    result = RoundResult(rnd.number, bids, winners, tie, _clock(game, rnd, at))
    game.history.append(result)
    game.current = None
    events.append(RoundEnded(result))
    _set_phase(game, Phase.RESULT, on_grid(at + game.settings.result_ms), at, events)


def _clock(game: Game, rnd: Round, at: int) -> int | None:
    """What the round's clock showed as the round ended at ``at``, to the tenth: the time
    since spending began (the top bid, as late as the last holder's release reached the
    server). None when the clock never ran (the round ended before spending) and with
    suspense on, where the end came after a secret pause: that figure must reach no view."""
    if game.phase is not Phase.SPENDING or suspense.on(game):
        return None
    held = max(0, at - rnd.spend_ms)
    return held - held % RESULT_GRID_MS


def _next_round_or_end(game: Game, at: int, events: list[Event]) -> None:
    if game.round >= game.settings.rounds:
        game.ended_ms = at
        _set_phase(game, Phase.ENDED, None, at, events)
    else:
        start_round(game, at, events)
