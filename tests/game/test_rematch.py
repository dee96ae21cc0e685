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


# -- when the host is gone (issue 44): the host's turn, then any seated player's ------------


def test_the_end_is_dated_and_the_record_keeps_it():
    game = finished()
    assert game.ended_ms is not None
    assert R.from_dict(R.to_dict(game)).ended_ms == game.ended_ms
    old = R.to_dict(game)
    del old["ended_ms"]                # a record saved before the end was dated
    assert R.from_dict(old).ended_ms is None
    running = R.new_game("ABCD", "stake")
    assert running.ended_ms is None


def test_a_seated_player_may_open_the_rematch_once_the_hosts_turn_is_over():
    game = finished()
    turn_over = game.ended_ms + R.HOST_TURN_MS
    # Bob, seated, waits through the host's turn...
    with pytest.raises(R.NotAllowed):
        R.apply(game, R.Rematch("p2", "WXYZ"), turn_over - 1)
    assert not R.host_gone(game, turn_over - 1)
    # ...then the table need not wait for a host who is gone.
    assert R.host_gone(game, turn_over)
    again, _ = R.apply(game, R.Rematch("p2", "WXYZ"), turn_over)
    assert again.rematch == "WXYZ"
    # The host may still open it after the turn, and anyone only once.
    assert R.apply(game, R.Rematch("p1", "WXYZ"), turn_over + 60_000)[0].rematch == "WXYZ"
    with pytest.raises(R.WrongPhase):
        R.apply(again, R.Rematch("p3", "QQQQ"), turn_over)


def test_nobody_but_a_seated_human_stands_in_for_the_host():
    game = finished()
    late = game.ended_ms + R.HOST_TURN_MS
    # An AI seat, a name that is nobody's (a spectator has no seat), a player who left.
    for who in ("b4", "p9", None):
        with pytest.raises(R.NotAllowed):
            R.apply(game, R.Rematch(who or "", "WXYZ"), late)
    left, _ = R.apply(game, R.Leave("p3"), late)
    with pytest.raises(R.NotAllowed):
        R.apply(left, R.Rematch("p3", "WXYZ"), late)


def test_a_game_still_running_has_no_stand_in():
    running = R.new_game("ABCD", "stake")
    for name in ("Ann", "Bob"):
        running, _ = R.apply(running, R.Join(name), 0)
    running, _ = R.apply(running, R.Start("p1"), 0)
    assert not R.host_gone(running, 10**9)
    with pytest.raises(R.NotAllowed):
        R.apply(running, R.Rematch("p2", "WXYZ"), 10**9)


def test_a_host_who_left_at_the_end_is_replaced_at_once():
    game = finished()
    game, _ = R.apply(game, R.Leave("p1"), game.ended_ms + 1)
    assert game.host == "p2"       # the next seated human hosts (rules._leave)
    again, _ = R.apply(game, R.Rematch("p2", "WXYZ"), game.ended_ms + 1)
    assert again.rematch == "WXYZ"


def test_a_game_that_ended_before_the_end_was_dated_waits_for_nobody():
    game = finished()
    game.ended_ms = None
    assert R.host_gone(game, 0)
    assert R.apply(game, R.Rematch("p3", "WXYZ"), 0)[0].rematch == "WXYZ"


def test_a_hostless_end_lets_any_seated_human_open_it():
    game = finished()
    game.host = None
    assert R.host_gone(game, game.ended_ms)
    assert R.apply(game, R.Rematch("p2", "WXYZ"), game.ended_ms)[0].rematch == "WXYZ"


def test_whoever_opens_the_rematch_hosts_it_and_only_the_table_sits_in_it():
    game = finished()
    seats = {"d-ann": "p1", "d-bob": "p2", "d-cy": "p3"}
    # Bob stood in for Ann, whose phone died: Bob hosts the new lobby, Ann still has her seat.
    lobby, new_seats = table_again(game, seats, R.new_game("NEWW"), "p2")
    assert [p.name for p in lobby.players] == ["Bob", "Ann", "Cy", "Ada"]
    assert lobby.host == lobby.players[0].id and lobby.locked
    assert new_seats == {"d-bob": lobby.players[0].id, "d-ann": lobby.players[1].id,
                         "d-cy": lobby.players[2].id}
    # Opened by the host (or not said): the host comes first, as before.
    for opener in ("p1", None):
        lobby, _ = table_again(game, seats, R.new_game("NEWW"), opener)
        assert lobby.players[0].name == "Ann" and lobby.host == lobby.players[0].id
    # A stranger (a spectator's device has no seat) is not seated and cannot join it.
    lobby, new_seats = table_again(game, {**seats, "d-eve": "nobody"}, R.new_game("NEWW"))
    assert "d-eve" not in new_seats and len(lobby.players) == 4
    with pytest.raises(R.RoomLocked):
        R.apply(lobby, R.Join("Eve"), 0)
