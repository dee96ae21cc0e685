"""The projection: field names of docs/protocol.md's view, and nothing hidden leaks.

Scenarios as in the rules tests (rules_helpers.py): round 1 starts at 0 ms; under
the Time Auction preset go is at 3000 and spending starts at 8000.
"""

import json

import pytest

from auction.game import suspense
from auction.game.rules import Phase, Press, Release, RoundResult, Tick, apply
from auction.game.views import view_for
from scenario import AUCTION, STAKE, game, lobby, settings

SPEND = 8_000


def dump(view) -> str:
    return json.dumps(view, sort_keys=True)


def finished(**changes):
    """A game over after two rounds: p2 won round 1 with 5.0 s, p1 round 2 with 2.0 s."""
    return game(
        "ended", round=2, settings=settings(rounds=2, **changes),
        tokens={"p1": 1, "p2": 1}, banks={"p1": 594_000, "p2": 595_000, "p3": 600_000},
        history=[
            RoundResult(1, {"p1": 4_000, "p2": 5_000, "p3": None}, ("p2",), False),
            RoundResult(2, {"p1": 2_000, "p2": None, "p3": None}, ("p1",), False),
        ],
    )


def after_round(**changes):
    """The result of round 1: p2 bid 5.0 s and won, p1 bid 4.0 s, p3 sat out."""
    return game(
        "result", result_end=20_000, settings=settings(**changes), tokens={"p2": 1},
        banks={"p1": 596_000, "p2": 595_000},
        history=[RoundResult(1, {"p1": 4_000, "p2": 5_000, "p3": None}, ("p2",), False)],
    )


# -- the fields of docs/protocol.md --------------------------------------------------------


def test_view_has_the_protocol_fields():
    view = view_for(after_round(), "p1", 16_000)
    assert set(view) == {"code", "phase", "round", "rounds", "deadline_ms", "deadline_at_ms",
                         "elapsed_ms", "settings", "me",
                         "players", "history", "final", "rematch", "kind",
                         "locked"}   # added (docs/protocol.md)


def test_view_settings_have_the_protocol_names():
    view = view_for(lobby(), "p1", 0)
    assert set(view["settings"]) >= {"rounds", "bank_ms", "ready_ms", "free_ms", "tie",
                                     "tie_margin_ms", "tie_rule", "reveal", "own_bank",
                                     "rank_ties", "max_players"}
    assert view["settings"] == AUCTION.to_dict()


def test_view_me_has_the_protocol_fields():
    me = view_for(game("countdown"), "p1", 1_000)["me"]
    assert set(me) >= {"id", "name", "host", "holding", "in_round", "bank_ms", "tokens"}
    assert (me["id"], me["name"], me["host"], me["tokens"]) == ("p1", "P1", True, 0)


def test_view_players_have_the_protocol_fields():
    players = view_for(game("countdown", ("p1", "b2"), bots=("b2",)), "p1", 1_000)["players"]
    assert all(set(p) >= {"id", "name", "tokens", "bot", "host"} for p in players)
    assert [(p["id"], p["bot"], p["host"]) for p in players] == [("p1", False, True), ("b2", True, False)]


def test_view_tells_the_rooms_kind_and_the_ai_players_styles_outside_the_rounds():
    g = game("countdown", ("p1", "b2"), bots=("b2",))
    g.players[1].style = "patient"
    g.players[0].style = "secret"           # a human has no style to show, whatever is stored
    assert view_for(g, "p1", 1_000)["kind"] == "online"
    assert [p["style"] for p in view_for(g, "p1", 1_000)["players"]] == [None, None]
    for phase in (Phase.LOBBY, Phase.ENDED):
        g.phase = phase
        assert [p["style"] for p in view_for(g, "p1", 1_000)["players"]] == [None, "patient"]
    g.kind = "solo"
    assert view_for(g, None, 1_000)["kind"] == "solo"


def test_view_history_has_the_protocol_fields():
    (entry,) = view_for(after_round(), "p1", 16_000)["history"]
    assert set(entry) >= {"round", "winner", "tie", "my_bid_ms", "winning_bid_ms", "bids"}


def test_view_final_has_the_protocol_fields():
    final = view_for(finished(), "p1", 0)["final"]
    assert set(final) == {"standings", "winners", "last", "bids"}
    assert all(set(s) == {"id", "place", "tokens", "bank_ms"} for s in final["standings"])
    assert all(set(r) == {"round", "bids"} for r in final["bids"])


def test_view_top_level_values():
    view = view_for(after_round(), "p1", 16_000)
    assert (view["code"], view["phase"], view["round"], view["rounds"]) == ("ABCD", "result", 1, 19)


@pytest.mark.parametrize("g", [
    lobby(), game("countdown", holds={"p1": 0}), game("free", holds={"p1": 0}),
    game("spending", holds={"p1": 0}), after_round(reveal="all_bids"), finished(),
], ids=["lobby", "countdown", "free", "spending", "result", "ended"])
def test_view_is_plain_json(g):
    view = view_for(g, "p1", 1_000)
    assert json.loads(json.dumps(view)) == view


def test_view_does_not_change_the_game():
    g = game("spending", holds={"p1": 0})
    copy = g.copy()
    view_for(g, "p1", 9_000)
    assert g == copy


# -- spectators ----------------------------------------------------------------------------


def test_spectator_view_has_no_me():
    assert view_for(game("countdown"), None, 1_000)["me"] is None


def test_an_unknown_player_sees_what_a_spectator_sees():
    g = after_round(reveal="all_bids")
    assert view_for(g, "p9", 16_000) == view_for(g, None, 16_000)


def test_spectator_has_no_bid_of_their_own():
    (entry,) = view_for(after_round(), None, 16_000)["history"]
    assert entry["my_bid_ms"] is None


def test_spectator_sees_every_name_and_token_count():
    players = view_for(after_round(), None, 16_000)["players"]
    assert [(p["name"], p["tokens"]) for p in players] == [("P1", 0), ("P2", 1), ("P3", 0)]


# -- the deadline ----------------------------------------------------------------------------


def test_deadline_in_the_countdown_is_the_time_to_go():
    assert view_for(game("countdown"), "p1", 1_000)["deadline_ms"] == 2_000


def test_deadline_in_the_free_window_is_the_time_to_spending():
    assert view_for(game("free", holds={"p1": 0}), "p1", 3_500)["deadline_ms"] == 4_500


def test_deadline_in_the_result_is_the_time_to_the_next_countdown():
    assert view_for(after_round(), "p1", 16_000)["deadline_ms"] == 4_000


def test_deadline_at_names_go_on_the_servers_clock_however_late_the_view():
    for now in (0, 1_000, 2_900):
        view = view_for(game("countdown"), "p1", now)
        assert view["deadline_at_ms"] == 3_000 == now + view["deadline_ms"]


def test_a_results_time_left_tells_its_end_only_to_the_tenth():
    """The result's first view is made as the round ends: its time left is rounded up to
    a whole tenth, like the moment it names, so neither tells that end (the top bid)."""
    g, _ = apply(game("free", holds={"p1": (0, 4_000), "p2": 0}), Release("p2"), 5_043)
    view = view_for(g, "p1", 5_043)
    assert view["deadline_at_ms"] == 10_100 and view["deadline_ms"] == 5_100


@pytest.mark.parametrize("g", [lobby(), game("spending", holds={"p1": 0}), finished()],
                         ids=["lobby", "spending", "ended"])
def test_no_deadline_moment_where_there_is_no_deadline(g):
    assert view_for(g, "p1", 9_000)["deadline_at_ms"] is None


def test_overdue_deadline_shows_zero():
    assert view_for(game("countdown"), "p1", 3_700)["deadline_ms"] == 0


@pytest.mark.parametrize("g", [lobby(), game("spending", holds={"p1": 0}), finished()],
                         ids=["lobby", "spending", "ended"])
def test_no_deadline_where_the_phase_ends_by_a_release_or_an_action(g):
    assert view_for(g, "p1", 9_000)["deadline_ms"] is None


def test_spending_deadline_does_not_reveal_when_a_bank_runs_out():
    g = game("spending", holds={"p1": 0, "p2": 0}, banks={"p2": 30_000})
    assert view_for(g, "p1", 9_000)["deadline_ms"] is None


# -- my seat ---------------------------------------------------------------------------------


def test_me_not_pressed():
    me = view_for(game("countdown"), "p1", 1_000)["me"]
    assert (me["holding"], me["in_round"]) == (False, False)


def test_me_holding():
    me = view_for(game("countdown", holds={"p1": 500}), "p1", 1_000)["me"]
    assert (me["holding"], me["in_round"]) == (True, True)


def test_me_let_go_in_the_countdown_is_out():
    me = view_for(game("countdown", holds={"p1": (500, 900)}), "p1", 1_000)["me"]
    assert (me["holding"], me["in_round"]) == (False, False)


def test_me_holding_at_go_stays_in_the_round_after_letting_go():
    me = view_for(game("spending", holds={"p1": (500, 9_000), "p2": 0}), "p1", 9_500)["me"]
    assert (me["holding"], me["in_round"]) == (False, True)


def test_me_outside_a_round():
    me = view_for(after_round(), "p1", 16_000)["me"]
    assert (me["holding"], me["in_round"]) == (False, False)


def test_me_is_the_host():
    g = game("countdown")
    assert view_for(g, "p1", 0)["me"]["host"] is True
    assert view_for(g, "p2", 0)["me"]["host"] is False


def test_me_shows_my_tokens():
    assert view_for(after_round(), "p2", 16_000)["me"]["tokens"] == 1


# -- own bank: shown, toggle, hidden ----------------------------------------------------------


def test_own_bank_shown():
    g = game("spending", holds={"p1": 0}, banks={"p1": 123_400}, settings=settings(own_bank="shown"))
    assert view_for(g, "p1", 9_000)["me"]["bank_ms"] == 123_400


def test_own_bank_toggle_sends_the_bank_for_the_page_to_show_or_hide():
    g = game("spending", holds={"p1": 0}, banks={"p1": 123_400}, settings=settings(own_bank="toggle"))
    assert view_for(g, "p1", 9_000)["me"]["bank_ms"] == 123_400


def test_own_bank_hidden():
    g = game("spending", holds={"p1": 0}, banks={"p1": 123_400}, settings=settings(own_bank="hidden"))
    assert view_for(g, "p1", 9_000)["me"]["bank_ms"] is None
    assert "123400" not in dump(view_for(g, "p1", 9_000))


def test_own_bank_hidden_in_the_lobby_and_the_result():
    for g in (lobby(settings=STAKE), after_round(own_bank="hidden")):
        assert view_for(g, "p1", 16_000)["me"]["bank_ms"] is None


def test_own_bank_hidden_becomes_visible_at_the_end():
    assert view_for(finished(own_bank="hidden"), "p1", 0)["me"]["bank_ms"] == 594_000


def margin_round(**changes):
    """Round 1 of a margin game: millisecond bids, p2 won by 40 ms."""
    return game(
        "result", result_end=20_000, tokens={"p2": 1},
        settings=settings("stake", tie_margin_ms=10, **changes),
        history=[RoundResult(1, {"p1": 4_321, "p2": 4_361, "p3": None}, ("p2",), False)],
    )


def test_with_the_own_bank_hidden_bids_go_out_to_the_tenth_the_page_shows():
    view = view_for(margin_round(own_bank="hidden", reveal="all_bids"), "p1", 16_000)
    (entry,) = view["history"]
    assert entry["my_bid_ms"] == 4_300 and entry["winning_bid_ms"] == 4_300
    assert entry["bids"] == {"p1": 4_300, "p2": 4_300, "p3": None}
    assert "4321" not in dump(view) and "4361" not in dump(view)


def test_with_the_own_bank_shown_bids_keep_their_milliseconds():
    view = view_for(margin_round(own_bank="shown", reveal="winning_bid"), "p1", 16_000)
    (entry,) = view["history"]
    assert (entry["my_bid_ms"], entry["winning_bid_ms"]) == (4_321, 4_361)


def test_at_the_end_every_bid_shows_to_the_millisecond():
    g = margin_round(own_bank="hidden", reveal="winner")
    g.phase, g.phase_end_ms = Phase.ENDED, None
    view = view_for(g, "p1", 0)
    assert view["history"][0]["my_bid_ms"] == 4_321
    assert view["final"]["bids"][0]["bids"]["p2"] == 4_361


# -- reveal: winner, winning bid, every bid ----------------------------------------------------


def test_reveal_winner_shows_only_the_winner_and_my_bid():
    (entry,) = view_for(after_round(reveal="winner"), "p1", 16_000)["history"]
    assert entry == {"round": 1, "winner": "p2", "winners": ["p2"], "tie": False,
                     "my_bid_ms": 4_000, "winning_bid_ms": None, "bids": None, "clock_ms": None}


def test_reveal_winner_never_shows_another_bid():
    view = view_for(after_round(reveal="winner"), "p1", 16_000)
    assert "5000" not in dump({k: v for k, v in view.items() if k != "settings"})
    assert "4000" in dump(view["history"])


def test_reveal_winning_bid_adds_the_winning_bid():
    (entry,) = view_for(after_round(reveal="winning_bid"), "p1", 16_000)["history"]
    assert (entry["winner"], entry["my_bid_ms"], entry["winning_bid_ms"], entry["bids"]) == (
        "p2", 4_000, 5_000, None)


def test_reveal_all_bids_shows_every_bid():
    (entry,) = view_for(after_round(reveal="all_bids"), "p1", 16_000)["history"]
    assert entry["bids"] == {"p1": 4_000, "p2": 5_000, "p3": None}
    assert entry["winning_bid_ms"] == 5_000


def test_my_bid_when_i_sat_out_is_none():
    (entry,) = view_for(after_round(), "p3", 16_000)["history"]
    assert entry["my_bid_ms"] is None


def test_a_tie_nobody_wins_shows_no_winner():
    g = game("result", result_end=20_000, settings=settings(reveal="winning_bid"),
             history=[RoundResult(1, {"p1": 5_000, "p2": 5_000, "p3": None}, (), True)])
    (entry,) = view_for(g, "p3", 16_000)["history"]
    assert (entry["winner"], entry["winners"], entry["tie"]) == (None, [], True)
    assert entry["winning_bid_ms"] == 5_000


def test_a_tie_every_tied_player_wins_lists_the_winners():
    g = game("result", result_end=20_000, settings=settings(tie_rule="all"), tokens={"p1": 1, "p2": 1},
             history=[RoundResult(1, {"p1": 5_000, "p2": 5_000, "p3": None}, ("p1", "p2"), True)])
    (entry,) = view_for(g, "p3", 16_000)["history"]
    assert (entry["winner"], entry["winners"], entry["tie"]) == (None, ["p1", "p2"], True)


def test_a_round_nobody_entered():
    g = game("result", result_end=20_000, settings=settings(reveal="all_bids"),
             history=[RoundResult(1, {"p1": None, "p2": None, "p3": None}, (), False)])
    (entry,) = view_for(g, "p1", 16_000)["history"]
    assert (entry["winner"], entry["winning_bid_ms"], entry["my_bid_ms"]) == (None, None, None)


# -- the round's clock: what every watcher read off it --------------------------------------


def clocked(p1=4_321, p2=5_678, p3=None, **changes):
    """Round 1 played through the rules: p1 and p2 held from the countdown and let go
    at these bids (None: sat out); the game at the result, and the result's moment."""
    holds = {pid: 0 for pid, bid in (("p1", p1), ("p2", p2), ("p3", p3)) if bid is not None}
    g = game("spending", settings=settings(**changes), holds=holds)
    g.seed = "s"
    ends = sorted((bid, pid) for pid, bid in (("p1", p1), ("p2", p2), ("p3", p3))
                  if bid is not None)
    for bid, pid in ends:
        g, _ = apply(g, Release(pid), SPEND + bid)
    g, _ = apply(g, Tick(), SPEND + ends[-1][0] + 3_001)     # past any suspense pause
    assert g.phase is Phase.RESULT
    return g


@pytest.mark.parametrize("reveal", ["winner", "winning_bid", "all_bids"])
def test_the_clock_shows_the_top_bid_to_the_tenth_to_everyone_whatever_the_reveal(reveal):
    g = clocked(reveal=reveal)
    for who in ("p1", "p2", "p3", None):
        (entry,) = view_for(g, who, SPEND + 6_000)["history"]
        assert entry["clock_ms"] == 5_600
    assert g.history[0].clock_ms == 5_600


def test_the_clock_tells_no_more_than_the_result_screen_named():
    """The result's deadline_at_ms (sent as the round ended) already names its end to the
    tenth: the clock in the history is that end, less the result screen and spending's start."""
    g = clocked()
    view = view_for(g, None, SPEND + 5_678)
    (entry,) = view["history"]
    end_named = view["deadline_at_ms"] - AUCTION.result_ms - SPEND
    assert end_named - 100 <= entry["clock_ms"] <= end_named


def test_the_clock_carries_no_bid_but_the_top_and_names_no_bidder():
    """With the winner alone shown, only the top bid's tenth is new: the losing bid, who
    bid it and who sat out reach no one else's view, byte for byte."""
    a = clocked(p1=4_321, p2=5_678, p3=None)
    b = clocked(p1=None, p2=5_678, p3=1_234)
    c = clocked(p1=700, p2=5_612, p3=5_000)         # another top bid in the same tenth
    for who in ("p2", None):
        assert dump(view_for(a, who, SPEND + 6_000)) == dump(view_for(b, who, SPEND + 6_000))
        assert dump(view_for(a, who, SPEND + 6_000)) == dump(view_for(c, who, SPEND + 6_000))
    text = dump(view_for(a, "p3", SPEND + 6_000))
    assert "4321" not in text and "4300" not in text and "5678" not in text


def test_with_suspense_on_no_view_carries_the_clock():
    g = clocked(suspense="on")
    assert g.history[0].clock_ms is None
    g.history[0].clock_ms = 5_600       # even a clock kept by an older build: not sent
    ended = apply(g, Tick(), 10**8)[0]      # every later round passes empty, to the end
    assert ended.phase is Phase.ENDED
    for who in ("p1", "p2", "p3", None):
        for state in (g, ended):
            history = view_for(state, who, 10**8)["history"]
            assert all(entry["clock_ms"] is None for entry in history)
            if who != "p2" and state is g:       # p2's own bid is 5.6 s; the end shows all
                assert "5600" not in dump(history)


def test_a_round_that_ended_before_spending_showed_no_clock():
    g = game("free", holds={"p1": (0, 4_000)})
    g, _ = apply(g, Tick(), 10**6)
    assert g.history[0].clock_ms is None
    assert view_for(g, None, 10**6)["history"][0]["clock_ms"] is None


# -- the final screen ---------------------------------------------------------------------------


def test_final_is_none_before_the_end():
    assert view_for(after_round(), "p1", 16_000)["final"] is None


def test_final_standings_winners_last_and_every_bid():
    final = view_for(finished(), "p3", 0)["final"]
    assert final == {
        "standings": [
            {"id": "p2", "place": 1, "tokens": 1, "bank_ms": 595_000},
            {"id": "p1", "place": 2, "tokens": 1, "bank_ms": 594_000},
            {"id": "p3", "place": 3, "tokens": 0, "bank_ms": 600_000},
        ],
        "winners": ["p2"],
        "last": ["p3"],
        "bids": [
            {"round": 1, "bids": {"p1": 4_000, "p2": 5_000, "p3": None}},
            {"round": 2, "bids": {"p1": 2_000, "p2": None, "p3": None}},
        ],
    }


def test_final_shows_every_bid_whatever_the_reveal_setting():
    for reveal in ("winner", "winning_bid", "all_bids"):
        final = view_for(finished(reveal=reveal), None, 0)["final"]
        assert final["bids"][0]["bids"] == {"p1": 4_000, "p2": 5_000, "p3": None}


def test_final_with_joint_winners():
    g = game("ended", tokens={"p1": 1, "p2": 1}, settings=settings(rank_ties="shared"))
    assert view_for(g, None, 0)["final"]["winners"] == ["p1", "p2"]


def test_final_with_nobody_winning():
    g = game("ended", tokens={"p1": 1, "p2": 1})
    assert view_for(g, None, 0)["final"]["winners"] == []


# -- hidden facts never appear --------------------------------------------------------------------


def test_no_bank_of_anyone_else_in_the_view():
    g = game("spending", holds={"p1": 0, "p2": 0}, banks={"p1": 111_100, "p2": 222_200, "p3": 333_300},
             settings=settings(own_bank="shown"))
    text = dump(view_for(g, "p1", 9_000))
    assert "111100" in text and "222200" not in text and "333300" not in text


def test_no_press_time_in_any_view():
    g = game("countdown", holds={"p2": 1_234, "p3": (1_357, 2_468)})
    for viewer in ("p1", "p2", "p3", None):
        text = dump(view_for(g, viewer, 2_500))
        assert not any(t in text for t in ("1234", "1357", "2468"))


@pytest.mark.parametrize("phase", ["countdown", "free", "spending"])
def test_view_is_the_same_whatever_anyone_else_holds(phase):
    alone = game(phase, holds={"p1": 0})
    crowd = game(phase, holds={"p1": 0, "p2": 0, "p3": (0, 2_000)}, banks={"p2": 30_000, "p3": 45_000})
    for viewer in ("p1", None):
        for now in (1_000, 2_999):
            assert dump(view_for(alone, viewer, now)) == dump(view_for(crowd, viewer, now))


def timeline(settings_, actions, until, step=250):
    """Views of every seat every ``step`` ms from 0 to ``until`` while ``actions`` (time, action) run."""
    g = game("countdown", settings=settings_)
    pending = sorted(actions, key=lambda a: a[0])
    frames = []
    for now in range(0, until + 1, step):
        while pending and pending[0][0] <= now:
            at, action = pending.pop(0)
            g, _ = apply(g, action, at)
        g, _ = apply(g, Tick(), now)
        frames.append((now, g.phase, {v: dump(view_for(g, v, now)) for v in ("p1", "p2", "p3", None)}))
    return frames


# p1 holds from 500 to 30 s into spending; the other scenarios add p2's hold.
P1_HOLDS = [(500, Press("p1")), (SPEND + 30_000, Release("p1"))]
P2_VARIANTS = {
    "p2 never pressed": [],
    "p2 let go in the countdown": [(1_000, Press("p2")), (2_000, Release("p2"))],
    "p2 let go in the free window": [(1_000, Press("p2")), (5_000, Release("p2"))],
    "p2 let go while spending": [(1_000, Press("p2")), (SPEND + 3_100, Release("p2"))],
    "p2 let go while spending, dated earlier": [
        (1_000, Press("p2")), (SPEND + 3_600, Release("p2", at_ms=SPEND + 2_900))],
    "p2 pressed late, dated before go": [(3_200, Press("p2", at_ms=2_950)),
                                         (SPEND + 1_000, Release("p2"))],
}


@pytest.mark.parametrize("s", [
    AUCTION, STAKE, settings(reveal="all_bids", own_bank="shown"),
    settings("stake", tie_rule="all", bank_ms=30_000),
], ids=["auction", "stake", "all-bids", "stake-small-bank"])
def test_views_are_byte_identical_whatever_another_player_did_until_the_round_ends(s):
    base = timeline(s, P1_HOLDS, SPEND + 40_000)
    for name, p2 in P2_VARIANTS.items():
        other = timeline(s, P1_HOLDS + p2, SPEND + 40_000)
        for (now, phase, views), (_, other_phase, other_views) in zip(base, other):
            if phase is Phase.RESULT or other_phase is Phase.RESULT:
                break
            assert phase is other_phase, (name, now)
            for viewer in ("p1", "p3", None):
                assert views[viewer] == other_views[viewer], (name, viewer, now)
        else:
            pytest.fail("the round never ended")


def test_views_differ_once_the_round_ends():
    """The check above can fail: the result shows the winner once the round is over."""
    s = settings(reveal="all_bids")
    base = timeline(s, P1_HOLDS, SPEND + 40_000)
    other = timeline(s, P1_HOLDS + P2_VARIANTS["p2 let go while spending"], SPEND + 40_000)
    assert base[-1][1] is other[-1][1] is Phase.RESULT
    assert base[-1][2]["p3"] != other[-1][2]["p3"]


def test_the_small_bank_runs_out_in_its_timeline():
    """The stake-small-bank case above really exhausts p1's bank before the planned release."""
    s = settings("stake", tie_rule="all", bank_ms=30_000)
    frames = timeline(s, P1_HOLDS, 40_000)
    assert [now for now, phase, _ in frames if phase is Phase.RESULT][0] == 35_000


def test_a_players_own_view_changes_when_they_press():
    g = game("countdown")
    pressed, _ = apply(g, Press("p1"), 1_000)
    assert view_for(pressed, "p1", 1_000) != view_for(g, "p1", 1_000)
    assert view_for(pressed, "p2", 1_000) == view_for(g, "p2", 1_000)


# -- suspense: the pause shows nothing, and the seed never leaves ----------------------


def decided(seed: str = "s3cr3t-seed-of-the-game"):
    """Time Stake with suspense: p1 let go at 6.0 s (bid 1.0 s), so the round is decided
    and its result waits for the pause; p2 and p3 sat out."""
    g = game("spending", settings=settings("stake", suspense="on"), holds={"p1": 0})
    g.seed = seed
    g, _ = apply(g, Release("p1"), 6_000)
    return g


def test_the_seed_and_the_pause_are_in_no_view():
    g = decided()
    pause = suspense.pause_ms(g.seed, 1)
    later, _ = apply(g, Tick(), 6_000 + pause)      # the result, and then the end
    done, _ = apply(later, Tick(), 10**7)
    for state in (g, later, done):
        for who in ("p1", "p2", "p3", None):
            for now in (6_000, 6_000 + pause, 10**7):
                text = dump(view_for(state, who, now))
                assert g.seed not in text and '"seed"' not in text
                assert '"over_ms"' not in text and "pause" not in text


def test_during_the_pause_every_view_is_that_of_a_round_still_held():
    """Whoever sat out or let go sees the same in the pause as while p2 still holds."""
    held = game("spending", settings=settings("stake", suspense="on"),
                holds={"p1": (0, 6_000), "p2": 0})
    g = decided()
    for now in (6_000, 6_000 + suspense.pause_ms(g.seed, 1) - 1):
        for who in ("p1", "p3", None):
            assert view_for(g, who, now) == view_for(held, who, now)
