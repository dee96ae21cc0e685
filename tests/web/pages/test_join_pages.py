"""Joining and creating from a browser's form: every refusal comes back on the page it was
sent from, with what was typed kept and the reason next to its field; the name a device
played under fills the next name field; the JSON answers stay those of docs/protocol.md;
the home page's join meets the limits of every other look-up of a code."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from auction.server import NoSuchRoom
from auction.server.codes import ALPHABET
from auction.web.pages.render import PRESET_SETTINGS, game_minutes, game_seconds, spent_banks
from harness import forget_counts

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
import lengths  # noqa: E402  (bench/lengths.py: whole AI games through the rules)

JSON = {"Accept": "application/json"}
HTML = {"Accept": "text/html"}


def csrf(client, path: str = "/") -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).text).group(1)


def post_form(client, path: str, fields: dict, page: str = "/"):
    return client.post(path, data={"csrf_token": csrf(client, page), **fields}, headers=HTML)


def json_room(client, **settings) -> str:
    code = client.post("/rooms", json={"name": "Ann", "preset": "quick"}, headers=JSON).get_json()["code"]
    if settings:
        client.post(f"/r/{code}/settings", json=settings, headers=JSON)
    return code


def unknown_code(app) -> str:
    rng = random.Random(3)
    while True:
        code = "".join(rng.choice(ALPHABET) for _ in range(4))
        if app.test_client().get(f"/r/{code}/state", headers=JSON).status_code == 404:
            return code


def field_error(html: str, field: str) -> str:
    found = re.search(rf'<p class="field-error" id="{field}-error"[^>]*>([^<]*)</p>', html)
    assert found, f"no message next to {field}"
    return found.group(1)


@pytest.mark.parametrize("name, words", [("ann", "taken"), ("   ", "name is needed"),
                                         ("x" * 60, "at most 24")])
def test_a_refused_join_from_the_room_page_comes_back_there_with_the_name(app, name, words):
    host, guest = app.test_client(), app.test_client()
    code = json_room(host)
    response = post_form(guest, f"/r/{code}/join", {"name": name}, page=f"/r/{code}")
    assert response.status_code == 400
    html = response.text
    assert "Join this game" in html and f'action="/r/{code}/join"' in html
    assert words in field_error(html, "join-name")
    assert f'value="{name}"' in html and 'aria-invalid="true"' in html
    # Not the error page (its heading and its way out; the toast's words for a failed post,
    # "That did not work — check the values.", are in every page's script words now).
    assert "<h1>That did not work</h1>" not in html and "Back to the start" not in html


def test_the_home_page_asks_for_a_name_once_and_the_code_first(client):
    html = client.get("/").text
    assert html.count('name="name"') == 1
    assert html.index('id="join-code"') < html.index('formaction="/solo"') < html.index('formaction="/rooms"')
    assert 'maxlength="24"' in html and "Up to 24 characters" in html


@pytest.mark.parametrize("typed", ["12#4", "O0O0", "ab", ""])
def test_a_malformed_code_comes_back_next_to_the_code_box(client, typed):
    response = post_form(client, "/join", {"code": typed, "name": "Bea", "mode": "quick"})
    assert response.status_code == 400
    assert "code" in field_error(response.text, "code").lower()
    assert f'value="{typed}"' in response.text and 'value="Bea"' in response.text
    assert re.search(r'value="quick" checked', response.text)


def test_home_join_refusals_name_their_field(app):
    host = app.test_client()
    full = json_room(host, max_players=3, min_players=2)
    for name in ("Bob", "Cy"):
        post_form(app.test_client(), f"/r/{full}/join", {"name": name}, page=f"/r/{full}")
    locked = json_room(host)
    host.post(f"/r/{locked}/lock", json={"locked": True}, headers=JSON)
    taken = json_room(host)
    cases = [(unknown_code(app), "Dee", 404, "code", "no open room"),
             (full, "Dee", 404, "code", "is full"), (locked, "Dee", 403, "code", "locked"),
             (taken.lower(), "ANN", 400, "name", "taken")]
    for code, name, status, field, words in cases:
        response = post_form(app.test_client(), "/join", {"code": code, "name": name})
        assert response.status_code == status, (code, response.text)
        assert words in field_error(response.text, field).lower()
        assert f'value="{code}"' in response.text and f'value="{name}"' in response.text


def test_home_join_seats_in_one_tap_and_the_name_is_remembered(app):
    host, guest = app.test_client(), app.test_client()
    code = json_room(host)
    response = post_form(guest, "/join", {"code": code.lower(), "name": "  Bea  Quinn "})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/r/{code}")
    me = guest.get(f"/r/{code}/state", headers=JSON).get_json()["me"]
    assert me["name"] == "Bea Quinn"
    assert 'value="Bea Quinn"' in guest.get("/").text
    other = json_room(host)
    assert 'id="join-name" name="name" value="Bea Quinn"' in guest.get(f"/r/{other}").text


def test_a_refused_create_keeps_the_form(client):
    response = post_form(client, "/rooms", {"name": "", "preset": "stake", "code": ""})
    assert response.status_code == 400
    assert "name" in field_error(response.text, "name")
    assert re.search(r'value="stake" checked', response.text)
    response = post_form(client, "/solo", {"name": "Sol", "players": "9", "difficulty": "hard"})
    assert response.status_code == 400 and "players" in field_error(response.text, "solo").lower()
    assert 'value="Sol"' in response.text and re.search(r'value="hard" checked', response.text)


def test_json_answers_are_unchanged(app):
    host, guest = app.test_client(), app.test_client()
    code = json_room(host)
    taken = guest.post(f"/r/{code}/join", json={"name": "ann"}, headers=JSON)
    assert taken.status_code == 400 and "taken" in taken.get_json()["error"]
    missing = guest.post(f"/r/{unknown_code(app)}/join", json={"name": "Bo"}, headers=JSON)
    assert missing.status_code == 404 and missing.get_json() == {"error": "no such room"}
    typed = guest.post("/join", json={"code": "12#4", "name": "Bo"}, headers=JSON)
    assert typed.status_code == 404 and typed.get_json() == {"error": "no such room"}


def test_a_guesser_through_the_home_form_is_stopped_like_any_other(redis_url):
    """The home page's join looks codes up under the join's own limits: a device gets 20
    misses a minute (then 429), however it sends them; a visitor without one, its
    address's 60."""
    from harness import TEST_CONFIG
    from auction.web.app import create_app

    forget_counts(redis_url)
    config = dict(TEST_CONFIG)
    app = create_app({**config, "REDIS_URL": redis_url, "SCHEDULER": False, "RATE_LIMIT_SCALE": 1.0})
    guesser = app.test_client()
    assert guesser.post("/solo", json={"name": "G"}, headers=JSON).status_code == 201  # a device
    token = csrf(guesser)
    rng = random.Random(11)
    statuses = []
    for _ in range(40):
        code = "".join(rng.choice(ALPHABET) for _ in range(4))
        statuses.append(guesser.post("/join", data={"csrf_token": token, "code": code, "name": "G"},
                                     headers=HTML).status_code)
    assert statuses[:20] == [404] * 20 and set(statuses[20:]) == {429}
    forget_counts(redis_url)
    visitor = app.test_client()             # no device: counted by its address
    statuses = []
    service = app.extensions["auction"]
    while len(statuses) < 70:
        code = "".join(rng.choice(ALPHABET) for _ in range(4))
        try:
            service.load(code)          # a room of another test: not a miss
            continue
        except NoSuchRoom:
            pass
        statuses.append(visitor.post("/join", data={"code": code, "name": "G"},
                                     headers=HTML).status_code)
    assert statuses[:60] == [404] * 60 and set(statuses[60:]) == {429}


def test_an_honest_length_from_the_bank_and_rounds(client):
    assert game_minutes(PRESET_SETTINGS["quick"]) == 8       # 9 × 13 s + 1.9 × 3 min ≈ 7.7 min
    assert game_minutes(PRESET_SETTINGS["auction"]) == 30    # 19 × 13 s + 2.3 × 10 min ≈ 27 min
    # One round spends at most one bank: 1 × 13 s + 0.65 × 3 min, not the 8 min it said.
    assert game_minutes({**PRESET_SETTINGS["quick"], "rounds": 1}) == 3
    assert game_minutes({**PRESET_SETTINGS["quick"], "rounds": 3}) == 5
    assert game_minutes({**PRESET_SETTINGS["quick"], "rounds": 1, "bank_ms": 30_000}) == 1
    assert all(spent_banks(r) <= r for r in range(1, 31))
    html = client.get("/").text
    assert "9 rounds · 3 min bank each · about 8 min" in html
    assert "3 min" not in html.replace("3 min bank", "")


@pytest.mark.parametrize("preset, rounds", [("quick", 1), ("quick", 3), ("quick", 9),
                                            ("stake", 5), ("auction", 19)])
def test_the_length_is_what_measured_games_take(preset, rounds):
    """The estimate against whole games of AI tables of five played through the rules
    (bench/lengths.py): the mean game within 15 % or 45 s of it, and the rounded figure the
    lobby shows (to the minute, to five above a quarter of an hour) within 20 % or a minute."""
    settings = {**PRESET_SETTINGS[preset], "rounds": rounds}
    measured = lengths.measure(preset, rounds, seats=5, games=45)["minutes"]
    estimate = game_seconds(settings) / 60
    assert abs(estimate - measured) <= max(0.75, 0.15 * measured), (estimate, measured)
    shown = game_minutes(settings)
    assert abs(shown - measured) <= max(1.0, 0.2 * measured), (shown, measured)
