"""The room page's HTML: rendered from the view alone, hiding what the view hides, CSP-clean."""

from __future__ import annotations

import re

import pytest

from auction.game import rules as R
from auction.game.views import view_for
from auction.web.pages import render
from auction.web.pages.qr import qr_svg

CTX = {"code": "ABCD", "csrf_token": "tok", "invite_url": "http://example.test/r/ABCD"}
DEADLINE = re.compile(r'data-deadline-ms="\d*"')


def lobby(**settings) -> R.Game:
    game = R.new_game("ABCD")
    if settings:
        game.settings = game.settings.changed(settings)
    for name in ("Ann", "Bob"):
        game, _ = R.apply(game, R.Join(name), 0)
    game, _ = R.apply(game, R.AddBot("p1", "hard"), 0)
    return game


def started(**settings) -> R.Game:
    game, _ = R.apply(lobby(**settings), R.Start("p1"), 1_000)
    return game


def finished_round(game: R.Game, bids: dict) -> R.Game:
    rnd = game.current
    for pid in bids:
        game, _ = R.apply(game, R.Press(pid), rnd.start_ms + 10)
    game, _ = R.apply(game, R.Tick(), rnd.spend_ms)
    for pid, bid in sorted(bids.items(), key=lambda kv: kv[1]):
        game, _ = R.apply(game, R.Release(pid), rnd.spend_ms + bid)
    return game


def every_phase(**settings):
    """A game in each phase, by name."""
    game = lobby(**settings)
    yield "lobby", game
    game = started(**settings)
    yield "countdown", game
    pressed, _ = R.apply(game, R.Press("p1"), 1_100)
    yield "free", R.apply(pressed, R.Tick(), pressed.current.go_ms)[0]
    yield "spending", R.apply(pressed, R.Tick(), pressed.current.spend_ms)[0]
    game = finished_round(game, {"p1": 4_100, "b3": 2_000})
    yield "result", game
    while game.phase is not R.Phase.ENDED:
        if game.phase is R.Phase.RESULT:
            game, _ = R.apply(game, R.Tick(), game.phase_end_ms)
        if game.phase is R.Phase.COUNTDOWN:
            game = finished_round(game, {"p2": 300})
    yield "ended", game


SETTINGS = [{}, {"reveal": "all_bids", "own_bank": "shown"},
            {"reveal": "winning_bid", "own_bank": "hidden", "tie": "margin", "rounds": 2}]


@pytest.mark.parametrize("settings", SETTINGS)
def test_every_part_renders_in_every_phase_for_everyone(settings):
    for phase, game in every_phase(**{"rounds": 3, **settings}):
        assert game.phase.value == phase
        for pid in ("p1", "p2", None):
            view = view_for(game, pid, 2_000)
            parts = render.partials(view, CTX)
            assert tuple(parts) == render.PARTS
            html = render.page(view, CTX)
            for name in render.PARTS:
                assert f'sse-swap="{name}"' in html
            # CSP: no inline script, no style attribute, no inline handler.
            assert "<script>" not in html and " style=" not in html
            assert not re.search(r"\son[a-z]+=", html)


def test_the_only_clock_in_the_html_is_the_deadline_attribute():
    for _, game in every_phase():
        early = render.partials(view_for(game, "p1", 1_200), CTX)
        late = render.partials(view_for(game, "p1", 2_900), CTX)
        for name in render.PARTS:
            assert DEADLINE.sub("", early[name]) == DEADLINE.sub("", late[name]), name


def test_another_players_press_changes_no_byte():
    game = started()
    pressed, _ = R.apply(game, R.Press("p2"), 1_100)
    assert render.partials(view_for(game, "p1", 1_500), CTX) == \
        render.partials(view_for(pressed, "p1", 1_500), CTX)
    # ...and through the free window and into the bidding, where Bob holds or sat out.
    both, _ = R.apply(pressed, R.Press("p1"), 1_150)
    alone, _ = R.apply(game, R.Press("p1"), 1_150)
    for moment in (both.current.go_ms + 10, both.current.spend_ms + 500):
        a = render.partials(view_for(R.apply(both, R.Tick(), moment)[0], "p1", moment), CTX)
        b = render.partials(view_for(R.apply(alone, R.Tick(), moment)[0], "p1", moment), CTX)
        assert a == b


def test_hidden_bank_and_bids_stay_hidden():
    game = finished_round(started(own_bank="hidden"), {"p1": 4_100, "p2": 3_000})
    html = render.page(view_for(game, "p2", 0), CTX)
    assert "4.1 s" not in html               # Ann's bid: the reveal setting shows the winner only
    assert "3.0 s" in html                   # Bob's own bid
    assert "hidden in this game" in html     # Bob's own bank


def test_formats():
    assert render.secs(12_345) == "12.3 s"
    assert render.secs(99) == "0.0 s"
    assert render.clock(587_399) == "9:47.3"
    assert render.clock(600_000) == "10:00.0"
    assert render.duration(90_000) == "1 min 30 s"
    assert render.names(["Ann", "Bob", "Cy"]) == "Ann, Bob and Cy"


def test_setting_choices_always_include_the_current_value():
    assert (123_400, "2 min 3 s") not in render.choices("bank_ms", 600_000)
    assert (123_400, "123.4 s") in render.choices("bank_ms", 123_400)
    assert [v for v, _ in render.choices("max_players", 7, low=4)] == [4, 5, 6, 7, 8]


def test_setting_choices_span_the_rules_ranges():
    """What a host picks from lies within each range the rules allow and reaches its top:
    the ranges are the game's (settings.RANGES), the steps the page's."""
    from auction.game.settings import RANGES

    for name in [*render._NUMERIC, "max_players"]:
        low, high, _ = RANGES[name]
        values = [v for v, _ in render.choices(name, high)]
        assert low <= min(values) and max(values) == high, name


def test_qr_code_is_plain_svg():
    svg = qr_svg("http://example.test/r/ABCD")
    assert svg.startswith("<svg") and 'viewBox="0 0 ' in svg
    assert "style" not in svg and "width=" not in svg.split(">")[0]


def test_static_pages_and_pwa_files(client):
    for path in ("/", "/rules", "/strategy", "/offline"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert "Content-Security-Policy" in response.headers
    assert client.get("/join?code=abcd").headers["Location"].endswith("/r/ABCD")
    # A code that cannot be one comes back on the home page, kept, with the reason beside it.
    bad = client.get("/join?code=ab1")
    assert bad.status_code == 400 and "Location" not in bad.headers
    assert 'value="ab1"' in bad.text and 'id="code-error"' in bad.text
    sw = client.get("/sw.js")
    assert sw.headers["Service-Worker-Allowed"] == "/"
    assert "no-cache" in sw.headers["Cache-Control"]
    assert "/r/" in sw.text and render.BUILD in sw.text
    manifest = client.get("/manifest.webmanifest").get_json()
    assert manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        with client.get(icon["src"].split("?")[0]) as png:   # closes the file it streams
            assert png.status_code == 200


def test_a_serving_worker_warms_every_template_before_it_serves():
    """render.warm compiles every page and part in every language, and finds what each
    live part reads: a fresh worker's first room page took 200 ms of its event loop
    without it (docs/scaling.md)."""
    from auction.web.pages import screen
    for env in render.ENVS.values():
        env.cache.clear()
    render._inputs_of.cache_clear()
    render.warm({"partials": render.PARTS, "screen": screen.PARTS})
    for env in render.ENVS.values():
        compiled = {name for _, name in env.cache.keys()}
        pages = set(env.list_templates(filter_func=lambda name: name.endswith(".html")))
        assert pages and pages <= compiled, pages - compiled
    assert render._inputs_of.cache_info().currsize == len(render.PARTS) + len(screen.PARTS)
