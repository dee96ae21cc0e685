"""Finished games played out through the rules engine, for the charts and results tests.

``play(names, rounds_of_bids)`` seats the players, starts, and plays each round
as written: ``{"p1": 4_100, "p2": None, "p3": DRY}`` -- a bid in ms (released
that long after spending began), None to sit out, DRY to hold until the bank
runs out. Every state comes from ``rules.apply``; nothing is written by hand.
"""

from __future__ import annotations

from auction.game import rules as R

DRY = "dry"


def play(names, rounds, bots=(), code="ABCD", **settings) -> R.Game:
    """A game played to its end; ``rounds`` sets how many rounds there are."""
    game = R.new_game(code, settings.pop("preset", "stake"))
    game.settings = game.settings.changed({"rounds": len(rounds), "max_players": 8,
                                           "min_players": 2, **settings})
    for name in names:
        game, _ = R.apply(game, R.Join(name), 0)
    for difficulty in bots:
        game, _ = R.apply(game, R.AddBot("p1", difficulty), 0)
    game, _ = R.apply(game, R.Start("p1"), 1_000)
    for bids in rounds:
        game = _round(game, bids)
        game, _ = R.apply(game, R.Tick(), game.phase_end_ms)
    assert game.phase is R.Phase.ENDED
    return game


def _round(game: R.Game, bids: dict) -> R.Game:
    rnd = game.current
    playing = {pid: bid for pid, bid in bids.items() if bid is not None}
    for pid in playing:
        game, _ = R.apply(game, R.Press(pid), rnd.start_ms + 10)
    game, _ = R.apply(game, R.Tick(), rnd.go_ms)
    if game.phase is R.Phase.RESULT:
        return game
    game, _ = R.apply(game, R.Tick(), rnd.spend_ms)
    timed = sorted((bid, pid) for pid, bid in playing.items() if bid != DRY)
    for bid, pid in timed:
        game, _ = R.apply(game, R.Release(pid), rnd.spend_ms + bid)
    if game.phase is R.Phase.SPENDING:    # holders left: their banks run dry
        game, _ = R.apply(game, R.Tick(), R.next_deadline(game))
    assert game.phase is R.Phase.RESULT
    return game


NAMES8 = ("Ann", "Bob", "Cy", "Dee", "Ed", "Flo", "Gus", "Hildegard-Marie")


def scenarios() -> dict[str, R.Game]:
    """Every end state the charts must draw."""
    three = ("Ann", "Bob", "Cy")
    return {
        "never_bid": play(three, [{"p1": 1_200, "p2": 900}, {"p1": 300}, {"p2": 2_000}]),
        "all_ties": play(three, [{"p1": 1_000, "p2": 1_000}, {"p2": 500, "p3": 500},
                                 {"p1": 700, "p2": 700, "p3": 700}], tie="tenth"),
        "bank_dry": play(three, [{"p1": 20_000, "p2": 1_000}, {"p1": DRY, "p3": 400},
                                 {"p2": 300, "p3": 200}], bank_ms=30_000),
        "two_players": play(("Ann", "Bob"), [{"p1": 800, "p2": 1_100}, {"p1": 600},
                                             {}, {"p2": 100}]),
        "eight_players": play(NAMES8, [
            {f"p{k}": (k * 3_700 + r * 9_100) % 60_000 if (k + r) % 3 else None
             for k in range(1, 9)} for r in range(30)], bank_ms=1_800_000),
        "with_bots_all_win": play(("Ann",), [{"p1": 500, "b2": 500}, {"b3": 100}],
                                  bots=("easy", "hard"), tie_rule="all", tie="tenth"),
    }


def plant(store, game: R.Game, seats: dict | None = None) -> str:
    """Store a finished game as a room in a real Redis, as the composer would
    have left it; returns its code. (Reading it is what the tests exercise.)"""
    from auction.server.rooms import Room, new_code
    from auction.server.store import ENDED_TTL_S

    for _ in range(20):
        code = new_code()
        game.code = code
        record = Room(game, seats or {}, "seed").to_record()
        if store.create(code, record):
            store.save(code, 1, record, None, ENDED_TTL_S)
            return code
    raise RuntimeError("no free code")
