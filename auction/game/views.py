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

from .rules import Game, Phase, RoundResult, last_place, standings, winners

# Phases that end on a timer; the others end by a release or an action.
_TIMED = (Phase.COUNTDOWN, Phase.FREE, Phase.RESULT)
# An AI player's style is shown in the lobby (a solo game introduces its opponents) and
# at the end -- never during the rounds, where the AI players decide from their own views
# and must not learn each other's styles (docs/ai.md).
_STYLES_SHOWN = (Phase.LOBBY, Phase.ENDED)


def view_for(game: Game, player_id: str | None, now_ms: int) -> dict:
    """The JSON view of docs/protocol.md for ``player_id`` (None: a spectator)."""
    me = game.player(player_id) if player_id else None
    deadline = None
    if game.phase in _TIMED and game.phase_end_ms is not None:
        deadline = max(0, game.phase_end_ms - now_ms)
    return {
        "code": game.code,
        "kind": game.kind,
        "phase": game.phase.value,
        "round": game.round,
        "rounds": game.settings.rounds,
        "deadline_ms": deadline,
        "settings": game.settings.to_dict(),
        "me": _me(game, me) if me else None,
        "players": [_public(game, p) for p in game.players],
        "history": [_round(game, r, me.id if me else None) for r in game.history],
        "final": _final(game) if game.phase is Phase.ENDED else None,
        "rematch": game.rematch,
        "locked": game.locked,      # public: whether a newcomer may join the lobby
    }


def _me(game: Game, me) -> dict:
    rnd = game.current
    hold = rnd.holds.get(me.id) if rnd else None
    holding = hold is not None and hold.release_ms is None
    in_round = holding or (hold is not None and hold.release_ms >= rnd.go_ms)
    shown = game.settings.own_bank != "hidden" or game.phase is Phase.ENDED
    return {
        "id": me.id,
        "name": me.name,
        "host": me.id == game.host,
        "holding": holding,
        "in_round": in_round,
        "bank_ms": me.bank_ms if shown else None,
        "tokens": me.tokens,
        "left": me.left,
    }


def _public(game: Game, p) -> dict:
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


def _round(game: Game, result: RoundResult, me: str | None) -> dict:
    reveal = game.settings.reveal
    # Where the room hides your bank, bids go out as the page shows them (to the
    # tenth), or millisecond bids would let you recount the bank exactly.
    shown = _tenths if game.settings.own_bank == "hidden" and game.phase is not Phase.ENDED \
        else (lambda ms: ms)
    return {
        "round": result.round,
        "winner": result.winners[0] if len(result.winners) == 1 else None,
        "winners": list(result.winners),
        "tie": result.tie,
        "my_bid_ms": shown(result.bids.get(me)) if me else None,
        "winning_bid_ms": shown(_top_bid(result)) if reveal != "winner" else None,
        "bids": {p: shown(b) for p, b in result.bids.items()} if reveal == "all_bids" else None,
    }


def _final(game: Game) -> dict:
    return {
        "standings": [{"id": s.player, "place": s.place, "tokens": s.tokens, "bank_ms": s.bank_ms}
                      for s in standings(game)],
        "winners": winners(game),
        "last": last_place(game),
        "bids": [{"round": r.round, "bids": dict(r.bids)} for r in game.history],
    }
