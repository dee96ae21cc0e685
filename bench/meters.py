"""What bench/load.py measures besides the games: the processes' CPU and memory, the
machine's busy time, and the server's accept queue (connections the kernel has taken
that no worker has accepted yet, read from /proc/net/tcp as Linux lists it)."""

from __future__ import annotations

from pathlib import Path

import psutil


class Meter:
    """CPU seconds and peak memory of some processes, sampled while a step runs."""

    def __init__(self, pids: list[int]):
        self.pids = pids
        self.procs = [psutil.Process(pid) for pid in pids]
        self.start = self._cpu()
        self.peak_rss = 0

    def _cpu(self) -> tuple[float, float]:
        """CPU seconds so far: all of it, and the part spent in the kernel."""
        total = system = 0.0
        for p in self.procs:
            try:
                t = p.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += t.user + t.system
            system += t.system
        return total, system

    def sample(self) -> None:
        rss = 0
        for p in self.procs:
            try:
                rss += p.memory_info().rss
            except psutil.NoSuchProcess:
                pass
        self.peak_rss = max(self.peak_rss, rss)

    def cpu_s(self) -> tuple[float, float]:
        """CPU seconds since the start: all of it, and the part in the kernel (socket
        calls, loopback networking)."""
        (total, system), (total0, system0) = self._cpu(), self.start
        return total - total0, system - system0


class AcceptQueue:
    """The longest queue seen on the server's listening port, sampled while a step runs.
    Under load gunicorn's gevent workers accept one connection per turn of their loops,
    and presses waited there for seconds while the workers' own lag looked fine
    (docs/scaling.md, "Why the server is built so")."""

    LISTEN = "0A"     # the TCP state a listening socket has in /proc/net/tcp

    def __init__(self, port: int):
        self.port = f"{port:04X}"
        self.peak: int | None = None

    def sample(self) -> None:
        now = self.now()
        if now is not None:
            self.peak = max(self.peak or 0, now)

    def now(self) -> int | None:
        """The queue now (summed over IPv4 and IPv6); None where the kernel does not say."""
        found = None
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                lines = Path(table).read_text().splitlines()[1:]
            except OSError:
                continue
            for line in lines:
                fields = line.split()
                local, state, queues = fields[1], fields[3], fields[4]
                if state == self.LISTEN and local.rsplit(":", 1)[1] == self.port:
                    found = (found or 0) + int(queues.split(":")[1], 16)
        return found


def busy_s() -> float:
    """CPU seconds the whole machine spent busy (all cores), so far."""
    t = psutil.cpu_times()
    return sum(t) - t.idle - getattr(t, "iowait", 0.0)
