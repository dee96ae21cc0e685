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
                Room(rules.new_game("ABCD")), arrived_ms=opened_ms, opened_ms=opened_ms)
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


def test_the_press_is_the_earlier_of_the_apps_and_the_kernels_note():
    def pressed(arrived_ms, kernel_arrived_ms):
        return Hold(None, None, None, None, None, 300, "ABCD", "token",
                    Room(rules.new_game("ABCD")), arrived_ms=arrived_ms,
                    kernel_arrived_ms=kernel_arrived_ms, opened_ms=arrived_ms).pressed_ms
    assert pressed(5_080, 5_003) == 5_003       # a busy worker reached the request late
    assert pressed(5_000, 5_009) == 5_000       # the kernel's note is a tick coarse
    assert pressed(5_000, None) == 5_000        # no kernel to ask


def test_letting_go_is_dated_by_the_first_frame_that_says_so():
    hold, _ = _held()
    moments: list[int] = []
    hold.release = lambda at_ms: moments.append(at_ms)        # type: ignore[method-assign]
    hold.let_go(message_ms=4_100, now_ms=4_300)                 # the release message
    hold.let_go(closed_ms=4_150, eof_ms=4_160, now_ms=4_300)    # a close frame, then EOF
    hold.let_go(eof_ms=4_160, now_ms=4_300)                     # the connection just ended
    hold.let_go(now_ms=4_300)                                   # nothing dated: now
    assert moments == [4_100, 4_150, 4_160, 4_300]
