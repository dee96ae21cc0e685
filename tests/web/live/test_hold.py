"""The hold socket against a real server: refusals, a vanished client, a bank running out."""

from __future__ import annotations

import time

import pytest

from client import Player

FAST = {"ready_ms": 2000, "result_ms": 2000, "rounds": 2}


@pytest.fixture
def pair(server):
    """Two devices seated in a started Time Stake room (margin ties, ms bids, no free window)."""
    yield from _seated(server.url)


def _seated(url: str):
    ann, bob = Player(url), Player(url)
    code = ann.create("Ann", "stake")
    bob.join(code, "Bob")
    ann.post(f"/r/{code}/settings", FAST)
    for p in (ann, bob):
        p.follow()
    try:
        yield ann, bob
    finally:
        for p in (ann, bob):
            p.stop()


def start(ann: Player, **settings) -> None:
    if settings:
        ann.post(f"/r/{ann.code}/settings", settings)
    ann.post(f"/r/{ann.code}/start")
    ann.wait_view(lambda v: v["phase"] == "countdown")


def test_unknown_room_and_unseated_device_are_refused(server, pair):
    ann, _ = pair
    stranger = Player(server.url)
    stranger.code = ann.code
    assert stranger.press().first == {"type": "refused", "reason": "not_seated"}
    stranger.code = "ZZZZ"
    assert stranger.press().first == {"type": "refused", "reason": "no_room"}
    stranger.stop()


def test_press_in_the_lobby_is_refused(pair):
    ann, _ = pair
    assert ann.press().first == {"type": "refused", "reason": "not_started"}


def test_a_second_socket_for_the_same_seat_is_refused(pair):
    ann, _ = pair
    start(ann)
    first = ann.press()
    assert first.accepted
    second = ann.press()
    assert second.first == {"type": "refused", "reason": "second_socket"}
    assert not second.closed.wait(0) or second.closed.is_set()
    assert ann.state()["me"]["holding"] is True    # the first hold is untouched
    first.release()


def test_release_in_the_countdown_is_out_for_the_round(pair):
    ann, _ = pair
    start(ann)
    hold = ann.press()
    assert hold.accepted
    hold.release()
    ann.wait_view(lambda v: not v["me"]["holding"])
    time.sleep(0.3)
    assert ann.press().first == {"type": "refused", "reason": "out_this_round"}


def test_press_after_go_is_refused(pair):
    ann, bob = pair
    start(ann)
    bob_hold = bob.press()
    ann.wait_view(lambda v: v["phase"] == "spending")
    time.sleep(0.6)
    assert ann.press().first == {"type": "refused", "reason": "too_late"}
    bob_hold.release()


def test_vanished_client_is_released_at_its_last_alive_moment_within_a_second(pair):
    _vanish(*pair)


def test_vanished_client_gains_nothing_from_a_second_worker(workers):
    """Two workers: the silent client's hold is its own worker's to release, at its last
    answer, and the other worker's watchdog (which waits for the heartbeat's writes to
    stop, rooms.ORPHAN_MS) neither releases it later nor lets it run on."""
    pairs = _seated(workers.url)
    try:
        _vanish(*next(pairs))
    finally:
        pairs.close()


def _vanish(ann: Player, bob: Player) -> None:
    start(ann, own_bank="shown")    # bids to the millisecond
    bob_hold = bob.press()
    raw = ann.raw_press()
    assert raw.first["type"] == "in"
    ann.wait_view(lambda v: v["phase"] == "spending")
    spending_seen = ann.view_arrival(lambda v: v["phase"] == "spending")
    time.sleep(max(0.0, spending_seen + 0.6 - time.monotonic()))
    last_answer = raw.fall_silent()
    silent_from = time.monotonic()
    ann.wait_view(lambda v: v["me"]["holding"] is False, timeout=5)
    noticed = ann.view_arrival(lambda v: v["phase"] == "spending" and not v["me"]["holding"])
    assert noticed - silent_from < 1.0 + 0.3       # 1 s, plus room for a slow CI machine
    bob_hold.release()
    end = ann.wait_view(lambda v: v["phase"] == "result")
    bid = end["history"][0]["my_bid_ms"]
    # Charged up to the last moment it was heard from, not up to when it was noticed.
    last_alive = (last_answer - spending_seen) * 1000
    assert last_alive - 60 <= bid <= last_alive + 30, (bid, last_alive)


def test_bank_running_out_charges_exactly_the_bank(pair):
    ann, bob = pair
    start(ann, bank_ms=30_000)
    hold, bob_hold = ann.press(), bob.press()
    assert hold.accepted and bob_hold.accepted
    ann.wait_view(lambda v: v["phase"] == "spending")
    spending_seen = ann.view_arrival(lambda v: v["phase"] == "spending")
    bob_hold.release()
    message = hold.next_message(timeout=40)
    told = time.monotonic()
    assert message == {"type": "released", "reason": "bank_empty"}
    assert hold.closed.wait(5)
    # Told when the bank ran out (the bench measures this; here a generous bound).
    assert abs((told - spending_seen) * 1000 - 30_000) < 250
    view = ann.wait_view(lambda v: v["phase"] == "result")
    assert view["history"][0]["my_bid_ms"] == 30_000
    assert view["me"]["bank_ms"] in (0, None)
    ann.wait_view(lambda v: v["round"] == 2 and v["phase"] == "countdown")
    assert ann.press().first == {"type": "refused", "reason": "bank_empty"}
