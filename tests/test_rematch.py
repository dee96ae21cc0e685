"""The rematch in the pure core: who may open it and when, and the lobby it seats."""

from __future__ import annotations

import pytest

import endgames
from auction.game import rules as R
from auction.game.rematch import table_again
from auction.game.views import view_for


def finished():
    game = endgames.play(("Ann", "Bob", "Cy"), [{"p1": 300, "b4": 200}, {"p2": 100}],
                         bots=("hard",), preset="quick", reveal="all_bids", tie="margin",
                         tie_margin_ms=50)
    return game


def test_only_the_host_opens_a_rematch_only_once_and_only_at_the_end():
    game = finished()
    with pytest.raises(R.NotAllowed):
        R.apply(game, R.Rematch("p2", "WXYZ"), 0)
    again, events = R.apply(game, R.Rematch("p1", "WXYZ"), 0)
    assert again.rematch == "WXYZ" and events == [] and game.rematch is None
    with pytest.raises(R.WrongPhase):
        R.apply(again, R.Rematch("p1", "QQQQ"), 0)
    running = R.new_game("ABCD", "stake")
    for name in ("Ann", "Bob"):
        running, _ = R.apply(running, R.Join(name), 0)
    running, _ = R.apply(running, R.Start("p1"), 0)
    with pytest.raises(R.WrongPhase):
        R.apply(running, R.Rematch("p1", "WXYZ"), 0)


def test_every_view_names_the_rematch_and_the_record_keeps_it():
    game, _ = R.apply(finished(), R.Rematch("p1", "WXYZ"), 0)
    for viewer in ("p1", "p2", None):
        assert view_for(game, viewer, 0)["rematch"] == "WXYZ"
    assert view_for(finished(), "p2", 0)["rematch"] is None
    assert R.from_dict(R.to_dict(game)).rematch == "WXYZ"
    old = R.to_dict(finished())
    del old["rematch"]                 # a record saved before rematches existed
    assert R.from_dict(old).rematch is None


def test_the_new_lobby_seats_the_same_table_with_the_same_settings():
    game = finished()
    game, _ = R.apply(game, R.Leave("p1"), 0)        # the host left: Bob hosts now
    assert game.host == "p2"
    seats = {"d-ann": "p1", "d-bob": "p2", "d-cy": "p3"}
    lobby, new_seats = table_again(game, seats, R.new_game("NEWW"))
    assert lobby.phase is R.Phase.LOBBY
    assert lobby.settings == game.settings
    people = [(p.name, p.bot, p.difficulty) for p in lobby.players]
    assert people == [("Bob", False, None), ("Cy", False, None), ("Ada", True, "hard")]
    assert lobby.host == lobby.players[0].id
    assert new_seats == {"d-bob": lobby.players[0].id, "d-cy": lobby.players[1].id}
    assert all(p.tokens == 0 and not p.left for p in lobby.players)
