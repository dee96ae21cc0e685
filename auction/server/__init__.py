"""The server: rooms kept in Redis, shared by every worker.

The web layer calls one face, ``Service`` (service.py): a player's view, the
writes, a press of the hold socket (holds.py) and its messages
(hold_messages.py), results and recent games, a stream's room (watch.py),
connection leases, the game clock, stop, readiness and where the abuse limits
count (faces.py: ``Lookup``, ``LimiterStorage``). Behind it: the room service (rooms.py,
with due.py: the timers and AI moves due before any action), the store and its
Lua scripts, the hub (pub/sub of changes), round timers (scheduler), host
beats, the server clock, the embedded Redis and the server's config (config.py,
with ``Env``, the typed reader of the environment every layer's config uses). It may
import the game and the AI; never Flask or the web layer. The web layer
imports only what this package names here, and gets no Redis client, store or
room record from it (tests/test_purity.py checks each name by what it is).
"""

from .codes import valid_code
from .config import SERVER_CONFIG, Env, ServerConfig
from .faces import LimiterStorage, Lookup
from .hold_messages import (BEAT_MESSAGE, ENDINGS, REFUSALS, Ending, Refusal, in_message,
                            is_release_message, refused_message, released_message)
from .holds import Hold
from .jsontext import dumps as to_json
from .leases import Lease
from .record import digest
from .rooms import Conflict
from .service import Finished, Service, View
from .store import UNAVAILABLE, NoSuchRoom
from .watch import Watch

__all__ = ["BEAT_MESSAGE", "ENDINGS", "REFUSALS", "SERVER_CONFIG", "UNAVAILABLE", "Conflict", "Ending",
           "Env", "Finished", "Hold", "Lease", "LimiterStorage", "Lookup", "NoSuchRoom",
           "Refusal", "ServerConfig", "Service", "View", "Watch", "digest", "in_message",
           "is_release_message", "refused_message", "released_message", "to_json", "valid_code"]
