"""One player of bench/loadgen.py, speaking the public protocol as a phone does: its
cookie, its room's view stream (the phone's HTML parts, or with ``use_json_streams()``
the JSON one; reconnecting like EventSource), its offset to the server's clock as the
page keeps it, and one hold socket per press, noting what it measured in its Tally."""

from __future__ import annotations

import asyncio
import json
import random
import re

import aiohttp

from load_tally import Tally

HOLD_S = (0.3, 2.5)
ROUND_S = 8.0            # the longest a round of loadgen.SETTINGS lasts, with room to spare
RETRY_S = 0.5            # a post answered 503 (or not at all) is retried after this
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
    """The server answered 503: it takes no new game now (web/door/capacity.py)."""


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
