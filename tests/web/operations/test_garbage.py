"""A game leaves nothing for the cyclic garbage collector that holds the game.

The worker's full collection is put off for minutes (auction/web/operations/collector.py),
which is safe only while what each hold and stream makes is freed by reference
counting as it ends. A cycle left behind would keep its objects -- a hold keeps
the whole room it loaded -- until the next full pass, and the worker's memory
would grow with every press.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

from auction.web.app import create_app
from auction.web.operations.collector import YOUNG, settle

HERE = Path(__file__).resolve().parents[2]   # tests/
# What a press made: the hold, its socket and what the socket's frames pass through,
# the room and game it loaded.
OURS = {"Hold", "HoldSocket", "Wire", "Tap", "_Done", "Room", "Game", "Round", "Player",
        "Listener"}


def test_a_hold_socket_leaves_no_cycle_of_ours(redis_url, tmp_path):
    out = subprocess.run([sys.executable, str(HERE / "garbage_probe.py"), redis_url,
                          str(tmp_path)], cwd=HERE.parent, capture_output=True, text=True,
                         timeout=60, env={"PYTHONPATH": f"{HERE.parent}:{HERE}",
                                          "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found["answers"] == [{"type": "in"}, {"type": "refused",
                                                  "reason": "out_this_round"}]
    left = {name: n for name, n in found["garbage"].items() if name in OURS}
    assert left == {}, left


def test_the_worker_puts_the_full_collection_off(tmp_path):
    app = create_app({"TESTING": True, "SCHEDULER": False, "GC_FULL_EVERY": 321,
                      "REDIS_URL": None, "INSTANCE_PATH": str(tmp_path)})
    before = gc.get_threshold()
    try:
        settle(app)
        assert gc.get_threshold() == (*YOUNG, 321)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
