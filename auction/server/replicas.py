"""Writes a Redis Cluster keeps through a failover: a save counts once a replica has it.

Redis replicates asynchronously: a master answers a write before its replica
has it, so a master that dies in that moment takes the write with it, and the
replica that takes over never saw it. Under load a master's last milliseconds
are always full of writes players were told of -- a release, a round's
result, a seat. So where a cluster's master has a replica attached, a room's
save script is followed, on the same connection and in the same round trip,
by ``WAIT 1 <TA_REPLICA_WAIT_MS>``, and only then is the change published:
neither the player who acted nor anyone watching hears of a change before a
replica holds it (the script's own SPUBLISH would go out before the WAIT).

WAIT returns once one replica has the write, or at its timeout. A master
whose replica did not answer in time is written to without waiting for a
while (``RECHECK_S``): its replica is lagging or gone, and then a failover has
nothing to promote anyway. Whether a master has a replica attached is read
from its INFO every ``RECHECK_S``. On one Redis none of this applies.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import redis

from .config import SERVER_CONFIG

log = logging.getLogger(__name__)

# How long a save waits for a replica's acknowledgement; 0 turns the waiting off
# (TA_REPLICA_WAIT_MS, read in config.py).
WAIT_MS = SERVER_CONFIG.replica_wait_ms
# How long a master's replica count (or its missed WAIT) is trusted.
RECHECK_S = 5.0


class Replicas:
    """The cluster's masters that have a replica to wait for, and the waiting."""

    def __init__(self, client: Any, cluster: bool) -> None:
        self.redis = client
        self.on = cluster and WAIT_MS > 0
        self._known: dict[str, tuple[bool, float]] = {}    # node -> (wait?, until when)

    def master(self, key: str) -> Any | None:
        """The master that holds ``key``, if a write there should wait for its
        replica; None if not (one Redis, no replica attached, or waiting is off)."""
        if not self.on:
            return None
        node = self.redis.get_node_from_key(key)
        now = time.monotonic()
        known = self._known.get(node.name)
        if known is None or known[1] <= now:
            known = self._known[node.name] = (self._attached(node), now + RECHECK_S)
        return node if known[0] else None

    def _attached(self, node: Any) -> bool:
        try:
            info = self.redis.info("replication", target_nodes=node)
        except redis.RedisError:     # the node is away: the write itself will say so
            return False
        return int(info.get("connected_slaves", 0)) > 0

    def run(self, node: Any, writes: list[tuple], after: tuple[tuple, ...] = ()) -> list:
        """Send ``writes`` to ``node``, WAIT there for one replica, then send ``after``,
        all on one connection in one round trip; the answers of ``writes`` and
        ``after``, or the first error raised. (Scripts go as EVAL, with their text:
        a replica just promoted has no script cached, and EVALSHA would fail there.)"""
        pipe = self.redis.pipeline(transaction=False)
        for command in writes:
            pipe.execute_command(*command)
        pipe.execute_command("WAIT", 1, WAIT_MS, target_nodes=node)
        for command in after:
            pipe.execute_command(*command)
        answers = pipe.execute(raise_on_error=False)
        acked = answers.pop(len(writes))
        if isinstance(acked, Exception) or acked < 1:
            self._known[node.name] = (False, time.monotonic() + RECHECK_S)
            log.warning("no replica of %s acknowledged a write within %d ms (%s); "
                        "its writes wait for none for %.0f s", node.name, WAIT_MS, acked,
                        RECHECK_S)
        for answer in answers:
            if isinstance(answer, Exception):
                raise answer
        return answers
