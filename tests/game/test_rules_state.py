"""The rules of docs/design.md ("The rules"), scenario by scenario: `apply` itself (it
never changes what it is given) and persistence (to_dict/from_dict).

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

import json

import pytest

from auction.game.rules import (
    AddBot,
    ChangeSettings,
    Hold,
    InvalidSettings,
    Leave,
    NotAllowed,
    PressRefused,
    Release,
    RoomFull,
    RoundResult,
    RuleError,
    Tick,
    WrongPhase,
    apply,
    from_dict,
    new_game,
    to_dict,
)
from scenario import STAKE, game, lobby, settings


# -- apply itself ---------------------------------------------------------------------------


def test_apply_never_changes_the_state_it_is_given():
    g = game("spending", holds={"p1": 0, "p2": (0, 9_000)}, history=[({"p1": 100}, ("p1",))])
    before = to_dict(g)
    apply(g, Release("p1"), 10_000)
    apply(g, Leave("p2"), 10_000)
    apply(g, Tick(), 10**9)
    assert to_dict(g) == before


def test_a_refused_action_leaves_the_state_alone():
    g = lobby("p1", "p2", settings=settings(min_players=2, max_players=2))
    before = to_dict(g)
    with pytest.raises(RoomFull):
        apply(g, AddBot("p1"), 0)
    with pytest.raises(InvalidSettings):
        apply(g, ChangeSettings("p1", {"rounds": 5, "max_players": 9}), 0)
    assert to_dict(g) == before


def test_apply_refuses_something_that_is_not_an_action():
    with pytest.raises(TypeError, match="not an action"):
        apply(lobby(), "press", 0)


def test_rule_errors_are_value_errors():
    for error in (InvalidSettings, NotAllowed, WrongPhase, RoomFull, PressRefused):
        assert issubclass(error, RuleError) and issubclass(error, ValueError)


def test_game_copy_is_independent():
    g = game("spending", holds={"p1": 0})
    c = g.copy()
    c.current.holds["p1"].release_ms = 9_000
    c.players[0].bank_ms = 1
    c.history.append(RoundResult(1, {}, (), False))
    assert g.current.holds["p1"] == Hold(0) and g.players[0].bank_ms == 600_000 and g.history == []


def test_winning_bid_of_a_result():
    assert RoundResult(1, {"p1": 100, "p2": 300}, ("p2",), False).winning_bid_ms == 300
    assert RoundResult(1, {"p1": 300, "p2": 300}, (), True).winning_bid_ms is None


def test_winning_bid_of_joint_winners_within_the_margin_is_the_top_bid():
    result = RoundResult(1, {"p1": 5_000, "p2": None, "p4": 5_100}, ("p1", "p4"), True)
    assert result.winning_bid_ms == 5_100


# -- persistence -----------------------------------------------------------------------------


@pytest.mark.parametrize("g", [
    new_game("ABCD"),
    lobby("p1", "b2", bots=("b2",)),
    game("countdown", holds={"p1": 500, "p2": (600, 900)}),
    game("spending", holds={"p1": 0, "p2": (0, 9_000)}, round=2, tokens={"p3": 1},
         history=[({"p3": 1_200, "p1": None}, ("p3",))], left=("p3",), settings=STAKE),
    game("result", result_end=20_000, history=[({"p1": 100, "p2": 100}, ())]),
    game("result", result_end=20_000, history=[
        RoundResult(1, {"p1": 4_000, "p2": 5_050, "p3": None}, ("p2",), False, 5_000)]),
    game("ended", ("p1", "b2"), bots=("b2",), tokens={"b2": 1}, banks={"p1": 12_345},
         history=[({"b2": 5_000}, ("b2",))], settings=settings(rank_ties="shared", rounds=1)),
], ids=["new", "lobby", "countdown", "spending", "result", "clock", "ended"])
def test_to_dict_and_from_dict_round_trip_through_json(g):
    data = json.loads(json.dumps(to_dict(g)))
    assert data == to_dict(g)
    assert from_dict(data) == g


def test_a_round_saved_before_the_clock_was_kept_has_none():
    g = game("result", result_end=20_000, history=[
        RoundResult(1, {"p1": 4_000, "p2": 5_050, "p3": None}, ("p2",), False, 5_000)])
    data = to_dict(g)
    del data["history"][0]["clock_ms"]
    assert from_dict(data).history[0].clock_ms is None


def test_a_restored_game_plays_on_identically():
    g = game("spending", holds={"p1": 0, "p2": 0}, banks={"p2": 30_000})
    restored = from_dict(json.loads(json.dumps(to_dict(g))))
    assert apply(restored, Tick(), 10**6) == apply(g, Tick(), 10**6)


def test_from_dict_validates_the_settings():
    data = to_dict(lobby())
    data["settings"]["rounds"] = 99
    with pytest.raises(InvalidSettings):
        from_dict(data)
