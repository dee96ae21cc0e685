"""One Redis subscription per worker, fanned out to the worker's local listeners.

Every SSE stream and hold socket of this worker that watches a room gets a
``Listener``; the hub subscribes to a room's channel while it has at least
one listener and hands each published record to all of them. A listener
keeps only the newest record: a stream renders the latest state, never a
backlog. When Redis drops the connection the hub reconnects with backoff
(redis-py resubscribes its channels on reconnect) and pokes every listener,
so each reloads the state it may have missed.
"""

from __future__ import annotations

import json
import logging
import threading
import time

from . import store

log = logging.getLogger(__name__)


class Listener:
    """A mailbox of one: the newest (version, record) of a room."""

    def __init__(self, hub: Hub, code: str):
        self.hub = hub
        self.code = code
        self.latest: tuple[int, dict] | None = None
        self.missed = False
        self._event = threading.Event()

    def put(self, version: int, record: dict) -> None:
        if self.latest is None or version > self.latest[0]:
            self.latest = (version, record)
        self._event.set()

    def poke(self) -> None:
        """Something may have been missed: the owner should reload."""
        self.missed = True
        self._event.set()

    def wait(self, timeout: float) -> bool:
        """Wait for news; True if there is some."""
        fired = self._event.wait(timeout)
        self._event.clear()
        return fired

    def close(self) -> None:
        self.hub.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Hub:
    """The worker's single subscription, shared by its listeners."""

    BACKOFF_MAX_S = 5.0

    def __init__(self, client):
        self._client = client
        self._pubsub = None
        self._listeners: dict[str, set[Listener]] = {}
        self._lock = threading.Lock()
        self._thread = None

    def listen(self, code: str) -> Listener:
        listener = Listener(self, code)
        with self._lock:
            first = code not in self._listeners
            self._listeners.setdefault(code, set()).add(listener)
            self._ensure_running()
        if first:
            self._pubsub.subscribe(store.channel(code))
        return listener

    def remove(self, listener: Listener) -> None:
        with self._lock:
            group = self._listeners.get(listener.code)
            if group is None:
                return
            group.discard(listener)
            if group:
                return
            del self._listeners[listener.code]
        try:
            self._pubsub.unsubscribe(store.channel(listener.code))
        except Exception:  # the reconnect resubscribes only what is listened to
            log.warning("unsubscribe failed for %s", listener.code)

    def _ensure_running(self) -> None:
        if self._thread is None:
            self._pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            self._thread = threading.Thread(target=self._run, name="hub", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        backoff = 0.1
        while True:
            try:
                message = self._pubsub.get_message(timeout=1.0)
                backoff = 0.1
            except Exception:
                log.warning("lost the Redis subscription; retrying in %.1f s", backoff)
                time.sleep(backoff)
                backoff = min(backoff * 2, self.BACKOFF_MAX_S)
                self._resubscribe()
                continue
            if message and message["type"] == "message":
                self._deliver(message["channel"].decode(), message["data"])

    def _resubscribe(self) -> None:
        with self._lock:
            codes = list(self._listeners)
            listeners = [item for group in self._listeners.values() for item in group]
        try:
            if codes:
                self._pubsub.subscribe(*(store.channel(c) for c in codes))
        except Exception:
            return
        for listener in listeners:
            listener.poke()

    def _deliver(self, chan: str, data: bytes) -> None:
        code = chan.removeprefix(store.PREFIX + "room:").removesuffix(":changes")
        version, _, payload = data.partition(b"\n")
        record = json.loads(payload)
        with self._lock:
            listeners = list(self._listeners.get(code, ()))
        for listener in listeners:
            listener.put(int(version), record)
