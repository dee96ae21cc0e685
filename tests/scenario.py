"""Tiny builders of literal game states for the rules and views tests.

A scenario is written out, not played: ``game(phase="spending", holds={"p1": 0})``
is a game whose round 1 started at 0 ms, with p1 holding since 0 ms. Times follow
from the settings: go at ``start + ready_ms``, spending at ``go + free_ms``.
"""

from __future__ import annotations

from auction.game.rules import PRESETS, Game, Hold, Phase, Player, Round, RoundResult

AUCTION = PRESETS["auction"]  # ready 3 s, free 5 s: go at 3000, spending at 8000
STAKE = PRESETS["stake"]      # ready 5 s, free 0 s: go and spending at 5000


def settings(preset: str = "auction", **changes):
    """A preset's settings with some fields changed (ints and strings as given)."""
    return PRESETS[preset].changed(changes)


def player(pid: str, name: str | None = None, **fields) -> Player:
    """A human seat by default; ``bot=True`` for an AI player."""
    return Player(pid, name or pid.upper(), **fields)


def game(
    phase: str = "countdown",
    players=("p1", "p2", "p3"),
    *,
    settings=AUCTION,
    banks=None,
    tokens=None,
    holds=None,
    host: str | None = "p1",
    round: int = 1,
    start: int = 0,
    result_end: int | None = None,
    history=(),
    left=(),
    bots=(),
    code: str = "ABCD",
    grace: int = 0,
) -> Game:
    """A literal game state.

    ``players`` are ids (or Player literals); ``banks``/``tokens`` map ids to
    values (a missing bank is the full bank once started); ``holds`` maps ids
    to a press time or a ``(press, release)`` pair; ``history`` is a list of
    ``(bids, winners)`` or RoundResult literals; ``grace`` is the entry grace.
    """
    phase = Phase(phase)
    banks = banks or {}
    tokens = tokens or {}
    seats = []
    for p in players:
        if isinstance(p, Player):
            seats.append(p)
            continue
        full = 0 if phase is Phase.LOBBY else settings.bank_ms
        seats.append(Player(p, p.upper(), bot=p in bots, difficulty="medium" if p in bots else None,
                            style="random" if p in bots else None,
                            bank_ms=banks.get(p, full), tokens=tokens.get(p, 0), left=p in left))
    go = start + settings.ready_ms
    spend = go + settings.free_ms
    current = None
    if phase in (Phase.COUNTDOWN, Phase.FREE, Phase.SPENDING):
        current = Round(round, start, go, spend, {
            pid: Hold(*h) if isinstance(h, tuple) else Hold(h) for pid, h in (holds or {}).items()
        })
    phase_end = {Phase.COUNTDOWN: go, Phase.FREE: spend, Phase.RESULT: result_end}.get(phase)
    results = []
    for i, r in enumerate(history, start=1):
        if isinstance(r, RoundResult):
            results.append(r)
        else:
            bids, won = r
            bids = {s.id: bids.get(s.id) for s in seats}
            results.append(RoundResult(i, bids, tuple(won), False))
    return Game(
        code=code,
        settings=settings,
        phase=phase,
        players=seats,
        host=host,
        round=round if phase is not Phase.LOBBY else 0,
        phase_end_ms=phase_end,
        current=current,
        history=results,
        seq=len(seats),
        grace_ms=grace,
    )


def lobby(*ids, settings=AUCTION, host="p1", bots=()) -> Game:
    """A lobby with these seats (default three humans, p1 hosting)."""
    return game("lobby", ids or ("p1", "p2", "p3"), settings=settings, host=host, bots=bots)
