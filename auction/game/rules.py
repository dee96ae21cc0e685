"""The rules of Time Auction and Time Stake: one pure engine for both books.

Standard library only. Time comes in as integer milliseconds on the store's
clock; nothing here reads a clock. ``apply(state, action, now_ms)`` returns a
new state and the events it caused; the caller's state is never mutated.

Timed transitions (go, end of the free window, a bank running out, the end
of the result screen) happen *at their own moment*, however late the caller
gets round to applying them: every action first advances the game to its own
time (``auction.game.transitions``), so a late tick charges exactly the same as
a punctual one and a stale tick changes nothing.
"""

from __future__ import annotations

from typing import Literal

# The moves, the lobby's handlers, settings, state and the final table live in
# their own modules; they are re-exported here (``__all__``) so that callers speak
# to the rules in one place.
from . import lobby
from .lobby import (
    BOT_NAMES, BOT_STYLES, DIFFICULTIES, HOST_TURN_MS, NAME_MAX, SOLO_MODES, Solo, host_gone,
    may_open_rematch, solo)
from .moves import (
    Action, AddBot, ChangeSettings, Event, Join, Joined, Kick, Leave, Lock, NameTaken, NotAllowed,
    PhaseChanged, Press, PressRefused, Refusal, Release, Released, Rematch, RemoveBot, RoomFull,
    RoomLocked, RoundEnded, Start, Tick, WrongPhase)
from .settings import CHOICES, PRESETS, RANGES, InvalidSettings, RuleError, Settings, preset_of
from .standings import Standing, last_place, standings, winners
from .state import Game, Hold, Phase, Player, Round, RoundResult, from_dict, to_dict
from .transitions import advance, current, entry_close, next_deadline, over, seat, start_round

__all__ = [
    "apply", "check", "entry_close", "new_game", "next_deadline",
    "BOT_NAMES", "BOT_STYLES", "DIFFICULTIES", "HOST_TURN_MS", "NAME_MAX", "SOLO_MODES", "Solo",
    "host_gone", "may_open_rematch", "solo",
    "Action", "AddBot", "ChangeSettings", "Event", "Join", "Joined", "Kick", "Leave", "Lock",
    "NameTaken", "NotAllowed", "PhaseChanged", "Press", "PressRefused", "Refusal", "Release",
    "Released", "Rematch", "RemoveBot", "RoomFull", "RoomLocked", "RoundEnded", "Start", "Tick",
    "WrongPhase",
    "CHOICES", "PRESETS", "RANGES", "InvalidSettings", "RuleError", "Settings", "preset_of",
    "Standing", "last_place", "standings", "winners",
    "Game", "Hold", "Phase", "Player", "Round", "RoundResult", "from_dict", "to_dict",
]


# -- the engine ------------------------------------------------------------


def new_game(code: str, preset: str = "auction", grace_ms: int = 0, seed: str = "") -> Game:
    """An empty lobby with a preset's settings; ``grace_ms`` is the entry grace, ``seed``
    the server's secret for the suspense pauses."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise InvalidSettings("preset must be one of %(allowed)s", allowed=", ".join(PRESETS))
    return Game(code=code, settings=PRESETS[preset], grace_ms=grace_ms, seed=seed)


def apply(state: Game, action: Action, now_ms: int) -> tuple[Game, list[Event]]:
    """Apply ``action`` at ``now_ms``; return the new state and its events."""
    game = state.copy()
    events: list[Event] = []
    _handle(game, action, now_ms, events)
    return game, events


def check(game: Game, action: Action) -> None:
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


# -- handlers: each validates, then changes the (already copied) game ------


def _handle(game: Game, action: Action, now: int, events: list[Event]) -> None:
    """Hand ``action`` to its handler (a match: the type checker sees every kind)."""
    match action:
        case Join():
            lobby.join(game, action, now, events)
        case Leave():
            _leave(game, action, now, events)
        case Kick():
            lobby.kick(game, action, now, events)
        case Lock():
            lobby.lock(game, action, now, events)
        case AddBot():
            lobby.add_bot(game, action, now, events)
        case RemoveBot():
            lobby.remove_bot(game, action, now, events)
        case ChangeSettings():
            lobby.change_settings(game, action, now, events)
        case Start():
            _start(game, action, now, events)
        case Rematch():
            lobby.rematch(game, action, now, events)
        case Press():
            _press(game, action, now, events)
        case Release():
            _release_action(game, action, now, events)
        case Tick():
            advance(game, now, events)
        case _:
            raise TypeError(f"not an action: {action!r}")


def _leave(game: Game, action: Leave, now: int, events: list[Event]) -> None:
    player = game.player(action.player)
    if player is None or player.left:
        raise NotAllowed("not seated in this room")
    advance(game, now, events)
    if game.phase is Phase.LOBBY:
        game.players.remove(player)
    else:
        player.left = True
        rnd = game.current
        if rnd and action.player in rnd.holders():
            _release(game, action.player, now, now, events, reason="left")
    if game.host == player.id:
        game.host = next((p.id for p in game.players if not p.bot and not p.left), None)


def _start(game: Game, action: Start, now: int, events: list[Event]) -> None:
    lobby.require_host(game, action.by)
    lobby.require_lobby(game)
    s = game.settings
    if not s.min_players <= len(game.players) <= s.max_players:
        raise WrongPhase("this game needs %(min)s–%(max)s players", min=s.min_players,
                         max=s.max_players)
    for player in game.players:
        player.bank_ms = s.bank_ms
        player.tokens = 0
    start_round(game, now, events)


def _press(game: Game, action: Press, now: int, events: list[Event]) -> None:
    at = now if action.at_ms is None else min(action.at_ms, now)
    # Judge the press in the game as it stood at its own moment, so go (if
    # still pending) sees it, then catch up to now.
    advance(game, at, events)
    _enter(game, action.player, at)
    advance(game, now, events)


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


def _release(game: Game, pid: str, at: int, now: int, events: list[Event],
             reason: Literal["left"] | None = None) -> None:
    rnd = current(game)
    hold = rnd.holds[pid]
    # Never before the press, and never past the moment the bank ran out.
    at = max(at, hold.press_ms)
    at = min(at, rnd.spend_ms + seat(game, pid).bank_ms)
    hold.release_ms = at
    if reason:
        events.append(Released(pid, reason, at))
    end = max(at, now)
    if not rnd.holders() and game.phase is not Phase.COUNTDOWN and end >= entry_close(game):
        over(game, end, events)


def _release_action(game: Game, action: Release, now: int, events: list[Event]) -> None:
    at = now if action.at_ms is None else min(action.at_ms, now)
    # Advance only to the release's own moment first, so a bank cannot be
    # charged in full for a release that came before it ran out.
    advance(game, at, events)
    rnd = game.current
    if rnd is not None and action.player in rnd.holders():
        _release(game, action.player, at, now, events)
    advance(game, now, events)
