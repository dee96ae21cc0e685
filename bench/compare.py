"""Two builds' CPU per player-round, measured in turns on this machine.

The workers' CPU per player-round (bench/load.py's ms/pl-rnd) is a machine's figure:
the same build measured 17.7 ms on one day's machine and 10.1 on another's. A
build's gain is therefore only ever the ratio of two figures taken on the same
machine in the same sitting. This serves the reference checkout (``--against``,
e.g. a worktree of the commit to compare with) and this one in turns, ``--runs``
times each, each run a full step of bench/load.py, and prints every row, each
build's median and the ratio of the medians.

    git worktree add /some/dir <commit>
    .venv/bin/python bench/compare.py --against /some/dir --players 248 --workers 1 --runs 3
    .venv/bin/python bench/compare.py --against /some/dir --smoke

The reference must run with the dependencies installed here (an older build may
need one this build dropped: install it into the environment for the sitting).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import load
from harness import RedisServer


def measure(against: Path, players: int, workers: int, rounds: int, runs: int,
            ramp_s: float, show=print, json_streams: bool = False) -> dict:
    """``runs`` rows of each build in turns, which goes first alternating from run to run
    (a machine that drifts over the sitting favours neither); their medians and the
    reference's median over this build's (how many times less this build spends)."""
    procs = min(4, -(-players // load.PLAYERS_PER_PROC))
    store = RedisServer()
    figures: dict[str, list[float]] = {"reference": [], "this": []}
    try:
        builds = [("reference", against), ("this", load.HERE.parent)]
        for run in range(runs):
            for name, root in builds if run % 2 == 0 else builds[::-1]:
                row = load.run_step(players, workers, rounds, procs, ramp_s, store, root,
                                    json_streams=json_streams)
                show(f"{name:>9}  {load.format_row(row)}")
                if row["errors"] or row["lost"]:
                    show(f"{'':>9}  {load.notes(row)}")
                figures[name].append(row["cpu_ms_per_player_round"])
    finally:
        store.stop()
    reference, this = (statistics.median(figures[k]) for k in ("reference", "this"))
    return {"reference": reference, "this": this, "ratio": reference / this,
            "runs": figures}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--against", type=Path, required=True,
                        help="the reference checkout (say, a worktree of an older commit)")
    parser.add_argument("--players", type=int, nargs="+", default=[248])
    parser.add_argument("--workers", type=int, nargs="+", default=[1])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3, help="runs of each build, in turns")
    parser.add_argument("--ramp", type=float, default=4.0)
    parser.add_argument("--smoke", action="store_true", help="8 players, 1 worker, 1 round, 1 run")
    parser.add_argument("--json-streams", action="store_true",
                        help="players follow the JSON view stream, not the phone's HTML parts")
    args = parser.parse_args(argv)
    if args.smoke:
        args.players, args.workers, args.rounds, args.runs, args.ramp = [8], [1], 1, 1, 0.5
    print(f"{'build':>9}  {load.header()}", flush=True)
    results = []
    for players in args.players:
        for workers in args.workers:
            result = measure(args.against, players, workers, args.rounds, args.runs,
                             args.ramp, show=lambda line: print(line, flush=True),
                             json_streams=args.json_streams)
            results.append(result)
            print(f"  {players} players / {workers} workers, ms/pl-rnd, median of "
                  f"{args.runs}: reference {result['reference']:.1f}, this "
                  f"{result['this']:.1f}: {result['ratio']:.2f}x less", flush=True)
    return results


if __name__ == "__main__":
    main()
