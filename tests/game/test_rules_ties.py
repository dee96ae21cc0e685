"""The rules of docs/design.md ("The rules"), scenario by scenario: ties: the same
tenth, the margin, and the tie rule.

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

from auction.game.rules import Release, RoundResult, apply
from rules_helpers import SPEND, STAKE_SPEND, banks_of, tokens_of
from scenario import STAKE, game, settings


# -- ties ----------------------------------------------------------------------------


def test_same_tenth_is_a_tie_and_nobody_wins():
    g = game("spending", holds={"p1": (0, SPEND + 5_040), "p2": 0})
    g, _ = apply(g, Release("p2"), SPEND + 5_090)
    assert g.history == [RoundResult(1, {"p1": 5_000, "p2": 5_000, "p3": None}, (), True,
                                     clock_ms=5_000)]
    assert tokens_of(g) == {"p1": 0, "p2": 0, "p3": 0}


def test_every_tied_player_pays():
    g = game("spending", holds={"p1": (0, SPEND + 5_040), "p2": 0})
    g, _ = apply(g, Release("p2"), SPEND + 5_090)
    assert banks_of(g) == {"p1": 595_000, "p2": 595_000, "p3": 600_000}


def test_next_tenth_is_no_tie_in_tenth_mode():
    g = game("spending", holds={"p1": (0, SPEND + 5_090), "p2": 0})
    g, _ = apply(g, Release("p2"), SPEND + 5_100)
    assert g.history[-1].winners == ("p2",) and not g.history[-1].tie


def test_within_the_margin_is_a_tie():
    g = game("spending", holds={"p1": (0, STAKE_SPEND + 5_040), "p2": 0}, settings=STAKE)
    g, _ = apply(g, Release("p2"), STAKE_SPEND + 5_090)
    assert g.history == [RoundResult(1, {"p1": 5_040, "p2": 5_090, "p3": None}, (), True,
                                     clock_ms=5_000)]
    assert banks_of(g) == {"p1": 594_960, "p2": 594_910, "p3": 600_000}


def test_exactly_the_margin_from_the_top_is_a_tie():
    g = game("spending", holds={"p1": (0, STAKE_SPEND + 5_000), "p2": 0}, settings=STAKE)
    g, _ = apply(g, Release("p2"), STAKE_SPEND + 5_100)
    assert g.history[-1].tie and g.history[-1].winners == ()


def test_just_outside_the_margin_is_no_tie():
    g = game("spending", holds={"p1": (0, STAKE_SPEND + 4_999), "p2": 0}, settings=STAKE)
    g, _ = apply(g, Release("p2"), STAKE_SPEND + 5_100)
    assert g.history[-1] == RoundResult(1, {"p1": 4_999, "p2": 5_100, "p3": None}, ("p2",), False,
                                        clock_ms=5_100)
    assert tokens_of(g)["p2"] == 1


def test_the_margin_is_a_setting():
    s = settings("stake", tie_margin_ms=10)
    g = game("spending", holds={"p1": (0, STAKE_SPEND + 5_080), "p2": 0}, settings=s)
    g, _ = apply(g, Release("p2"), STAKE_SPEND + 5_090)
    assert g.history[-1].tie
    g = game("spending", holds={"p1": (0, STAKE_SPEND + 5_079), "p2": 0}, settings=s)
    g, _ = apply(g, Release("p2"), STAKE_SPEND + 5_090)
    assert g.history[-1].winners == ("p2",)


def test_tie_rule_all_gives_every_tied_player_a_token():
    s = settings(tie_rule="all")
    g = game("spending", holds={"p1": (0, SPEND + 5_040), "p2": 0, "p3": (0, SPEND + 100)}, settings=s)
    g, _ = apply(g, Release("p2"), SPEND + 5_090)
    assert g.history == [RoundResult(1, {"p1": 5_000, "p2": 5_000, "p3": 100}, ("p1", "p2"), True,
                                     clock_ms=5_000)]
    assert tokens_of(g) == {"p1": 1, "p2": 1, "p3": 0}
    assert banks_of(g) == {"p1": 595_000, "p2": 595_000, "p3": 599_900}


def test_tie_rule_all_in_margin_mode_counts_from_the_top_bid():
    s = settings("stake", tie_rule="all")
    g = game("spending", ("p1", "p2", "p3", "p4"), settings=s,
             holds={"p1": (0, STAKE_SPEND + 5_000), "p2": (0, STAKE_SPEND + 4_999), "p4": 0})
    g, _ = apply(g, Release("p4"), STAKE_SPEND + 5_100)
    assert g.history[-1].winners == ("p1", "p4")
    assert tokens_of(g) == {"p1": 1, "p2": 0, "p3": 0, "p4": 1}


def test_tie_rule_nobody_with_three_tied():
    g = game("spending", holds={"p1": (0, SPEND + 5_000), "p2": (0, SPEND + 5_050), "p3": 0})
    g, _ = apply(g, Release("p3"), SPEND + 5_099)
    assert g.history[-1] == RoundResult(1, {"p1": 5_000, "p2": 5_000, "p3": 5_000}, (), True,
                                        clock_ms=5_000)


def test_a_tie_below_the_top_bid_does_not_matter():
    g = game("spending", holds={"p1": (0, SPEND + 1_000), "p2": (0, SPEND + 1_050), "p3": 0})
    g, _ = apply(g, Release("p3"), SPEND + 2_000)
    assert g.history[-1].winners == ("p3",) and not g.history[-1].tie


def test_tie_rule_all_without_a_tie_gives_one_token():
    g = game("spending", holds={"p1": (0, SPEND + 1_000), "p2": 0}, settings=settings(tie_rule="all"))
    g, _ = apply(g, Release("p2"), SPEND + 2_000)
    assert g.history[-1].winners == ("p2",) and not g.history[-1].tie
