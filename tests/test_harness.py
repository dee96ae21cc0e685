"""The test servers' own harness: a server, Redis or cluster node whose port was taken
starts on another."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import psutil
import redis
import requests

import harness


@contextlib.contextmanager
def first_port_taken(monkeypatch, module, host: str = "127.0.0.1",
                     listen: bool = False) -> Iterator[int]:
    """``module``'s free_port hands out a port a socket holds first (bound to ``host``,
    as an outgoing connection's is; with ``listen``, as another server's is), then
    free ones; yields the taken port."""
    taken = socket.socket()
    taken.bind((host, 0))
    if listen:
        taken.listen()
    ports = [taken.getsockname()[1]]
    real = module.free_port
    monkeypatch.setattr(module, "free_port", lambda: ports.pop() if ports else real())
    try:
        yield taken.getsockname()[1]
    finally:
        taken.close()


def test_a_server_whose_port_is_taken_starts_on_another(redis_url, monkeypatch):
    """free_port's port is free when asked, not when the server binds it a moment later:
    another test's server or an outgoing connection may take it between. The server
    then exits at once ("Address already in use"), and the harness starts it again on a
    fresh port instead of failing the test that asked for it."""
    with first_port_taken(monkeypatch, harness, "0.0.0.0", listen=True) as taken:
        srv = harness.AppServer(redis_url)
        try:
            assert srv.port != taken
            assert requests.get(srv.url + "/", timeout=10).status_code == 200
        finally:
            srv.stop()


def test_a_redis_whose_port_is_taken_starts_on_another(monkeypatch):
    """The same for a test's own Redis (a socket bound to the port, as an outgoing
    connection's is)."""
    with first_port_taken(monkeypatch, harness) as taken:
        store = harness.RedisServer()
        try:
            assert store.port != taken
            with redis.Redis.from_url(store.url) as client:
                assert client.ping()
        finally:
            store.stop()


def test_a_cluster_whose_node_port_is_taken_starts_on_others(monkeypatch):
    """The same for a Redis Cluster's nodes: one node that cannot bind starts the whole
    try again on fresh ports, and nothing of the failed try is left running."""
    import cluster_harness

    with first_port_taken(monkeypatch, cluster_harness) as taken:
        cluster = cluster_harness.RedisCluster(masters=3)
        try:
            assert taken not in cluster.ports + cluster.bus_ports
            assert len(cluster.procs) == 3 and all(p.poll() is None for p in cluster.procs)
            nodes = [child.pid for child in psutil.Process().children()
                     if "[cluster]" in " ".join(child.cmdline())]   # its process title
            assert sorted(nodes) == sorted(p.pid for p in cluster.procs), nodes
            owner = cluster.owner("k")         # the cluster formed: a slot has its node
            owner.set("k", "v")
            assert owner.get("k") == b"v"
        finally:
            cluster.stop()
