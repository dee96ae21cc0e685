"""The server: rooms kept in Redis, shared by every worker.

The web layer calls one face, ``Service`` (service.py): a player's view, the
writes, a press of the hold socket (holds.py) and its messages
(hold_messages.py), results and recent games, a stream's room (watch.py),
connection leases and the game clock. Behind it: the room service (rooms.py,
with due.py: the timers and AI moves due before any action), the store and its
Lua scripts, the hub (pub/sub of changes), round timers (scheduler), host
beats, the server clock, the embedded Redis and the worker's config. It may
import the game and the AI; never Flask or the web layer. The web layer
imports only what this package names here.
"""

from .codes import valid_code
from .config import Config, load_secret_key
from .connection import cluster_options, connect
from .hold_messages import (BEAT_MESSAGE, ENDINGS, REFUSALS, Ending, Refusal, in_message,
                            is_release_message, refused_message, released_message)
from .holds import Hold, Line
from .jsontext import dumps as to_json
from .leases import Lease
from .record import Room, digest
from .rooms import Conflict
from .service import Finished, Service, View
from .store import UNAVAILABLE, NoSuchRoom
from .watch import Watch

__all__ = ["BEAT_MESSAGE", "ENDINGS", "REFUSALS", "UNAVAILABLE", "Config", "Conflict", "Ending", "Finished", "Hold",
           "Lease", "Line", "NoSuchRoom", "Refusal", "Room", "Service", "View", "Watch",
           "cluster_options", "connect", "digest", "in_message", "is_release_message",
           "load_secret_key", "refused_message", "released_message", "to_json", "valid_code"]
