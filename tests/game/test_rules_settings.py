"""The rules of docs/design.md ("The rules"), scenario by scenario: the presets, and
every setting's range and choice.

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

import pytest

from auction.game.rules import PRESETS, InvalidSettings, Phase, Settings, new_game
from scenario import AUCTION


# -- presets: exactly the table of docs/design.md ("Settings and presets") ----


def test_time_auction_full_preset():
    s = PRESETS["auction"]
    assert (s.rounds, s.bank_ms, s.ready_ms, s.free_ms) == (19, 600_000, 3_000, 5_000)
    assert (s.tie, s.tie_rule, s.reveal, s.own_bank, s.rank_ties) == (
        "tenth", "nobody", "winner", "toggle", "time_left")
    assert (s.min_players, s.max_players, s.result_ms) == (3, 7, 5_000)


def test_time_auction_quick_preset():
    s = PRESETS["quick"]
    assert (s.rounds, s.bank_ms, s.ready_ms, s.free_ms) == (9, 180_000, 3_000, 5_000)
    assert (s.tie, s.tie_rule, s.reveal, s.own_bank, s.rank_ties) == (
        "tenth", "nobody", "winner", "toggle", "time_left")
    assert (s.min_players, s.max_players, s.result_ms) == (3, 7, 5_000)


def test_time_stake_preset():
    s = PRESETS["stake"]
    assert (s.rounds, s.bank_ms, s.ready_ms, s.free_ms) == (19, 600_000, 5_000, 0)
    assert (s.tie, s.tie_margin_ms, s.tie_rule, s.own_bank, s.rank_ties) == (
        "margin", 100, "nobody", "hidden", "time_left")
    assert (s.min_players, s.max_players, s.result_ms) == (2, 8, 5_000)


def test_exactly_three_presets():
    assert set(PRESETS) == {"auction", "quick", "stake"}


def test_default_settings_are_the_full_time_auction():
    assert Settings() == PRESETS["auction"]


def test_new_game_is_an_empty_lobby_with_the_preset():
    g = new_game("WXYZ", "quick")
    assert (g.code, g.phase, g.players, g.host, g.round) == ("WXYZ", Phase.LOBBY, [], None, 0)
    assert g.settings == PRESETS["quick"]


def test_new_game_refuses_an_unknown_preset():
    with pytest.raises(InvalidSettings, match="preset must be one of auction, quick, stake"):
        new_game("WXYZ", "chess")


def test_new_game_refuses_a_preset_that_is_not_a_string():
    with pytest.raises(InvalidSettings, match="preset must be one of"):
        new_game("WXYZ", ["auction"])


# -- settings validation: every range and choice, with a clear message ------

NUMERIC = [
    # name, lowest, highest, step
    ("rounds", 1, 30, 1),
    ("bank_ms", 30_000, 1_800_000, 100),
    ("ready_ms", 2_000, 10_000, 100),
    ("free_ms", 0, 10_000, 100),
    ("tie_margin_ms", 1, 1_000, 1),
    ("result_ms", 2_000, 15_000, 100),
]


@pytest.mark.parametrize("name, low, high, step", NUMERIC)
def test_numeric_setting_accepts_both_ends(name, low, high, step):
    assert getattr(AUCTION.changed({name: low}), name) == low
    assert getattr(AUCTION.changed({name: high}), name) == high


@pytest.mark.parametrize("name, low, high, step", NUMERIC)
def test_numeric_setting_refuses_below_range(name, low, high, step):
    with pytest.raises(InvalidSettings, match=f"^{name} must be {low}–{high} in steps of {step}$"):
        AUCTION.changed({name: low - step})


@pytest.mark.parametrize("name, low, high, step", NUMERIC)
def test_numeric_setting_refuses_above_range(name, low, high, step):
    with pytest.raises(InvalidSettings, match=f"^{name} must be {low}–{high} in steps of {step}$"):
        AUCTION.changed({name: high + step})


@pytest.mark.parametrize("name", ["bank_ms", "ready_ms", "free_ms", "result_ms"])
def test_times_move_in_tenths_of_a_second(name):
    with pytest.raises(InvalidSettings, match=f"^{name} must be .* in steps of 100$"):
        AUCTION.changed({name: 5_050})


def test_players_range_is_two_to_eight():
    assert AUCTION.changed({"min_players": 2, "max_players": 8}).max_players == 8
    with pytest.raises(InvalidSettings, match="^max_players must be 2–8 in steps of 1$"):
        AUCTION.changed({"max_players": 9})
    with pytest.raises(InvalidSettings, match="^min_players must be 2–8 in steps of 1$"):
        AUCTION.changed({"min_players": 1})


def test_min_players_cannot_exceed_max_players():
    with pytest.raises(InvalidSettings, match="^min_players cannot exceed max_players$"):
        AUCTION.changed({"min_players": 5, "max_players": 4})


@pytest.mark.parametrize("name, values", [
    ("tie", ("tenth", "margin")),
    ("tie_rule", ("nobody", "all")),
    ("reveal", ("winner", "winning_bid", "all_bids")),
    ("own_bank", ("shown", "toggle", "hidden")),
    ("rank_ties", ("time_left", "shared")),
    ("suspense", ("off", "on")),
])
def test_choice_setting_accepts_every_choice_and_nothing_else(name, values):
    for value in values:
        assert getattr(AUCTION.changed({name: value}), name) == value
    with pytest.raises(InvalidSettings, match=f"^{name} must be one of {', '.join(values)}$"):
        AUCTION.changed({name: "bogus"})


def test_choice_setting_refuses_a_non_string():
    with pytest.raises(InvalidSettings, match="^tie must be one of tenth, margin$"):
        AUCTION.changed({"tie": 1})


@pytest.mark.parametrize("value", [12.0, 1.5, True, None, [12]])
def test_numeric_setting_refuses_a_value_that_is_not_a_whole_number(value):
    with pytest.raises(InvalidSettings, match="^rounds must be a whole number$"):
        AUCTION.changed({"rounds": value})


@pytest.mark.parametrize("value", [12.0, True, "12"])
def test_settings_literal_refuses_a_value_that_is_not_an_int(value):
    with pytest.raises(InvalidSettings, match="^rounds must be a whole number$"):
        Settings(rounds=value)


def test_settings_from_a_form_are_parsed():
    s = AUCTION.changed({"rounds": "12", "bank_ms": " 120000 ", "tie": "margin",
                         "tie_margin_ms": "250"})
    assert (s.rounds, s.bank_ms, s.tie, s.tie_margin_ms) == (12, 120_000, "margin", 250)


@pytest.mark.parametrize("text", ["abc", "1.5", "", " ", "12s", "1e3", "--5", "-", "²"])
def test_a_form_value_that_is_not_a_whole_number_is_refused(text):
    with pytest.raises(InvalidSettings, match="^rounds must be a whole number$"):
        AUCTION.changed({"rounds": text})


def test_a_negative_form_value_is_parsed_then_refused_by_range():
    with pytest.raises(InvalidSettings, match="^free_ms must be 0–10000 in steps of 100$"):
        AUCTION.changed({"free_ms": "-100"})


def test_unknown_setting_is_refused():
    with pytest.raises(InvalidSettings, match="^unknown setting 'speed'$"):
        AUCTION.changed({"speed": 2})


def test_changed_returns_new_settings_and_keeps_the_old():
    s = AUCTION.changed({"rounds": 5})
    assert (s.rounds, AUCTION.rounds) == (5, 19)
    assert s.to_dict() == {**AUCTION.to_dict(), "rounds": 5}


def test_settings_to_dict_names_every_setting():
    assert set(AUCTION.to_dict()) == {
        "rounds", "bank_ms", "ready_ms", "free_ms", "tie", "tie_margin_ms", "tie_rule",
        "reveal", "own_bank", "rank_ties", "min_players", "max_players", "result_ms",
        "suspense"}
