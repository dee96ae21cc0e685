"""The worker's subscription hub against a real Redis: every listener hears its room."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import redis

from auction.server import store
from auction.server.hub import Hub
from harness import RedisServer


def stop(hub: Hub) -> None:
    """End the hub's lines, whose threads would go on asking a server the test has
    closed for as long as the test run lasts (a worker's hub lives as long as it)."""
    for line in list(hub._lines.values()):
        line.close()


def test_rooms_whose_streams_open_together_all_hear_their_changes(redis_url):
    """A hundred rooms' streams open at once, as when games begin together. A fresh
    subscription opens its connection on its first command: two first commands at
    once each opened one, only one was read, and the rooms subscribed on the other
    heard nothing (whole rooms' streams stood still until their 15 s keep-alive)."""
    client = redis.Redis.from_url(redis_url)
    hub = Hub(client)
    codes = [f"H{i:03d}" for i in range(100)]
    start = threading.Barrier(40)

    def listen(code):
        try:
            start.wait(timeout=5)
        except threading.BrokenBarrierError:
            pass
        return hub.listen(code)

    try:
        with ThreadPoolExecutor(40) as pool:
            listeners = list(pool.map(listen, [c for c in codes for _ in range(4)]))
        for code in codes:                          # every channel subscribed, somewhere
            assert client.execute_command("PUBSUB", "NUMSUB", store.channel(code))[1] == 1
        for code in codes:
            client.publish(store.channel(code), b"7\n" + json.dumps({"room": code}).encode())
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(l.latest is None for l in listeners):
            time.sleep(0.05)
        deaf = sorted({l.code for l in listeners if l.latest is None})
        assert deaf == [], f"{len(deaf)} rooms heard nothing"
        assert all(l.latest.version == 7 and l.latest.record == {"room": l.code}
                   for l in listeners)
    finally:
        for l in listeners:
            l.close()
        stop(hub)
        client.close()


def test_a_subscription_that_falls_silent_is_opened_again(redis_url):
    """A node that vanishes (its machine gone, the network cut) resets nothing: its
    subscription just hears nothing more. The hub asks a quiet line for a pong and
    takes one that stays silent for lost: it subscribes again and pokes its
    listeners, which reload what they may have missed."""
    from proxy import Proxy

    target = redis.Redis.from_url(redis_url)
    proxy = Proxy(target.connection_pool.connection_kwargs["port"], handshake=False)
    client = redis.Redis(port=proxy.port)
    hub = Hub(client)
    listener = hub.listen("SILENT")
    try:
        deadline = time.monotonic() + 5
        while not target.execute_command("PUBSUB", "NUMSUB", store.channel("SILENT"))[1]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        proxy.stall(proxy.connections[-1])           # that line, and only it, goes quiet
        stalled_at = time.monotonic()
        target.publish(store.channel("SILENT"), b"2\n{}")   # lost on the stalled line
        while not listener.missed:
            assert time.monotonic() - stalled_at < Hub.SILENT_S + Hub.PING_S + 2, "never noticed"
            time.sleep(0.05)
        target.publish(store.channel("SILENT"), b"3\n{}")   # heard on the new line
        while listener.latest is None or listener.latest.version != 3:
            assert time.monotonic() - stalled_at < Hub.SILENT_S + Hub.PING_S + 4, "deaf"
            time.sleep(0.05)
    finally:
        listener.close()
        stop(hub)
        client.close()
        target.close()
        proxy.close()


def test_a_line_whose_rooms_all_closed_stays_quiet_and_carries_the_next(caplog):
    """A worker whose last room's streams have closed keeps its line open and idle:
    redis-py reads nothing on a subscription without channels, so the pong the hub asked
    for was never heard, and the line was taken for lost and opened again every
    SILENT_S, a warning each time, for as long as the worker stayed idle."""
    own = RedisServer()     # its connection count is this hub's alone
    target = redis.Redis.from_url(own.url)
    hub = Hub(redis.Redis.from_url(own.url))
    try:
        before = {t.ident for t in threading.enumerate()}
        hub.listen("IDLE").close()
        mine = {t.ident for t in threading.enumerate()} - before   # its line's thread
        opened = target.info("stats")["total_connections_received"]
        time.sleep(Hub.SILENT_S + Hub.PING_S + 0.5)
        assert target.info("stats")["total_connections_received"] == opened
        assert not [r for r in caplog.records if r.thread in mine], caplog.text
        listener = hub.listen("NEXT")      # the idle line carries the next room at once
        deadline = time.monotonic() + 5
        while not target.execute_command("PUBSUB", "NUMSUB", store.channel("NEXT"))[1]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        target.publish(store.channel("NEXT"), b"2\n{}")
        while listener.latest is None:
            assert time.monotonic() < deadline, "the next room was not heard"
            time.sleep(0.02)
        listener.close()
    finally:
        stop(hub)
        target.close()
        own.stop()


def test_a_line_closed_under_its_reader_says_nothing(redis_url, caplog):
    """A line the hub retires (on a cluster, a node none of its rooms live on any more)
    is closed while its thread reads it: that read fails, and is no lost subscription."""
    hub = Hub(redis.Redis.from_url(redis_url))
    before = {t.ident for t in threading.enumerate()}
    listener = hub.listen("RETIRED")
    mine = {t.ident for t in threading.enumerate()} - before
    time.sleep(0.3)                 # its thread is in its read
    stop(hub)
    time.sleep(Hub.PING_S + 0.5)    # past the read's timeout
    assert listener.code == "RETIRED" and not [r for r in caplog.records if r.thread in mine], \
        caplog.text


def test_a_change_wakes_only_the_streams_whose_view_it_changes(redis_url):
    """Another player's press changes the stored room and that player's own view, and no
    one else's: it wakes neither a spectator's stream nor another seat's, though each
    is handed it (the next change they do see finds it kept). Before, every change woke
    every stream of the room, and a worker with 216 spectator streams spent twice its
    quiet CPU after each hidden press: something a latency probe could read."""
    from auction.game import rules
    from auction.server.clock import Clock
    from auction.server.hub import EVERY
    from auction.server.rooms import Rooms
    from auction.server.store import Store

    client = redis.Redis.from_url(redis_url)
    rooms = Rooms(Store(client), Clock(Store(client).time))
    code = rooms.create("t1", "Ann", "stake")
    rooms.join(code, "t2", "Bob")
    room, _ = rooms.load(code)
    ann, bob = room.seat_of("t1"), room.seat_of("t2")
    hub = Hub(client)
    spectator, other, presser, hold = (hub.listen(code) for _ in range(4))
    spectator.seat, other.seat, presser.seat = None, bob, ann       # hold: EVERY
    assert hold.seat == EVERY

    def woken(listener, timeout=2.0):
        return listener.wait(timeout)

    try:
        rooms.as_player(code, "t1", lambda pid: rules.Start(pid))     # everyone sees it
        assert all(woken(l) for l in (spectator, other, presser, hold))
        rnd = rooms.load(code)[0].game.current
        rooms.act(code, lambda room: rules.Press(ann, rnd.go_ms - 300), now_ms=rnd.go_ms - 300)
        assert woken(presser) and woken(hold)       # Ann sees herself holding
        version = presser.latest.version
        assert not woken(spectator, 0.3) and not woken(other, 0.3)
        assert spectator.latest.version == other.latest.version == version   # kept, unwoken
        rooms.act(code, lambda room: rules.Release(ann, rnd.go_ms - 100),
                  now_ms=rnd.go_ms - 100)            # let go in the countdown: hers alone
        assert woken(presser) and not woken(spectator, 0.3) and not woken(other, 0.3)
        # Bob leaves: the players' list changes, which everyone sees.
        rooms.leave(code, "t2")
        assert all(woken(l) for l in (spectator, other, presser, hold))
    finally:
        for l in (spectator, other, presser, hold):
            l.close()
        stop(hub)
        client.close()
