"""The rules of docs/design.md ("The rules"), scenario by scenario: a round's opening:
the countdown (pressing in, letting go), go and the free window.

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

import pytest

from auction.game.rules import (
    Hold,
    Phase,
    PhaseChanged,
    Press,
    PressRefused,
    Release,
    RoundEnded,
    RoundResult,
    Tick,
    apply,
)
from rules_helpers import SPEND, bids_of, banks_of
from scenario import STAKE, game, lobby


# -- the countdown: pressing in, letting go ---------------------------------------


def test_press_during_the_countdown_enters():
    g, events = apply(game("countdown"), Press("p1"), 1_000)
    assert g.current.holds == {"p1": Hold(1_000)}
    assert events == []


def test_press_is_dated_by_at_ms_when_earlier():
    g, _ = apply(game("countdown"), Press("p1", at_ms=900), 1_000)
    assert g.current.holds == {"p1": Hold(900)}


def test_press_is_never_dated_after_now():
    g, _ = apply(game("countdown"), Press("p1", at_ms=2_500), 1_000)
    assert g.current.holds == {"p1": Hold(1_000)}


def test_press_dated_before_the_countdown_is_refused():
    g = game("countdown", start=10_000)
    with pytest.raises(PressRefused) as refused:
        apply(g, Press("p1", at_ms=9_999), 10_500)
    assert refused.value.reason == "too_late"


def test_second_press_while_holding_is_refused():
    with pytest.raises(PressRefused) as refused:
        apply(game("countdown", holds={"p1": 500}), Press("p1"), 1_000)
    assert refused.value.reason == "already_holding"
    assert str(refused.value) == "already holding"


def test_release_during_the_countdown_takes_you_out_at_no_cost():
    g, events = apply(game("countdown", holds={"p1": 500, "p2": 600}), Release("p1"), 1_000)
    assert g.current.holds == {"p1": Hold(500, 1_000), "p2": Hold(600)}
    assert g.phase is Phase.COUNTDOWN
    assert banks_of(g)["p1"] == 600_000
    assert events == []


def test_last_holder_letting_go_during_the_countdown_does_not_end_it():
    g, _ = apply(game("countdown", holds={"p1": 500}), Release("p1"), 1_000)
    assert g.phase is Phase.COUNTDOWN and g.history == []


def test_press_after_letting_go_in_the_countdown_is_refused():
    with pytest.raises(PressRefused) as refused:
        apply(game("countdown", holds={"p1": (500, 1_000)}), Press("p1"), 1_500)
    assert refused.value.reason == "out_this_round"


def test_release_is_never_dated_before_the_press():
    g, _ = apply(game("countdown", holds={"p1": 1_000}), Release("p1", at_ms=400), 1_200)
    assert g.current.holds["p1"] == Hold(1_000, 1_000)


def test_press_exactly_at_go_is_too_late():
    with pytest.raises(PressRefused) as refused:
        apply(game("countdown", holds={"p2": 0}), Press("p1"), 3_000)
    assert refused.value.reason == "too_late"


def test_press_after_go_is_too_late():
    with pytest.raises(PressRefused) as refused:
        apply(game("free", holds={"p2": 0}), Press("p1"), 4_000)
    assert refused.value.reason == "too_late"


def test_press_in_the_spending_phase_is_too_late():
    with pytest.raises(PressRefused) as refused:
        apply(game("spending", holds={"p2": 0}), Press("p1"), 9_000)
    assert refused.value.reason == "too_late"


def test_press_after_go_with_nobody_holding_is_too_late():
    with pytest.raises(PressRefused) as refused:
        apply(game("countdown"), Press("p1"), 3_500)
    assert refused.value.reason == "too_late"


def test_backdated_press_arriving_after_go_counts():
    g, _ = apply(game("countdown", holds={"p2": 0}), Press("p1", at_ms=2_900), 3_400)
    assert g.phase is Phase.FREE
    assert g.current.holds["p1"] == Hold(2_900)


def test_backdated_press_is_seen_by_a_go_not_yet_applied():
    # Nobody else held, and go (3000) was not applied yet when the press arrived:
    # the press is judged at its own moment, so go finds a holder.
    g, _ = apply(game("countdown"), Press("p1", at_ms=2_900), 3_700)
    assert g.phase is Phase.FREE and g.history == []
    assert g.current.holders() == ["p1"]


def test_backdated_press_after_go_has_ended_the_round_is_too_late():
    g, _ = apply(game("countdown"), Tick(), 3_000)
    with pytest.raises(PressRefused) as refused:
        apply(g, Press("p1", at_ms=2_900), 3_700)
    assert refused.value.reason == "too_late"


def test_backdated_press_bids_from_the_spending_start():
    g = game("countdown", holds={"p2": 0}, settings=STAKE)
    g, _ = apply(g, Press("p1", at_ms=4_900), 5_300)
    g, _ = apply(g, Release("p2"), 5_400)
    g, _ = apply(g, Release("p1"), 6_500)
    assert bids_of(g) == {"p1": 1_500, "p2": 400, "p3": None}


def test_press_in_the_lobby_is_refused():
    with pytest.raises(PressRefused) as refused:
        apply(lobby(), Press("p1"), 0)
    assert refused.value.reason == "not_started"


def test_press_during_the_result_is_too_late():
    with pytest.raises(PressRefused) as refused:
        apply(game("result", result_end=10_000), Press("p1"), 9_000)
    assert refused.value.reason == "too_late"


def test_press_after_the_game_ended_is_too_late():
    with pytest.raises(PressRefused) as refused:
        apply(game("ended"), Press("p1"), 9_000)
    assert refused.value.reason == "too_late"


def test_press_by_someone_not_seated_is_refused():
    with pytest.raises(PressRefused) as refused:
        apply(game("countdown"), Press("p9"), 1_000)
    assert refused.value.reason == "not_seated"


def test_press_by_a_player_who_left_is_refused():
    with pytest.raises(PressRefused) as refused:
        apply(game("countdown", left=("p2",)), Press("p2"), 1_000)
    assert refused.value.reason == "not_seated"


def test_empty_bank_cannot_enter():
    with pytest.raises(PressRefused) as refused:
        apply(game("countdown", round=2, banks={"p1": 0}), Press("p1"), 1_000)
    assert refused.value.reason == "bank_empty"


def test_a_tenth_left_can_still_enter():
    g, _ = apply(game("countdown", round=2, banks={"p1": 100}), Press("p1"), 1_000)
    assert g.current.holders() == ["p1"]


# -- go and the free window --------------------------------------------------------


def test_go_with_nobody_holding_ends_the_round_without_a_token():
    g, events = apply(game("countdown"), Tick(), 3_000)
    result = RoundResult(1, {"p1": None, "p2": None, "p3": None}, (), False)
    assert g.history == [result]
    assert (g.phase, g.phase_end_ms, g.current) == (Phase.RESULT, 8_000, None)
    assert events == [RoundEnded(result), PhaseChanged(Phase.RESULT, 3_000)]


def test_go_after_everyone_let_go_in_the_countdown_ends_the_round():
    g, _ = apply(game("countdown", holds={"p1": (500, 1_000)}), Tick(), 3_000)
    assert g.phase is Phase.RESULT
    assert g.history[-1].winners == ()


def test_go_with_a_holder_opens_the_free_window():
    g, events = apply(game("countdown", holds={"p1": 500}), Tick(), 3_000)
    assert (g.phase, g.phase_end_ms) == (Phase.FREE, 8_000)
    assert events == [PhaseChanged(Phase.FREE, 3_000)]


def test_go_without_a_free_window_starts_spending():
    g, events = apply(game("countdown", holds={"p1": 500}, settings=STAKE), Tick(), 5_000)
    assert (g.phase, g.phase_end_ms) == (Phase.SPENDING, None)
    assert events == [PhaseChanged(Phase.SPENDING, 5_000)]


def test_the_free_window_ends_in_spending():
    g, events = apply(game("free", holds={"p1": 0}), Tick(), 8_000)
    assert (g.phase, g.phase_end_ms) == (Phase.SPENDING, None)
    assert events == [PhaseChanged(Phase.SPENDING, 8_000)]


def test_release_in_the_free_window_keeps_the_round_going():
    g, events = apply(game("free", holds={"p1": 0, "p2": 0}), Release("p1"), 6_000)
    assert g.phase is Phase.FREE
    assert g.current.holds["p1"] == Hold(0, 6_000)
    assert events == []


def test_release_in_the_free_window_is_a_free_sit_out():
    g = game("spending", holds={"p1": (0, 6_000), "p2": 0})
    g, _ = apply(g, Release("p2"), 9_000)
    assert bids_of(g) == {"p1": None, "p2": 1_000, "p3": None}
    assert banks_of(g) == {"p1": 600_000, "p2": 599_000, "p3": 600_000}


def test_release_at_the_spending_start_costs_nothing():
    g = game("spending", holds={"p1": (0, SPEND), "p2": 0})
    g, _ = apply(g, Release("p2"), SPEND + 50)
    assert bids_of(g)["p1"] is None and banks_of(g)["p1"] == 600_000


def test_everyone_letting_go_in_the_free_window_ends_the_round_without_a_token():
    g = game("free", holds={"p1": (0, 4_000), "p2": 0})
    g, events = apply(g, Release("p2"), 5_000)
    result = RoundResult(1, {"p1": None, "p2": None, "p3": None}, (), False)
    assert g.history == [result]
    assert (g.phase, g.phase_end_ms) == (Phase.RESULT, 10_000)
    assert banks_of(g) == {"p1": 600_000, "p2": 600_000, "p3": 600_000}
    assert events == [RoundEnded(result), PhaseChanged(Phase.RESULT, 5_000)]
