"""The rules of docs/design.md ("The rules"), scenario by scenario: the entry grace:
nothing about a round shows until it has passed.

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

from auction.game.rules import (
    Phase,
    PhaseChanged,
    Press,
    Release,
    Released,
    RoundEnded,
    RoundResult,
    Tick,
    apply,
    from_dict,
    new_game,
    next_deadline,
    to_dict,
)
from rules_helpers import GRACE, bids_of
from scenario import STAKE, game, settings


# -- the entry grace: nothing about the round shows until it has passed -------------


def test_with_a_grace_go_looks_the_same_whether_or_not_anyone_holds():
    empty, e_events = apply(game("countdown", grace=GRACE), Tick(), 3_000)
    held, h_events = apply(game("countdown", holds={"p1": 500}, grace=GRACE), Tick(), 3_000)
    for g in (empty, held):
        assert (g.phase, g.phase_end_ms, g.history) == (Phase.FREE, 8_000, [])
    assert e_events == h_events == [PhaseChanged(Phase.FREE, 3_000)]


def test_an_empty_round_ends_only_when_the_grace_has_passed():
    g, _ = apply(game("countdown", grace=GRACE), Tick(), 3_000)
    assert next_deadline(g) == 3_900
    g, _ = apply(g, Tick(), 3_899)
    assert g.phase is Phase.FREE
    g, events = apply(g, Tick(), 3_900)
    result = RoundResult(1, {"p1": None, "p2": None, "p3": None}, (), False)
    assert g.history == [result]
    assert events == [RoundEnded(result), PhaseChanged(Phase.RESULT, 3_900)]


def test_an_empty_round_without_a_free_window_also_waits_out_the_grace():
    g, events = apply(game("countdown", settings=STAKE, grace=GRACE), Tick(), 5_000)
    assert (g.phase, events) == (Phase.SPENDING, [PhaseChanged(Phase.SPENDING, 5_000)])
    assert next_deadline(g) == 5_900
    g, _ = apply(g, Tick(), 6_000)
    assert g.phase is Phase.RESULT and g.history[0].winners == ()
    assert g.phase_end_ms == 5_900 + STAKE.result_ms     # ended at its own moment


def test_a_press_made_before_go_arriving_in_the_grace_enters():
    g, _ = apply(game("countdown", settings=STAKE, grace=GRACE), Tick(), 5_000)
    g, _ = apply(g, Press("p1", at_ms=4_800), 5_500)
    assert g.current.holders() == ["p1"] and g.phase is Phase.SPENDING
    g, _ = apply(g, Tick(), 6_000)                      # the grace has passed: it goes on
    assert g.phase is Phase.SPENDING
    g, _ = apply(g, Release("p1"), 6_300)
    assert bids_of(g)["p1"] == 1_300 and g.history[0].winners == ("p1",)


def test_the_last_release_within_the_grace_ends_the_round_only_when_it_has_passed():
    g = game("free", holds={"p1": 0}, grace=GRACE)
    g, events = apply(g, Release("p1"), 3_200)
    assert g.phase is Phase.FREE and events == []
    assert next_deadline(g) == 3_900
    g, events = apply(g, Tick(), 3_900)
    assert g.phase is Phase.RESULT and g.history[0].winners == ()


def test_a_late_entry_keeps_a_round_going_that_its_last_holder_left_in_the_grace():
    g = game("spending", holds={"p1": 0}, settings=STAKE, grace=GRACE)
    g, _ = apply(g, Release("p1"), 5_100)              # 100 ms into spending
    assert g.phase is Phase.SPENDING
    g, _ = apply(g, Press("p2", at_ms=4_950), 5_400)   # made before go, arriving late
    g, _ = apply(g, Release("p2"), 5_600)
    assert g.phase is Phase.SPENDING                    # still within the grace
    g, _ = apply(g, Tick(), 5_900)
    assert bids_of(g) == {"p1": 100, "p2": 600, "p3": None}
    assert g.history[0].winners == ("p2",)


def test_a_release_after_the_grace_ends_the_round_at_once():
    g = game("free", holds={"p1": 0}, grace=GRACE)
    g, events = apply(g, Release("p1"), 4_500)
    assert g.phase is Phase.RESULT and events[-1] == PhaseChanged(Phase.RESULT, 4_500)


def test_a_release_dated_into_the_grace_but_arriving_after_it_ends_the_round_on_arrival():
    g = game("free", holds={"p1": 0}, grace=GRACE)
    g, events = apply(g, Release("p1", at_ms=3_500), 4_000)
    assert g.current is None and events[-1] == PhaseChanged(Phase.RESULT, 4_000)


def test_a_bank_running_dry_within_the_grace_ends_the_round_when_it_has_passed():
    g = game("spending", holds={"p1": 0}, settings=STAKE, banks={"p1": 300}, round=4,
             grace=GRACE)
    g, events = apply(g, Tick(), 5_300)
    assert events == [Released("p1", "bank_empty", 5_300)] and g.phase is Phase.SPENDING
    g, _ = apply(g, Tick(), 5_900)
    assert bids_of(g)["p1"] == 300 and g.history[0].winners == ("p1",)


def test_a_short_free_window_with_nobody_holding_turns_to_spending_then_ends():
    short = settings(free_ms=500)
    g, _ = apply(game("countdown", settings=short, grace=GRACE), Tick(), 3_000)
    assert next_deadline(g) == 3_500
    g, events = apply(g, Tick(), 4_000)
    assert [e.phase for e in events if isinstance(e, PhaseChanged)] == [
        Phase.SPENDING, Phase.RESULT]
    assert g.phase_end_ms == 3_900 + short.result_ms


def test_the_grace_is_kept_with_the_state():
    g = new_game("ABCD", "stake", grace_ms=GRACE)
    assert from_dict(to_dict(g)).grace_ms == GRACE
    legacy = to_dict(g)
    del legacy["grace_ms"]
    assert from_dict(legacy).grace_ms == 0
