"""Dishonest clients against a real server: each attack is played, and must gain nothing.

Each test plays one trick a modified client could try (docs/security.md lists
them) and asserts its gain is zero: no information it should not have, no
token, no discount, no seat it may not take.
"""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlparse

import pytest
import websocket

from client import Player

CAP = 300                       # HOLD_COMP_CAP_MS's default, which the `server` fixture runs with
GRACE_S = 4 * CAP / 1000         # the longest entry grace, plus the one ping it may wait for
ONE_ROUND = {"rounds": 1, "ready_ms": 2000, "result_ms": 2000}   # stake: spending starts at go


def seat(server, names: list[str], settings: dict) -> list[Player]:
    """Devices seated in one started-ready Time Stake room, each following its stream."""
    players = [Player(server.url) for _ in names]
    code = players[0].create(names[0], "stake")
    for player, name in zip(players[1:], names[1:]):
        player.join(code, name)
    players[0].post(f"/r/{code}/settings", settings)
    for player in players:
        player.follow()
    for player in players:
        player.wait_view(lambda v: v["phase"] == "lobby")
    return players


def screen_go(player: Player) -> float:
    """When this screen shows round 1's go (monotonic): its countdown, counted down."""
    view = player.wait_view(lambda v: v["phase"] == "countdown")
    arrived = player.view_arrival(lambda v: v["phase"] == "countdown")
    return arrived + view["deadline_ms"] / 1000


def until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


def seen_until(player: Player, moment: float) -> list[dict]:
    """Every view this device received before ``moment``, without what differs
    between any two rooms anyway (the code) or with the clock (the deadline and its moment, and the
    round's clock once spending has begun)."""
    with player._changed:
        pairs = list(zip(player.views, player.arrivals))
    return [{k: v for k, v in view.items() if k not in ("code", "deadline_ms", "deadline_at_ms", "elapsed_ms")}
            for view, at in pairs if at < moment]


def test_go_looks_the_same_whether_or_not_anyone_pressed(server):
    """Two rooms, alike but for one thing: in one somebody holds through go, in
    the other nobody presses. Until the entry grace has passed, an observer in
    each sees exactly the same; the empty round is announced only after it."""
    busy = seat(server, ["Hold", "Watch"], ONE_ROUND)
    empty = seat(server, ["Hold", "Watch"], ONE_ROUND)
    for room in (busy, empty):
        room[0].post(f"/r/{room[0].code}/start")
    holder = busy[0].press()
    assert holder.accepted, holder.first
    go = {id(room): screen_go(room[1]) for room in (busy, empty)}
    until(max(go.values()) + GRACE_S + 0.5)
    holder.release()

    # What each observer saw from the start until the grace had passed.
    seen = [seen_until(room[1], go[id(room)] + GRACE_S - 0.05) for room in (busy, empty)]
    assert seen[0] == seen[1]
    assert seen[1][-1]["phase"] in ("free", "spending")   # go was shown, in both rooms
    # The empty round ends, but not before the grace.
    watch = empty[1]
    watch.wait_view(lambda v: v["phase"] == "result", timeout=10)
    ended = watch.view_arrival(lambda v: v["phase"] == "result")
    assert ended >= go[id(empty)] + GRACE_S - 0.05
    assert watch.views[-1]["history"][0]["winner"] is None


def test_a_silent_late_press_after_seeing_go_gets_nothing(server):
    """The trick: watch go, and if it looks as if nobody pressed, press late
    with a socket that never answers the server's pings (so the server cannot
    measure the round trip and would grant the longest grace), keep it alive
    with pongs nobody asked for, let go just after spending starts, and win
    the token for nothing."""
    honest, cheat = seat(server, ["Honest", "Cheat"], ONE_ROUND)
    honest.post(f"/r/{honest.code}/start")
    until(screen_go(cheat) + 0.15)
    hold = cheat.raw_press(answering=False, forge_every=0.1)
    assert hold.first == {"type": "refused", "reason": "too_late"}
    hold.close()
    result = honest.wait_view(lambda v: v["phase"] in ("result", "ended"), timeout=10)
    assert result["history"][0]["winner"] is None
    assert all(p["tokens"] == 0 for p in result["players"])


def test_pongs_nobody_asked_for_are_no_sign_of_life(server):
    """A socket that answers no ping is taken for gone, whatever else it sends:
    released at the moment it opened, within a second, before go -- out of the round."""
    cheat, other = seat(server, ["Cheat", "Other"], {**ONE_ROUND, "ready_ms": 4000})
    cheat.post(f"/r/{cheat.code}/start")
    cheat.wait_view(lambda v: v["phase"] == "countdown")
    opened = time.monotonic()
    hold = cheat.raw_press(answering=False, forge_every=0.1)
    assert hold.first == {"type": "in"}
    cheat.wait_view(lambda v: v["me"]["holding"] is True, timeout=5)
    view = cheat.wait_view(lambda v: v["me"]["holding"] is False, timeout=5)
    let_go = cheat.view_arrival(lambda v: v["phase"] == "countdown" and not v["me"]["holding"])
    assert let_go - opened < 1.0 + 0.3
    assert view["phase"] == "countdown"
    hold.close()
    final = cheat.wait_view(lambda v: v["phase"] == "ended", timeout=15)["final"]
    assert final["bids"][0]["bids"][cheat.state()["me"]["id"]] is None


def test_a_hold_socket_from_another_site_is_refused(server):
    ann, bob = seat(server, ["Ann", "Bob"], ONE_ROUND)
    ann.post(f"/r/{ann.code}/start")
    ann.wait_view(lambda v: v["phase"] == "countdown")
    url = server.url.replace("http", "ws", 1) + f"/r/{ann.code}/hold"
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        websocket.create_connection(url, cookie=ann.cookie, origin="https://evil.example",
                                    timeout=5)
    assert refused.value.status_code == 403
    assert ann.state()["me"]["holding"] is False
    # The page's own origin is welcome.
    ws = websocket.create_connection(url, cookie=bob.cookie, origin=server.url, timeout=5)
    try:
        assert ws.recv() == '{"type": "in"}'
    finally:
        ws.close()



def come_and_go(player: Player, code: str, times: int) -> None:
    """Take the room's free seat and give it up again, ``times`` times (a 409 or
    404 when another device holds the seat at that moment is fine)."""
    for _ in range(times):
        if player.post(f"/r/{code}/join", {"name": f"Churning player {id(player) % 10_000}"},
                       expect=None).status_code == 200:
            player.post(f"/r/{code}/leave", expect=None)


class StalledStream:
    """A device's own event stream that the device stops reading: the server's
    writes to it back up until the device drains it, when it chooses."""

    def __init__(self, player: Player):
        url = urlparse(player.base)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        self.sock.connect((url.hostname, url.port))
        self.sock.sendall((f"GET /r/{player.code}/events HTTP/1.1\r\n"
                           f"Host: {url.netloc}\r\nAccept: text/event-stream\r\n"
                           f"Cookie: {player.cookie}\r\n\r\n").encode())

    def drain(self) -> int:
        """Read everything the server has sent so far; returns how many bytes."""
        self.sock.setblocking(False)
        total = 0
        while True:
            try:
                chunk = self.sock.recv(65536)
            except BlockingIOError:
                return total
            if not chunk:
                return total
            total += len(chunk)

    def close(self) -> None:
        self.sock.close()


def test_a_stalled_stream_buys_no_discount(server):
    """The trick: stop reading your own event stream until the server's writes to
    it back up, watch the game on a stream without your cookie, hold, and drain
    your own stream a second late -- so the server, if it dated releases from when
    *your* stream was sent spending, would credit you its 'lag'. It dates them
    from when the room published spending, so the hold costs what it was."""
    cheat, other = seat(server, ["Cheat", "Other"],
                        {**ONE_ROUND, "own_bank": "shown", "reveal": "all_bids"})
    cheat.stop()                       # its own, honest stream goes away
    own = StalledStream(cheat)
    try:
        play_the_stall(server, cheat, other, own)
    finally:
        own.close()


def play_the_stall(server, cheat: Player, other: Player, own: StalledStream) -> None:
    watcher = Player(server.url)       # no seat, no cookie of the cheat's: just watches
    watcher.code = cheat.code
    watcher.follow()
    # Churn in the lobby fills the server's buffer for the stalled stream.
    churn = [Player(server.url) for _ in range(40)]
    threads = [threading.Thread(target=come_and_go, args=(p, cheat.code, 25)) for p in churn]
    for t in threads:
        t.start()
    for i in range(50):      # the host's settings part is the biggest of the page
        # (amid the churn a post may find the room busy: 409, fine for churn)
        cheat.post(f"/r/{cheat.code}/settings", {"result_ms": 2000 + 100 * (i % 2)},
                   expect=None)
    for t in threads:
        t.join(120)
    cheat.post(f"/r/{cheat.code}/start")
    watcher.wait_view(lambda v: v["phase"] == "countdown")
    hold, other_hold = cheat.press(), other.press()
    assert hold.accepted and other_hold.accepted
    watcher.wait_view(lambda v: v["phase"] == "spending")
    seen = watcher.view_arrival(lambda v: v["phase"] == "spending")
    until(seen + 0.3)
    other_hold.release()
    until(seen + 1.0)
    assert own.drain() > 0             # a second late, it reads what was held back
    until(seen + 1.5)
    let_go = time.monotonic()
    hold.release()
    held = (let_go - seen) * 1000
    view = watcher.wait_view(lambda v: v["phase"] in ("result", "ended"), timeout=10)
    bids = view["history"][0]["bids"] or view["final"]["bids"][0]["bids"]
    charged = bids[cheat.state()["me"]["id"]]
    assert abs(charged - held) <= 50, (charged, held)
