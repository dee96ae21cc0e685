"""The hold's dating on its own, without a socket or a store: what the socket tells it
(pings sent, answers read) makes its signs of life, its round trips and its dead line;
a release is data, dated from the room as the composer loads it."""

from __future__ import annotations

from types import SimpleNamespace

from auction.game import rules
from auction.server.holds import DEAD_MS, UNANSWERED_MS, Hold, ReleaseDating
from auction.server.record import Room


def _held(opened_ms: int = 1_000):
    """A hold pressed in round 1, its bank dry at 60 s; its heartbeat notes kept in a list."""
    notes: list[tuple] = []
    beats = SimpleNamespace(note=lambda sid, alive, samples: notes.append((alive, samples)))
    hold = Hold(None, None, None, None, beats, 300, "ABCD", "token",
                Room(rules.new_game("ABCD")), pressed_ms=opened_ms, opened_ms=opened_ms)
    hold.seat, hold.round, hold.runs_out = "p2", 1, 60_000
    return hold, notes


def test_answers_are_signs_of_life_and_round_trips_and_set_the_dead_line():
    hold, notes = _held()
    assert hold.next_due() == 60_000                # nothing asked: silence says nothing
    hold.pinged(1_100)
    hold.pinged(1_250)
    assert hold.next_due() == max(1_000 + DEAD_MS, 1_100 + UNANSWERED_MS) + 1
    hold.answered(1_250, 1_300)                     # the latest answered: both are
    assert hold.alive_ms == 1_300 and notes == [(1_300, [50])]
    assert hold.next_due() == 60_000
    hold.pinged(1_800)
    assert hold.next_due() == max(1_300 + DEAD_MS, 1_800 + UNANSWERED_MS) + 1


def _room(release_ms: int | None, shown: int | None = 4_000) -> Room:
    game = rules.new_game("ABCD")
    game.current = rules.Round(1, 0, 3_000, 4_000, {"p2": rules.Hold(2_500, release_ms)})
    return Room(game, shown=None if shown is None else [1, shown])


def test_a_release_is_dated_from_the_room_as_loaded():
    dating = ReleaseDating("p2", 1, arrived_ms=5_400, rtt_ms=100, cap_ms=300, spend_ms=4_000,
                           late_ms=30)
    # Spending shown at 4_020, this seat's stream 30 ms later: 50 ms of lag, 100 of round trip.
    assert dating.action(_room(None, 4_020), "p2") == rules.Release("p2", 5_250)
    assert dating.action(_room(None, None), "p2") == rules.Release("p2", 5_300)
    assert dating.action(_room(4_600), "p2") is None    # it ended before: nothing to let go
