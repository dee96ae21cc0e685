"""The server: rooms kept in Redis, shared by every worker.

The web layer calls one face, ``Service`` (service.py): a player's view, press,
release, act, results and recent games. Behind it: the room service (rooms),
the store and its Lua scripts, the hub (pub/sub of changes), round timers
(scheduler), host beats, the server clock, the embedded Redis and the worker's
config. It may import the game and the AI; never Flask or the web layer.
"""

from .connection import connect
from .service import Service

__all__ = ["Service", "connect"]
