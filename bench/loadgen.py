"""The games of bench/load.py: rooms of four playing short games, on asyncio.

Each player (bench/load_player.py) plays as a phone does: it follows its room's
stream, counts to go on the server's clock, presses at a random moment of each
countdown and lets go 0.3-2.5 s after *its own stream* showed spending. After the
game the charged bids are read from the final view and set against the holds the
players measured. One asyncio loop (uvloop when installed) drives hundreds of
players, so the generator costs little of the machine it shares with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import time

import aiohttp

from auction.game.fairness import longest_entry_wait
from auction.server.config import SERVER_CONFIG
# The player and its tally live beside this file; load.py and the fault tests reach
# them through here.
from load_player import ROUND_S, Player, TurnedAway, use_json_streams  # noqa: F401
from load_tally import Tally

SETTINGS = {"ready_ms": 2000, "free_ms": 0, "result_ms": 2000, "tie": "margin",
            "tie_margin_ms": 100, "bank_ms": 600_000}
SETUP_CONCURRENCY = 40   # rooms set up at once, so setting up is not a load test itself
# A round cannot end before its entry closes, go + the longest entry grace (rules.entry_close):
# a result is late only counted from then, or from the last release if that came later.
ENTRY_CLOSE_S = longest_entry_wait(SERVER_CONFIG.hold_comp_cap_ms) / 1000


def household(seed: int) -> str:
    """The loopback address a room's players come from, one per room (the whole of
    127/8 is this machine's): a household behind its own Wi-Fi, as at a real
    evening, so the server's per-address shares see many addresses, not one."""
    n = seed % (250 ** 3)
    return f"127.{n // 62_500 + 1}.{n // 250 % 250 + 1}.{n % 250 + 1}"


def session(address: str) -> aiohttp.ClientSession:
    """A client session of many connections at once, from ``address``."""
    connector = aiohttp.TCPConnector(limit=0, force_close=False, local_addr=(address, 0))
    return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                                 timeout=aiohttp.ClientTimeout(total=30))


class Room:
    """Four players in one room, from one address: set up, then a game, then its figures."""

    def __init__(self, bases: list[str], tally: Tally, rounds: int, seed: int):
        """``bases``: the servers' URLs; the players take turns at them."""
        self.tally, self.rounds = tally, rounds
        self.rng = random.Random(seed)
        self.http = session(household(seed))
        self.players = [Player(self.http, bases[i % len(bases)], tally, f"P{seed}-{i}")
                        for i in range(4)]
        self.tasks: list[asyncio.Task] = []

    async def set_up(self, turn_away: bool = False) -> None:
        """Make the room and seat its players (``turn_away``: give up on a 503)."""
        host = self.players[0]
        began = time.monotonic()
        try:
            await self._seat(host, turn_away)
        finally:
            self.tally.setups.append([began, time.monotonic()])

    async def _seat(self, host: Player, turn_away: bool) -> None:
        code = (await host.post("/rooms", {"name": "Host", "preset": "stake"}, 201,
                                turn_away=turn_away))["code"]
        for i, p in enumerate(self.players):
            p.code = code
            if i:
                await p.post(f"/r/{code}/join", {"name": f"Player {i}"}, turn_away=turn_away)
        await host.post(f"/r/{code}/settings", {**SETTINGS, "rounds": self.rounds})
        self.tasks = [asyncio.create_task(p.follow()) for p in self.players]
        await asyncio.gather(*(p.probe_clock() for p in self.players))
        for p in self.players:
            await p.wait_view(lambda v: len(v["players"]) == 4, 30)

    async def play(self, start_at: float) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(max(0.0, start_at - loop.time()))
        host = self.players[0]
        closers: list = []
        try:
            await host.post(f"/r/{host.code}/start", {})
            outcomes = await asyncio.gather(*(self._play_all(p, closers) for p in self.players),
                                            return_exceptions=True)
        except Exception as exc:
            outcomes = [exc]
        for exc in outcomes:   # a room that broke off still reports what it has
            if exc is not None:
                self.tally.errors[f"room broke off: {exc!r}"] += 1
        await asyncio.gather(*closers)
        self.tally.endings.append(time.monotonic())
        await self.close()
        self._figures()

    async def close(self) -> None:
        for p in self.players:
            p.done = True
        for task in self.tasks:
            task.cancel()
        await self.http.close()

    async def _play_all(self, player: Player, closers: list) -> None:
        for rnd in range(1, self.rounds + 1):
            try:
                await player.play_round(rnd, self.rng, closers)
            except TimeoutError:
                self.tally.errors["no countdown view"] += 1
        try:
            await player.wait_view(lambda v: v["phase"] == "ended", ROUND_S * 2)
        except TimeoutError:
            self.tally.errors["never saw the end"] += 1
            return
        await player.final_view()

    def _figures(self) -> None:
        t = self.tally
        t.rooms += 1
        ends = [next((v for _, v in reversed(p.views) if v["phase"] == "ended"
                      and "final" in v), None) for p in self.players]
        if all(ends):
            t.rooms_ended += 1
        for p, end in zip(self.players, ends):
            last = p.views[-1][1] if p.views else {}
            t.lost += self.rounds - len({h["round"] for h in last.get("history", [])})
            if end is None:
                continue
            pid = end["me"]["id"]
            table = {row["round"]: row["bids"] for row in end["final"]["bids"]}
            for rnd, held in p.held.items():
                charged = table.get(rnd, {}).get(pid)
                if charged is None:
                    t.errors["clean hold not charged"] += 1
                else:
                    t.holds += 1
                    t.bid_errors.append(charged - held)
                    t.hold_rounds.append(rnd)
                    t.hold_at.append(p.releases[rnd])
            spent = sum(b or 0 for row in table.values() for b in [row.get(pid)])
            bank = next(s["bank_ms"] for s in end["final"]["standings"] if s["id"] == pid)
            if bank != SETTINGS["bank_ms"] - spent:
                t.inconsistent += 1
        self._result_delays()

    def _result_delays(self) -> None:
        for rnd in range(1, self.rounds + 1):
            if any(rnd in p.cut_rounds for p in self.players):
                continue
            releases = [p.releases[rnd] for p in self.players if rnd in p.releases]
            if not releases:
                continue
            gos = [p.go[rnd] for p in self.players if rnd in p.go]
            last = max(releases + [min(gos) + ENTRY_CLOSE_S] if gos else releases)
            for p in self.players:
                shown = next((at for at, v in p.views if v["round"] == rnd
                              and v["phase"] in ("result", "ended")), None)
                if shown is not None:
                    self.tally.result_delays.append((shown - last) * 1000)


async def set_up_rooms(base: str | list[str], count: int, rounds: int, seed: int,
                       tally: Tally) -> list[Room]:
    """``count`` rooms ready to start (every player following its stream)."""
    bases = [base] if isinstance(base, str) else list(base)
    rooms = [Room(bases, tally, rounds, seed * 100_000 + i) for i in range(count)]
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(room):
        async with gate:
            await room.set_up()

    await asyncio.gather(*(one(r) for r in rooms))
    return rooms


async def play_rooms(rooms: list[Room], start_at: float, ramp_s: float,
                     tally: Tally, late: list[Room] = (), late_s: float = 0.0,
                     seed: int = 0) -> None:
    """Start each room's game at a moment spread over ``ramp_s``; wait for all to end.
    ``late`` rooms arrive while those games run (spread over ``late_s`` after the
    ramp): each is set up and played at once, unless the server turns it away."""
    cpu = time.process_time()
    # Each generator process its own moments (a shared seed made them arrive in pairs).
    rng = random.Random(seed * 7_919 + len(rooms))
    watch = asyncio.create_task(_watch_lag(tally))

    async def arrive(room: Room, at: float) -> None:
        await asyncio.sleep(max(0.0, at - asyncio.get_running_loop().time()))
        try:
            await room.set_up(turn_away=True)
        except TurnedAway:
            tally.turned_away += 1
            await room.close()
            return
        tally.late_admitted += 1
        await room.play(0.0)

    arrivals = [arrive(r, start_at + ramp_s + rng.uniform(0, late_s)) for r in late]
    await asyncio.gather(*(r.play(start_at + rng.uniform(0, ramp_s)) for r in rooms), *arrivals)
    watch.cancel()
    tally.cpu_s = time.process_time() - cpu
    tally.max_rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


async def _watch_lag(tally: Tally, every_s: float = 0.02) -> None:
    """How late this loop wakes: if the generator itself stalls, its stamps (views
    seen, releases sent) and its answers to the server's pings are late too."""
    loop = asyncio.get_running_loop()
    while True:
        due = loop.time() + every_s
        await asyncio.sleep(every_s)
        tally.gen_lag_ms = max(tally.gen_lag_ms, (loop.time() - due) * 1000)


def run(main) -> None:
    """Run ``main()`` on a fresh loop (uvloop when installed); whatever is still
    pending at its end is cancelled, so nothing outlives the loop."""
    try:
        import uvloop
        factory = uvloop.new_event_loop
    except ImportError:
        factory = None
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(main())


def play(base: str | list[str], rooms: int, rounds: int = 3, seed: int = 1,
         ramp_s: float = 2.0, started=None) -> Tally:
    """Set up and play ``rooms`` games in this process; ``started()`` is called once
    every game has been told to start. For tests and the single-process bench."""
    tally = Tally()

    async def main():
        loop = asyncio.get_running_loop()
        made = await set_up_rooms(base, rooms, rounds, seed, tally)
        start = loop.time() + 0.2
        if started is not None:
            loop.call_at(start + ramp_s, started)
        await play_rooms(made, start, ramp_s, tally, seed=seed)

    run(main)
    return tally


def main(argv: list[str] | None = None) -> None:
    """Play games against running servers; prints "started" once every game has
    begun, then the tally as one JSON line. The fault tests run it this way, in a
    process of its own, and break things in between."""
    parser = argparse.ArgumentParser(description=main.__doc__.split("\n")[0])
    parser.add_argument("urls", nargs="+", help="the servers; players take turns at them")
    parser.add_argument("--rooms", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ramp", type=float, default=2.0)
    parser.add_argument("--json-streams", action="store_true",
                        help="follow the JSON view stream, not the phone's HTML parts")
    args = parser.parse_args(argv)
    use_json_streams(args.json_streams)
    tally = play(args.urls, args.rooms, args.rounds, args.seed, args.ramp,
                 started=lambda: print("started", flush=True))
    print(json.dumps(tally.as_dict()), flush=True)


if __name__ == "__main__":
    main()
