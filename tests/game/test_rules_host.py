"""The rules of docs/design.md ("The rules"), scenario by scenario: what the host does
in the lobby (AI players, settings, the start), and the refusals `check` decides from
the stored room.

A literal state, one action, an assertion (times: ``rules_helpers``).
"""

import pytest

from auction.game.rules import (
    PRESETS,
    AddBot,
    ChangeSettings,
    InvalidSettings,
    Join,
    Joined,
    Kick,
    Leave,
    NotAllowed,
    Phase,
    PhaseChanged,
    Press,
    Release,
    RemoveBot,
    RoomFull,
    Round,
    RuleError,
    Start,
    Tick,
    WrongPhase,
    apply,
    check,
)
from rules_helpers import banks_of, tokens_of
from scenario import AUCTION, STAKE, game, lobby, player, settings


# -- AI players: the host adds and removes them in the lobby -------------------------


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
