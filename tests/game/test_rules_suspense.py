"""The rules of docs/design.md ("The rules"), scenario by scenario: suspense: a decided
round's result waits a secret pause.

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

import json

import pytest

from auction.game import suspense
from auction.game.transitions import on_grid
from auction.game.rules import (
    PRESETS,
    Game,
    InvalidSettings,
    Phase,
    PhaseChanged,
    Press,
    PressRefused,
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
from rules_helpers import GRACE, bids_of, banks_of, tokens_of
from scenario import AUCTION, STAKE, game, lobby, settings


# -- suspense: a decided round's result waits a secret pause -------------------------


SUSPENSE = settings("stake", suspense="on")             # go and spending at 5000


def seed_with(test, round_number: int = 1) -> str:
    """A game seed whose pause for ``round_number`` passes ``test``."""
    return next(s for s in map(str, range(1_000)) if test(suspense.pause_ms(s, round_number)))


def suspended(phase="spending", seed="s", **kw) -> Game:
    g = game(phase, settings=kw.pop("settings", SUSPENSE), **kw)
    g.seed = seed
    return g


def test_suspense_is_off_in_every_preset_and_takes_only_on_or_off():
    # The rule books show the result when everyone has let go: a host turns it on.
    assert {p.suspense for p in PRESETS.values()} == {"off"}
    assert AUCTION.changed({"suspense": "on"}).suspense == "on"
    with pytest.raises(InvalidSettings, match="suspense must be one of off, on"):
        AUCTION.changed({"suspense": "yes"})


def test_new_game_keeps_the_seed_it_is_given():
    assert new_game("ABCD").seed == ""
    assert new_game("ABCD", "stake", 900, "f00d").seed == "f00d"


def test_pauses_are_whole_ms_from_0_to_3_s_fixed_by_seed_and_round():
    assert suspense.pause_ms("s", 1) == suspense.pause_ms("s", 1)
    pauses = [suspense.pause_ms(str(seed), rnd) for seed in range(1_000) for rnd in range(1, 31)]
    assert min(pauses) >= 0 and max(pauses) <= suspense.PAUSE_MAX_MS == 3_000
    # Uniform: 30 bins of 100 ms, 1,000 expected in each (a fixed sample, so this is
    # exact; chi-square with 29 degrees of freedom exceeds 70 with p < 1e-4).
    counts = [0] * 30
    for p in pauses:
        counts[min(p // 100, 29)] += 1
    assert sum((c - 1_000) ** 2 / 1_000 for c in counts) < 70
    # Another seed, another sequence: the pauses of two games are not the same.
    assert [suspense.pause_ms("a", r) for r in range(1, 9)] != [
        suspense.pause_ms("b", r) for r in range(1, 9)]


def test_with_suspense_the_last_release_decides_but_the_result_waits_for_the_pause():
    g = suspended(holds={"p1": 0})
    pause = suspense.pause_ms("s", 1)
    g, events = apply(g, Release("p1"), 6_000)
    assert (g.phase, events, g.history, g.current.over_ms) == (Phase.SPENDING, [], [], 6_000)
    assert next_deadline(g) == suspense.reveal_ms(g) == 6_000 + pause
    late, events = apply(g, Tick(), 6_000 + pause - 1)
    assert late.phase is Phase.SPENDING and events == []
    g, events = apply(g, Tick(), 6_000 + pause)
    result = RoundResult(1, {"p1": 1_000, "p2": None, "p3": None}, ("p1",), False)
    assert events == [RoundEnded(result), PhaseChanged(Phase.RESULT, 6_000 + pause)]
    assert g.phase_end_ms == on_grid(6_000 + pause + SUSPENSE.result_ms)


def test_suspense_changes_when_a_result_shows_not_what_it_is():
    plain = game("spending", settings=STAKE, holds={"p1": 0, "p2": 0})
    wait = suspended(holds={"p1": 0, "p2": 0})
    # What the round decided is the same; only what its clock showed differs: the top bid
    # to the tenth without suspense, nothing with it (that figure would hold the pause).
    for g, clock in ((plain, 2_200), (wait, None)):
        g, _ = apply(g, Release("p1"), 6_000)
        g, _ = apply(g, Release("p2"), 7_234)
        g, _ = apply(g, Tick(), 10_300)    # past the longest pause, within the result
        assert (g.history, banks_of(g), tokens_of(g)) == (
            [RoundResult(1, {"p1": 1_000, "p2": 2_234, "p3": None}, ("p2",), False, clock)],
            {"p1": 599_000, "p2": 597_766, "p3": 600_000}, {"p1": 0, "p2": 1, "p3": 0})


def test_with_suspense_an_empty_go_moves_on_as_if_someone_held():
    g, events = apply(suspended("countdown", settings=settings(suspense="on")), Tick(), 3_000)
    assert (g.phase, events, g.current.over_ms) == (Phase.FREE, [PhaseChanged(Phase.FREE, 3_000)],
                                                   3_000)
    g, events = apply(suspended("countdown"), Tick(), 5_000)
    assert (g.phase, events) == (Phase.SPENDING, [PhaseChanged(Phase.SPENDING, 5_000)])
    g, events = apply(g, Tick(), 5_000 + suspense.pause_ms("s", 1))
    assert g.phase is Phase.RESULT and g.history[0].winners == ()


def test_a_pause_that_outlasts_the_free_window_shows_spending_first():
    seed = seed_with(lambda p: p > 600)
    g = suspended("free", seed, settings=settings(suspense="on"), holds={"p1": 0})
    g, _ = apply(g, Release("p1"), 7_500)               # before spending: no bid
    assert g.current.over_ms == 7_500 and next_deadline(g) == 8_000
    g, events = apply(g, Tick(), 10_600)
    assert [e.phase for e in events if isinstance(e, PhaseChanged)] == [
        Phase.SPENDING, Phase.RESULT]
    assert g.phase_end_ms == on_grid(7_500 + suspense.pause_ms(seed, 1) + AUCTION.result_ms)
    assert g.history[0].bids["p1"] is None


def test_a_short_pause_ends_the_round_within_the_free_window():
    seed = seed_with(lambda p: p < 400)
    g = suspended("free", seed, settings=settings(suspense="on"), holds={"p1": 0})
    g, _ = apply(g, Release("p1"), 7_500)
    assert next_deadline(g) == 7_500 + suspense.pause_ms(seed, 1) < 8_000
    g, events = apply(g, Tick(), 10_600)
    assert [e.phase for e in events if isinstance(e, PhaseChanged)] == [Phase.RESULT]


def test_with_suspense_a_bank_running_dry_decides_and_the_result_waits():
    g = suspended(holds={"p1": 0}, banks={"p1": 30_000})
    g, events = apply(g, Tick(), 35_000)
    assert events == [Released("p1", "bank_empty", 35_000)] and g.current.over_ms == 35_000
    g, _ = apply(g, Tick(), 35_000 + suspense.pause_ms("s", 1))
    assert g.phase is Phase.RESULT and bids_of(g)["p1"] == 30_000


def test_with_suspense_a_release_in_the_grace_waits_for_the_grace_then_the_pause():
    g = suspended(holds={"p1": 0}, grace=GRACE)
    g, _ = apply(g, Release("p1"), 5_100)
    assert g.current.over_ms is None and next_deadline(g) == 5_900
    g, _ = apply(g, Tick(), 5_900)
    assert g.current.over_ms == 5_900 and g.phase is Phase.SPENDING
    assert next_deadline(g) == 5_900 + suspense.pause_ms("s", 1)


def test_a_press_in_the_pause_is_too_late_even_dated_before_go():
    g, _ = apply(suspended(holds={"p1": 0}), Release("p1"), 6_000)
    for press in (Press("p2"), Press("p2", at_ms=4_900)):
        with pytest.raises(PressRefused) as refused:
            apply(g, press, 6_001)
        assert refused.value.reason == "too_late"


def test_reveal_is_none_outside_a_decided_round():
    assert suspense.reveal_ms(lobby()) is None
    assert suspense.reveal_ms(suspended(holds={"p1": 0})) is None


def test_the_seed_and_the_decision_survive_the_store():
    g, _ = apply(suspended(holds={"p1": 0}, seed="f00d"), Release("p1"), 6_000)
    data = json.loads(json.dumps(to_dict(g)))
    assert (data["seed"], data["current"]["over_ms"]) == ("f00d", 6_000)
    assert from_dict(data) == g
    del data["seed"], data["current"]["over_ms"]      # a room saved before suspense
    old = from_dict(data)
    assert (old.seed, old.current.over_ms) == ("", None)
