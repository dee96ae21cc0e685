"""The state of one room's game: plain dataclasses, and their JSON form.

Standard library only. The rules engine (``auction.game.rules``) is the only code
that changes a ``Game``; ``to_dict``/``from_dict`` are how the store keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from .settings import Settings


class Phase(str, Enum):
    """Where the game is; the value is what clients see."""

    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    FREE = "free"
    SPENDING = "spending"
    RESULT = "result"
    ENDED = "ended"


@dataclass
class Player:
    """A seat: a human or an AI player, with their (secret) bank."""

    id: str
    name: str
    bot: bool = False
    difficulty: str | None = None
    style: str | None = None
    bank_ms: int = 0
    tokens: int = 0
    left: bool = False


@dataclass
class Hold:
    """One player's press in the current round; ``release_ms`` None while held."""

    press_ms: int
    release_ms: int | None = None


@dataclass
class Round:
    """The round in progress: its moments and every hold (all secret)."""

    number: int
    start_ms: int
    go_ms: int
    spend_ms: int
    holds: dict[str, Hold] = field(default_factory=dict)
    # With suspense on: when the round was decided (nobody held and the entry had
    # closed); its result waits for the round's secret pause (suspense.py).
    over_ms: int | None = None

    def holders(self) -> list[str]:
        return [pid for pid, hold in self.holds.items() if hold.release_ms is None]


@dataclass
class RoundResult:
    """What a finished round decided; ``bids`` maps every player to a bid or None.

    ``clock_ms`` is what the round's public clock showed when the result came: the time
    from the start of spending to the round's end, to the tenth (None: the round ended
    before spending, or suspense was on and the clock's figure held a secret pause).
    Everyone watching reads it off the clock (docs/design.md, "What stays hidden"), so
    the views may carry it (views._round)."""

    round: int
    bids: dict[str, int | None]
    winners: tuple[str, ...]
    tie: bool
    clock_ms: int | None = None

    @property
    def winning_bid_ms(self) -> int | None:
        # A winner always bid: ``or 0`` only tells the type checker so.
        return max(self.bids[w] or 0 for w in self.winners) if self.winners else None


@dataclass
class Game:
    """The whole state of one room's game."""

    code: str
    settings: Settings = field(default_factory=Settings)
    phase: Phase = Phase.LOBBY
    players: list[Player] = field(default_factory=list)
    host: str | None = None
    round: int = 0
    phase_end_ms: int | None = None
    current: Round | None = None
    history: list[RoundResult] = field(default_factory=list)
    seq: int = 0
    # How long after go a press may still arrive and count (the server's entry
    # grace for slow links). Until it has passed, nothing about the round's
    # fate shows: an empty round ends only then. 0: an empty go ends it at once.
    grace_ms: int = 0
    rematch: str | None = None      # the room the table moved on to, once the host opened it
    # When the last round's result ended and the game with it (None until then): the host
    # alone may open the rematch for lobby.HOST_TURN_MS after it, then any seated player.
    ended_ms: int | None = None
    locked: bool = False        # the host (or a kick) closed the lobby to new joins
    kind: str = "online"        # "solo": made by POST /solo, you against AI players
    # Drawn by the server when it makes the game; each round's suspense pause derives
    # from it (suspense.py). Secret: no view carries it.
    seed: str = ""

    def player(self, pid: str) -> Player | None:
        return next((p for p in self.players if p.id == pid), None)

    def seated(self) -> list[Player]:
        return [p for p in self.players if not p.left]

    def copy(self) -> Game:
        """A deep copy, written out because deepcopy is slow for simulations."""
        current = None
        if self.current:
            current = replace(self.current, holds={k: replace(h) for k, h in self.current.holds.items()})
        return replace(self, players=[replace(p) for p in self.players], current=current,
                       history=list(self.history))


# -- persistence: plain JSON-able dicts ------------------------------------

# The stored form: JSON as the store keeps it (Any: whatever json.loads gives back;
# ``from_dict`` reads it into the dataclasses above).
Record = dict[str, Any]


def to_dict(game: Game) -> Record:
    """The whole state as plain data (secrets included: never send this)."""
    rnd = game.current
    return {
        "code": game.code,
        "settings": game.settings.to_dict(),
        "phase": game.phase.value,
        "players": [vars(p).copy() for p in game.players],
        "host": game.host,
        "round": game.round,
        "phase_end_ms": game.phase_end_ms,
        "current": None if rnd is None else {
            "number": rnd.number, "start_ms": rnd.start_ms, "go_ms": rnd.go_ms,
            "spend_ms": rnd.spend_ms,
            "holds": {pid: [h.press_ms, h.release_ms] for pid, h in rnd.holds.items()},
            "over_ms": rnd.over_ms,
        },
        "history": [{"round": r.round, "bids": r.bids, "winners": list(r.winners), "tie": r.tie,
                     "clock_ms": r.clock_ms} for r in game.history],
        "seq": game.seq,
        "grace_ms": game.grace_ms,
        "seed": game.seed,
        "rematch": game.rematch,
        "ended_ms": game.ended_ms,
        "kind": game.kind,
        "locked": game.locked,
    }


def from_dict(data: Record) -> Game:
    """The inverse of ``to_dict``."""
    cur = data["current"]
    current = None if cur is None else Round(
        cur["number"], cur["start_ms"], cur["go_ms"], cur["spend_ms"],
        {pid: Hold(*pair) for pid, pair in cur["holds"].items()}, cur.get("over_ms"))
    return Game(
        code=data["code"],
        settings=Settings(**data["settings"]),
        phase=Phase(data["phase"]),
        players=[Player(**p) for p in data["players"]],
        host=data["host"],
        round=data["round"],
        phase_end_ms=data["phase_end_ms"],
        current=current,
        # Rounds saved before the clock was kept have none (their views show null).
        history=[RoundResult(r["round"], r["bids"], tuple(r["winners"]), r["tie"],
                             r.get("clock_ms")) for r in data["history"]],
        seq=data["seq"],
        grace_ms=data.get("grace_ms", 0),
        seed=data.get("seed", ""),      # rooms saved before suspense: no pause to derive
        rematch=data.get("rematch"),    # records saved before rematches existed have none
        ended_ms=data.get("ended_ms"),  # games that ended before the end was dated
        kind=data.get("kind", "online"),    # rooms saved before rooms had a kind
        locked=data.get("locked", False),   # rooms saved before the lock
    )
