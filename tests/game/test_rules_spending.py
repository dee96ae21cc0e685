"""The rules of docs/design.md ("The rules"), scenario by scenario: spending: the end of
a round, the bank running out, releases dated earlier than they arrive, leaving during a
game.

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

import pytest

from auction.game.rules import (
    Hold,
    Leave,
    NotAllowed,
    Phase,
    PhaseChanged,
    Release,
    Released,
    RoundEnded,
    RoundResult,
    Tick,
    apply,
    standings,
)
from rules_helpers import SPEND, STAKE_SPEND, bids_of, banks_of, tokens_of
from scenario import STAKE, game, lobby


# -- spending and the end of a round -------------------------------------------------


def test_round_goes_on_while_someone_holds():
    g, events = apply(game("spending", holds={"p1": 0, "p2": 0}), Release("p1"), 9_000)
    assert g.phase is Phase.SPENDING and g.history == []
    assert g.current.holders() == ["p2"]
    assert events == []


def test_bank_is_not_charged_before_the_round_ends():
    g, _ = apply(game("spending", holds={"p1": 0, "p2": 0}), Release("p1"), 9_000)
    assert banks_of(g)["p1"] == 600_000


def test_the_last_release_ends_the_round_and_the_highest_bid_wins():
    g = game("spending", holds={"p1": (0, 9_000), "p2": 0})
    g, events = apply(g, Release("p2"), 10_000)
    result = RoundResult(1, {"p1": 1_000, "p2": 2_000, "p3": None}, ("p2",), False, clock_ms=2_000)
    assert g.history == [result]
    assert tokens_of(g) == {"p1": 0, "p2": 1, "p3": 0}
    assert banks_of(g) == {"p1": 599_000, "p2": 598_000, "p3": 600_000}
    assert (g.phase, g.phase_end_ms, g.current) == (Phase.RESULT, 15_000, None)
    assert events == [RoundEnded(result), PhaseChanged(Phase.RESULT, 10_000)]


def test_a_lone_bidder_wins():
    g, _ = apply(game("spending", holds={"p3": 0}), Release("p3"), SPEND + 100)
    assert g.history[-1].winners == ("p3",) and g.history[-1].winning_bid_ms == 100


def test_a_lone_bidder_below_a_tenth_bids_nothing_in_tenth_mode():
    g, _ = apply(game("spending", holds={"p3": 0}), Release("p3"), SPEND + 99)
    assert bids_of(g)["p3"] == 0
    assert g.history[-1].winners == ("p3",)
    assert banks_of(g)["p3"] == 600_000


def test_bids_are_truncated_to_whole_tenths():
    g, _ = apply(game("spending", holds={"p1": 0}), Release("p1"), SPEND + 5_049)
    assert bids_of(g)["p1"] == 5_000
    assert banks_of(g)["p1"] == 595_000


def test_bids_in_margin_mode_are_kept_in_milliseconds():
    g, _ = apply(game("spending", holds={"p1": 0}, settings=STAKE), Release("p1"), STAKE_SPEND + 5_049)
    assert bids_of(g)["p1"] == 5_049
    assert banks_of(g)["p1"] == 594_951


def test_result_lists_everyone_who_sat_out():
    g, _ = apply(game("spending", ("p1", "p2", "p3", "p4"), holds={"p2": 0}), Release("p2"), 9_000)
    assert bids_of(g) == {"p1": None, "p2": 1_000, "p3": None, "p4": None}


# -- the bank running out ---------------------------------------------------------------


def test_bank_running_out_releases_the_holder_at_that_moment():
    g = game("spending", holds={"p1": 0, "p2": 0}, banks={"p1": 30_000})
    g, events = apply(g, Tick(), SPEND + 30_000)
    assert g.current.holds["p1"] == Hold(0, SPEND + 30_000)
    assert g.current.holders() == ["p2"]
    assert events == [Released("p1", "bank_empty", SPEND + 30_000)]


def test_a_late_tick_charges_exactly_the_bank():
    g = game("spending", holds={"p1": 0}, banks={"p1": 30_000})
    g, events = apply(g, Tick(), SPEND + 30_000 + 1_700)
    assert bids_of(g) == {"p1": 30_000, "p2": None, "p3": None}
    assert banks_of(g)["p1"] == 0
    assert g.history[-1].winners == ("p1",)
    assert (g.phase, g.phase_end_ms) == (Phase.RESULT, SPEND + 30_000 + 5_000)
    assert events[0] == Released("p1", "bank_empty", SPEND + 30_000)
    assert events[-1] == PhaseChanged(Phase.RESULT, SPEND + 30_000)


def test_bank_in_margin_mode_runs_out_to_the_millisecond():
    g = game("spending", holds={"p1": 0}, banks={"p1": 30_007}, settings=STAKE)
    g, _ = apply(g, Tick(), STAKE_SPEND + 40_000)
    assert bids_of(g)["p1"] == 30_007 and banks_of(g)["p1"] == 0


def test_a_tick_before_the_bank_runs_out_changes_nothing():
    g = game("spending", holds={"p1": 0}, banks={"p1": 30_000})
    after, events = apply(g, Tick(), SPEND + 29_999)
    assert after == g and events == []


def test_a_release_after_the_bank_ran_out_is_charged_only_the_bank():
    g = game("spending", holds={"p1": 0}, banks={"p1": 30_000})
    g, events = apply(g, Release("p1"), SPEND + 31_000)
    assert bids_of(g)["p1"] == 30_000
    assert Released("p1", "bank_empty", SPEND + 30_000) in events


def test_release_dated_before_the_bank_ran_out_is_charged_at_the_release():
    g = game("spending", holds={"p1": 0}, banks={"p1": 30_000})
    g, events = apply(g, Release("p1", at_ms=SPEND + 29_000), SPEND + 31_000)
    assert bids_of(g)["p1"] == 29_000
    assert banks_of(g)["p1"] == 1_000
    assert not any(isinstance(e, Released) for e in events)


def test_two_banks_running_out_at_once_end_the_round_in_a_tie():
    g = game("spending", holds={"p1": 0, "p2": 0}, banks={"p1": 30_000, "p2": 30_000})
    g, events = apply(g, Tick(), SPEND + 30_000)
    assert g.history[-1] == RoundResult(1, {"p1": 30_000, "p2": 30_000, "p3": None}, (), True,
                                        clock_ms=30_000)
    assert events[:2] == [Released("p1", "bank_empty", SPEND + 30_000),
                          Released("p2", "bank_empty", SPEND + 30_000)]


def test_the_bigger_bank_outlasts_the_smaller():
    g = game("spending", holds={"p1": 0, "p2": 0}, banks={"p1": 30_000, "p2": 40_000})
    g, _ = apply(g, Tick(), SPEND + 42_000)
    assert g.phase is Phase.RESULT
    assert g.history[-1].winners == ("p2",)
    assert bids_of(g) == {"p1": 30_000, "p2": 40_000, "p3": None}
    assert banks_of(g) == {"p1": 0, "p2": 0, "p3": 600_000}


def test_an_empty_bank_keeps_its_tokens_and_its_place_in_the_standings():
    g = game("ended", banks={"p1": 0, "p2": 5_000, "p3": 9_000}, tokens={"p1": 3, "p2": 1})
    assert [(s.player, s.place, s.tokens, s.bank_ms) for s in standings(g)] == [
        ("p1", 1, 3, 0), ("p2", 2, 1, 5_000), ("p3", 3, 0, 9_000)]


# -- releases dated earlier than they arrive ---------------------------------------------


def test_release_dated_earlier_is_charged_at_its_own_moment():
    g = game("spending", holds={"p1": 0})
    g, events = apply(g, Release("p1", at_ms=SPEND + 1_000), SPEND + 1_500)
    assert bids_of(g)["p1"] == 1_000
    # The round visibly ends when the release arrives.
    assert events[-1] == PhaseChanged(Phase.RESULT, SPEND + 1_500)
    assert g.phase_end_ms == SPEND + 1_500 + 5_000


def test_release_is_never_dated_after_now():
    g, _ = apply(game("spending", holds={"p1": 0}), Release("p1", at_ms=SPEND + 9_000), SPEND + 1_500)
    assert bids_of(g)["p1"] == 1_500


def test_release_dated_into_the_free_window_is_a_free_sit_out():
    g = game("spending", holds={"p1": 0, "p2": 0})
    g, _ = apply(g, Release("p1", at_ms=7_000), 8_500)
    assert g.current.holds["p1"] == Hold(0, 7_000)


def test_release_by_someone_not_holding_changes_nothing():
    g = game("spending", holds={"p1": 0, "p2": (0, 6_000)})
    for pid in ("p2", "p3", "p9"):
        after, events = apply(g, Release(pid), 9_000)
        assert after == g and events == []


def test_release_in_the_lobby_changes_nothing():
    g = lobby()
    after, events = apply(g, Release("p1"), 9_000)
    assert after == g and events == []


def test_release_still_applies_due_transitions():
    g = game("countdown", holds={"p2": 0})
    g, events = apply(g, Release("p1"), 3_000)
    assert g.phase is Phase.FREE and events == [PhaseChanged(Phase.FREE, 3_000)]


# -- leaving during a game ---------------------------------------------------------------


def test_leave_while_holding_releases_at_that_moment():
    g = game("spending", holds={"p1": 0, "p2": 0})
    g, events = apply(g, Leave("p1"), 9_000)
    assert g.player("p1").left
    assert g.current.holds["p1"] == Hold(0, 9_000)
    assert g.phase is Phase.SPENDING
    assert events == [Released("p1", "left", 9_000)]


def test_leave_of_the_last_holder_ends_the_round():
    g, events = apply(game("spending", holds={"p1": 0}), Leave("p1"), 9_000)
    assert bids_of(g)["p1"] == 1_000
    assert banks_of(g)["p1"] == 599_000
    assert [p.id for p in g.players] == ["p1", "p2", "p3"]
    assert events[0] == Released("p1", "left", 9_000)
    assert g.phase is Phase.RESULT


def test_leave_while_holding_in_the_countdown_costs_nothing():
    g, events = apply(game("countdown", holds={"p1": 500, "p2": 500}), Leave("p1"), 1_000)
    assert g.current.holds["p1"] == Hold(500, 1_000)
    assert g.current.holders() == ["p2"]
    assert events == [Released("p1", "left", 1_000)]


def test_leave_without_holding_releases_nothing():
    g, events = apply(game("spending", holds={"p2": 0}), Leave("p1"), 9_000)
    assert g.player("p1").left and events == []
    assert g.current.holders() == ["p2"]


def test_leave_during_the_result_keeps_the_seat_in_the_standings():
    g, _ = apply(game("result", result_end=10_000, tokens={"p1": 2}), Leave("p1"), 9_000)
    assert g.player("p1").left and g.player("p1").tokens == 2


def test_leaving_twice_is_refused():
    with pytest.raises(NotAllowed):
        apply(game("countdown", left=("p1",)), Leave("p1"), 1_000)


def test_host_leaving_a_game_hands_over_to_the_next_human_still_seated():
    g = game("countdown", ("p1", "b2", "p3", "p4"), bots=("b2",), left=("p3",))
    g, _ = apply(g, Leave("p1"), 1_000)
    assert g.host == "p4"


def test_seated_players_are_those_who_have_not_left():
    g = game("countdown", ("p1", "p2", "p3"), left=("p2",))
    assert [p.id for p in g.seated()] == ["p1", "p3"]
