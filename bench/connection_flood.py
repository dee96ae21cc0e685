"""One client opening TCP connections as fast as it can, to close the door: the door turns
new games away while connections wait to be accepted (OVERLOAD_QUEUE,
auction/web/door/capacity.py), so a flood that keeps the kernel's accept queue full would
turn every newcomer away while it lasts (docs/security.md).

Serves the shipped door on two gunicorn workers, opens connections at each asked rate for
a few seconds (they send nothing and stay open), and meanwhile asks for new rooms. Prints
how many connections were opened, the longest accept queue seen, and what the new rooms got.

    .venv/bin/python bench/connection_flood.py [--rates 500 1500 4000] [--seconds 4]
"""

from __future__ import annotations

import argparse
import resource
import socket
import sys
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import AppServer, RedisServer  # noqa: E402
from meters import AcceptQueue  # noqa: E402

JSON = {"Accept": "application/json"}


def new_room(url: str) -> int | str:
    try:
        return requests.post(url + "/rooms", json={"name": "Cy"}, headers=JSON,
                             timeout=30).status_code
    except requests.RequestException as exc:
        return type(exc).__name__


def flood(port: int, rate: float, seconds: float, opened: list) -> None:
    """Open connections at ``rate`` a second for ``seconds`` (as fast as it can, if slower)."""
    start = time.monotonic()
    n = 0
    while time.monotonic() < start + seconds:
        try:
            sock = socket.socket()
        except OSError:         # out of file descriptors: the flood holds what it opened
            time.sleep(0.01)
            continue
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", port))
        opened.append(sock)
        n += 1
        ahead = start + n / rate - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)


def run(rates: list[float], seconds: float) -> list[dict]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    store = RedisServer()
    # The door as it ships (the harness turns its checks off for tests).
    server = AppServer(store.url, workers=2, args=("--worker-connections", "20000"),
                       env={"OVERLOAD_LAG_MS": None, "OVERLOAD_QUEUE": None})
    rows = []
    try:
        before = new_room(server.url)
        for rate in rates:
            opened: list[socket.socket] = []
            queue = AcceptQueue(server.port)
            flooding = threading.Thread(target=flood, args=(server.port, rate, seconds, opened))
            flooding.start()
            got = []
            ask_at = time.monotonic() + 1       # a newcomer a second, once the flood runs
            while flooding.is_alive():
                queue.sample()
                time.sleep(0.1)
                if time.monotonic() >= ask_at:
                    got.append(new_room(server.url))
                    ask_at += 1
            flooding.join()
            took = len(opened)
            for sock in opened:
                sock.close()
            time.sleep(2)
            rows.append({"rate": rate, "opened": took, "per_s": took / seconds,
                         "queue": queue.peak, "during": got, "after": new_room(server.url),
                         "before": before})
            print(f"asked {rate:>6.0f}/s: opened {took} in {seconds:.0f} s ({took / seconds:.0f}/s), "
                  f"accept queue up to {queue.peak}; new rooms during it: {got}; "
                  f"after: {rows[-1]['after']}", flush=True)
    finally:
        server.stop()
        store.stop()
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[500, 1500, 4000])
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args(argv)
    return run(args.rates, args.seconds)


if __name__ == "__main__":
    main()
