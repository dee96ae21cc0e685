"""The projection: what one player may know of a game, and nothing more.

``view_for`` is the only way state leaves the server: HTML, SSE, JSON and
hold-socket payloads are all rendered from its result. Pure: it reads the
game and the time it is given, nothing else.

What it leaves out is the game: who pressed, who sat out, anyone else's bank
or bid (unless the reveal setting or the end of the game shows it), and when
anyone let go. Until a round ends, another player's press or release changes
no byte of this view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from .rules import Game, Phase, Player, RoundResult, last_place, standings, winners
from .settings import SettingsDict
from .transitions import bid_of, on_grid

# Phases that end on a timer; the others end by a release or an action.
_TIMED = (Phase.COUNTDOWN, Phase.FREE, Phase.RESULT)
# An AI player's style is shown in the lobby (a solo game introduces its opponents) and
# at the end -- never during the rounds, where the AI players decide from their own views
# and must not learn each other's styles (docs/ai.md).
_STYLES_SHOWN = (Phase.LOBBY, Phase.ENDED)


# -- the view's shape: every key a player receives (docs/protocol.md, "The view") --
# The builders below fill these in the same order; tests/game/test_view_contract.py holds
# them to the documented keys.


class MeView(TypedDict):
    """``me``: this device's own seat."""

    id: str
    name: str
    host: bool
    holding: bool       # holds now
    in_round: bool      # holds, or held through go, this round
    bank_ms: int | None     # None while the room hides your bank
    bid_ms: int | None      # my bid this round as it will be charged, once I let go in spending
    tokens: int
    left: bool


class PlayerView(TypedDict):
    """An entry of ``players``: a seat's public facts."""

    id: str
    name: str
    tokens: int
    bot: bool
    difficulty: str | None      # AI players only
    style: str | None           # AI players, in the lobby and at the end only
    host: bool
    left: bool


class RoundView(TypedDict):
    """An entry of ``history``: a finished round, as the reveal setting shows it."""

    round: int
    winner: str | None
    winners: list[str]
    tie: bool
    my_bid_ms: int | None
    winning_bid_ms: int | None
    bids: dict[str, int | None] | None      # every seat's bid (None: sat out)
    # What the round's public clock showed at its end (the top bid, to the tenth), which
    # everyone watching read; None with suspense on (RoundResult.clock_ms).
    clock_ms: int | None


class StandingView(TypedDict):
    """A line of ``final.standings``."""

    id: str
    place: int
    tokens: int
    bank_ms: int


class BidsView(TypedDict):
    """An entry of ``final.bids``: every seat's bid in one round (None: sat out)."""

    round: int
    bids: dict[str, int | None]


class FinalView(TypedDict):
    """``final``: the end of the game, where everything becomes visible."""

    standings: list[StandingView]
    winners: list[str]
    last: list[str]
    bids: list[BidsView]


class View(TypedDict):
    """What one player (or a spectator) may know of a game: all of it, as JSON."""

    code: str
    kind: str
    phase: str
    round: int
    rounds: int
    deadline_ms: int | None
    # The same deadline as a moment of the server's clock (in the countdown: go): a page
    # that keeps its own offset to that clock (``clock_for``) counts to the true moment,
    # however late the view arrived (docs/fairness.md, "The page's clock").
    deadline_at_ms: int | None
    elapsed_ms: int | None      # the round's clock: time since spending began (public)
    settings: SettingsDict
    me: MeView | None
    players: list[PlayerView]
    history: list[RoundView]
    final: FinalView | None
    rematch: str | None
    locked: bool


def view_for(game: Game, player_id: str | None, now_ms: int) -> View:
    """The JSON view of docs/protocol.md for ``player_id`` (None: a spectator)."""
    me = game.player(player_id) if player_id else None
    deadline = deadline_at = None
    if game.phase in _TIMED and game.phase_end_ms is not None:
        deadline_at = game.phase_end_ms
        deadline = max(0, deadline_at - now_ms)
        if game.phase is Phase.RESULT:
            # The result's first view is made as the round ends: to the millisecond,
            # the time left and its moment would tell that end (the top bid). Whole
            # tenths, like the moment itself (transitions.on_grid).
            deadline = on_grid(deadline)
    # The round's running clock, for those out of the round and the big screen. Public:
    # everyone saw go, and that the round has not ended; it reads no hold.
    elapsed = None
    if game.phase is Phase.SPENDING and game.current is not None:
        elapsed = max(0, now_ms - game.current.spend_ms)
    return {
        "code": game.code,
        "kind": game.kind,
        "phase": game.phase.value,
        "round": game.round,
        "rounds": game.settings.rounds,
        "deadline_ms": deadline,
        "deadline_at_ms": deadline_at,
        "elapsed_ms": elapsed,
        "settings": game.settings.to_dict(),
        "me": _me(game, me) if me else None,
        "players": [_public(game, p) for p in game.players],
        "history": [_round(game, r, me.id if me else None) for r in game.history],
        "final": _final(game) if game.phase is Phase.ENDED else None,
        "rematch": game.rematch,
        "locked": game.locked,      # public: whether a newcomer may join the lobby
    }


# The fields of a view that move with the clock alone: a page counts them itself from
# the values it was sent, so a view that differs only in them shows nothing new.
RUNNING = ("deadline_ms", "elapsed_ms")


def shown(view: View) -> dict[str, object]:
    """What ``view`` shows apart from its running clocks (RUNNING): two views that give
    equal ``shown`` draw the same page. Nothing else in a view depends on the moment it
    is drawn at, so views of one game drawn at any two moments have equal ``shown``."""
    return {**view, "deadline_ms": None, "elapsed_ms": None}

class ClockView(TypedDict):
    """The server's clock, for a client to keep its offset to it: ``GET /clock``."""

    now_ms: int


def clock_for(now_ms: int) -> ClockView:
    """The one answer that is no game's view: the server's clock alone. It reads no
    game, so it tells nothing of one; the moments a view names are on a tenth-second
    grid (transitions.RESULT_GRID_MS), so knowing this clock to the millisecond tells
    no more of a round's end than the view's arrival already did."""
    return {"now_ms": now_ms}


def _me(game: Game, me: Player) -> MeView:
    rnd = game.current
    hold = rnd.holds.get(me.id) if rnd else None
    holding = in_round = False
    if rnd is not None and hold is not None:
        holding = hold.release_ms is None
        in_round = hold.release_ms is None or hold.release_ms >= rnd.go_ms
    shown = game.settings.own_bank != "hidden" or game.phase is Phase.ENDED
    return {
        "id": me.id,
        "name": me.name,
        "host": me.id == game.host,
        "holding": holding,
        "in_round": in_round,
        "bank_ms": me.bank_ms if shown else None,
        # Mine alone, and known to me the moment I let go: the page shows this figure, so
        # the button, the result and the tables never disagree by a tenth.
        "bid_ms": bid_of(game, hold) if rnd is not None else None,
        "tokens": me.tokens,
        "left": me.left,
    }


def _public(game: Game, p: Player) -> PlayerView:
    return {
        "id": p.id,
        "name": p.name,
        "tokens": p.tokens,
        "bot": p.bot,
        "difficulty": p.difficulty,
        "style": p.style if p.bot and game.phase in _STYLES_SHOWN else None,
        "host": p.id == game.host,
        "left": p.left,
    }


def _top_bid(result: RoundResult) -> int | None:
    return max((b for b in result.bids.values() if b is not None), default=None)


def _tenths(ms: int | None) -> int | None:
    return None if ms is None else ms - ms % 100


def _round(game: Game, result: RoundResult, me: str | None) -> RoundView:
    reveal = game.settings.reveal
    # Where the room hides your bank, bids go out as the page shows them (to the
    # tenth), or millisecond bids would let you recount the bank exactly.
    shown: Callable[[int | None], int | None] = _tenths \
        if game.settings.own_bank == "hidden" and game.phase is not Phase.ENDED else (lambda ms: ms)
    return {
        "round": result.round,
        "winner": result.winners[0] if len(result.winners) == 1 else None,
        "winners": list(result.winners),
        "tie": result.tie,
        "my_bid_ms": shown(result.bids.get(me)) if me else None,
        "winning_bid_ms": shown(_top_bid(result)) if reveal != "winner" else None,
        "bids": {p: shown(b) for p, b in result.bids.items()} if reveal == "all_bids" else None,
        # Public whatever the reveal: the round ended, for everyone, when its clock read
        # this (and the result screen's deadline_at_ms already named that end to the
        # tenth). Never with suspense on: the figure would hold the secret pause.
        "clock_ms": None if game.settings.suspense == "on" else result.clock_ms,
    }


def _final(game: Game) -> FinalView:
    return {
        "standings": [{"id": s.player, "place": s.place, "tokens": s.tokens, "bank_ms": s.bank_ms}
                      for s in standings(game)],
        "winners": winners(game),
        "last": last_place(game),
        "bids": [{"round": r.round, "bids": dict(r.bids)} for r in game.history],
    }
