"""Where a worker's time goes: py-spy samples of it, summed by what they were doing.

``bench/load.py --profile DIR`` records each worker with py-spy (``--nonblocking``,
so the worker's timing is not disturbed) for the first seconds of the games and
prints this summary. Alone:

    .venv/bin/python bench/spy.py DIR/*.txt

A sample counts for every group whose marker appears anywhere in its stack, so the
groups overlap (a hold socket's Redis call counts for both); "busy" is the share of
samples that were not idle waits in the event loop.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

# (group, markers): a sample belongs to the group if its stack names any marker
# (py-spy names frames "Class.method (path:line)").
GROUPS = [
    ("hold sockets", ("HoldSocket.",)),
    ("  watching a hold (pings, beats, news)", ("HoldSocket._watch (",)),
    ("  the press", ("Hold.press (",)),
    ("  the release", ("Hold.release (", "Hold.due (")),
    ("event streams", ("serve.<locals>.generate (",)),
    ("  building views", ("view_for (",)),
    ("  encoding views (JSON, HTML)", ("Renderer.messages (",)),
    ("timer loop (scheduler)", ("Scheduler.",)),
    ("Rooms.act, any caller (load, apply, save)", ("Rooms.act (",)),
    ("heartbeat batches (beats.py)", ("Beats.",)),
    ("hub: published changes in", ("Hub._deliver (",)),
    ("abuse limits (flask-limiter)", ("Limiter.",)),
    ("redis-py, any caller", ("Redis._execute_command (", "Pipeline.execute (")),
    ("json", ("json/",)),
    ("Flask's request machinery (before/after request)", (
        "Flask.preprocess_request (", "Flask.process_response (")),
    ("websocket frames (simple-websocket, wsproto)", ("simple_websocket/", "wsproto/")),
]
FRAME_END = re.compile(r" \([^()]*:\d+\)$")     # a stack's last frame: "name (file:line)"
TOP = 15     # the frames with the most samples of their own (where the CPU is spent)
# A leaf that means the thread waits: the gevent hub's loop, a native thread's lock.
IDLE = ("acquire_with_timeout (", "Hub.run (", "_wait (", "wait (")


def samples(path: Path):
    """(stack, count) pairs from py-spy's raw (collapsed) format. A frame's name can
    carry newlines (py-spy once wrote one with an exception's message in it), which
    break its sample into lines that do not end in a frame "name (file:line)" and a
    count; such a sample is skipped."""
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if count.isdigit() and FRAME_END.search(stack):
            yield stack, int(count)


def summarize(paths: list[Path]) -> str:
    total, idle, groups, own = 0, 0, Counter(), Counter()
    for path in paths:
        for stack, count in samples(path):
            total += count
            leaf = stack.rsplit(";", 1)[-1]
            if not leaf or any(leaf.startswith(mark) for mark in IDLE):
                idle += count
                continue
            own[leaf] += count
            for name, markers in GROUPS:
                if any(m in stack for m in markers):
                    groups[name] += count
    busy = total - idle
    if not busy:
        return "no busy samples"
    lines = [f"{busy} busy samples of {total} ({100 * busy / total:.0f} % busy); "
             "share of busy samples:"]
    lines += [f"  {100 * groups[name] / busy:5.1f} %  {name}" for name, _ in GROUPS]
    lines.append(f"the {TOP} frames with the most busy samples of their own:")
    lines += [f"  {100 * n / busy:5.1f} %  {leaf}" for leaf, n in own.most_common(TOP)]
    return "\n".join(lines)


def record(pid: int, seconds: int, out: Path) -> subprocess.Popen:
    """Start sampling ``pid`` for ``seconds`` into ``out`` (py-spy's raw format)."""
    py_spy = Path(sys.executable).with_name("py-spy")
    if not py_spy.exists():     # a profiler, not something the game or its tests need
        raise SystemExit(f"--profile needs py-spy beside {Path(sys.executable).name}: "
                         f"{Path(sys.executable).with_name('pip')} install py-spy")
    return subprocess.Popen([str(py_spy), "record", "--nonblocking", "--idle", "-r", "200",
                             "-d", str(seconds), "-f", "raw", "-o", str(out), "-p", str(pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    print(summarize([Path(p) for p in sys.argv[1:]]))
