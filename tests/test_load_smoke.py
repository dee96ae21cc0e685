"""bench/load.py in its smoke size: every column of its table is produced from real games.

Rates are the bench's business; this asserts the code paths: games played to
the end over real hold sockets and JSON streams, holds counted and charged,
no result lost, two generator processes merged into one row.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import load  # noqa: E402


def test_smoke_run_fills_the_table(capsys):
    rows = load.main(["--smoke", "--procs", "2"])
    out = capsys.readouterr().out
    [row] = rows
    assert row["players"] == 8 and row["workers"] == 1 and row["rooms"] == 2
    assert row["rooms_ended"] == 2
    assert row["lost"] == 0 and row["inconsistent"] == 0
    # Every player's round is accounted for exactly once: a charged hold, or one of
    # the ways it can go otherwise (none of them expected here, but a busy machine
    # may make a stream skip a 2 s countdown).
    assert row["holds"] > 0
    otherwise = row["cut"] + row["disturbed"] + sum(row["refusals"].values()) + sum(
        n for kind, n in row["errors"].items() if kind.startswith((
            "clean hold not charged", "hold refused", "missed a countdown",
            "no countdown view")))
    assert row["holds"] + otherwise == 8, row
    assert len(row["bid_errors"]) == row["holds"]
    assert row["result_delays"] and all(d > 0 for d in row["result_delays"])
    assert row["app_cpu"] > 0 and row["app_mb"] > 0 and row["gen_mb"] > 0
    assert load.header() in out and load.format_row(row) in out
    assert "2/2 rooms ended" in out
