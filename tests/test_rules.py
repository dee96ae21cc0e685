"""Literal scenarios for every rule of docs/design.md ("The rules"): a state, one action,
an assertion.

Times in the scenarios (see ``scenario.game``): round 1 starts at 0 ms. Under the
Time Auction preset go is at 3000 and spending starts at 8000; under Time Stake
go and spending are both at 5000.
"""

import json

import pytest

from auction.game import suspense
from auction.game.rules import (
    PRESETS,
    AddBot,
    ChangeSettings,
    Game,
    Hold,
    InvalidSettings,
    Join,
    Joined,
    Kick,
    Leave,
    Lock,
    NameTaken,
    NotAllowed,
    Phase,
    PhaseChanged,
    Press,
    PressRefused,
    Release,
    Released,
    RemoveBot,
    RoomFull,
    RoomLocked,
    Round,
    RoundEnded,
    RoundResult,
    RuleError,
    Settings,
    Start,
    Tick,
    WrongPhase,
    apply,
    check,
    from_dict,
    last_place,
    new_game,
    next_deadline,
    standings,
    to_dict,
    winners,
)
from scenario import AUCTION, STAKE, game, lobby, player, settings

SPEND = 8_000          # spending starts here under the Time Auction preset
STAKE_SPEND = 5_000    # ... and here under Time Stake (no free window)


def bids_of(g: Game) -> dict:
    return g.history[-1].bids


def banks_of(g: Game) -> dict:
    return {p.id: p.bank_ms for p in g.players}


def tokens_of(g: Game) -> dict:
    return {p.id: p.tokens for p in g.players}


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


# -- the lobby: join, leave, kick, AI players, host ----------------------------


def test_first_to_join_hosts():
    g, events = apply(new_game("ABCD"), Join("Ann"), 0)
    assert g.players == [player("p1", "Ann")]
    assert g.host == "p1"
    assert events == [Joined("p1")]


def test_later_joiners_take_the_next_seat():
    g, events = apply(lobby("p1", "p2"), Join("Cy"), 0)
    assert [p.id for p in g.players] == ["p1", "p2", "p3"]
    assert g.player("p3").name == "Cy"
    assert g.host == "p1"
    assert events == [Joined("p3")]


def test_join_collapses_whitespace_in_the_name():
    g, _ = apply(new_game("ABCD"), Join("  Ann \t  Lee "), 0)
    assert g.player("p1").name == "Ann Lee"


@pytest.mark.parametrize("name", ["", "   ", None, 42])
def test_join_needs_a_name(name):
    with pytest.raises(RuleError, match="^a name is needed$"):
        apply(new_game("ABCD"), Join(name), 0)


def test_join_accepts_a_name_of_24_characters():
    g, _ = apply(new_game("ABCD"), Join("x" * 24), 0)
    assert g.player("p1").name == "x" * 24


def test_join_refuses_a_name_of_25_characters():
    with pytest.raises(RuleError, match="^a name has at most 24 characters$"):
        apply(new_game("ABCD"), Join("x" * 25), 0)


@pytest.mark.parametrize("name", ["Ann", "ann", " ANN "])
def test_a_name_already_in_the_room_is_refused(name):
    g, _ = apply(new_game("ABCD"), Join("Ann"), 0)
    with pytest.raises(NameTaken, match="taken in this room"):
        apply(g, Join(name), 0)


def test_a_human_cannot_take_an_ai_players_name_and_ai_players_avoid_humans_names():
    g, _ = apply(new_game("ABCD"), Join("ada"), 0)
    g, _ = apply(g, AddBot("p1"), 0)
    assert g.players[1].name == "Boole"
    with pytest.raises(NameTaken):
        apply(g, Join("BOOLE"), 0)


def test_the_last_ai_seat_takes_the_one_name_nobody_has():
    g = new_game("ABCD", "stake")
    for name in ("Ada", "Boole", "Curie", "Dirac", "Euler", "Fermi", "Hopper"):
        g, _ = apply(g, Join(name), 0)
    g, _ = apply(g, AddBot("p1"), 0)
    assert g.players[-1].name == "Gauss"


def test_join_after_the_start_is_refused():
    with pytest.raises(WrongPhase, match="already started"):
        apply(game("countdown"), Join("Late"), 1_000)


def test_join_a_full_room_is_refused():
    g = lobby("p1", "p2", settings=settings(min_players=2, max_players=2))
    with pytest.raises(RoomFull, match="^the room is full$"):
        apply(g, Join("Cy"), 0)


def test_join_fills_the_last_seat():
    g, _ = apply(lobby("p1", "p2", "p3", "p4", "p5", "p6"), Join("Gil"), 0)
    assert len(g.players) == 7
    with pytest.raises(RoomFull):
        apply(g, Join("Hal"), 0)


def test_stake_room_seats_eight():
    g = lobby(*[f"p{i}" for i in range(1, 8)], settings=STAKE)
    g, _ = apply(g, Join("Hal"), 0)
    assert len(g.players) == 8


def test_leave_in_the_lobby_frees_the_seat():
    g, events = apply(lobby(), Leave("p2"), 0)
    assert [p.id for p in g.players] == ["p1", "p3"]
    assert g.host == "p1"
    assert events == []


def test_host_leaving_the_lobby_hands_over_to_the_next_human():
    g, _ = apply(lobby(), Leave("p1"), 0)
    assert g.host == "p2"


def test_bots_never_become_host():
    g, _ = apply(lobby("p1", "b2", "b3", "p4", bots=("b2", "b3")), Leave("p1"), 0)
    assert g.host == "p4"


def test_host_leaving_with_only_bots_left_leaves_no_host():
    g, _ = apply(lobby("p1", "b2", bots=("b2",)), Leave("p1"), 0)
    assert g.host is None


def test_a_human_joining_a_hostless_lobby_becomes_host():
    g, _ = apply(lobby("b1", host=None, bots=("b1",)), Join("Ann"), 0)
    assert g.host == "p2"


def test_leave_by_someone_not_seated_is_refused():
    with pytest.raises(NotAllowed, match="^not seated in this room$"):
        apply(lobby(), Leave("p9"), 0)


def test_host_kicks_a_player():
    g, _ = apply(lobby(), Kick("p1", "p2"), 0)
    assert [p.id for p in g.players] == ["p1", "p3"]


def test_host_kicks_an_ai_player():
    g, _ = apply(lobby("p1", "p2", "b3", bots=("b3",)), Kick("p1", "b3"), 0)
    assert [p.id for p in g.players] == ["p1", "p2"]


def test_only_the_host_kicks():
    with pytest.raises(NotAllowed, match="^only the host can do that$"):
        apply(lobby(), Kick("p2", "p3"), 0)


def test_host_cannot_kick_themselves():
    with pytest.raises(RuleError, match="cannot kick themselves"):
        apply(lobby(), Kick("p1", "p1"), 0)


def test_kick_of_an_unknown_player_is_refused():
    with pytest.raises(RuleError, match="^no such player$"):
        apply(lobby(), Kick("p1", "p9"), 0)


def test_kick_during_a_game_is_refused():
    with pytest.raises(WrongPhase):
        apply(game("countdown"), Kick("p1", "p2"), 1_000)


# -- the lock, and names that draw nothing --------------------------------------


def test_the_host_locks_the_lobby_and_opens_it_again():
    g, events = apply(lobby(), Lock("p1", True), 0)
    assert g.locked and events == [] and not lobby().locked
    with pytest.raises(RoomLocked, match="locked this room") as refused:
        apply(g, Join("Dee"), 0)
    assert isinstance(refused.value, NotAllowed)       # a 403, not a 404 like a game under way
    with pytest.raises(RoomLocked):
        check(g, Join("Dee"))
    g, _ = apply(g, Lock("p1", False), 0)
    g, _ = apply(g, Join("Dee"), 0)
    assert not g.locked and g.players[-1].name == "Dee"


def test_only_the_host_locks_only_in_the_lobby_and_only_with_a_yes_or_no():
    with pytest.raises(NotAllowed, match="only the host"):
        apply(lobby(), Lock("p2", True), 0)
    with pytest.raises(NotAllowed):
        check(lobby(), Lock("p2", True))
    with pytest.raises(WrongPhase):
        apply(game("countdown"), Lock("p1", True), 1_000)
    for value in (1, "yes", None):
        with pytest.raises(RuleError, match="locked must be true or false"):
            apply(lobby(), Lock("p1", value), 0)


def test_a_game_under_way_refuses_a_join_as_before_whatever_the_lock():
    g, _ = apply(game("countdown"), Tick(), 1_000)
    g.locked = True
    with pytest.raises(WrongPhase):
        apply(g, Join("Late"), 1_000)


def test_kicking_a_person_locks_the_room_and_removing_an_ai_player_does_not():
    g, _ = apply(lobby(), Kick("p1", "p2"), 0)
    assert g.locked
    g, _ = apply(lobby("p1", "p2", "b3", bots=("b3",)), Kick("p1", "b3"), 0)
    assert not g.locked


def test_the_lock_is_kept_and_shown_to_everyone():
    from auction.game.views import view_for
    g, _ = apply(lobby(), Lock("p1", True), 0)
    assert from_dict(to_dict(g)).locked is True
    old = to_dict(lobby())
    del old["locked"]                  # a room saved before the lock
    assert from_dict(old).locked is False
    assert [view_for(g, who, 0)["locked"] for who in ("p1", "p2", None)] == [True] * 3


def test_a_rematch_lobby_is_locked_to_all_but_the_last_table():
    from auction.game.rematch import table_again
    old = lobby()
    old.phase = Phase.ENDED
    new, seats = table_again(old, {"d1": "p1", "d2": "p2"}, new_game("WXYZ"))
    assert new.locked and [p.name for p in new.players] == [p.name for p in old.players]
    assert set(seats) == {"d1", "d2"}


def test_a_name_is_normalized_nfkc():
    g, _ = apply(new_game("ABCD"), Join("\uff21\uff4e\uff4e \u2003 \ufb01"), 0)
    assert g.player("p1").name == "Ann fi"
    with pytest.raises(NameTaken):
        apply(g, Join("ANN FI"), 0)


@pytest.mark.parametrize("name", [
    "Al\u200bice", "\u202eecilA", "\u200b", "Ali\x00ce", "Bob\u2066", "\u3164", "\uffa0Bob",
    "Ann\ue000", "Ann\U000e0041", "Ann\U0010ffff", "Ann\u0378", "A\u00adnn"])
def test_a_name_with_a_character_that_draws_nothing_is_refused(name):
    with pytest.raises(RuleError, match="invisible or control characters"):
        apply(new_game("ABCD"), Join(name), 0)


def test_a_name_of_marks_alone_is_refused_and_a_name_of_any_script_or_sign_is_not():
    with pytest.raises(RuleError, match="can be seen"):
        apply(new_game("ABCD"), Join("\u0301\u0301"), 0)
    for name in ("Zo\u00eb", "\u674e\u96f7", "\u0410\u043d\u044f", "\U0001f600", "?", "42"):
        g, _ = apply(new_game("ABCD"), Join(name), 0)
        assert g.player("p1").name == name


def test_host_adds_an_ai_player():
    g, events = apply(lobby("p1", "p2"), AddBot("p1", "hard"), 0)
    bot = g.players[-1]
    assert (bot.id, bot.name, bot.bot, bot.difficulty, bot.style) == (
        "b3", "Ada", True, "hard", "aggressive")
    assert events == [Joined("b3")]


def test_ai_players_take_turns_at_three_styles_and_names():
    g = lobby("p1")
    for _ in range(4):
        g, _ = apply(g, AddBot("p1"), 0)
    bots = g.players[1:]
    assert [b.style for b in bots] == ["aggressive", "patient", "random", "aggressive"]
    assert [b.name for b in bots] == ["Ada", "Boole", "Curie", "Dirac"]
    assert {b.difficulty for b in bots} == {"medium"}


def test_ai_player_names_skip_names_already_taken():
    g = game("lobby", [player("p1", "Ada")])
    g, _ = apply(g, AddBot("p1"), 0)
    assert g.players[-1].name == "Boole"


def test_no_ai_player_joins_when_every_seat_is_taken_by_the_ai_names():
    names = ["Ada", "Boole", "Curie", "Dirac", "Euler", "Fermi", "Gauss", "Hopper"]
    g = game("lobby", [player(f"p{i}", n) for i, n in enumerate(names, 1)], settings=STAKE)
    with pytest.raises(RoomFull):
        apply(g, AddBot("p1"), 0)


def test_only_the_host_adds_ai_players():
    with pytest.raises(NotAllowed):
        apply(lobby(), AddBot("p2"), 0)


def test_ai_player_difficulty_must_be_known():
    with pytest.raises(RuleError, match="^difficulty must be one of easy, medium, hard$"):
        apply(lobby(), AddBot("p1", "expert"), 0)


def test_ai_player_cannot_join_a_full_room():
    g = lobby(*[f"p{i}" for i in range(1, 8)])
    with pytest.raises(RoomFull):
        apply(g, AddBot("p1"), 0)


def test_ai_players_are_not_added_during_a_game():
    with pytest.raises(WrongPhase):
        apply(game("countdown"), AddBot("p1"), 1_000)


def test_remove_bot_removes_the_last_ai_player_added():
    g, _ = apply(lobby("p1", "b2", "b3", bots=("b2", "b3")), RemoveBot("p1"), 0)
    assert [p.id for p in g.players] == ["p1", "b2"]


def test_remove_bot_removes_the_named_ai_player():
    g, _ = apply(lobby("p1", "b2", "b3", bots=("b2", "b3")), RemoveBot("p1", "b2"), 0)
    assert [p.id for p in g.players] == ["p1", "b3"]


def test_remove_bot_refuses_a_human():
    with pytest.raises(RuleError, match="^no such AI player$"):
        apply(lobby("p1", "p2", "b3", bots=("b3",)), RemoveBot("p1", "p2"), 0)


def test_remove_bot_without_ai_players_is_refused():
    with pytest.raises(RuleError, match="^no such AI player$"):
        apply(lobby(), RemoveBot("p1"), 0)


def test_only_the_host_removes_ai_players():
    with pytest.raises(NotAllowed):
        apply(lobby("p1", "p2", "b3", bots=("b3",)), RemoveBot("p2"), 0)


def test_ai_players_are_not_removed_during_a_game():
    with pytest.raises(WrongPhase):
        apply(game("countdown", ("p1", "p2", "b3"), bots=("b3",)), RemoveBot("p1"), 1_000)


# -- changing settings in the lobby ---------------------------------------------


def test_host_changes_settings():
    g, _ = apply(lobby(), ChangeSettings("p1", {"rounds": "7", "reveal": "all_bids"}), 0)
    assert (g.settings.rounds, g.settings.reveal) == (7, "all_bids")
    assert g.settings.bank_ms == AUCTION.bank_ms


def test_only_the_host_changes_settings():
    with pytest.raises(NotAllowed):
        apply(lobby(), ChangeSettings("p2", {"rounds": 7}), 0)


def test_settings_cannot_change_during_a_game():
    with pytest.raises(WrongPhase):
        apply(game("countdown"), ChangeSettings("p1", {"rounds": 7}), 1_000)


def test_a_preset_key_resets_to_that_preset():
    g = lobby(settings=settings(rounds=5, reveal="all_bids"))
    g, _ = apply(g, ChangeSettings("p1", {"preset": "quick"}), 0)
    assert g.settings == PRESETS["quick"]


def test_a_preset_key_applies_the_other_changes_on_top():
    changes = {"tie_rule": "all", "rank_ties": "shared", "reveal": "all_bids"}
    g, _ = apply(lobby(), ChangeSettings("p1", {"preset": "stake", **changes}), 0)
    assert g.settings == PRESETS["stake"].changed(changes)
    assert (g.settings.tie, g.settings.tie_rule, g.settings.reveal) == ("margin", "all", "all_bids")


@pytest.mark.parametrize("preset", ["chess", None, ["stake"]])
def test_an_unknown_preset_is_refused(preset):
    with pytest.raises(InvalidSettings, match="^preset must be one of auction, quick, stake$"):
        apply(lobby(), ChangeSettings("p1", {"preset": preset}), 0)


def test_max_players_below_the_seated_count_is_refused():
    with pytest.raises(InvalidSettings, match="^4 players are seated; max_players is too low$"):
        apply(lobby("p1", "p2", "p3", "p4"), ChangeSettings("p1", {"max_players": 3}), 0)


def test_max_players_equal_to_the_seated_count_is_allowed():
    g, _ = apply(lobby("p1", "p2", "p3", "p4"), ChangeSettings("p1", {"max_players": 4}), 0)
    assert g.settings.max_players == 4


def test_invalid_settings_change_leaves_the_settings_alone():
    g = lobby()
    with pytest.raises(InvalidSettings):
        apply(g, ChangeSettings("p1", {"rounds": 5, "bank_ms": 10}), 0)
    assert g.settings == AUCTION


# -- start -----------------------------------------------------------------------


def test_start_deals_full_banks_and_opens_the_first_countdown():
    g, events = apply(lobby(), Start("p1"), 1_000)
    assert g.phase is Phase.COUNTDOWN
    assert (g.round, g.phase_end_ms) == (1, 4_000)
    assert g.current == Round(1, 1_000, 4_000, 9_000, {})
    assert banks_of(g) == {"p1": 600_000, "p2": 600_000, "p3": 600_000}
    assert tokens_of(g) == {"p1": 0, "p2": 0, "p3": 0}
    assert events == [PhaseChanged(Phase.COUNTDOWN, 1_000)]


def test_quick_game_deals_three_minutes():
    g, _ = apply(lobby(settings=PRESETS["quick"]), Start("p1"), 0)
    assert set(banks_of(g).values()) == {180_000}


def test_time_auction_needs_three_players():
    with pytest.raises(WrongPhase, match="^this game needs 3–7 players$"):
        apply(lobby("p1", "p2"), Start("p1"), 0)


def test_time_auction_refuses_eight_players():
    g = lobby(*[f"p{i}" for i in range(1, 9)])
    with pytest.raises(WrongPhase, match="^this game needs 3–7 players$"):
        apply(g, Start("p1"), 0)


def test_time_stake_starts_with_two_players():
    g, _ = apply(lobby("p1", "p2", settings=STAKE), Start("p1"), 0)
    assert g.phase is Phase.COUNTDOWN


def test_time_stake_needs_two_players():
    with pytest.raises(WrongPhase, match="^this game needs 2–8 players$"):
        apply(lobby("p1", settings=STAKE), Start("p1"), 0)


def test_time_stake_starts_with_eight_players():
    g, _ = apply(lobby(*[f"p{i}" for i in range(1, 9)], settings=STAKE), Start("p1"), 0)
    assert len(g.players) == 8 and g.phase is Phase.COUNTDOWN


def test_ai_players_count_towards_the_players():
    g, _ = apply(lobby("p1", "b2", "b3", bots=("b2", "b3")), Start("p1"), 0)
    assert g.phase is Phase.COUNTDOWN


def test_only_the_host_starts():
    with pytest.raises(NotAllowed, match="^only the host can do that$"):
        apply(lobby(), Start("p2"), 0)


def test_a_hostless_lobby_cannot_start():
    with pytest.raises(NotAllowed):
        apply(lobby("b1", "b2", "b3", host=None, bots=("b1", "b2", "b3")), Start("b1"), 0)


def test_start_during_a_game_is_refused():
    with pytest.raises(WrongPhase, match="already started"):
        apply(game("countdown"), Start("p1"), 1_000)


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


# -- check: refusals decided from the stored room, before anything else ------------


@pytest.mark.parametrize("action", [Start("p2"), Kick("p2", "p3"), AddBot("p2"), RemoveBot("p2"),
                                    ChangeSettings("p2", {"rounds": 3})])
def test_check_refuses_host_actions_by_anyone_else(action):
    with pytest.raises(NotAllowed):
        check(lobby(), action)


@pytest.mark.parametrize("action", [Start("p1"), AddBot("p1"), Join("Late")])
def test_check_refuses_lobby_actions_once_the_game_is_on(action):
    with pytest.raises(WrongPhase):
        check(game("spending", holds={"p2": 0}), action)


@pytest.mark.parametrize("action", [Start("p1"), Join("Dee"), Press("p2"), Release("p2"),
                                    Leave("p3"), Tick()])
def test_check_lets_through_what_only_apply_can_judge(action):
    assert check(lobby(), action) is None


# -- the entry grace: nothing about the round shows until it has passed -------------

GRACE = 900     # the server's default: 2 round trips of the 300 ms cap, plus one ping


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
    result = RoundResult(1, {"p1": 1_000, "p2": 2_000, "p3": None}, ("p2",), False)
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


# -- ties ----------------------------------------------------------------------------


def test_same_tenth_is_a_tie_and_nobody_wins():
    g = game("spending", holds={"p1": (0, SPEND + 5_040), "p2": 0})
    g, _ = apply(g, Release("p2"), SPEND + 5_090)
    assert g.history == [RoundResult(1, {"p1": 5_000, "p2": 5_000, "p3": None}, (), True)]
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
    assert g.history == [RoundResult(1, {"p1": 5_040, "p2": 5_090, "p3": None}, (), True)]
    assert banks_of(g) == {"p1": 594_960, "p2": 594_910, "p3": 600_000}


def test_exactly_the_margin_from_the_top_is_a_tie():
    g = game("spending", holds={"p1": (0, STAKE_SPEND + 5_000), "p2": 0}, settings=STAKE)
    g, _ = apply(g, Release("p2"), STAKE_SPEND + 5_100)
    assert g.history[-1].tie and g.history[-1].winners == ()


def test_just_outside_the_margin_is_no_tie():
    g = game("spending", holds={"p1": (0, STAKE_SPEND + 4_999), "p2": 0}, settings=STAKE)
    g, _ = apply(g, Release("p2"), STAKE_SPEND + 5_100)
    assert g.history[-1] == RoundResult(1, {"p1": 4_999, "p2": 5_100, "p3": None}, ("p2",), False)
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
    assert g.history == [RoundResult(1, {"p1": 5_000, "p2": 5_000, "p3": 100}, ("p1", "p2"), True)]
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
    assert g.history[-1] == RoundResult(1, {"p1": 5_000, "p2": 5_000, "p3": 5_000}, (), True)


def test_a_tie_below_the_top_bid_does_not_matter():
    g = game("spending", holds={"p1": (0, SPEND + 1_000), "p2": (0, SPEND + 1_050), "p3": 0})
    g, _ = apply(g, Release("p3"), SPEND + 2_000)
    assert g.history[-1].winners == ("p3",) and not g.history[-1].tie


def test_tie_rule_all_without_a_tie_gives_one_token():
    g = game("spending", holds={"p1": (0, SPEND + 1_000), "p2": 0}, settings=settings(tie_rule="all"))
    g, _ = apply(g, Release("p2"), SPEND + 2_000)
    assert g.history[-1].winners == ("p2",) and not g.history[-1].tie


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
    assert g.history[-1] == RoundResult(1, {"p1": 30_000, "p2": 30_000, "p3": None}, (), True)
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
    game("ended", ("p1", "b2"), bots=("b2",), tokens={"b2": 1}, banks={"p1": 12_345},
         history=[({"b2": 5_000}, ("b2",))], settings=settings(rank_ties="shared", rounds=1)),
], ids=["new", "lobby", "countdown", "spending", "result", "ended"])
def test_to_dict_and_from_dict_round_trip_through_json(g):
    data = json.loads(json.dumps(to_dict(g)))
    assert data == to_dict(g)
    assert from_dict(data) == g


def test_a_restored_game_plays_on_identically():
    g = game("spending", holds={"p1": 0, "p2": 0}, banks={"p2": 30_000})
    restored = from_dict(json.loads(json.dumps(to_dict(g))))
    assert apply(restored, Tick(), 10**6) == apply(g, Tick(), 10**6)


def test_from_dict_validates_the_settings():
    data = to_dict(lobby())
    data["settings"]["rounds"] = 99
    with pytest.raises(InvalidSettings):
        from_dict(data)


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
    assert g.phase_end_ms == 6_000 + pause + SUSPENSE.result_ms


def test_suspense_changes_when_a_result_shows_not_what_it_is():
    plain = game("spending", settings=STAKE, holds={"p1": 0, "p2": 0})
    wait = suspended(holds={"p1": 0, "p2": 0})
    for g in (plain, wait):
        g, _ = apply(g, Release("p1"), 6_000)
        g, _ = apply(g, Release("p2"), 7_234)
        g, _ = apply(g, Tick(), 10_300)    # past the longest pause, within the result
        assert (g.history, banks_of(g), tokens_of(g)) == (
            [RoundResult(1, {"p1": 1_000, "p2": 2_234, "p3": None}, ("p2",), False)],
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
    assert g.phase_end_ms == 7_500 + suspense.pause_ms(seed, 1) + AUCTION.result_ms
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
