"""The posts and reads of docs/protocol.md against a real Redis: answers, refusals, and
that a refused request changes nothing."""

from __future__ import annotations

import re

import pytest

JSON = {"Accept": "application/json"}


def post(client, path, body=None, **kw):
    return client.post(path, json=body if body is not None else {}, headers=JSON, **kw)


@pytest.fixture
def devices(app):
    """A factory of devices: each its own cookie jar."""
    return lambda: app.test_client()


@pytest.fixture
def lobby(devices):
    """A quick-preset lobby: host plus two guests."""
    host, bob, cy = devices(), devices(), devices()
    code = post(host, "/rooms", {"name": "Ann", "preset": "quick"}).get_json()["code"]
    post(bob, f"/r/{code}/join", {"name": "Bob"})
    post(cy, f"/r/{code}/join", {"name": "Cy"})
    return code, host, bob, cy


def stored(app, code):
    """The room's stored record and version: what 'changes nothing' is checked against."""
    return app.extensions["auction"]._store.load(code)


def assert_refused(app, code, response, status, words=""):
    before = stored(app, code)
    assert response.status_code == status, response.get_data(as_text=True)
    assert words in response.get_json()["error"]
    assert stored(app, code) == before


@pytest.mark.parametrize("body", [{"preset": ["stake"]}, {"preset": {"x": 1}}, {"preset": 3},
                                  {"name": ["Ann"]}, {"name": None}])
def test_create_with_a_value_of_the_wrong_kind_is_400(client, body):
    response = post(client, "/rooms", {"name": "Ann", **body})
    assert response.status_code == 400, response.get_data(as_text=True)


def test_create_answers_201_with_a_code(client):
    response = post(client, "/rooms", {"name": "Ann", "preset": "stake"})
    assert response.status_code == 201
    assert re.fullmatch(r"[A-Z]{4}", response.get_json()["code"])


def test_device_cookie_is_http_only_and_lax(client):
    assert "Set-Cookie" not in client.get("/").headers       # a page load mints no device
    cookie = [c for c in client.post("/solo", json={"name": "Ann"}).headers.get_all("Set-Cookie")
              if c.startswith("ta_device=")][0]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert len(re.search(r"ta_device=([^;]+)", cookie).group(1)) >= 32   # >= 192 bits


def test_join_answers_the_view_and_rejoining_keeps_the_seat(lobby, devices):
    code, host, bob, _ = lobby
    again = post(bob, f"/r/{code}/join", {"name": "Bobby"})
    assert again.status_code == 200
    view = again.get_json()
    assert view["me"]["name"] == "Bob" and len(view["players"]) == 3


@pytest.mark.parametrize("path", ["/r/ZZZZ/state", "/r/abc1/state", "/r/TOOLONG/state"])
def test_unknown_room_is_404(client, path):
    response = client.get(path, headers=JSON)
    assert response.status_code == 404
    assert response.get_json() == {"error": "no such room"}


def test_join_unknown_room_is_404(client):
    assert post(client, "/r/ZZZZ/join", {"name": "Ann"}).status_code == 404


def test_non_host_cannot_change_settings_start_kick_or_seat_bots(app, lobby):
    code, host, bob, _ = lobby
    assert_refused(app, code, post(bob, f"/r/{code}/settings", {"rounds": 3}), 403, "host")
    assert_refused(app, code, post(bob, f"/r/{code}/start"), 403, "host")
    assert_refused(app, code, post(bob, f"/r/{code}/kick", {"player": "p1"}), 403, "host")
    assert_refused(app, code, post(bob, f"/r/{code}/bots", {"action": "add"}), 403, "host")


def test_unseated_device_cannot_act(app, lobby, devices):
    code, *_ = lobby
    assert_refused(app, code, post(devices(), f"/r/{code}/start"), 403, "not seated")
    assert_refused(app, code, post(devices(), f"/r/{code}/leave"), 403, "not seated")


@pytest.mark.parametrize("body, words", [
    ({"rounds": 31}, "rounds"),
    ({"rounds": "many"}, "rounds"),
    ({"bank_ms": 29_900}, "bank_ms"),
    ({"tie": "coin"}, "tie"),
    ({"colour": "red"}, "unknown setting"),
    ({"preset": "chess"}, "preset"),
    ({"max_players": 2}, "max_players"),
])
def test_bad_settings_are_400_and_change_nothing(app, lobby, body, words):
    code, host, *_ = lobby
    assert_refused(app, code, post(host, f"/r/{code}/settings", body), 400, words)


def test_settings_change_answers_the_new_view(lobby):
    code, host, *_ = lobby
    view = post(host, f"/r/{code}/settings", {"rounds": "5", "reveal": "all_bids"}).get_json()
    assert view["settings"]["rounds"] == 5 and view["settings"]["reveal"] == "all_bids"


@pytest.mark.parametrize("body", [[1, 2], "text", 7])
def test_a_json_body_that_is_not_an_object_is_400(app, lobby, body):
    code, host, *_ = lobby
    assert_refused(app, code, host.post(f"/r/{code}/settings", json=body, headers=JSON), 400)


def test_malformed_json_is_400(app, lobby):
    code, host, *_ = lobby
    response = host.post(f"/r/{code}/settings", data="{oops", headers={
        **JSON, "Content-Type": "application/json"})
    assert_refused(app, code, response, 400)


@pytest.mark.parametrize("name", ["", "   ", "x" * 25])
def test_bad_names_are_400(app, lobby, devices, name):
    code, *_ = lobby
    assert_refused(app, code, post(devices(), f"/r/{code}/join", {"name": name}), 400, "name")


def test_bots_action_must_be_add_or_remove(app, lobby):
    code, host, *_ = lobby
    assert_refused(app, code, post(host, f"/r/{code}/bots", {"action": "juggle"}), 400)
    assert_refused(app, code, post(host, f"/r/{code}/bots",
                                   {"action": "add", "difficulty": "godlike"}), 400)


def test_start_twice_is_409_and_late_join_is_404(app, lobby, devices):
    code, host, *_ = lobby
    assert post(host, f"/r/{code}/start").status_code == 200
    assert_refused(app, code, post(host, f"/r/{code}/start"), 409)
    assert_refused(app, code, post(host, f"/r/{code}/settings", {"rounds": 3}), 409)
    assert_refused(app, code, post(devices(), f"/r/{code}/join", {"name": "Late"}), 404)


def test_full_room_is_404_like_no_room(app, devices):
    host = devices()
    code = post(host, "/rooms", {"name": "Ann", "preset": "stake"}).get_json()["code"]
    post(host, f"/r/{code}/settings", {"max_players": 2, "min_players": 2})
    post(devices(), f"/r/{code}/join", {"name": "Bob"})
    response = post(devices(), f"/r/{code}/join", {"name": "Cy"})
    assert_refused(app, code, response, 404, "no such room")


def test_kick_and_leave(lobby):
    code, host, bob, cy = lobby
    view = post(host, f"/r/{code}/kick", {"player": "p2"}).get_json()
    assert [p["name"] for p in view["players"]] == ["Ann", "Cy"]
    assert post(cy, f"/r/{code}/leave").get_json() == {"left": True}
    assert cy.get(f"/r/{code}/state", headers=JSON).get_json()["me"] is None


def test_a_kicked_device_cannot_come_back(app, lobby, devices):
    code, host, bob, _ = lobby
    post(host, f"/r/{code}/kick", {"player": "p2"})
    assert bob.get(f"/r/{code}/state", headers=JSON).get_json()["me"] is None
    for name in ("Bob", "Robert"):
        assert_refused(app, code, post(bob, f"/r/{code}/join", {"name": name}), 403, "removed")
    # Another device of the same person finds the room locked by the kick...
    assert_refused(app, code, post(devices(), f"/r/{code}/join", {"name": "Bob"}), 403, "locked")
    # ...until the host opens it, knowingly; the kicked device itself stays out.
    assert post(host, f"/r/{code}/lock", {"locked": False}).get_json()["locked"] is False
    assert_refused(app, code, post(bob, f"/r/{code}/join", {"name": "Bob"}), 403, "removed")
    assert post(devices(), f"/r/{code}/join", {"name": "Bob"}).status_code == 200


def test_a_second_alice_is_asked_for_another_name(app, lobby, devices):
    code, *_ = lobby
    response = post(devices(), f"/r/{code}/join", {"name": " bob "})
    assert_refused(app, code, response, 400, "taken")


def test_host_leaving_hands_over_to_the_next_human(lobby):
    code, host, bob, _ = lobby
    post(host, f"/r/{code}/bots", {"action": "add", "difficulty": "easy"})
    post(host, f"/r/{code}/leave")
    assert bob.get(f"/r/{code}/state", headers=JSON).get_json()["me"]["host"] is True


def test_form_post_without_token_is_403(app, lobby):
    code, host, *_ = lobby
    response = host.post(f"/r/{code}/settings", data={"rounds": "3"})
    assert response.status_code == 403
    assert stored(app, code)[0]["game"]["settings"]["rounds"] == 9


def test_form_post_with_token_redirects_to_the_room(app, lobby):
    code, host, *_ = lobby
    page = host.get(f"/r/{code}").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([0-9a-f]+)"', page).group(1)
    response = host.post(f"/r/{code}/settings", data={"rounds": "3", "csrf_token": token})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/r/{code}")
    assert stored(app, code)[0]["game"]["settings"]["rounds"] == 3


def test_foreign_origin_is_refused_even_with_json(app, lobby):
    code, host, *_ = lobby
    response = host.post(f"/r/{code}/settings", json={"rounds": 3},
                         headers={**JSON, "Origin": "https://evil.example"})
    assert_refused(app, code, response, 403, "cross-site")


@pytest.mark.parametrize("players", [4, 5, 6])
@pytest.mark.parametrize("difficulty", ["easy", "medium", "hard"])
@pytest.mark.parametrize("mode, rounds", [("full", 19), ("quick", 9)])
def test_solo_creates_the_right_line_up(client, players, difficulty, mode, rounds):
    response = post(client, "/solo", {"name": "Me", "players": players,
                                      "difficulty": difficulty, "mode": mode})
    assert response.status_code == 201
    view = client.get(f"/r/{response.get_json()['code']}/state", headers=JSON).get_json()
    bots = [p for p in view["players"] if p["bot"]]
    assert len(view["players"]) == players and len(bots) == players - 1
    assert {b["difficulty"] for b in bots} == {difficulty}
    assert view["me"]["host"] and not view["players"][0]["bot"]
    assert view["settings"]["rounds"] == rounds
    assert view["settings"]["own_bank"] == ("hidden" if difficulty == "hard" else "toggle")


def test_solo_defaults_to_five_players(client):
    code = post(client, "/solo", {"name": "Me"}).get_json()["code"]
    assert len(client.get(f"/r/{code}/state", headers=JSON).get_json()["players"]) == 5


@pytest.mark.parametrize("body", [{"players": 3}, {"players": 7}, {"players": "five"},
                                  {"difficulty": "godlike"}, {"mode": "marathon"},
                                  {"mode": ["full"]}, {"difficulty": {"a": 1}},
                                  {"name": ["Me"]}, {"players": [5]}, {"players": 5.0}])
def test_solo_bad_options_are_400(client, body):
    assert post(client, "/solo", {"name": "Me", **body}).status_code == 400


def test_the_page_of_an_unknown_room_offers_to_join_another(client):
    response = client.get("/r/ZZZZ")
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "No room ZZZZ" in page and 'action="/join"' in page


def test_clock_answers_the_servers_clock_alone_and_is_never_cached(client, app):
    """GET /clock: docs/protocol.md, "The clock". No room, no seat, nothing else."""
    before = app.extensions["auction"].now_ms()
    response = client.get("/clock")
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    body = response.get_json()
    assert list(body) == ["now_ms"] and isinstance(body["now_ms"], int)
    assert before <= body["now_ms"] <= app.extensions["auction"].now_ms()
