"""Hostile input, fuzzed: every endpoint, form field and hold-socket message.

Hypothesis sends lists and objects where strings belong, huge and negative
numbers, unicode and control characters, broken bodies, the wrong phase and
the wrong player. The server must never answer 500 and never log a
traceback, and a refused request must leave the room exactly as it was.
Posts and reads run in-process (the timer loop off, so only requests write
and "unchanged" is exact); the hold socket and raw HTTP run against a real
server whose log is read at the end.
"""

from __future__ import annotations

import json
import logging
import re
import socket

import pytest
import websocket
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from client import Player

JSON = {"Accept": "application/json"}
FIELDS = ["name", "preset", "players", "difficulty", "mode", "action", "player", "csrf_token",
          "rounds", "bank_ms", "ready_ms", "free_ms", "tie", "tie_margin_ms", "tie_rule",
          "reveal", "own_bank", "rank_ties", "max_players", "min_players", "result_ms",
          "suspense"]
# The posts are not listed by hand: post_paths() reads every POST rule from the
# app's url_map, so a route added later is fuzzed without a change here.
GETS = ["/", "/r/{code}", "/r/{code}/state", "/r/{code}/events?format={text}", "/join?code={text}",
        "/rules", "/strategy", "/offline", "/manifest.webmanifest", "/sw.js", "/r/{text}",
        "/r/{text}/state"]

# Anything JSON can carry, with a bias to the nasty.
scalars = st.one_of(
    st.text(max_size=40), st.text(alphabet=st.characters(max_codepoint=0x1F), max_size=10),
    st.integers(min_value=-2**70, max_value=2**70), st.floats(allow_nan=False), st.booleans(),
    st.none(), st.sampled_from(["", "auction", "quick", "stake", "add", "remove", "p1", "p2",
                                "b3", "hard", "margin", "all_bids", "hidden", "99999999999"]),
    # Digits int() takes or chokes on: superscripts, Arabic-Indic, 5,000 of them.
    st.sampled_from(["²", "٣", "3٣", "9" * 5_000, "0" * 5_000 + "3", "-" + "9" * 5_000]),
    st.integers(min_value=10**9, max_value=10**4_000))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
# Mostly the fields the server reads, some it never heard of.
keys = st.one_of(st.sampled_from(FIELDS), st.sampled_from(FIELDS), st.text(max_size=12))
bodies = st.dictionaries(keys, values, max_size=6)


@pytest.fixture(scope="module")
def fuzz_app(redis_url):
    from auction.web.app import create_app
    from harness import TEST_CONFIG

    config = dict(TEST_CONFIG)
    return create_app({**config, "REDIS_URL": redis_url, "SCHEDULER": False})


@pytest.fixture(scope="module")
def cast(fuzz_app):
    """A lobby and a game under way, each with a host and a guest, and a stranger."""
    host, guest, stranger = (fuzz_app.test_client() for _ in range(3))
    lobby = host.post("/rooms", json={"name": "Ann", "preset": "stake"}, headers=JSON).get_json()
    game = host.post("/rooms", json={"name": "Ann", "preset": "stake"}, headers=JSON).get_json()
    for room in (lobby, game):
        guest.post(f"/r/{room['code']}/join", json={"name": "Bob"}, headers=JSON)
    host.post(f"/r/{game['code']}/settings", json={"ready_ms": 10_000}, headers=JSON)
    host.post(f"/r/{game['code']}/start", json={}, headers=JSON)
    stranger.get("/")
    tokens = {}
    for who, client in (("host", host), ("guest", guest), ("stranger", stranger)):
        page = client.get(f"/r/{lobby['code']}").get_data(as_text=True)
        tokens[who] = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    return {"clients": {"host": host, "guest": guest, "stranger": stranger},
            "codes": [lobby["code"], game["code"]], "tokens": tokens}


def post_paths(app) -> list[str]:
    """Every POST route of the app; a room's code becomes {code}, any other part {text}."""
    paths = {re.sub(r"<(?:[^:<>]+:)?code>", "{code}", rule.rule)
             for rule in app.url_map.iter_rules() if "POST" in (rule.methods or ())}
    return sorted(re.sub(r"<[^<>]+>", "{text}", path) for path in paths)


def nested(depth: int, kind: str) -> bytes:
    """JSON nested ``depth`` deep: open only, or open and closed."""
    if kind == "object":
        return b'{"a":' * depth + b"1" + b"}" * depth
    return b"[" * depth + (b"]" * depth if kind == "closed" else b"")


def stored(app, code):
    return app.extensions["auction"]._store.load(code)


def no_errors_logged(caplog) -> None:
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [r.getMessage() for r in bad]


FUZZ = settings(max_examples=500, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def test_every_post_route_is_fuzzed(fuzz_app):
    paths = post_paths(fuzz_app)
    assert {"/rooms", "/solo", "/r/{code}/settings", "/r/{code}/leave"} <= set(paths), paths


@FUZZ
@given(data=st.data(), who=st.sampled_from(["host", "guest", "stranger"]),
       room=st.integers(0, 1), body=bodies,
       kind=st.sampled_from(["json", "json", "form", "form-token", "raw", "not-object", "deep"]),
       raw=st.binary(max_size=60), depth=st.integers(1, 5_000),
       shape=st.sampled_from(["open", "closed", "object"]), text=st.text(max_size=8))
def test_fuzzed_posts_never_fail_and_refusals_change_nothing(fuzz_app, cast, caplog, data, who,
                                                              room, body, kind, raw, depth, shape,
                                                              text):
    client = cast["clients"][who]
    code = cast["codes"][room]
    path = data.draw(st.sampled_from(post_paths(fuzz_app)), label="path")
    url = path.format(code=code, text=text)
    before = {c: stored(fuzz_app, c) for c in cast["codes"]}
    if kind == "json":
        response = client.post(url, json=body, headers=JSON)
    elif kind == "not-object":
        response = client.post(url, json=list(body.values()), headers=JSON)
    elif kind == "raw":
        response = client.post(url, data=raw, headers={**JSON, "Content-Type": "application/json"})
    elif kind == "deep":
        response = client.post(url, data=nested(depth, shape),
                               headers={**JSON, "Content-Type": "application/json"})
    else:
        form = {k: json.dumps(v) if not isinstance(v, str) else v for k, v in body.items()}
        if kind == "form-token":
            form["csrf_token"] = cast["tokens"][who]
        response = client.post(url, data=form)
    assert response.status_code < 500, response.get_data(as_text=True)
    if response.status_code >= 400:
        assert {c: stored(fuzz_app, c) for c in cast["codes"]} == before
    no_errors_logged(caplog)


@FUZZ
@given(path=st.sampled_from(GETS), who=st.sampled_from(["host", "guest", "stranger"]),
       room=st.integers(0, 1), text=st.text(max_size=12),
       accept=st.sampled_from(["application/json", "text/html", "*/*", "", "x/\x7f"]))
def test_fuzzed_reads_never_fail_and_change_nothing(fuzz_app, cast, caplog, path, who, room,
                                                    text, accept):
    client = cast["clients"][who]
    url = path.format(code=cast["codes"][room], text=text)
    before = {c: stored(fuzz_app, c) for c in cast["codes"]}
    response = client.get(url, headers={"Accept": accept}, buffered=False)
    try:
        assert response.status_code < 500
    finally:
        response.close()
    assert {c: stored(fuzz_app, c) for c in cast["codes"]} == before
    no_errors_logged(caplog)


# -- the hold socket and raw HTTP, on a real server ---------------------------------

frames = st.lists(st.one_of(
    st.text(max_size=30).map(lambda t: ("text", t)),
    values.map(lambda v: ("text", json.dumps(v))),
    st.just(("text", '{"type": "release"}')),
    st.binary(max_size=30).map(lambda b: ("binary", b)),
    st.binary(max_size=20).map(lambda b: ("pong", b)),
    # Past the 1 KiB a hold message may have: the server closes with 1009.
    st.integers(1_025, 70_000).map(lambda n: ("text", "x" * n)),
    st.integers(1_025, 70_000).map(lambda n: ("binary", bytes(n))),
), max_size=4)


@pytest.fixture(scope="module")
def live(server):
    """A game under way on a real server: a host holding, a guest free to press."""
    host, guest = Player(server.url), Player(server.url)
    code = host.create("Ann", "stake")
    guest.join(code, "Bob")
    host.post(f"/r/{code}/settings", {"ready_ms": 10_000, "rounds": 30})
    host.post(f"/r/{code}/start")
    yield server, code, guest
    host.stop()
    guest.stop()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sent=frames, path=st.sampled_from(["/r/{code}/hold", "/r/{code}x/hold", "/r/ZZZZ/hold"]))
def test_fuzzed_hold_socket_messages_never_break_the_server(live, sent, path):
    srv, code, guest = live
    url = srv.url.replace("http", "ws", 1) + path.format(code=code)
    try:
        ws = websocket.create_connection(url, cookie=guest.cookie, timeout=5)
    except websocket.WebSocketBadStatusException as refused:
        assert refused.status_code < 500
        return
    try:
        for kind, payload in sent:
            if kind == "text":
                ws.send(payload)
            elif kind == "binary":
                ws.send_binary(payload)
            else:
                ws.pong(payload)
    except (websocket.WebSocketException, OSError):
        pass
    finally:
        ws.close(timeout=1)
    assert guest.state()["phase"] in ("countdown", "free", "spending", "result")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=st.binary(min_size=1, max_size=200))
def test_fuzzed_raw_requests_never_break_the_server(live, line):
    srv, code, _ = live
    with socket.create_connection(("127.0.0.1", srv.port), timeout=5) as sock:
        sock.sendall(line + b"\r\n\r\n")
        sock.settimeout(2)
        try:
            head = sock.recv(64)
        except (TimeoutError, ConnectionResetError):
            head = b""
    assert not head.startswith(b"HTTP/1.1 5") and not head.startswith(b"HTTP/1.0 5")


def test_after_all_that_no_traceback_in_the_log(live):
    srv, code, guest = live
    assert guest.state()["code"] == code        # the game is still served
    log = srv.output()
    assert "Traceback" not in log, log[-3000:]
