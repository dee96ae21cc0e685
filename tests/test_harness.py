"""The test servers' own harness: a server whose port was taken starts on another."""

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
