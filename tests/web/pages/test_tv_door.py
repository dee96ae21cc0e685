"""The TV's door, ``/tv``, in-process: a code of a room goes on to its big screen, a code
that cannot be one is said so without a lookup, and a code of no room is a miss that counts
against the same budget as every other room lookup (limits.LOOKUPS) -- so the door is no
faster way to guess codes. And the big screen's parts: the site to type the code on for
everyone, the QR only with the invitation, the next game's address at the end."""

from __future__ import annotations

import random

import pytest

from endgames import play
from auction.game import rules as R
from auction.game.views import view_for
from auction.web.pages import render
from auction.web.pages.screen import PARTS as SCREEN_PARTS
from harness import random_code

JSON = {"Accept": "application/json"}
HTML = {"Accept": "text/html"}


def test_the_door_sends_a_code_on_to_its_big_screen(strict):
    host = strict.test_client()
    code = host.post("/rooms", json={"name": "Ann"}, headers=JSON).get_json()["code"]
    tv = strict.test_client()
    door = tv.get("/tv", headers=HTML)
    assert door.status_code == 200
    page = door.get_data(as_text=True)
    assert '<form method="get" action="/tv"' in page and 'name="code"' in page
    assert "autofocus" in page and 'maxlength="4"' in page
    # Typed in lower case, with a stray space from a remote's keyboard.
    went = tv.get(f"/tv?code=+{code.lower()}+", headers=HTML)
    assert went.status_code == 303 and went.headers["Location"].endswith(f"/r/{code}/screen")
    screen = tv.get(f"/r/{code}/screen", headers=HTML).get_data(as_text=True)
    # A stranger: the code and the site, never the invitation.
    assert f'<p class="big-code tv-code"' in screen and "?i=" not in screen
    assert 'class="tv-site">localhost</strong>' in screen
    refused = tv.get("/tv?code=12%234", headers=HTML)
    assert refused.status_code == 400 and "is not a room code" in refused.get_data(as_text=True)


def test_a_code_of_no_room_at_the_door_is_a_miss_like_any_lookup(strict, redis_url):
    """An address's 60 misses a minute are spent by the door and the state alike: after 30 of
    each, the door says 429 too."""
    rng = random.Random(44)
    # A code that cannot be one is turned away before any lookup: it spends nothing.
    for _ in range(5):
        assert strict.test_client().get("/tv?code=O0O0", headers=HTML).status_code == 400
    statuses = []
    for i in range(62):
        client = strict.test_client()        # a new device each time: the address counts
        code = random_code(rng, redis_url)
        path = f"/tv?code={code}" if i % 2 else f"/r/{code}/state"
        statuses.append(client.get(path, headers=HTML if i % 2 else JSON).status_code)
    assert statuses[:60] == [404] * 60, statuses
    assert statuses[60:] == [429, 429], statuses


def test_the_big_screen_shows_the_qr_only_with_the_invitation_and_goes_on_to_the_next_game():
    game = play(("Ann", "Bob", "Dana"), [{"p1": 1_000}])
    ctx = {"code": "ABCD", "site": "game.example.com"}
    lobby_game = R.new_game("ABCD", "stake")
    for name in ("Ann", "Bob"):
        lobby_game, _ = R.apply(lobby_game, R.Join(name), 0)
    stranger = render.partials(view_for(lobby_game, None, 0), {**ctx, "invite_url": ""},
                               SCREEN_PARTS, "screen")["stage"]
    assert "game.example.com" in stranger and "ABCD" in stranger and "tv-qr" not in stranger
    invited = render.partials(view_for(lobby_game, None, 0),
                              {**ctx, "invite_url": "https://game.example.com/r/ABCD?i=0123"},
                              SCREEN_PARTS, "screen")["stage"]
    assert "tv-qr" in invited and "<svg" in invited
    ended = render.partials(view_for(game, None, 0), ctx, SCREEN_PARTS, "screen")["stage"]
    assert "data-tv-next" not in ended
    game.rematch = "WXYZ"
    ended = render.partials(view_for(game, None, 0), ctx, SCREEN_PARTS, "screen")["stage"]
    assert 'data-tv-next="/r/WXYZ/screen"' in ended


def test_the_hosts_lobby_line_names_the_tv_address():
    line = render.tv_invite("https://game.example.com/r/ABCD?i=0123")
    assert line == ('On a TV, open <strong class="tv-address-url">game.example.com/tv</strong> '
                    "and type the code")
    assert render.tv_address("http://127.0.0.1:8000/r/ABCD?i=1") == "127.0.0.1:8000/tv"
