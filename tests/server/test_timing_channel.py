"""No timing tells who holds: a refusal does the same work whoever holds.

A visitor who is not seated posts ``/start`` to a room in its countdown. If
the server read the holders' heartbeats before refusing (as it once did, only
when a human held), the refusal would take one more Redis round trip when
someone holds -- about 100 µs, which a patient stranger can measure. Two
checks: the exact Redis commands of the refusal are the same in a room where
a human holds and in one where nobody does (deterministic), and the answer
times of many interleaved refusals are distributed alike (statistical).
"""

from __future__ import annotations

import statistics
import threading
import time

import pytest
import redis
import requests

from auction.game import rules

from auction.server import store
from client import Player

JSON = {"Accept": "application/json"}
COUNTDOWN = {"ready_ms": 10_000}        # long enough to hold through the measurement


def _rooms(svc, tag: str):
    """Two started Time Stake rooms, alike but for a human holding in the first."""
    codes = []
    for holds in (True, False):
        host, bob = f"host-{tag}-{holds}" * 2, f"bob-{tag}-{holds}" * 2
        code = svc._rooms.create(host, "Ann", "stake")
        svc._rooms.join(code, bob, "Bob")
        svc._rooms.as_player(code, host, lambda pid: rules.ChangeSettings(pid, COUNTDOWN))
        svc._rooms.as_player(code, host, rules.Start)
        if holds:
            svc._rooms.as_player(code, bob, lambda pid: rules.Press(pid))
        codes.append(code)
    return codes


class Monitor:
    """Every command the Redis server runs, as Redis's MONITOR reports them."""

    def __init__(self, url: str):
        self.client = redis.Redis.from_url(url)
        self.lines: list[str] = []
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(5)

    def _run(self) -> None:
        with self.client.monitor() as monitor:
            self._ready.set()
            for command in monitor.listen():
                self.lines.append(command["command"])
                if command["command"] == "ECHO monitor-stop":
                    return

    def between(self, start: str, end: str) -> list[str]:
        lines = self.lines
        return lines[lines.index(f"ECHO {start}") + 1:lines.index(f"ECHO {end}")]

    def stop(self) -> None:
        self.client.echo("monitor-stop")
        self._thread.join(5)
        self.client.close()


def test_a_refusal_runs_the_same_redis_commands_whoever_holds(app, redis_url):
    svc = app.extensions["auction"]
    busy, empty = _rooms(svc, "trace")
    stranger = app.test_client()
    stranger.get("/")                           # a device of its own, not seated
    # Once, so that scripts are loaded before anything is compared.
    assert stranger.post(f"/r/{busy}/start", json={}, headers=JSON).status_code == 403
    marker = redis.Redis.from_url(redis_url)
    monitor = Monitor(redis_url)
    try:
        for code in (busy, empty):
            marker.echo(f"before-{code}")
            response = stranger.post(f"/r/{code}/start", json={}, headers=JSON)
            assert response.status_code == 403
            marker.echo(f"after-{code}")
    finally:
        monitor.stop()
        marker.close()
    # The limiter's counters are named by time windows: compare what each command
    # is, and every word of those that name the room.
    # Rooms of different shards differ in their keys' hash tag too (store.py).
    traces = [[line.replace(code, "CODE").replace(store.TAGS[store.shard(code)], "TAG")
               if code in line else line.split()[0]
               for line in monitor.between(f"before-{code}", f"after-{code}")]
              for code in (busy, empty)]
    assert traces[0], "the refusal ran no Redis command at all?"
    assert traces[0] == traces[1]
    assert not any("hold:" in line for line in traces[0])     # no heartbeat was read


@pytest.fixture(scope="module")
def timed_rooms(server):
    """Two rooms on a real server, a human holding (and answering pings) in one."""
    players = []
    codes = []
    for holds in (True, False):
        ann, bob = Player(server.url), Player(server.url)
        code = ann.create("Ann", "stake")
        bob.join(code, "Bob")
        ann.post(f"/r/{code}/settings", COUNTDOWN)
        ann.post(f"/r/{code}/start")
        if holds:
            hold = bob.raw_press()
            assert hold.first == {"type": "in"}
        players += [ann, bob]
        codes.append(code)
    yield codes
    for player in players:
        player.stop()


def rank_sum_z(a: list[float], b: list[float]) -> float:
    """The Mann-Whitney U test's z (normal approximation): how many standard
    errors apart the two samples sit, whatever their shape."""
    ranked = sorted([(x, 0) for x in a] + [(x, 1) for x in b])
    rank_a = sum(rank for rank, (_, side) in enumerate(ranked, 1) if side == 0)
    n, m = len(a), len(b)
    u = rank_a - n * (n + 1) / 2
    return (u - n * m / 2) / (n * m * (n + m + 1) / 12) ** 0.5


def test_refusals_take_as_long_whoever_holds(server, timed_rooms):
    """Interleaved refusals in the two rooms: whatever else the machine is doing
    falls on both alike, so their answer times must be indistinguishable. The
    one Redis round trip that once told them apart (about 100 µs) shows as a
    z of 10 or more in this many samples; |z| < 3.3 fails an honest server once
    in a thousand runs."""
    busy, empty = timed_rooms
    times = {busy: [], empty: []}
    for i in range(1_200):
        if i % 25 == 0:             # a new device now and then, as a patient stranger would
            stranger = requests.Session()
            stranger.headers.update(JSON)
            stranger.get(server.url + "/")
        for code in ((busy, empty) if i % 2 else (empty, busy)):
            started = time.perf_counter()
            response = stranger.post(f"{server.url}/r/{code}/start", json={})
            times[code].append(time.perf_counter() - started)
            assert response.status_code == 403
        if i % 25 == 24:
            stranger.close()
    a, b = (statistics.median(times[c]) * 1e6 for c in (busy, empty))
    z = rank_sum_z(times[busy], times[empty])
    print(f"refusal median: someone holds {a:.0f} µs, nobody holds {b:.0f} µs; z = {z:.2f}")
    assert abs(z) < 3.3, (a, b, z)
