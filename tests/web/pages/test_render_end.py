"""The end's words and layout, rendered in-process from views: counts with the right plural,
a tie for first said honestly over a podium that agrees, your own name the same everywhere
("Dana (you)"), play again first, and a big screen with nothing to tap."""

from __future__ import annotations

import re

from endgames import play
from auction.game import rules as R
from auction.game.views import view_for
from auction.web.pages import render
from auction.web.pages.screen import PARTS as SCREEN_PARTS

CTX = {"code": "ABCD", "csrf_token": "tok", "invite_url": "http://example.test/r/ABCD"}
THREE = ("Ann", "Bob", "Dana")


def text(html: str) -> str:
    """What a reader sees: the tags gone, the spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace(" )", ")").strip()


def end(game: R.Game, pid: str | None) -> dict[str, str]:
    return render.partials(view_for(game, pid, 0), CTX)


def test_one_round_is_a_round_not_rounds():
    game = play(THREE, [{"p1": 1_000}])
    for pid in ("p1", "p2", None):
        status = text(end(game, pid)["status"])
        assert "1 round played" in status and "1 rounds" not in status
    page = render.page_of("results.html", view_for(game, "p1", 0),
                          {**CTX, "share_url": "http://example.test/r/ABCD/results"})
    assert "3 players · 1 round · " in text(page)
    assert "4 rounds played" in text(end(play(THREE, [{}, {}, {}, {}]), "p1")["status"])
    assert render.plural(1, "token") == "1 token" and render.plural(0, "token") == "0 tokens"


def test_a_three_way_tie_for_first_says_who_tied_and_that_nobody_wins():
    game = play(THREE, [{}])                                # nobody bid: all level
    final = end(game, "p3")["final"]
    assert text(re.search(r'<p class="verdict">(.*?)</p>', final, re.S).group(1)) == \
        "A three-way tie for first: Ann, Bob and Dana (you) — so nobody wins."
    assert "Nobody wins: a tie" not in final
    steps = re.findall(r'<li class="step ([^"]*)">(.*?)</li>', final, re.S)
    assert len(steps) == 3
    for classes, body in steps:
        assert "step-1" in classes and "tied" in classes and "winner" not in classes
        assert '<span class="step-tie">tied</span>' in body
    # The spectator's big screen says it too, as its headline.
    assert "A three-way tie for first: Ann, Bob and Dana — so nobody wins." in \
        text(render.partials(view_for(game, None, 0), CTX, SCREEN_PARTS, "screen")["status"])


def test_a_sole_winner_and_joint_winners():
    won = play(THREE, [{"p2": 1_000}])
    final = end(won, "p2")["final"]
    assert "Bob (you) wins the game." in text(final)
    assert len(re.findall(r'class="step step-1 winner', final)) == 1
    first = re.search(r'<li class="step step-1 [^"]*">.*?</li>', final, re.S).group(0)
    assert "tied" not in first
    shared = play(THREE, [{"p1": 1_000}, {"p2": 1_000}], rank_ties="shared")
    assert "A tie for first: Ann and Bob share the win." in text(end(shared, None)["final"])


def test_your_name_reads_the_same_in_the_result_and_the_tables():
    game = R.new_game("ABCD", "stake")
    game.settings = game.settings.changed({"rounds": 2, "reveal": "all_bids"})
    for name in THREE:
        game, _ = R.apply(game, R.Join(name), 0)
    game, _ = R.apply(game, R.Start("p1"), 1_000)
    rnd = game.current
    for pid in ("p1", "p3"):
        game, _ = R.apply(game, R.Press(pid), rnd.start_ms + 10)
    game, _ = R.apply(game, R.Tick(), rnd.spend_ms)
    game, _ = R.apply(game, R.Release("p1"), rnd.spend_ms + 1_000)
    game, _ = R.apply(game, R.Release("p3"), rnd.spend_ms + 2_000)
    result = text(end(game, "p3")["result"])
    assert "Dana (you) wins the token with 2.0 s" in result
    assert not re.search(r"\bYou win\b", result)
    assert "Dana (you) 2.0 s" in result                      # the bid table under it
    assert "Dana wins the token" in text(end(game, "p1")["result"])   # others see the name
    assert "(you)" not in text(end(game, None)["result"])


def test_play_again_comes_right_after_the_podium():
    game = play(THREE, [{}])
    host, guest, spectator = (end(game, pid)["final"] for pid in ("p1", "p2", None))
    for html, again in ((host, 'action="/r/ABCD/rematch"'), (guest, "Waiting for the host")):
        podium, rematch = html.index('class="podium"'), html.index(again)
        assert podium < rematch < html.index('class="standings"') < html.index('href="/"')
    assert ">Rematch</button>" in host
    assert 'class="button' not in re.search(r'<a[^>]*href="/"[^>]*>', host).group(0)
    assert 'class="rematch"' not in spectator               # nothing to press or wait for
    game.rematch = "WXYZ"
    joined = end(game, "p2")["final"]
    assert re.search(r'href="/r/WXYZ" data-rematch-follow>Join the rematch</a>', joined)


def test_the_big_screen_end_has_nothing_to_tap():
    game = play(THREE, [{"p1": 1_000}, {}])
    html = render.page(view_for(game, None, 0), CTX, "screen.html", SCREEN_PARTS, "screen")
    body = html[html.index("<body"):]
    links = re.findall(r'<a [^>]*href="([^"]*)"', body)
    assert links == ["#main"]                              # the skip link only
    assert "<nav" not in body and "<form" not in body
    assert re.findall(r"<button[^>]*>", body) == [
        '<button type="button" class="small quiet sound" data-sound aria-pressed="true" hidden>']
    assert 'class="podium"' in body and body.count('<svg class="chart ') == 3
