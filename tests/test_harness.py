"""The test servers' own harness: a server, Redis or cluster node whose port was taken
starts on another."""

from __future__ import annotations

import socket

import redis
import requests

import harness


def test_a_server_whose_port_is_taken_starts_on_another(redis_url, monkeypatch):
    """free_port's port is free when asked, not when the server binds it a moment later:
    another test's server or an outgoing connection may take it between. The server
    then exits at once ("Address already in use"), and the harness starts it again on a
    fresh port instead of failing the test that asked for it."""
    taken = socket.socket()
    taken.bind(("0.0.0.0", 0))
    taken.listen()
    ports = [taken.getsockname()[1]]
    real = harness.free_port
    monkeypatch.setattr(harness, "free_port", lambda: ports.pop() if ports else real())
    try:
        srv = harness.AppServer(redis_url)
        try:
            assert srv.port != taken.getsockname()[1]
            assert requests.get(srv.url + "/", timeout=10).status_code == 200
        finally:
            srv.stop()
    finally:
        taken.close()


def test_a_redis_whose_port_is_taken_starts_on_another(monkeypatch):
    """The same for a test's own Redis (a socket bound to the port, as an outgoing
    connection's is)."""
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    ports = [taken.getsockname()[1]]
    real = harness.free_port
    monkeypatch.setattr(harness, "free_port", lambda: ports.pop() if ports else real())
    try:
        store = harness.RedisServer()
        try:
            assert store.port != taken.getsockname()[1]
            with redis.Redis.from_url(store.url) as client:
                assert client.ping()
        finally:
            store.stop()
    finally:
        taken.close()


def test_a_cluster_whose_node_port_is_taken_starts_on_others(monkeypatch):
    """The same for a Redis Cluster's nodes: one node that cannot bind starts the whole
    try again on fresh ports, and nothing of the failed try is left running."""
    import cluster_harness

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    ports = [taken.getsockname()[1]]
    real = cluster_harness.free_port
    monkeypatch.setattr(cluster_harness, "free_port", lambda: ports.pop() if ports else real())
    try:
        cluster = cluster_harness.RedisCluster(masters=3)
        try:
            assert taken.getsockname()[1] not in cluster.ports + cluster.bus_ports
            assert len(cluster.procs) == 3 and all(p.poll() is None for p in cluster.procs)
            owner = cluster.owner("k")         # the cluster formed: a slot has its node
            owner.set("k", "v")
            assert owner.get("k") == b"v"
        finally:
            cluster.stop()
    finally:
        taken.close()
