"""The rules of docs/design.md ("The rules"), scenario by scenario: the result, the next
round, the end of a game, and the standings (winners, last place).

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

import pytest

from auction.game.rules import (
    Phase,
    PhaseChanged,
    Release,
    Round,
    Tick,
    apply,
    last_place,
    next_deadline,
    standings,
    winners,
)
from rules_helpers import SPEND
from scenario import game, lobby, settings


# -- the result, the next round, the end ----------------------------------------------------


def test_the_result_shows_for_result_ms_then_the_next_countdown_opens():
    g = game("result", result_end=13_000, history=[({}, ())])
    g, events = apply(g, Tick(), 13_000)
    assert (g.phase, g.round, g.phase_end_ms) == (Phase.COUNTDOWN, 2, 16_000)
    assert g.current == Round(2, 13_000, 16_000, 21_000, {})
    assert events == [PhaseChanged(Phase.COUNTDOWN, 13_000)]


def test_result_ms_is_a_setting():
    g, _ = apply(game("free", holds={"p1": (0, 4_000), "p2": 0}, settings=settings(result_ms=2_000)),
                 Release("p2"), 5_000)
    assert g.phase_end_ms == 7_000


def test_the_result_ends_on_a_whole_tenth_so_go_does_not_tell_the_top_bid():
    """The next go is the result's end plus the countdown, and views name go on the
    server's clock: a round that ended at 5,043 shows its result until 10,100, not
    10,043, so go tells that end to the tenth only (transitions.on_grid)."""
    g, _ = apply(game("free", holds={"p1": (0, 4_000), "p2": 0}), Release("p2"), 5_043)
    assert g.phase is Phase.RESULT and g.phase_end_ms == 10_100
    g, _ = apply(g, Tick(), 10_100)
    assert g.current.go_ms == 13_100 and g.current.go_ms % 100 == 0


def test_a_tick_before_the_result_ends_changes_nothing():
    g = game("result", result_end=13_000, history=[({}, ())])
    after, events = apply(g, Tick(), 12_999)
    assert after == g and events == []


def test_after_the_last_round_the_game_ends():
    g = game("result", round=3, result_end=13_000, settings=settings(rounds=3),
             history=[({}, ())] * 3)
    g, events = apply(g, Tick(), 13_000)
    assert (g.phase, g.phase_end_ms, g.current, g.round) == (Phase.ENDED, None, None, 3)
    assert events == [PhaseChanged(Phase.ENDED, 13_000)]


def test_a_late_tick_plays_every_due_transition_at_its_own_moment():
    g = game("countdown", settings=settings(rounds=2))
    g, events = apply(g, Tick(), 1_000_000)
    assert g.phase is Phase.ENDED
    assert [r.round for r in g.history] == [1, 2]
    assert [e.at_ms for e in events if isinstance(e, PhaseChanged)] == [3_000, 8_000, 11_000, 16_000]
    assert [e.phase for e in events if isinstance(e, PhaseChanged)] == [
        Phase.RESULT, Phase.COUNTDOWN, Phase.RESULT, Phase.ENDED]


def test_a_tick_in_the_lobby_or_after_the_end_changes_nothing():
    for g in (lobby(), game("ended")):
        after, events = apply(g, Tick(), 10**9)
        assert after == g and events == []


@pytest.mark.parametrize("phase, now", [("countdown", 2_999), ("free", 7_999), ("spending", 9_000)])
def test_a_stale_tick_changes_nothing(phase, now):
    g = game(phase, holds={"p1": 0})
    after, events = apply(g, Tick(), now)
    assert after == g and events == []


def test_next_deadline_of_each_phase():
    assert next_deadline(lobby()) is None
    assert next_deadline(game("countdown")) == 3_000
    assert next_deadline(game("free", holds={"p1": 0})) == 8_000
    assert next_deadline(game("spending", holds={"p1": 0, "p2": 0}, banks={"p2": 40_000})) == 48_000
    assert next_deadline(game("result", result_end=20_000)) == 20_000
    assert next_deadline(game("ended")) is None


def test_next_deadline_ignores_players_who_let_go():
    g = game("spending", holds={"p1": (0, 9_000), "p2": 0}, banks={"p1": 30_000})
    assert next_deadline(g) == SPEND + 600_000


# -- standings, winners, last place -------------------------------------------------------------


def ended(tokens, banks, **changes):
    ids = tuple(tokens)
    return game("ended", ids, tokens=tokens, banks=banks, settings=settings(**changes))


def places(g):
    return [(s.player, s.place) for s in standings(g)]


def test_standings_rank_by_tokens_first():
    g = ended({"p1": 1, "p2": 3, "p3": 2}, {"p1": 900, "p2": 100, "p3": 500})
    assert places(g) == [("p2", 1), ("p3", 2), ("p1", 3)]


def test_standings_break_token_ties_by_time_left():
    g = ended({"p1": 2, "p2": 2, "p3": 0}, {"p1": 100, "p2": 500, "p3": 900})
    assert places(g) == [("p2", 1), ("p1", 2), ("p3", 3)]
    assert winners(g) == ["p2"]


def test_standings_with_equal_tokens_and_time_share_a_place():
    g = ended({"p1": 2, "p2": 2, "p3": 0}, {"p1": 500, "p2": 500, "p3": 900})
    assert places(g) == [("p1", 1), ("p2", 1), ("p3", 3)]


def test_a_first_place_still_tied_means_nobody_wins():
    g = ended({"p1": 2, "p2": 2, "p3": 0}, {"p1": 500, "p2": 500, "p3": 900})
    assert winners(g) == []


def test_shared_places_ignore_time_left():
    g = ended({"p1": 2, "p2": 2, "p3": 0, "p4": 0}, {"p1": 100, "p2": 500, "p3": 900, "p4": 900},
              rank_ties="shared")
    assert places(g) == [("p1", 1), ("p2", 1), ("p3", 3), ("p4", 3)]


def test_shared_first_place_makes_joint_winners():
    g = ended({"p1": 2, "p2": 2, "p3": 0}, {"p1": 100, "p2": 500, "p3": 900}, rank_ties="shared")
    assert winners(g) == ["p1", "p2"]


def test_a_sole_first_place_wins_with_shared_places_too():
    g = ended({"p1": 1, "p2": 2, "p3": 0}, {"p1": 100, "p2": 500, "p3": 900}, rank_ties="shared")
    assert winners(g) == ["p2"]


def test_sole_winner():
    g = ended({"p1": 3, "p2": 2, "p3": 0}, {"p1": 0, "p2": 500, "p3": 900})
    assert winners(g) == ["p1"]


def test_standings_show_tokens_and_time_left():
    g = ended({"p1": 3, "p2": 2, "p3": 0}, {"p1": 0, "p2": 500, "p3": 900})
    assert standings(g)[1].tokens == 2 and standings(g)[1].bank_ms == 500


def test_last_place_is_fewest_tokens():
    g = ended({"p1": 3, "p2": 0, "p3": 1}, {"p1": 0, "p2": 900, "p3": 100})
    assert last_place(g) == ["p2"]


def test_last_place_among_equal_tokens_is_least_time():
    g = ended({"p1": 3, "p2": 0, "p3": 0}, {"p1": 0, "p2": 900, "p3": 100})
    assert last_place(g) == ["p3"]


def test_last_place_can_be_shared():
    g = ended({"p1": 3, "p2": 0, "p3": 0}, {"p1": 0, "p2": 100, "p3": 100})
    assert last_place(g) == ["p2", "p3"]


def test_last_place_shared_by_tokens_with_shared_places():
    g = ended({"p1": 3, "p2": 0, "p3": 0}, {"p1": 0, "p2": 100, "p3": 100}, rank_ties="shared")
    assert last_place(g) == ["p2", "p3"]


def test_last_place_uses_time_even_with_shared_places():
    g = ended({"p1": 3, "p2": 0, "p3": 0}, {"p1": 0, "p2": 100, "p3": 200}, rank_ties="shared")
    assert [s.place for s in standings(g)] == [1, 2, 2]
    assert last_place(g) == ["p2"]


def test_nobody_is_last_when_everyone_ties():
    g = ended({"p1": 1, "p2": 1, "p3": 1}, {"p1": 100, "p2": 100, "p3": 100})
    assert last_place(g) == []
    assert winners(g) == []


def test_everyone_tied_with_shared_places_are_joint_winners():
    g = ended({"p1": 1, "p2": 1, "p3": 1}, {"p1": 100, "p2": 200, "p3": 300}, rank_ties="shared")
    assert winners(g) == ["p1", "p2", "p3"]
    assert last_place(g) == []


def test_standings_of_an_empty_game():
    g = game("lobby", ())
    assert (standings(g), winners(g), last_place(g)) == ([], [], [])


def test_players_who_left_stay_in_the_standings():
    g = game("ended", tokens={"p2": 4}, left=("p2",))
    assert places(g)[0] == ("p2", 1) and winners(g) == ["p2"]
