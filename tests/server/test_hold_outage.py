"""A hold that ended while its player still held -- another worker released it at
its last heartbeat while the store was away, say -- is never ended without a word:
the player's own release, coming after, is told why (it was once dropped silently,
and a hold of 5.5 s read as charged 20 ms with nothing said)."""

from __future__ import annotations

from types import SimpleNamespace

from auction.game import rules
from auction.server.holds import Hold
from auction.server.record import Room
from auction.server.rooms import Outcome


def _hold(release_ms: int | None, lost: bool = False) -> Hold:
    """Seat p2's hold in round 1 (spending from 4 s, its bank dry at 6 s), whose room as
    loaded at the player's release has it let go at ``release_ms`` (None: still held);
    ``lost``: a write of its heartbeat failed or came late meanwhile (beats.py)."""
    game = rules.new_game("ABCD")
    game.current = rules.Round(1, 0, 3_000, 4_000, {"p2": rules.Hold(2_500, release_ms)})
    loaded = Room(game, shown=[1, 4_000])

    def release(code, token, releasing):
        return Outcome(loaded, 8, releasing.action(loaded, "p2"))

    rooms = SimpleNamespace(release=release)
    clock = SimpleNamespace(now_ms=lambda: 5_500)
    beats = SimpleNamespace(lost=lambda sid: lost)
    hold = Hold(rooms, None, clock, None, beats, 0, "ABCD", "token",
                Room(rules.new_game("ABCD")), arrived_ms=2_500, opened_ms=2_500)
    hold.seat, hold.round, hold.spend_ms, hold.runs_out = "p2", 1, 4_000, 6_000
    return hold


def test_a_release_after_the_hold_ended_is_told_why():
    assert _hold(None).release(5_400) is None                     # this release let go
    assert _hold(4_600, lost=True).release(5_400) == "unavailable"  # the store was away
    assert _hold(4_600).release(5_400) == "round_over"     # taken for gone, store kept
    assert _hold(6_000).release(6_200) == "bank_empty"
