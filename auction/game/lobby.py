"""The lobby's moves: taking and leaving seats, the lock, AI players, settings, the rematch.

Standard library only; called by ``rules.apply`` with the game already
copied. Each validates, then changes the game. Leaving and starting, which
reach into a round, stay with the engine in ``rules.py``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from .moves import (
    Action, AddBot, ChangeSettings, Event, Join, Joined, Kick, Lock, NameTaken, NotAllowed, Rematch,
    RemoveBot, RoomFull, RoomLocked, WrongPhase)
from .settings import PRESETS, InvalidSettings, RuleError
from .state import Game, Phase, Player

BOT_STYLES = ("aggressive", "patient", "random")
DIFFICULTIES = ("easy", "medium", "hard")
BOT_NAMES = ("Ada", "Boole", "Curie", "Dirac", "Euler", "Fermi", "Gauss", "Hopper")
NAME_MAX = 24
# After the end the host has this long to open a rematch alone; then any seated player may.
# A host whose phone died (or who walked off) leaves no trace the table can see: a stream
# drops and comes back whenever a phone locks its screen, so "not connected" is no fact
# every worker and every player agrees on. The end's moment is (docs/design.md, "The
# rematch"); a host who is there and wants to host taps Rematch within this time.
HOST_TURN_MS = 30_000
# Names are shown to everyone, so a name may hold nothing that draws nothing or
# steers the text: controls, format characters (zero-width, bidi overrides), line
# and paragraph separators, private-use, surrogate and unassigned code points.
# With them "Al\u200bice" or "\u202eecilA" would pass for Alice, "\u200b" for nobody.
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
# Letters and marks that draw nothing, whatever their category says (Hangul fillers,
# the combining grapheme joiner, Khmer inherent vowels, the blank Braille pattern).
_BLANK = set("\u115f\u1160\u3164\u034f\u17b4\u17b5\u2800")
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt; the same ranges in
# Unicode 14.0, the data of Python 3.11): what a renderer draws as nothing. Some are
# marks (Mn), which the categories above let through: "Alice\ufe0f" (a variation
# selector) was seated beside "Alice".
_IGNORABLE = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
              (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
              (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
              (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
              (0xE0000, 0xE0FFF))
# ...but a phone's keyboard writes most emoji with the emoji presentation selector after
# the symbol ("❤\ufe0f"), and the text one picks the other drawing: right after a symbol
# they choose how something visible looks, and hide nothing.
_PRESENTATION = "\ufe0e\ufe0f"


def _ignorable(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in _IGNORABLE)


def _draws_nothing(name: str, at: int) -> bool:
    """Whether ``name[at]`` is a character that draws nothing or steers the text."""
    char = name[at]
    if char in _PRESENTATION and at > 0 and unicodedata.category(name[at - 1])[0] == "S":
        return False
    return unicodedata.category(char) in _HIDDEN or char in _BLANK or _ignorable(char)


def require_host(game: Game, by: str) -> None:
    if game.host is None or by != game.host:
        raise NotAllowed("only the host can do that")


def require_lobby(game: Game) -> None:
    if game.phase is not Phase.LOBBY:
        raise WrongPhase("the game has already started")


def _new_id(game: Game, prefix: str) -> str:
    game.seq += 1
    return f"{prefix}{game.seq}"


def require_joinable(game: Game) -> None:
    """A newcomer may take a seat: the lobby, and the host has not locked it."""
    require_lobby(game)
    if game.locked:
        raise RoomLocked("the host has locked this room, so nobody new can join; "
                         "ask the host to open it")


def clean_name(name: object) -> str:
    """``name`` as the table will see it: NFKC (fullwidth Ａ is A), runs of white
    space as one space; refused if it holds anything that draws nothing."""
    if not isinstance(name, str) or not name.strip():
        raise RuleError("a name is needed")
    name = " ".join(unicodedata.normalize("NFKC", name).split())
    if any(_draws_nothing(name, at) for at in range(len(name))):
        raise RuleError("a name cannot hold invisible or control characters")
    if not any(unicodedata.category(c)[0] in "LNPS" for c in name):
        raise RuleError("a name needs a letter, digit or sign that can be seen")
    if len(name) > NAME_MAX:
        raise RuleError("a name has at most %(max)s characters", max=NAME_MAX)
    return name


def _require_seat(game: Game) -> None:
    if len(game.players) >= game.settings.max_players:
        raise RoomFull("the room is full")


def _seat(game: Game, player: Player, events: list[Event]) -> None:
    _require_seat(game)
    game.players.append(player)
    events.append(Joined(player.id))


def join(game: Game, action: Join, now: int, events: list[Event]) -> None:
    name = clean_name(action.name)
    require_joinable(game)
    if any(p.name.casefold() == name.casefold() for p in game.players):
        raise NameTaken("“%(name)s” is taken in this room; pick another name", name=name)
    player = Player(_new_id(game, "p"), name)
    _seat(game, player, events)
    if game.host is None:
        game.host = player.id


def add_bot(game: Game, action: AddBot, now: int, events: list[Event]) -> None:
    require_host(game, action.by)
    require_lobby(game)
    if action.difficulty not in DIFFICULTIES:
        raise RuleError("difficulty must be one of %(allowed)s", allowed=", ".join(DIFFICULTIES))
    _require_seat(game)
    count = sum(p.bot for p in game.players)
    taken = {p.name.casefold() for p in game.players}
    # Eight names for at most seven other seats: one is always free.
    name = next(n for n in BOT_NAMES if n.casefold() not in taken)
    bot = Player(_new_id(game, "b"), name, bot=True, difficulty=action.difficulty,
                 style=BOT_STYLES[count % len(BOT_STYLES)])
    _seat(game, bot, events)


def remove_bot(game: Game, action: RemoveBot, now: int, events: list[Event]) -> None:
    require_host(game, action.by)
    require_lobby(game)
    bots = [p for p in game.players if p.bot and action.player in (None, p.id)]
    if not bots:
        raise RuleError("no such AI player")
    game.players.remove(bots[-1])


def kick(game: Game, action: Kick, now: int, events: list[Event]) -> None:
    require_host(game, action.by)
    require_lobby(game)
    target = game.player(action.player)
    if target is None:
        raise RuleError("no such player")
    if target.id == action.by:
        raise RuleError("the host cannot kick themselves; leave instead")
    game.players.remove(target)
    if not target.bot:
        # A kicked person could come back on another device (a new cookie is free):
        # the room locks, and the host opens it knowingly to let someone new in.
        game.locked = True


def lock(game: Game, action: Lock, now: int, events: list[Event]) -> None:
    require_host(game, action.by)
    require_lobby(game)
    if type(action.locked) is not bool:
        raise RuleError("%(field)s must be %(one)s or %(other)s", field="locked", one="true",
                        other="false")
    game.locked = action.locked


def change_settings(game: Game, action: ChangeSettings, now: int, events: list[Event]) -> None:
    require_host(game, action.by)
    require_lobby(game)
    changes = dict(action.changes)
    base = game.settings
    if "preset" in changes:
        preset = changes.pop("preset")
        if not isinstance(preset, str) or preset not in PRESETS:
            raise InvalidSettings("preset must be one of %(allowed)s", allowed=", ".join(PRESETS))
        base = PRESETS[preset]
    settings = base.changed(changes)
    if len(game.players) > settings.max_players:
        raise InvalidSettings("%(seated)s players are seated; max_players is too low",
                              seated=len(game.players))
    game.settings = settings


def host_gone(game: Game, now: int) -> bool:
    """Whether, for the rematch, the table no longer waits for its host: the game ended
    ``HOST_TURN_MS`` ago or more with no rematch opened, or no one hosts (everyone who
    could have left). A host who left mid-game was replaced then (rules._leave)."""
    if game.phase is not Phase.ENDED:
        return False
    host = game.player(game.host) if game.host else None
    if host is None or host.left:
        return True
    # A game that ended before its end was dated: the host's turn is long over.
    return game.ended_ms is None or now >= game.ended_ms + HOST_TURN_MS


def may_open_rematch(game: Game, by: str, now: int) -> bool:
    """The host, or once the host is gone (``host_gone``) any human still seated."""
    if game.host is not None and by == game.host:
        return True
    player = game.player(by)
    return (player is not None and not player.bot and not player.left
            and host_gone(game, now))


def rematch(game: Game, action: Rematch, now: int, events: list[Event]) -> None:
    if not may_open_rematch(game, action.by, now):
        raise NotAllowed("only the host can start a rematch until %(s)s s after the end",
                         s=HOST_TURN_MS // 1000)
    if game.phase is not Phase.ENDED:
        raise WrongPhase("the game is not over yet")
    if game.rematch is not None:
        raise WrongPhase("a rematch is already open")
    game.rematch = action.code


# -- a game against the computer -------------------------------------------------

# Its two lengths, each a rule book; and how many sit at the table, you included.
SOLO_MODES = {"full": "auction", "quick": "quick"}
SOLO_PLAYERS = (4, 6)


class Solo(NamedTuple):
    """A game against the computer: the preset its room is made with, and what its
    host's seat does right after joining (``setup[i](host_id)`` is an action)."""
    preset: str
    setup: list[Callable[[str], Action]]


def solo(players: int | None, difficulty: str, mode: str) -> Solo:
    """You and ``players - 1`` AI players of one difficulty; ``players`` None when what
    was asked is no whole number. Every seat is taken, so nobody else can join, and
    against hard AI players the bank display is off (a hard table plays blind)."""
    low, high = SOLO_PLAYERS
    if players is None or not low <= players <= high:
        raise RuleError("%(field)s must be a whole number from %(low)s to %(high)s",
                        field="players", low=low, high=high)
    if difficulty not in DIFFICULTIES:
        raise RuleError("difficulty must be one of %(allowed)s", allowed=", ".join(DIFFICULTIES))
    if mode not in SOLO_MODES:
        raise RuleError("%(field)s must be %(one)s or %(other)s", field="mode", one="full",
                        other="quick")
    setup: list[Callable[[str], Action]] = [partial(AddBot, difficulty=difficulty)] * (players - 1)
    settings: dict[str, object] = {"max_players": players}
    if difficulty == "hard":
        settings["own_bank"] = "hidden"
    setup.append(lambda host: ChangeSettings(host, settings))
    return Solo(SOLO_MODES[mode], setup)
