"""The rules of docs/design.md ("The rules"), scenario by scenario: the lobby: joining,
leaving, kicking, the host, the lock, and names that draw nothing.

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

import pytest

from auction.game.rules import (
    AddBot,
    Join,
    Joined,
    Kick,
    Leave,
    Lock,
    NameTaken,
    NotAllowed,
    Phase,
    RoomFull,
    RoomLocked,
    RuleError,
    Tick,
    WrongPhase,
    apply,
    check,
    from_dict,
    new_game,
    to_dict,
)
from scenario import STAKE, game, lobby, player, settings


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


# Unicode 14.0's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), range by range.
DEFAULT_IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
                     (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
                     (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
                     (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF)]


@pytest.mark.parametrize("low, high", DEFAULT_IGNORABLE)
def test_a_name_with_any_default_ignorable_code_point_is_refused(low, high):
    """Every one of them, inside a name, at its end and alone: some are marks (the
    variation selectors, Mongolian's, the grapheme joiner) that no category check
    catches, and "Alice\ufe0f" passed for Alice."""
    for code in range(low, high + 1):
        for name in (f"Al{chr(code)}ice", f"Alice{chr(code)}", chr(code)):
            with pytest.raises(RuleError, match="invisible or control characters|can be seen"):
                apply(new_game("ABCD"), Join(name), 0)


def test_a_presentation_selector_is_taken_only_right_after_a_symbol():
    """Phones write many emoji with U+FE0F after the symbol: that chooses how something
    visible is drawn. After a letter, another selector, or a space, it draws nothing."""
    for name in ("Ann \u2764\ufe0f", "\u263a\ufe0f", "\u2764\ufe0e Bo", "Cy \u2600\ufe0f!"):
        g, _ = apply(new_game("ABCD"), Join(name), 0)
        assert g.player("p1").name == name
    for name in ("Alice\ufe0f", "Ann \ufe0f", "\u2764\ufe0f\ufe0f", "\ufe0fAnn",
                 "Ann\ufe0e", "\u2764\ufe01", "\u2764\U000e0100"):
        with pytest.raises(RuleError, match="invisible or control characters"):
            apply(new_game("ABCD"), Join(name), 0)


def test_a_name_of_marks_alone_is_refused_and_a_name_of_any_script_or_sign_is_not():
    with pytest.raises(RuleError, match="can be seen"):
        apply(new_game("ABCD"), Join("\u0301\u0301"), 0)
    for name in ("Zo\u00eb", "\u674e\u96f7", "\u0410\u043d\u044f", "\U0001f600", "?", "42"):
        g, _ = apply(new_game("ABCD"), Join(name), 0)
        assert g.player("p1").name == name


# -- a game against the computer (POST /solo) and the rule book a room plays ------

def test_solo_seats_every_chair_with_one_difficulty_and_hides_the_bank_only_against_hard():
    from auction.game import rules as R
    for difficulty, hidden in (("easy", False), ("medium", False), ("hard", True)):
        game = R.solo(5, difficulty, "quick")
        assert game.preset == "quick"
        state, events = R.apply(R.new_game("ABCD", game.preset), R.Join("Me"), 0)
        host = events[0].player
        for make in game.setup:
            state, _ = R.apply(state, make(host), 0)
        bots = [p for p in state.players if p.bot]
        assert len(state.players) == 5 and len(bots) == 4
        assert {p.difficulty for p in bots} == {difficulty}
        assert state.settings.max_players == 5
        assert (state.settings.own_bank == "hidden") is hidden
    assert R.solo(4, "medium", "full").preset == "auction"


@pytest.mark.parametrize("players,difficulty,mode", [
    (None, "medium", "full"), (3, "medium", "full"), (7, "medium", "full"),
    (5, "brutal", "full"), (5, "medium", "long")])
def test_a_solo_game_out_of_bounds_is_refused(players, difficulty, mode):
    from auction.game import rules as R
    with pytest.raises(R.RuleError):
        R.solo(players, difficulty, mode)


def test_the_preset_of_settings_ignores_seats_and_the_bank_display_only():
    from auction.game import rules as R
    for name, preset in R.PRESETS.items():
        assert R.preset_of(preset.to_dict()) == name
        assert R.preset_of({**preset.to_dict(), "max_players": 3, "own_bank": "hidden"}) == name
    assert R.preset_of({**R.PRESETS["auction"].to_dict(), "rounds": 5}) is None
