"""How late a seat's own stream showed a round's spending, by the server's doing alone.

Every release is dated from the moment the room published spending (``Room.shown``,
docs/fairness.md). A stream's worker may reach that change later still -- busy with
the other streams the same change woke, with a collection, with the store -- and
the player's screen shows spending that much later: a wait that is the server's,
not the player's network. The stream notes it per seat and round (``note``, once:
the first screen to show it is the one the player saw), and the seat's release is
dated from the room's moment plus it (holds.py), capped like the round trip.

Only the worker's own wait counts: from the later of the publication and the moment
the stream's previous write had gone out, to the moment its next write was ready. A
client that stops reading its stream holds the stream up in an earlier write; that
wait is its own and earns nothing (test_attacks.py, the stalled stream).
"""

from __future__ import annotations

from .store import Store, hold_key

KEEP_S = 600        # a round's note outlives any hold of it


def _key(code: str, pid: str, rnd: int) -> str:
    return f"{hold_key(code, pid)}:late:{rnd}"     # beside the seat's hold, in its slot


def note(store: Store, code: str, pid: str, rnd: int, late_ms: int) -> None:
    """The seat's stream was ``late_ms`` late showing round ``rnd``'s spending (kept
    only if no stream of the seat said so first)."""
    store.redis.set(_key(code, pid, rnd), late_ms, nx=True, ex=KEEP_S)


def of(store: Store, code: str, pid: str, rnd: int) -> int:
    """How late the seat's stream showed round ``rnd``'s spending; 0 if none said."""
    late = store.redis.get(_key(code, pid, rnd))
    return int(late) if late is not None else 0


def wait_ms(shown_ms: int, idle_ms: int, ready_ms: int) -> int:
    """The server's own wait: from the publication, or from when the stream was free
    again if later, to when its write was ready."""
    return max(0, ready_ms - max(shown_ms, idle_ms))
