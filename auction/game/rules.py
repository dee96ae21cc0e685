"""The rules of Time Auction and Time Stake: one pure engine for both books.

Standard library only. Time comes in as integer milliseconds on the store's
clock; nothing here reads a clock. ``apply(state, action, now_ms)`` returns a
new state and the events it caused; the caller's state is never mutated.

Timed transitions (go, end of the free window, a bank running out, the end
of the result screen) happen *at their own moment*, however late the caller
gets round to applying them: every action first advances the game to its own
time, so a late tick charges exactly the same as a punctual one and a stale
tick changes nothing.
"""

from __future__ import annotations

# The moves, the lobby's handlers, settings, state and the final table live in
# their own modules; they are re-exported here so that callers speak to the
# rules in one place.
from . import lobby, suspense
from .lobby import BOT_NAMES, BOT_STYLES, DIFFICULTIES, NAME_MAX  # noqa: F401
from .moves import (  # noqa: F401
    AddBot, ChangeSettings, Join, Joined, Kick, Leave, Lock, NameTaken, NotAllowed, PhaseChanged,
    Press, PressRefused, Release, Released, Rematch, RemoveBot, RoomFull, RoomLocked, RoundEnded,
    Start, Tick, WrongPhase)
from .settings import (  # noqa: F401
    CHOICES, PRESETS, RANGES, InvalidSettings, RuleError, Settings)
from .standings import Standing, last_place, standings, winners  # noqa: F401
from .state import (  # noqa: F401
    Game, Hold, Phase, Player, Round, RoundResult, from_dict, to_dict)


# -- the engine ------------------------------------------------------------


def new_game(code: str, preset: str = "auction", grace_ms: int = 0, seed: str = "") -> Game:
    """An empty lobby with a preset's settings; ``grace_ms`` is the entry grace, ``seed``
    the server's secret for the suspense pauses."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise InvalidSettings(f"preset must be one of {', '.join(PRESETS)}")
    return Game(code=code, settings=PRESETS[preset], grace_ms=grace_ms, seed=seed)


def apply(state: Game, action, now_ms: int) -> tuple[Game, list]:
    """Apply ``action`` at ``now_ms``; return the new state and its events."""
    game = state.copy()
    events: list = []
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise TypeError(f"not an action: {action!r}")
    handler(game, action, now_ms, events)
    return game, events


def check(game: Game, action) -> None:
    """Refuse what can be refused from the stored room alone, before any time passes.

    Who may act, and whether the action fits the lobby, depend on nothing
    hidden and on no clock (only Start leaves the lobby). A caller runs this
    before any work that reads holds, so a refusal costs the same whoever
    holds; ``apply`` checks again.
    """
    if isinstance(action, (Kick, Lock, AddBot, RemoveBot, ChangeSettings, Start)):
        lobby.require_host(game, action.by)
        lobby.require_lobby(game)
    elif isinstance(action, Join):
        lobby.require_joinable(game)


def next_deadline(game: Game) -> int | None:
    """The moment of the next timed transition, or None if none is pending."""
    if game.phase in (Phase.COUNTDOWN, Phase.RESULT):
        return game.phase_end_ms
    if game.phase in (Phase.FREE, Phase.SPENDING):
        if not game.current.holders():
            # Nobody holds (any more): the round ends once the entry has closed, or once
            # decided, when its suspense pause has passed.
            close = suspense.reveal_ms(game)
            close = entry_close(game) if close is None else close
            return min(game.phase_end_ms, close) if game.phase is Phase.FREE else close
        if game.phase is Phase.FREE:
            return game.phase_end_ms
        return min(_exhaustion_times(game).values())
    return None


def entry_close(game: Game) -> int:
    """The moment the current round's entry closes: go plus the grace. Until
    then no press can be ruled out, so the round does not end."""
    return game.current.go_ms + game.grace_ms


def _advance(game: Game, now: int, events: list) -> None:
    """Apply every transition due at or before ``now``, each at its own moment."""
    while (due := next_deadline(game)) is not None and due <= now:
        if game.phase is Phase.COUNTDOWN:
            _go(game, due, events)
        elif game.phase is Phase.FREE and due == game.phase_end_ms:
            _set_phase(game, Phase.SPENDING, None, due, events)
        elif game.phase is Phase.FREE:
            _over(game, due, events)      # nobody holds and the entry has closed, or the pause ended
        elif game.phase is Phase.SPENDING:
            for pid, at in _exhaustion_times(game).items():
                if at == due:
                    game.current.holds[pid].release_ms = at
                    events.append(Released(pid, "bank_empty", at))
            if not game.current.holders() and due >= entry_close(game):
                _over(game, due, events)
        else:
            _next_round_or_end(game, due, events)


def _exhaustion_times(game: Game) -> dict[str, int]:
    rnd = game.current
    return {pid: rnd.spend_ms + game.player(pid).bank_ms for pid in rnd.holders()}


def _set_phase(game: Game, phase: Phase, end: int | None, at: int, events: list) -> None:
    game.phase = phase
    game.phase_end_ms = end
    events.append(PhaseChanged(phase, at))


def _start_round(game: Game, at: int, events: list) -> None:
    s = game.settings
    game.round += 1
    go = at + s.ready_ms
    game.current = Round(game.round, at, go, go + s.free_ms)
    _set_phase(game, Phase.COUNTDOWN, go, at, events)


def _go(game: Game, at: int, events: list) -> None:
    # With a grace, go looks the same whether or not anyone holds: an empty
    # round is only called once the grace has passed (next_deadline).
    if not game.current.holders() and at >= entry_close(game) and not suspense.on(game):
        _end_round(game, at, events)
    elif game.settings.free_ms:
        _set_phase(game, Phase.FREE, game.current.spend_ms, at, events)
    else:
        _set_phase(game, Phase.SPENDING, None, at, events)


def _bid(game: Game, hold: Hold | None) -> int | None:
    """What a hold costs: None if it never reached spending, truncated to tenths by setting."""
    rnd = game.current
    if hold is None or hold.release_ms is None or hold.release_ms <= rnd.spend_ms:
        return None
    held = hold.release_ms - rnd.spend_ms
    return held - held % 100 if game.settings.tie == "tenth" else held


def _over(game: Game, at: int, events: list) -> None:
    """The round is decided at ``at``: nobody holds and the entry has closed. With suspense
    on, the first call only notes it; the phase stays as it is (the wait looks like a
    holder still holding) until the pause has passed and ``_advance`` calls again."""
    if suspense.on(game) and game.current.over_ms is None:
        game.current.over_ms = at
    else:
        _end_round(game, at, events)


def _end_round(game: Game, at: int, events: list) -> None:
    rnd = game.current
    bids = {p.id: _bid(game, rnd.holds.get(p.id)) for p in game.players}
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
        game.player(pid).bank_ms -= bid
    for pid in winners:
        game.player(pid).tokens += 1
    result = RoundResult(rnd.number, bids, winners, tie)
    game.history.append(result)
    game.current = None
    events.append(RoundEnded(result))
    _set_phase(game, Phase.RESULT, at + game.settings.result_ms, at, events)


def _next_round_or_end(game: Game, at: int, events: list) -> None:
    if game.round >= game.settings.rounds:
        _set_phase(game, Phase.ENDED, None, at, events)
    else:
        _start_round(game, at, events)


# -- handlers: each validates, then changes the (already copied) game ------


def _leave(game: Game, action: Leave, now: int, events: list) -> None:
    player = game.player(action.player)
    if player is None or player.left:
        raise NotAllowed("not seated in this room")
    _advance(game, now, events)
    if game.phase is Phase.LOBBY:
        game.players.remove(player)
    else:
        player.left = True
        rnd = game.current
        if rnd and action.player in rnd.holders():
            _release(game, action.player, now, now, events, reason="left")
    if game.host == player.id:
        game.host = next((p.id for p in game.players if not p.bot and not p.left), None)


def _start(game: Game, action: Start, now: int, events: list) -> None:
    lobby.require_host(game, action.by)
    lobby.require_lobby(game)
    s = game.settings
    if not s.min_players <= len(game.players) <= s.max_players:
        raise WrongPhase(f"this game needs {s.min_players}–{s.max_players} players")
    for player in game.players:
        player.bank_ms = s.bank_ms
        player.tokens = 0
    _start_round(game, now, events)


def _press(game: Game, action: Press, now: int, events: list) -> None:
    at = now if action.at_ms is None else min(action.at_ms, now)
    # Judge the press in the game as it stood at its own moment, so go (if
    # still pending) sees it, then catch up to now.
    _advance(game, at, events)
    _enter(game, action.player, at)
    _advance(game, now, events)


def _enter(game: Game, pid: str, at: int) -> None:
    rnd = game.current
    player = game.player(pid)
    if player is None or player.left:
        raise PressRefused("not_seated")
    if rnd is None:
        raise PressRefused("not_started" if game.phase is Phase.LOBBY else "too_late")
    # A press dated before go counts even if it reached us after go: the
    # caller back-dates only presses delayed by the connection's handshake.
    if at >= rnd.go_ms or at < rnd.start_ms or rnd.over_ms is not None:
        raise PressRefused("too_late")
    if player.bank_ms <= 0:
        raise PressRefused("bank_empty")
    if pid in rnd.holds:
        held = rnd.holds[pid].release_ms is None
        raise PressRefused("already_holding" if held else "out_this_round")
    rnd.holds[pid] = Hold(at)


def _release(game: Game, pid: str, at: int, now: int, events: list, reason: str | None = None) -> None:
    rnd = game.current
    hold = rnd.holds[pid]
    # Never before the press, and never past the moment the bank ran out.
    at = max(at, hold.press_ms)
    at = min(at, rnd.spend_ms + game.player(pid).bank_ms)
    hold.release_ms = at
    if reason:
        events.append(Released(pid, reason, at))
    end = max(at, now)
    if not rnd.holders() and game.phase is not Phase.COUNTDOWN and end >= entry_close(game):
        _over(game, end, events)


def _release_action(game: Game, action: Release, now: int, events: list) -> None:
    at = now if action.at_ms is None else min(action.at_ms, now)
    # Advance only to the release's own moment first, so a bank cannot be
    # charged in full for a release that came before it ran out.
    _advance(game, at, events)
    rnd = game.current
    if rnd is not None and action.player in rnd.holders():
        _release(game, action.player, at, now, events)
    _advance(game, now, events)


def _tick(game: Game, action: Tick, now: int, events: list) -> None:
    _advance(game, now, events)


_HANDLERS = {
    Join: lobby.join,
    Leave: _leave,
    Kick: lobby.kick,
    Lock: lobby.lock,
    AddBot: lobby.add_bot,
    RemoveBot: lobby.remove_bot,
    ChangeSettings: lobby.change_settings,
    Start: _start,
    Rematch: lobby.rematch,
    Press: _press,
    Release: _release_action,
    Tick: _tick,
}
