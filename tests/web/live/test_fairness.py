"""Fair over slow links: a real server, each player's device behind its own delaying
proxy (tests/proxy.py), so its view stream and its hold socket both cross the link.

A player does what a person does: presses during the countdown it sees, and
lets go H ms after *its own screen* showed spending start. The bounds are the
issue's, generous for CI noise; bench/fairness.py measures the real spread.
The server runs with the default cap (HOLD_COMP_CAP_MS = 300).
"""

from __future__ import annotations

import json
import statistics
import threading
import time

import pytest
import redis
import websocket

from auction.game import fairness
from auction.server.store import Store

from client import Hold, Player
from proxy import Proxy

# Stake: no free window. Banks shown, so bids are sent to the millisecond (a
# hidden bank sends them to the tenth the page shows).
SETTINGS = {"ready_ms": 2000, "result_ms": 2000, "reveal": "all_bids", "own_bank": "shown"}
H = 1000
CAP = 300           # HOLD_COMP_CAP_MS's default, which the `server` fixture runs with


@pytest.fixture
def table(server):
    """Seats devices in one room, each through its own link; cleans up after."""
    made: list[tuple[Player, Proxy]] = []

    def seat(rounds: int, *links: tuple[float, float]) -> list[Player]:
        players = []
        for i, (rtt, jitter) in enumerate(links):
            proxy = Proxy.link(server.port, rtt, jitter, seed=i)
            player = Player(proxy.url)
            player.link = proxy
            made.append((player, proxy))
            players.append(player)
        code = players[0].create("P0", "stake")
        for i, player in enumerate(players[1:], 1):
            player.join(code, f"P{i}")
        players[0].post(f"/r/{code}/settings", {**SETTINGS, "rounds": rounds})
        for player in players:
            player.follow()
        for player in players:      # every screen is live before the game starts
            player.wait_view(lambda v: v["phase"] == "lobby")
        players[0].post(f"/r/{code}/start")
        return players

    yield seat
    for player, proxy in made:
        player.stop()
        proxy.close()


def in_round(rnd: int, *phases: str):
    return lambda v: v["round"] == rnd and v["phase"] in phases


def ended(rnd: int):
    return lambda v: any(h["round"] == rnd for h in v["history"])


def press_soon(player: Player, rnd: int, hold_class=Hold) -> Hold:
    """Press 300 ms after this screen showed the countdown."""
    player.wait_view(in_round(rnd, "countdown"))
    seen = player.view_arrival(in_round(rnd, "countdown"))
    time.sleep(max(0.0, seen + 0.3 - time.monotonic()))
    hold = hold_class(player.open_hold())
    assert hold.accepted, hold.first
    return hold


def screen_go(player: Player, rnd: int) -> float:
    """When this screen shows go: the countdown it was sent, counted down locally."""
    view = player.wait_view(in_round(rnd, "countdown"))
    return player.view_arrival(in_round(rnd, "countdown")) + view["deadline_ms"] / 1000


def let_go_after(player: Player, hold: Hold, rnd: int, ms: float, release=None) -> float:
    """Let go ``ms`` after this screen showed spending; returns the hold actually made."""
    player.wait_view(in_round(rnd, "spending", "result", "ended"))
    seen = player.view_arrival(in_round(rnd, "spending"))
    time.sleep(max(0.0, seen + ms / 1000 - time.monotonic()))
    let_go = time.monotonic()
    (release or hold.release)()
    return (let_go - seen) * 1000


def bids(player: Player, rnd: int) -> dict:
    view = player.wait_view(ended(rnd), timeout=30)
    return next(h["bids"] for h in view["history"] if h["round"] == rnd)


def ids(players: list[Player]) -> list[str]:
    return [p.state()["me"]["id"] for p in players]


def run_all(*jobs):
    """Run each player's part of a round at once; returns their results in order."""
    out = [None] * len(jobs)
    errors = []

    def run(i, job):
        try:
            out[i] = job()
        except BaseException as exc:   # reported in the test's own thread
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if errors:
        raise errors[0]
    return out


def test_a_slow_link_pays_what_a_fast_one_pays(table, redis_url):
    """Three rounds, judged by the median: a busy test machine can starve the
    client process for tens of ms at a random moment (a delay the server cannot
    see, like any network's), while a systematic error -- such as an
    uncompensated 300 ms -- shows in every round."""
    rounds = 3
    fast, slow = players = table(rounds, (20, 20), (300, 20))
    pids = ids(players)
    errors, gaps = [[], []], []
    for rnd in range(1, rounds + 1):
        def play(player, rnd=rnd):
            return let_go_after(player, press_soon(player, rnd), rnd, H)
        held = run_all(lambda: play(fast), lambda: play(slow))
        charged = bids(fast, rnd)
        a, b = (charged[pid] for pid in pids)
        errors[0].append(a - held[0])
        errors[1].append(b - held[1])
        gaps.append(a - b)
    for errs in errors:
        assert abs(statistics.median(errs)) <= 50, errors
        assert max(abs(e) for e in errs) <= 150, errors   # not even one round uncompensated
    assert abs(statistics.median(gaps)) <= 30, gaps

    # The server measured each round trip itself, and keeps it between rounds.
    store = Store(redis.Redis.from_url(redis_url))
    est = [fairness.estimate_rtt(store.rtt_samples(fast.code, pid)) for pid in pids]
    assert abs(est[0] - 20) <= 15 and abs(est[1] - 300) <= 25, est


def press_before_go_and_hold(player: Player, ms: float) -> float:
    """Press 200 ms before the screen shows round 1's go, hold ``ms`` into spending.

    The socket's request reaches the server well after go on a slow link (half
    a round trip of screen lag, 1.5 of handshake); a seat never measured has its
    round trip measured on that socket before the server decides.
    """
    time.sleep(max(0.0, screen_go(player, 1) - 0.2 - time.monotonic()))
    hold = Hold(player.open_hold())
    assert hold.accepted, hold.first
    return let_go_after(player, hold, 1, ms)


def test_a_press_just_before_go_on_a_slow_link_is_in_and_a_late_one_is_not(table):
    fast, slow = table(2, (20, 20), (300, 20))
    held = run_all(lambda: let_go_after(fast, press_soon(fast, 1), 1, 700),
                   lambda: press_before_go_and_hold(slow, 500))[1]
    charged = bids(fast, 1)[ids([slow])[0]]
    assert abs(charged - held) <= 80, (charged, held)   # counted from the spending start

    # Round 2: the same player presses 500 ms after its screen showed go.
    def late():
        time.sleep(max(0.0, screen_go(slow, 2) + 0.5 - time.monotonic()))
        hold = Hold(slow.open_hold())
        return hold.first
    first = run_all(lambda: let_go_after(fast, press_soon(fast, 2), 2, 300), late)[1]
    assert first == {"type": "refused", "reason": "too_late"}


def test_a_lone_press_just_before_go_on_a_slow_link_is_in(table):
    """Nobody else holds, so go would end the round at once: the server waits out
    the entry grace for a press still on its way before calling the round empty."""
    fast, slow = table(2, (20, 20), (300, 20))
    held = run_all(lambda: press_before_go_and_hold(slow, 500))[0]
    slow_id = ids([slow])[0]
    charged = bids(fast, 1)[slow_id]
    assert abs(charged - held) <= 80, (charged, held)
    assert fast.wait_view(lambda v: v["history"])["history"][0]["winner"] == slow_id


class AnswersPings(Hold):
    """A client that reads the socket frame by frame and answers each ping itself,
    noting when it arrived (``pinged``: this phone's clock, as it answered)."""

    def __init__(self, ws: websocket.WebSocket):
        self.pinged: list[float] = []
        super().__init__(ws)

    def _read(self) -> None:
        try:
            while True:
                frame = self.ws.recv_frame()
                if frame.opcode == websocket.ABNF.OPCODE_PING:
                    self.pinged.append(time.monotonic())
                    self._answer(frame.data)
                elif frame.opcode == websocket.ABNF.OPCODE_TEXT:
                    with self._got:
                        self.messages.append(json.loads(frame.data))
                        self._got.notify_all()
                elif frame.opcode == websocket.ABNF.OPCODE_CLOSE:
                    break
        except (websocket.WebSocketException, OSError, ValueError):
            pass
        finally:
            self.closed.set()
            with self._got:
                self._got.notify_all()

    def _answer(self, data: bytes) -> None:
        self._pong(data)

    def _pong(self, data: bytes) -> None:
        try:
            self.ws.pong(data)
        except (websocket.WebSocketException, OSError):
            pass


class SlowAnswers(AnswersPings):
    """A modified client that answers every ping 600 ms late, to look far away.

    A page script cannot do this -- a browser's network stack answers pings
    itself -- but a custom client or an intercepting proxy on the device can.
    """

    DELAY_S = 0.6

    def _answer(self, data: bytes) -> None:
        timer = threading.Timer(self.DELAY_S, self._pong, [data])
        timer.daemon = True
        timer.start()


def test_answering_pings_late_gains_at_most_the_cap(table):
    honest, cheat = players = table(1, (20, 10), (20, 10))

    def play(player, kind):
        return let_go_after(player, press_soon(player, 1, kind), 1, H)
    held = run_all(lambda: play(honest, Hold), lambda: play(cheat, SlowAnswers))
    charged = bids(honest, 1)
    a, c = (charged[pid] for pid in ids(players))
    assert abs(a - held[0]) <= 50, (a, held)
    gain = held[1] - c
    # It looks 620 ms away, so it is credited the cap and no more; that is
    # the cap less its real 20 ms round trip, which it still pays.
    assert gain <= CAP + 30, (c, held)
    assert gain >= CAP - 80, (c, held)     # the construction did inflate its estimate


def test_a_lost_link_is_released_at_its_last_sign_of_life_within_a_second(table):
    way, jitter = 150, 10                       # the slow link's one way, and its +- per way
    fast, slow = players = table(1, (20, 10), (2 * way, 2 * jitter))
    slow_id = ids(players)[1]
    lost = {}

    def lose_signal():
        # At H after spending showed, the phone loses its signal: nothing more
        # crosses the link either way, and nothing is closed.
        hold = press_soon(slow, 1, AnswersPings)
        held = let_go_after(slow, hold, 1, H, release=slow.link.stall)
        seen = slow.view_arrival(in_round(1, "spending"))
        lost.update(at=seen + held / 1000, seen=seen, pinged=hold.pinged)

    run_all(lambda: let_go_after(fast, press_soon(fast, 1), 1, 300), lose_signal)
    # The round ends when the lost player is released: the fast player sees it.
    fast.wait_view(ended(1), timeout=10)
    seen = fast.view_arrival(ended(1))
    detected = seen - lost["at"] - 0.010          # less the fast player's own one way
    assert detected <= 1.0, detected
    charged = bids(fast, 1)[slow_id]
    # Its last sign of life is the last ping it answered whose answer crossed the link
    # before the loss: answered one way (+- jitter) or more before it. Charged from
    # there, as from a release sent then: the time from its screen's spending to that
    # answer, give or take each way's jitter (the ping's and the spending view's, both
    # dated back by the round trip's median estimate: 2 x 10 ms) and the round trip's
    # own spread about that median (20 ms), plus 10 ms for the reading threads.
    answered = [(at - lost["seen"]) * 1000 for at in lost["pinged"]
                if at <= lost["at"] - (way - jitter) / 1000]
    assert answered, lost
    held = (lost["at"] - lost["seen"]) * 1000
    through = [ms for ms in answered if ms <= held - way - jitter] or answered[-1:]
    assert through[-1] - 50 <= charged <= answered[-1] + 50, (charged, answered, held)


def test_the_kernel_round_trip_is_read_where_the_server_terminates_tcp():
    import socket

    from auction.web.live.tap import kernel_rtt_ms

    with socket.create_server(("127.0.0.1", 0)) as listener:
        with socket.create_connection(listener.getsockname()) as client:
            server_side, _ = listener.accept()
            with server_side:
                client.sendall(b"x")
                server_side.recv(1)
                server_side.sendall(b"y")
                client.recv(1)
                assert 0 <= kernel_rtt_ms(server_side) < 50     # loopback
    assert kernel_rtt_ms(object()) is None


def test_faking_a_slow_link_buys_an_entry_at_most_two_caps_after_go(table):
    """A client that answers pings 600 ms late is measured far away, so a late
    press is dated back by two capped round trips: it may enter up to 600 ms after
    go -- and no later. That is all it buys: until the entry closes, nothing it
    can see depends on anyone's press (test_attacks.py)."""
    honest, cheat = table(3, (20, 10), (20, 10))
    # Round 1: the cheat holds a while, so the server measures its "round trip".
    run_all(lambda: let_go_after(honest, press_soon(honest, 1), 1, 300),
            lambda: let_go_after(cheat, press_soon(cheat, 1, SlowAnswers), 1, 2_500))

    def press_after_go(rnd: int, late_s: float) -> dict:
        time.sleep(max(0.0, screen_go(cheat, rnd) + late_s - time.monotonic()))
        hold = Hold(cheat.open_hold())
        if hold.accepted:
            let_go_after(cheat, hold, rnd, 200)
        return hold.first

    first = run_all(lambda: let_go_after(honest, press_soon(honest, 2), 2, 300),
                    lambda: press_after_go(2, 0.45))[1]
    assert first == {"type": "in"}                       # 450 ms late, inside 2 x 300
    first = run_all(lambda: let_go_after(honest, press_soon(honest, 3), 3, 300),
                    lambda: press_after_go(3, 0.75))[1]
    assert first == {"type": "refused", "reason": "too_late"}   # 750 ms late: out
