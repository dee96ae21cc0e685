"""The round's running clock (``elapsed_ms``): public, and never a channel for who holds.

Whoever is out of the round, and the big screen, see the time since spending began. It
comes from the clock and the round's public moments alone, and a stream leaves it out of
its change test exactly like ``deadline_ms``: another player's press or release still
sends not one byte, on the room page's stream, the JSON stream or the big screen's.
"""

from __future__ import annotations

import json
import re
import threading
import time

import requests

from auction.game import rules as R
from auction.game.views import view_for
from auction.web.pages import render
from auction.web.live.stream import Renderer
from client import Player
from test_render import CTX, started

ELAPSED = re.compile(r'data-elapsed-ms="(\d*)"')


def spending(*holders: str) -> R.Game:
    """Round 1 of a Time Auction game with ``holders`` holding into the bidding."""
    game = started()
    for pid in holders:
        game, _ = R.apply(game, R.Press(pid), 1_100)
    game, _ = R.apply(game, R.Tick(), game.current.spend_ms)
    assert game.phase is R.Phase.SPENDING
    return game


def test_the_clock_runs_from_the_start_of_the_spending_and_only_then():
    game = spending("p1", "p2")
    spend = game.current.spend_ms
    for viewer in ("p1", "p2", "p3", None):
        assert view_for(game, viewer, spend + 12_345)["elapsed_ms"] == 12_345
    countdown = started()
    assert view_for(countdown, "p1", 2_000)["elapsed_ms"] is None
    free, _ = R.apply(R.apply(countdown, R.Press("p1"), 1_100)[0], R.Tick(), countdown.current.go_ms)
    assert free.phase is R.Phase.FREE and view_for(free, "p1", free.current.go_ms + 10)["elapsed_ms"] is None


def test_the_clock_is_the_same_whoever_holds_and_whoever_let_go():
    both, alone = spending("p1", "p2"), spending("p1")
    let_go, _ = R.apply(both, R.Release("p2"), both.current.spend_ms + 3_000)
    now = both.current.spend_ms + 7_500
    for viewer in ("p1", "p3", None):
        clocks = {view_for(g, viewer, now)["elapsed_ms"] for g in (both, alone, let_go)}
        assert clocks == {7_500}


def test_the_pages_carry_the_clock_only_in_a_data_attribute():
    game = spending("p1")
    spend = game.current.spend_ms
    page = render.partials(view_for(game, "p2", spend + 4_200), CTX)
    assert ELAPSED.findall(page["status"]) == ["4200"]
    later = render.partials(view_for(game, "p2", spend + 9_900), CTX)
    for name in render.PARTS:
        assert ELAPSED.sub("", page[name]) == ELAPSED.sub("", later[name]), name


def test_a_stream_sends_nothing_as_the_clock_runs_or_another_player_lets_go():
    game = spending("p1", "p2")
    spend = game.current.spend_ms
    for as_json in (False, True):
        renderer = Renderer(as_json, {} if as_json else CTX)
        assert renderer.messages(view_for(game, "p3", spend + 100))         # everything, at first
        assert renderer.messages(view_for(game, "p3", spend + 5_000)) == []
        let_go, _ = R.apply(game, R.Release("p2"), spend + 6_000)
        assert renderer.messages(view_for(let_go, "p3", spend + 6_100)) == []
        # ...and the test can fail: the end of the round goes out.
        over, _ = R.apply(let_go, R.Release("p1"), spend + 8_000)
        assert renderer.messages(view_for(over, "p3", spend + 8_100))


class Tap:
    """Every byte of one SSE stream, as it arrives."""

    def __init__(self, url: str, cookie: str | None = None):
        headers = {"Cookie": cookie} if cookie else {}
        self.response = requests.get(url, stream=True, timeout=(5, 60), headers=headers)
        assert self.response.status_code == 200
        self.data = b""
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for chunk in self.response.iter_content(chunk_size=None):
                with self._lock:
                    self.data += chunk
        except Exception:       # closed under the reader at the end of the test
            pass

    def size(self) -> int:
        with self._lock:
            return len(self.data)

    def text(self) -> str:
        with self._lock:
            return self.data.decode()

    def close(self) -> None:
        self.response.close()


def json_views(text: str) -> list[dict]:
    """The views of a JSON event stream, in order (each event's one data line)."""
    return [json.loads(line[len("data: "):]) for line in text.split("\n")
            if line.startswith("data: {")]


def test_a_live_stream_sends_zero_bytes_when_another_player_presses_or_lets_go(server):
    """Ann and Bob hold into the bidding of a Time Stake room; Cy sat out and watches the
    round's clock on his page, as does the big screen. Bob lets go and Dee presses too late:
    Cy's streams and the big screen's get not one byte more, until Ann ends the round."""
    base = server.url
    ann, bob, cy, dee = (Player(base) for _ in range(4))
    code = ann.create("Ann", "stake")
    for player, name in ((bob, "Bob"), (cy, "Cy"), (dee, "Dee")):
        player.join(code, name)
    ann.post(f"/r/{code}/settings", {"ready_ms": 2_000, "rounds": 1, "result_ms": 2_000})
    ann.follow()
    taps = {"page": Tap(f"{base}/r/{code}/events", cy.cookie),
            "json": Tap(f"{base}/r/{code}/events?format=json", cy.cookie),
            "screen": Tap(f"{base}/r/{code}/screen/events")}
    try:
        ann.post(f"/r/{code}/start")
        ann.wait_view(lambda v: v["phase"] == "countdown")
        holds = {"ann": ann.press(), "bob": bob.press()}
        assert all(h.accepted for h in holds.values())
        ann.wait_view(lambda v: v["phase"] == "spending")
        time.sleep(1.0)
        # Every stream shows the running clock.
        assert 'data-phase="spending"' in taps["page"].text()
        assert ELAPSED.search(taps["page"].text().split('data-phase="spending"')[-1])
        spending = [v for v in json_views(taps["json"].text()) if v["phase"] == "spending"]
        assert spending and isinstance(spending[-1]["elapsed_ms"], int), spending
        assert 'class="tv-clock" data-elapsed-ms="' in taps["screen"].text()
        before = {name: tap.size() for name, tap in taps.items()}
        holds["bob"].release()
        late = dee.press()
        assert late.first == {"type": "refused", "reason": "too_late"}
        time.sleep(2.0)
        assert {name: tap.size() for name, tap in taps.items()} == before
        # ...and the streams are alive: the end of the round reaches them all.
        holds["ann"].release()
        ann.wait_view(lambda v: v["phase"] in ("result", "ended"))
        time.sleep(0.5)
        assert all(tap.size() > before[name] for name, tap in taps.items())
    finally:
        for tap in taps.values():
            tap.close()
        for player in (ann, bob, cy, dee):
            player.stop()
