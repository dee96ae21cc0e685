"""The moves of the game: what players and timers do, what it causes, and the refusals.

Standard library only. Each action is a frozen dataclass handed to
``rules.apply``; each event is what an action caused. Everything here is
re-exported by ``auction.game.rules``, so callers speak to the rules in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .settings import RuleError
from .state import Phase, RoundResult

# -- errors ----------------------------------------------------------------


class NotAllowed(RuleError):
    """The acting player may not do this (not the host, not seated)."""


class WrongPhase(RuleError):
    """The action does not fit the game's current phase."""


class RoomFull(RuleError):
    """No seat left."""


class NameTaken(RuleError):
    """Another seat in the room already has that name, or one that looks the same."""


class RoomLocked(NotAllowed):
    """The host locked the lobby (or kicked someone): nobody new may join."""


# Why the rules refuse a press: stable words, sent to the client as they are
# (docs/protocol.md, *The hold socket*; the socket adds reasons of its own).
Refusal: TypeAlias = Literal["not_seated", "not_started", "too_late", "bank_empty",
                             "already_holding", "out_this_round"]


class PressRefused(RuleError):
    """A press that does not count; ``reason`` is a stable word for clients."""

    def __init__(self, reason: Refusal):
        super().__init__(reason.replace("_", " "))
        self.reason = reason


# -- actions and events ----------------------------------------------------


@dataclass(frozen=True)
class Join:
    """A human takes a seat in the lobby."""

    name: str


@dataclass(frozen=True)
class Leave:
    """A player leaves the room (in a game: stays in the standings)."""

    player: str


@dataclass(frozen=True)
class Kick:
    """The host removes a player in the lobby."""

    by: str
    player: str


@dataclass(frozen=True)
class Lock:
    """The host locks the lobby to new joins (``locked`` True) or opens it."""

    by: str
    locked: bool


@dataclass(frozen=True)
class AddBot:
    """The host adds an AI player."""

    by: str
    difficulty: str = "medium"


@dataclass(frozen=True)
class RemoveBot:
    """The host removes an AI player (the named one, or the last one added)."""

    by: str
    player: str | None = None


@dataclass(frozen=True)
class ChangeSettings:
    """The host changes settings; a ``preset`` key resets to that preset first."""

    by: str
    changes: Mapping[str, object]   # names to values, as typed in a form or as JSON


@dataclass(frozen=True)
class Start:
    """The host starts the game."""

    by: str


@dataclass(frozen=True)
class Rematch:
    """The host, once the game is over, names the new room the table moves on to."""

    by: str
    code: str


@dataclass(frozen=True)
class Press:
    """A player presses; ``at_ms`` (default now) may be earlier, never later."""

    player: str
    at_ms: int | None = None


@dataclass(frozen=True)
class Release:
    """A player lets go; ``at_ms`` (default now) may be earlier, never later."""

    player: str
    at_ms: int | None = None


@dataclass(frozen=True)
class Tick:
    """Time passes: apply whatever transitions are due."""


@dataclass(frozen=True)
class Joined:
    """Event: a seat was created."""

    player: str


@dataclass(frozen=True)
class Released:
    """Event: the rules ended a hold: its bank ran out, or its player left the room.
    (The hold socket's own ``round_over`` and ``connection_lost`` are no event of the rules.)"""

    player: str
    reason: Literal["bank_empty", "left"]
    at_ms: int


@dataclass(frozen=True)
class PhaseChanged:
    """Event: the game moved to ``phase`` at ``at_ms``."""

    phase: Phase
    at_ms: int


@dataclass(frozen=True)
class RoundEnded:
    """Event: a round was decided."""

    result: RoundResult


# What ``rules.apply`` takes and what it returns.
Action: TypeAlias = (Join | Leave | Kick | Lock | AddBot | RemoveBot | ChangeSettings | Start
                     | Rematch | Press | Release | Tick)
Event: TypeAlias = Joined | Released | PhaseChanged | RoundEnded
