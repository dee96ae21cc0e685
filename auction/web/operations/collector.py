"""When a worker's cyclic garbage collector may stop it.

CPython frees most objects as their last reference goes; the cyclic collector
finds the rest, and while it runs the whole worker -- every hold socket, every
stream -- waits. Its young generations are small and quick (a few ms). Its
full pass visits every live object: with 500 players on a worker, 100-200 ms,
taken every few seconds under load by CPython's default thresholds. A release
read or a view sent during that pause is late by as much, which is the tail of
the bid error (docs/scaling.md has the figures).

So, once the worker has started, everything it made to start (modules, the
app, templates) is moved out of the collector's sight (``gc.freeze``), and the
full pass runs only after ``GC_FULL_EVERY`` passes of the middle generation
instead of 10: minutes apart under load, not seconds. That is safe because
what a game makes is freed by reference counting, not left to the collector:
the hold socket breaks the one cycle it made (web/live/hold.py), and the tests keep
it so (tests/web/operations/test_garbage.py). What little cyclic garbage remains waits for
the next full pass.
"""

from __future__ import annotations

import gc

from flask import Flask

YOUNG = (700, 10)       # CPython's own thresholds for the two young generations


def settle(app: Flask) -> None:
    """Call once the worker has started, before it serves."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*YOUNG, app.config["GC_FULL_EVERY"])
