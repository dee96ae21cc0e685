"""Settings: every rule a host can set, their ranges, and the three presets.

Standard library only. Strings from forms are parsed here, so a bad value is
refused with a clear message wherever it comes from.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, TypedDict


class RuleError(ValueError):
    """An action the rules do not allow; the state is unchanged.

    ``message`` is English with %(name)s placeholders and ``params`` their values, so
    the web layer can say it in the player's language (docs/i18n.md); ``str()`` is
    the English sentence, filled in.
    """

    def __init__(self, message: str = "", **params: object) -> None:
        super().__init__(message % params if params else message)
        self.message = message
        self.params = params


class InvalidSettings(RuleError):
    """A setting out of range or of the wrong kind."""


CHOICES = {
    "tie": ("tenth", "margin"),
    "tie_rule": ("nobody", "all"),
    "reveal": ("winner", "winning_bid", "all_bids"),
    "own_bank": ("shown", "toggle", "hidden"),
    "rank_ties": ("time_left", "shared"),
    "suspense": ("off", "on"),
}

# Inclusive ranges of the numeric settings, and the step they move in.
RANGES = {
    "rounds": (1, 30, 1),
    "bank_ms": (30_000, 1_800_000, 100),
    "ready_ms": (2_000, 10_000, 100),
    "free_ms": (0, 10_000, 100),
    "tie_margin_ms": (1, 1_000, 1),
    "result_ms": (2_000, 15_000, 100),
    "min_players": (2, 8, 1),
    "max_players": (2, 8, 1),
}


@dataclass(frozen=True)
class Settings:
    """Every rule a host can set; a preset fills them all."""

    rounds: int = 19
    bank_ms: int = 600_000
    ready_ms: int = 3_000
    free_ms: int = 5_000
    tie: str = "tenth"
    tie_margin_ms: int = 100
    tie_rule: str = "nobody"
    reveal: str = "winner"
    own_bank: str = "toggle"
    rank_ties: str = "time_left"
    min_players: int = 3
    max_players: int = 7
    result_ms: int = 5_000
    # "on": a decided round's result waits a secret pause of 0-3 s (suspense.py), so its
    # timing no longer tells the top bid. Off in every preset: both rule books show the
    # result as soon as everyone has let go.
    suspense: str = "off"

    def __post_init__(self) -> None:
        for name, (low, high, step) in RANGES.items():
            value = getattr(self, name)
            if type(value) is not int:
                raise InvalidSettings("%(setting)s must be a whole number", setting=name)
            if not low <= value <= high or value % step:
                raise InvalidSettings("%(setting)s must be %(low)s–%(high)s in steps of %(step)s",
                                      setting=name, low=low, high=high, step=step)
        for name, allowed in CHOICES.items():
            if getattr(self, name) not in allowed:
                raise InvalidSettings("%(setting)s must be one of %(allowed)s", setting=name,
                                      allowed=", ".join(allowed))
        if self.min_players > self.max_players:
            raise InvalidSettings("min_players cannot exceed max_players")

    def changed(self, changes: Mapping[str, object]) -> Settings:
        """These settings with ``changes`` applied (strings from forms accepted)."""
        names = {f.name for f in fields(self)}
        # Any: each value is parsed for its own field's kind (_parse: a whole number or a
        # choice's word), which no one type says per name; __post_init__ checks them all.
        parsed: dict[str, Any] = {}
        for name, value in changes.items():
            if name not in names:
                raise InvalidSettings("unknown setting %(setting)r", setting=name)
            parsed[name] = _parse(name, value)
        return replace(self, **parsed)

    def to_dict(self) -> SettingsDict:
        """Every setting by name, in the order above: the view's ``settings`` and the store's."""
        return {"rounds": self.rounds, "bank_ms": self.bank_ms, "ready_ms": self.ready_ms,
                "free_ms": self.free_ms, "tie": self.tie, "tie_margin_ms": self.tie_margin_ms,
                "tie_rule": self.tie_rule, "reveal": self.reveal, "own_bank": self.own_bank,
                "rank_ties": self.rank_ties, "min_players": self.min_players,
                "max_players": self.max_players, "result_ms": self.result_ms,
                "suspense": self.suspense}


class SettingsDict(TypedDict):
    """``Settings`` as plain data (JSON): every field, by name, in the same order."""

    rounds: int
    bank_ms: int
    ready_ms: int
    free_ms: int
    tie: str
    tie_margin_ms: int
    tie_rule: str
    reveal: str
    own_bank: str
    rank_ties: str
    min_players: int
    max_players: int
    result_ms: int
    suspense: str


# A whole number in a form: ASCII digits only (int() would take "٣" as 3, and
# 5,000 digits raise ValueError), at most 9 (every range ends below 10**7).
WHOLE = re.compile(r"-?[0-9]{1,9}")


def whole_number(value: object) -> int | None:
    """``value`` as a whole number (an int that is no bool, or bounded ASCII digits), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and WHOLE.fullmatch(value.strip()):
        return int(value.strip())
    return None


def _parse(name: str, value: object) -> int | str:
    if name in CHOICES:
        if not isinstance(value, str):
            raise InvalidSettings("%(setting)s must be one of %(allowed)s", setting=name,
                                  allowed=", ".join(CHOICES[name]))
        return value
    number = whole_number(value)
    if number is None:
        raise InvalidSettings("%(setting)s must be a whole number", setting=name)
    return number


PRESETS = {
    "auction": Settings(),
    "quick": Settings(rounds=9, bank_ms=180_000),
    "stake": Settings(ready_ms=5_000, free_ms=0, tie="margin", own_bank="hidden",
                      min_players=2, max_players=8),
}

# Who may play and who sees their bank do not make a rule book of their own.
_NOT_THE_BOOK = ("min_players", "max_players", "own_bank")


def preset_of(settings: Mapping[str, object]) -> str | None:
    """The preset whose rule book these settings are (seats and bank display aside), or
    None once the host has changed a rule."""
    def book(values: Mapping[str, object]) -> dict[str, object]:
        return {k: v for k, v in values.items() if k not in _NOT_THE_BOOK}
    return next((name for name, preset in PRESETS.items()
                 if book(preset.to_dict()) == book(settings)), None)
