"""The players of bench/load.py: rooms of four playing short games, on asyncio.

Each player speaks the public protocol as a phone does: JSON posts, its view
stream (``/r/<CODE>/events``, reconnecting like EventSource) and one hold
socket per press. The stream is the phone's own, HTML parts, by default (the
phase, the round and the countdown are read from the parts' data attributes,
the final table from ``/r/<CODE>/state`` once the game ended);
``use_json_streams()`` makes it the JSON view stream instead. Like the page, a
player probes ``/clock`` as it arrives and counts to go on the server's clock
(the view's ``deadline_at_ms``), so a late stream does not move its go. Each
round it presses at a random moment of the countdown, lets go 0.3-2.5 s after
*its own stream* showed spending, and notes what it measured; after the game
the charged bids are read from the final view.
One asyncio loop (uvloop when installed) drives hundreds of players, so the
generator costs little of the machine it shares with the server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import resource
import time
from collections import Counter

import aiohttp

from auction.server.config import Config
from auction.game.fairness import longest_entry_wait

SETTINGS = {"ready_ms": 2000, "free_ms": 0, "result_ms": 2000, "tie": "margin",
            "tie_margin_ms": 100, "bank_ms": 600_000}
HOLD_S = (0.3, 2.5)
ROUND_S = 8.0            # the longest a round of SETTINGS lasts, with room to spare
SETUP_CONCURRENCY = 40   # rooms set up at once, so setting up is not a load test itself
RETRY_S = 0.5            # a post answered 503 (or not at all) is retried after this
# A round cannot end before its entry closes, go + the longest entry grace (rules.entry_close):
# a result is late only counted from then, or from the last release if that came later.
ENTRY_CLOSE_S = longest_entry_wait(Config.HOLD_COMP_CAP_MS) / 1000


# The phone's stream: its status part carries the phase and round, its countdown timer
# the time to go, and its players part (in the lobby) one item per seat.
STATE = re.compile(rb'data-phase="(\w+)" data-round="(\d+)"')
AT = re.compile(rb'data-deadline-at-ms="(\d*)"')
TIMER = re.compile(rb'class="timer[^"]*" data-deadline-ms="(\d*)"')
SEAT = re.compile(rb'<li class="player')
JSON_STREAMS = False


def use_json_streams(on: bool = True) -> None:
    """Follow the JSON view stream (``?format=json``) instead of the phone's HTML."""
    global JSON_STREAMS
    JSON_STREAMS = on


class TurnedAway(Exception):
    """The server answered 503: it takes no new game now (web/capacity.py)."""


class Tally:
    """What one process measured; plain lists and counters, merged by the parent."""

    def __init__(self):
        self.bid_errors: list[float] = []      # charged bid - the client's own hold, ms
        self.result_delays: list[float] = []   # last release -> result view, ms
        self.holds = 0                         # holds released by the client and charged
        self.cut = 0                           # holds the server ended while we held
        self.wrong_refusals = 0                # presses sent before go and refused
        self.refusals: Counter = Counter()     # every refusal, by reason
        self.lost = 0                          # round results a player never saw
        self.errors: Counter = Counter()       # failures, by kind
        self.statuses: Counter = Counter()     # every HTTP status answered
        self.inconsistent = 0                  # final tables whose banks do not add up
        self.rooms = 0
        self.rooms_ended = 0
        self.late_admitted = 0                 # rooms arriving mid-run that got in
        self.turned_away = 0                   # ... and that the server turned away
        self.reconnects = 0
        self.disturbed = 0                     # holds not measured: the stream reconnected
        self.cpu_s = 0.0
        self.gen_lag_ms = 0.0                  # the generator's own worst event-loop lag
        self.max_rss_kb = 0

    def as_dict(self) -> dict:
        return dict(vars(self))

    @classmethod
    def from_dict(cls, data: dict) -> Tally:
        """Back from ``as_dict`` (and JSON, whose object keys are strings)."""
        tally = cls()
        for key, value in data.items():
            if isinstance(value, dict):
                value = Counter({int(k) if key == "statuses" else k: v
                                 for k, v in value.items()})
            setattr(tally, key, value)
        return tally


class Player:
    """One device: a cookie, the stream of its views, holds on demand."""

    def __init__(self, http: aiohttp.ClientSession, base: str, tally: Tally, name: str):
        self.http, self.base, self.tally, self.name = http, base, tally, name
        self.cookie = ""
        self.code = ""
        self.views: list[tuple[float, dict]] = []   # (arrival, view)
        self._news = asyncio.Event()
        self.done = False
        self.releases: dict[int, float] = {}        # round -> when we let go (clean holds)
        self.go: dict[int, float] = {}              # round -> go, as our screen showed it
        self.held: dict[int, float] = {}            # round -> our own hold, ms
        self.cut_rounds: set[int] = set()
        self.connects: list[float] = []             # when each stream (re)connection answered
        # The server's clock minus ours (ms), from the surest probe of /clock: the page
        # counts to go on it (static/clock.js), so a late stream does not move its go.
        self.offset_ms: float | None = None

    async def post(self, path: str, body: dict, expect: int = 200, tries: int = 40,
                   turn_away: bool = False) -> dict:
        """A JSON post, retried while the server answers 503 or cannot be reached
        (``turn_away``: a 503 raises TurnedAway instead, as a player gives up)."""
        for _ in range(tries):
            try:
                async with self.http.post(self.base + path, json=body, headers=self._headers(
                        {"Accept": "application/json"})) as resp:
                    self.tally.statuses[resp.status] += 1
                    self._keep_cookie(resp)
                    if resp.status == expect:
                        return await resp.json()
                    if resp.status == 503 and turn_away:
                        raise TurnedAway(path)
                    if resp.status != 503:
                        raise RuntimeError(f"POST {path}: {resp.status} {await resp.text()}")
            except (aiohttp.ClientError, asyncio.TimeoutError):
                self.tally.errors["post failed"] += 1
            await asyncio.sleep(RETRY_S)
        raise RuntimeError(f"POST {path}: gave up")

    def _headers(self, extra: dict | None = None) -> dict:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        return {**headers, **(extra or {})}

    def _keep_cookie(self, resp) -> None:
        if not self.cookie and "ta_device" in resp.cookies:
            self.cookie = f"ta_device={resp.cookies['ta_device'].value}"

    async def probe_clock(self, probes: int = 3) -> None:
        """As the page does at load: a few round trips to GET /clock, keeping the
        offset of the one with the shortest (its midpoint is surest)."""
        loop, best = asyncio.get_running_loop(), None
        for _ in range(probes):
            sent = loop.time()
            try:
                async with self.http.get(self.base + "/clock") as resp:
                    now_ms = (await resp.json())["now_ms"]
            except (aiohttp.ClientError, asyncio.TimeoutError, ValueError, KeyError):
                continue
            got = loop.time()
            if best is None or got - sent < best[0]:
                best = (got - sent, now_ms - (sent + got) / 2 * 1000)
        if best is not None:
            self.offset_ms = best[1]

    # -- the view stream -------------------------------------------------------

    async def follow(self) -> None:
        url = f"{self.base}/r/{self.code}/events" + ("?format=json" if JSON_STREAMS else "")
        seen = {"phase": "lobby", "round": 0, "deadline_ms": None, "deadline_at_ms": None,
                "players": []}
        loop = asyncio.get_running_loop()
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=10, sock_read=None)
        while not self.done:
            try:
                async with self.http.get(url, headers=self._headers(), timeout=timeout) as resp:
                    self.tally.statuses[resp.status] += 1
                    if resp.status == 200:
                        self.connects.append(loop.time())
                        event, data = b"", []
                        async for line in resp.content:
                            line = line.rstrip(b"\r\n")
                            if line.startswith(b"data:"):
                                data.append(line[5:].lstrip())
                            elif line.startswith(b"event:"):
                                event = line[6:].strip()
                            elif not line and data:
                                if event == b"view":
                                    self._got(loop.time(), json.loads(b"\n".join(data)))
                                elif event in (b"status", b"players"):
                                    self._parsed(loop.time(), event, b"\n".join(data), seen)
                                event, data = b"", []
            except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
                pass
            if self.done:
                return
            self.tally.reconnects += 1
            await asyncio.sleep(RETRY_S)

    def _parsed(self, at: float, event: bytes, html: bytes, seen: dict) -> None:
        """Note what an HTML part says as a (partial) view: the phone reads the same."""
        if event == b"players":
            if seen["phase"] != "lobby":
                return
            seen["players"] = [None] * len(SEAT.findall(html))
        else:
            state = STATE.search(html)
            if state is None:
                return
            timer, go_at = TIMER.search(html), AT.search(html)
            seen.update(phase=state[1].decode(), round=int(state[2]),
                        deadline_ms=int(timer[1]) if timer and timer[1] else None,
                        deadline_at_ms=int(go_at[1]) if go_at and go_at[1] else None)
        self._got(at, dict(seen))

    async def final_view(self) -> None:
        """After the game: the whole view as JSON (the HTML stream is only read for
        its phases), for the final table of bids."""
        if JSON_STREAMS:
            return
        async with self.http.get(f"{self.base}/r/{self.code}/state",
                                 headers=self._headers()) as resp:
            if resp.status == 200:
                self.views.append((asyncio.get_running_loop().time(), await resp.json()))

    def _got(self, at: float, view: dict) -> None:
        self.views.append((at, view))
        news, self._news = self._news, asyncio.Event()
        news.set()

    async def wait_view(self, test, timeout: float) -> tuple[float, dict]:
        """The first view so far (or to come) that passes ``test``: (arrival, view)."""
        deadline = asyncio.get_running_loop().time() + timeout
        seen = 0
        while True:
            for at, view in self.views[seen:]:
                if test(view):
                    return at, view
            seen = len(self.views)
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no such view")
            try:
                await asyncio.wait_for(self._news.wait(), left)
            except asyncio.TimeoutError:
                pass

    # -- holds ------------------------------------------------------------------

    async def play_round(self, rnd: int, rng: random.Random, closers: list) -> None:
        loop = asyncio.get_running_loop()
        seen, view = await self.wait_view(lambda v: v["round"] >= rnd and v["phase"] != "lobby",
                                          ROUND_S * 2)
        if view["round"] != rnd or view["phase"] != "countdown":
            self.tally.errors["missed a countdown"] += 1
            return
        at = view.get("deadline_at_ms")
        if at is not None and self.offset_ms is not None:   # go on the server's clock
            go = self.go[rnd] = (at - self.offset_ms) / 1000
        else:                                               # go as the view's arrival says
            go = self.go[rnd] = seen + view["deadline_ms"] / 1000
        await asyncio.sleep(max(0.0, rng.uniform(seen + 0.3, go - 0.4) - loop.time()))
        sent = loop.time()
        url = self.base.replace("http", "ws", 1) + f"/r/{self.code}/hold"
        try:
            ws = await self.http.ws_connect(url, headers=self._headers(), autoping=True,
                                            timeout=aiohttp.ClientWSTimeout(ws_close=3.0))
        except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
            self.tally.errors[f"hold refused by HTTP {getattr(exc, 'status', '')}".strip()] += 1
            return
        first_message, ended = loop.create_future(), loop.create_future()
        reader = loop.create_task(self._read_hold(ws, first_message, ended))
        try:
            try:
                first = await asyncio.wait_for(first_message, 10)
            except asyncio.TimeoutError:
                first = None
            if first is None or first.get("type") != "in":
                reason = (first or {}).get("reason", "no answer")
                self.tally.refusals[reason] += 1
                if sent < go:
                    self.tally.wrong_refusals += 1
                return
            await self._hold(rnd, rng, ws, ended, sent)
        finally:
            closers.append(loop.create_task(self._close(ws, reader, ended, rnd)))

    @staticmethod
    async def _read_hold(ws, first, ended) -> None:
        """Read the socket (answering pings) until it ends: its first message
        resolves ``first``, and ``ended`` says why it ended."""
        reason = "closed"
        try:
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    continue
                message = json.loads(msg.data)
                if not first.done():
                    first.set_result(message)
                elif message.get("type") == "released":
                    reason = message.get("reason", "released")
                    break
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            reason = "broken"
        if not first.done():
            first.set_result(None)
        if not ended.done():
            ended.set_result(reason)

    async def _hold(self, rnd: int, rng: random.Random, ws, ended, pressed: float) -> None:
        loop = asyncio.get_running_loop()
        wait = loop.create_task(self.wait_view(
            lambda v: v["round"] > rnd or (v["round"] == rnd and v["phase"] != "countdown"),
            ROUND_S))
        done, _ = await asyncio.wait({wait, ended}, return_when=asyncio.FIRST_COMPLETED)
        if ended in done:
            wait.cancel()
            return self._cut(rnd)
        seen, view = wait.result()
        if view["round"] != rnd or view["phase"] != "spending":
            return self._cut(rnd)
        target = seen + rng.uniform(*HOLD_S)
        try:
            await asyncio.wait_for(asyncio.shield(ended), max(0.0, target - loop.time()))
            return self._cut(rnd)      # the server let go of us first
        except asyncio.TimeoutError:
            pass
        let_go = loop.time()
        try:
            await ws.send_str('{"type": "release"}')
        except (aiohttp.ClientError, ConnectionError):
            return self._cut(rnd)
        self.releases[rnd] = let_go
        if any(pressed <= at <= let_go for at in self.connects):
            # The stream came back mid-round: when it showed spending says how long
            # the reconnection took, not how long we held. Charged, but not measured.
            self.tally.disturbed += 1
        else:
            self.held[rnd] = (let_go - seen) * 1000

    def _cut(self, rnd: int) -> None:
        self.tally.cut += 1
        self.cut_rounds.add(rnd)

    async def _close(self, ws, reader, ended, rnd: int) -> None:
        try:
            await ws.close()
        except (aiohttp.ClientError, ConnectionError, asyncio.TimeoutError):
            pass
        try:
            await asyncio.wait_for(reader, 2)
        except asyncio.TimeoutError:
            pass
        reason = ended.result() if ended.done() else None
        if rnd in self.releases and reason not in (None, "closed", "broken"):
            # The server had ended the hold (took us for gone, say) before our release
            # reached it: not a hold we let go of ourselves after all.
            del self.releases[rnd]
            if self.held.pop(rnd, None) is None:
                self.tally.disturbed -= 1
            self._cut(rnd)


class Room:
    """Four players in one room: set up, then a game, then its figures."""

    def __init__(self, http, bases: list[str], tally: Tally, rounds: int, seed: int):
        """``bases``: the servers' URLs; the players take turns at them."""
        self.tally, self.rounds = tally, rounds
        self.rng = random.Random(seed)
        self.players = [Player(http, bases[i % len(bases)], tally, f"P{seed}-{i}")
                        for i in range(4)]
        self.tasks: list[asyncio.Task] = []

    async def set_up(self, turn_away: bool = False) -> None:
        """Make the room and seat its players (``turn_away``: give up on a 503)."""
        host = self.players[0]
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
        for p in self.players:
            p.done = True
        for task in self.tasks:
            task.cancel()
        self._figures()

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
                       tally: Tally):
    """A session and ``count`` rooms ready to start (every player following its stream)."""
    bases = [base] if isinstance(base, str) else list(base)
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    http = aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                                 timeout=aiohttp.ClientTimeout(total=30))
    rooms = [Room(http, bases, tally, rounds, seed * 100_000 + i) for i in range(count)]
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)

    async def one(room):
        async with gate:
            await room.set_up()

    await asyncio.gather(*(one(r) for r in rooms))
    return http, rooms


async def play_rooms(http, rooms: list[Room], start_at: float, ramp_s: float,
                     tally: Tally, late: list[Room] = (), late_s: float = 0.0) -> None:
    """Start each room's game at a moment spread over ``ramp_s``; wait for all to end.
    ``late`` rooms arrive while those games run (spread over ``late_s`` after the
    ramp): each is set up and played at once, unless the server turns it away."""
    cpu = time.process_time()
    rng = random.Random(len(rooms))
    watch = asyncio.create_task(_watch_lag(tally))

    async def arrive(room: Room, at: float) -> None:
        await asyncio.sleep(max(0.0, at - asyncio.get_running_loop().time()))
        try:
            await room.set_up(turn_away=True)
        except TurnedAway:
            tally.turned_away += 1
            for task in room.tasks:
                task.cancel()
            return
        tally.late_admitted += 1
        await room.play(0.0)

    arrivals = [arrive(r, start_at + ramp_s + rng.uniform(0, late_s)) for r in late]
    await asyncio.gather(*(r.play(start_at + rng.uniform(0, ramp_s)) for r in rooms), *arrivals)
    watch.cancel()
    await http.close()
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
        http, made = await set_up_rooms(base, rooms, rounds, seed, tally)
        start = loop.time() + 0.2
        if started is not None:
            loop.call_at(start + ramp_s, started)
        await play_rooms(http, made, start, ramp_s, tally)

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
    args = parser.parse_args(argv)
    tally = play(args.urls, args.rooms, args.rounds, args.seed, args.ramp,
                 started=lambda: print("started", flush=True))
    print(json.dumps(tally.as_dict()), flush=True)


if __name__ == "__main__":
    main()
