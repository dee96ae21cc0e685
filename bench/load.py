"""Load: rooms of four playing short Time Stake games, stepped up in players.

For each step (players x workers) it starts ``gunicorn -k gevent`` with that
many workers on a private Redis, sets up the rooms from several generator
processes (bench/loadgen.py: asyncio, hundreds of players each), starts every
game within a few seconds of the others, and prints one row:

  holds       holds the client let go of and was charged for
  bid err     charged bid - the client's own hold (from the moment its stream
              showed spending to its release), p50 / p99 / max of |error|, ms
  result      the round's end -> the result view arriving, p50 / p99, ms; the end is
              the last release, or the entry's close (go + the entry grace, before
              which no round ends) if that came later
  wrong ref   presses sent before go (as the client's screen showed it, on the
              server's clock as the page counts) refused
  lost        round results a player never saw
  errors      everything else that went wrong (listed under the table)
  app CPU/MB  the server's workers (psutil), CPU in % of one core, peak RSS
  ms/pl-rnd   the workers' CPU per player per round: ms of worker CPU over the
              games, divided by players x rounds (what a player-round costs)
  redis       Redis's CPU, and its memory per room (its data once the games ended
              and the server left; rooms are kept a day after their end)
  gen CPU/MB  the generator processes themselves

Under each row: what else went wrong, the machine's load, and the longest queue of
connections the kernel held for the server that no worker had accepted yet (meters.py).

    .venv/bin/python bench/load.py                       # 250 500 1000 x 1 2 workers
    .venv/bin/python bench/load.py --players 2000 4000 --workers 2
    .venv/bin/python bench/load.py --smoke               # 8 players, 1 worker, 1 round
    .venv/bin/python bench/load.py --players 1000 --workers 2 --rounds 6 --arrive-s 20
                                                         # an evening: rooms arrive over
                                                         # 20 s, play and end meanwhile

Under the notes, each row's bid error by round and by what else the server was
doing around the hold (rooms setting up, games ending, or only play).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import math
import multiprocessing
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import redis
import requests

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

import loadgen  # noqa: E402
from meters import AcceptQueue, Meter, busy_s  # noqa: E402
import spy  # noqa: E402
from harness import AppServer, RedisServer  # noqa: E402

# A gevent worker serves each stream and hold socket as a greenlet; gunicorn's
# default cap of 1,000 connections per worker would be the first limit hit.
GUNICORN_ARGS = ("--worker-connections", "20000")
PLAYERS_PER_PROC = 150
# The door as it ships: the test harness turns its overload checks off (a busy test machine
# says nothing of a worker), and the bench measures what an operator runs.
SHIPPED_DOOR = {"OVERLOAD_LAG_MS": None, "OVERLOAD_QUEUE": None}
PROFILE_S = 15          # --profile: seconds sampled from the games' start
COLUMNS = [("players", 7), ("workers", 7), ("holds", 6), ("err p50", 8), ("p99", 6),
           ("max", 6), ("res p50", 8), ("p99", 6), ("wrong ref", 9), ("lost", 5),
           ("errors", 6), ("app CPU", 8), ("ms/pl-rnd", 9), ("app MB", 7), ("redis CPU", 9),
           ("KB/room", 8), ("gen CPU", 8), ("gen MB", 7)]


def child(base: str, rooms: int, late: int, late_s: float, rounds: int, seed: int,
          ramp_s: float, queue, go, json_streams: bool = False) -> None:
    """One generator process: set up its rooms, say so, wait for the start, play;
    ``late`` more rooms arrive while the games run."""
    loadgen.use_json_streams(json_streams)
    tally = loadgen.Tally()

    async def main():
        made = await loadgen.set_up_rooms(base, rooms, rounds, seed, tally)
        arrivals = [loadgen.Room([base], tally, rounds, seed * 100_000 + 50_000 + i)
                    for i in range(late)]
        queue.put(("ready", seed))
        start_at = await asyncio.get_running_loop().run_in_executor(None, go.get)
        await loadgen.play_rooms(made, start_at, ramp_s, tally, arrivals, late_s, seed)

    try:
        loadgen.run(main)
    except Exception as exc:
        tally.errors[f"generator failed: {exc!r}"] += 1
        queue.put(("ready", seed))
    queue.put(("done", tally.as_dict()))


def run_step(players: int, workers: int, rounds: int, procs: int, ramp_s: float,
             store: RedisServer, root: Path, profile: Path | None = None, late: int = 0,
             late_s: float = 6.0, env: dict | None = None, json_streams: bool = False,
             profile_s: int = PROFILE_S, arrive_s: float = 0.0) -> dict:
    """Serve, set up, play, measure: one row of the table. ``arrive_s``: an evening,
    every room arriving over that long (none set up beforehand)."""
    rooms = 0 if arrive_s else max(1, players // 4)
    late_rooms = players // 4 if arrive_s else late // 4
    if arrive_s:
        ramp_s, late_s = 0.0, arrive_s
    client = redis.Redis.from_url(store.url)
    client.flushall()
    memory0 = client.info("memory")["used_memory"]
    # A room's players share an address (loadgen.household), and many rooms would
    # still pass the per-address abuse limits meant for one party: raise them.
    server = AppServer(store.url, workers=workers, args=GUNICORN_ARGS, root=root,
                       env={"TA_RATE_LIMIT_SCALE": "10000", **SHIPPED_DOOR, **(env or {})})
    door: dict[str, int] = {}
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = max(1, min(procs, rooms + late_rooms))
    gos = [ctx.Queue() for _ in range(procs)]
    shares = [rooms // procs + (i < rooms % procs) for i in range(procs)]
    lates = [late_rooms // procs + (i < late_rooms % procs) for i in range(procs)]
    kids = [ctx.Process(target=child, args=(server.url, n, lates[i], late_s, rounds, i + 1, ramp_s,
                                            queue, gos[i], json_streams), daemon=True)
            for i, n in enumerate(shares)]
    try:
        for k in kids:
            k.start()
        for _ in kids:
            queue.get(timeout=600)
        app = Meter(server.worker_pids() or [server.proc.pid])
        red = Meter([store.proc.pid])
        queue_seen = AcceptQueue(int(server.url.rsplit(":", 1)[1]))
        gen = Meter([k.pid for k in kids])
        machine0 = busy_s()
        started = time.monotonic()
        for go in gos:
            go.put(started + 1.0)
        spies = []
        if profile:
            profile.mkdir(parents=True, exist_ok=True)
            spies = [spy.record(pid, profile_s, profile / f"{players}p-{workers}w-{pid}.txt")
                     for pid in app.pids]
        tallies = []
        while len(tallies) < len(kids):
            for m in (app, red, gen, queue_seen):
                m.sample()
            try:
                kind, data = queue.get(timeout=0.5)
            except Exception:
                continue
            if kind == "done":
                tallies.append(data)
        wall = time.monotonic() - started
        machine = busy_s() - machine0
        # Read while the workers live: a worker that drains and exits on stop is gone.
        (app_s, app_sys_s), (red_s, _) = app.cpu_s(), red.cpu_s()
        for k in kids:
            k.join(30)
        for s in spies:
            s.wait(profile_s + 30)
        door = door_checks(server.url)
    finally:
        server.stop()
    # Measured once the server's connections are gone: what the rooms' data takes.
    memory = client.info("memory")["used_memory"] - memory0
    client.close()
    row = merge(tallies)
    row["door"] = door
    played = rooms + row["late_admitted"]
    row.update(players=played * 4, workers=workers, rooms=played, wall_s=wall,
               app_cpu=100 * app_s / wall, app_system=100 * app_sys_s / max(app_s, 1e-9),
               app_mb=app.peak_rss / 2**20,
               cpu_ms_per_player_round=1000 * app_s / (played * 4 * rounds),
               redis_cpu=100 * red_s / wall, kb_per_room=memory / 1024 / max(1, played),
               gen_cpu=100 * sum(t["cpu_s"] for t in tallies) / wall,
               gen_mb=sum(t["max_rss_kb"] for t in tallies) / 1024,
               machine_cpu=100 * machine / wall, load=os.getloadavg()[0],
               accept_queue=queue_seen.peak)
    row["others_cpu"] = row["machine_cpu"] - row["app_cpu"] - row["redis_cpu"] - row["gen_cpu"]
    if profile:
        row["profile"] = spy.summarize(sorted(profile.glob(f"{players}p-{workers}w-*.txt")))
    return row


def merge(tallies: list[dict]) -> dict:
    out: dict = {}
    for t in tallies:
        for key, value in t.items():
            if isinstance(value, dict):
                out.setdefault(key, Counter()).update(value)
            elif isinstance(value, list):
                out.setdefault(key, []).extend(value)
            elif key == "gen_lag_ms":
                out[key] = max(out.get(key, 0), value)
            else:
                out[key] = out.get(key, 0) + value
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def header() -> str:
    return " ".join(f"{name:>{width}}" for name, width in COLUMNS)


def format_row(row: dict) -> str:
    errors = [abs(e) for e in row["bid_errors"]]
    delays = row["result_delays"]
    cells = [row["players"], row["workers"], row["holds"], f"{pct(errors, .5):.1f}",
             f"{pct(errors, .99):.0f}", f"{max(errors, default=math.nan):.0f}",
             f"{pct(delays, .5):.0f}", f"{pct(delays, .99):.0f}", row["wrong_refusals"],
             row["lost"], sum(row["errors"].values()) + row["cut"], f"{row['app_cpu']:.0f}%",
             f"{row['cpu_ms_per_player_round']:.1f}", f"{row['app_mb']:.0f}",
             f"{row['redis_cpu']:.0f}%", f"{row['kb_per_room']:.1f}",
             f"{row['gen_cpu']:.0f}%", f"{row['gen_mb']:.0f}"]
    return " ".join(f"{cell:>{width}}" for cell, (_, width) in zip(cells, COLUMNS))


def door_checks(url: str) -> dict[str, int]:
    """What the door did with the new games, by outcome, as /metrics counts it for an
    operator (ta_new_games; a loopback scrape needs no token). Empty where the server
    served has no such figure (an older build, the floor)."""
    try:
        text = requests.get(url + "/metrics", timeout=10).text
    except requests.RequestException:
        return {}
    return {outcome: int(float(count)) for outcome, count in
            re.findall(r'^ta_new_games_total\{outcome="(\w+)"\} (\S+)$', text, re.M)}


def notes(row: dict) -> str:
    parts = [f"{row['rooms_ended']}/{row['rooms']} rooms ended", f"{row['wall_s']:.0f} s",
             *([f"rooms arriving mid-run: {row['late_admitted']} let in, {row['turned_away']} "
                "turned away (503)"] if row["late_admitted"] + row["turned_away"] else []),
             *([f"the door's turn-aways by check: " + ", ".join(
                 f"{outcome.removeprefix('busy_')} {n}" for outcome, n in
                 sorted(row["door"].items()) if outcome.startswith("busy_") and n)]
               if any(n for o, n in row.get("door", {}).items() if o.startswith("busy_"))
               else []),
             f"generator lag up to {row['gen_lag_ms']:.0f} ms",
             f"{row['app_system']:.0f}% of the workers' CPU in the kernel",
             f"machine busy {row['machine_cpu']:.0f}% of {psutil.cpu_count()} cores, of which "
             f"{max(0.0, row['others_cpu']):.0f}% outside the bench's processes (other jobs; "
             f"kernel work such as loopback networking); load average {row['load']:.1f}"]
    if row.get("accept_queue") is not None:     # connections waiting for a worker to accept
        parts.append(f"accept queue up to {row['accept_queue']}")
    if row["cut"]:
        parts.append(f"{row['cut']} holds cut by the server")
    parts += [f"{n} x {kind}" for kind, n in sorted(row["errors"].items())]
    parts += [f"refused {n} x {reason}" for reason, n in sorted(row["refusals"].items())]
    if row["reconnects"]:
        parts.append(f"{row['reconnects']} stream reconnects ({row['disturbed']} holds not"
                     " measured for it)")
    if row["inconsistent"]:
        parts.append(f"{row['inconsistent']} final tables whose banks do not add up")
    return f"  {row['players']} players / {row['workers']} workers: " + "; ".join(parts)


# A hold "overlaps" a room's set-up or end when one fell in the seconds before its
# release: its press, its countdown and the hold itself (at most 2 s + 2.5 s).
OVERLAP_S = 4.5


def doing(row: dict) -> list[str]:
    """For each charged hold, what the server was doing around it besides: setting
    up rooms, ending games, both, or only playing."""
    setups = sorted(end for _, end in row["setups"])
    endings = sorted(row["endings"])

    def near(moments: list[float], at: float) -> bool:
        i = bisect.bisect_left(moments, at - OVERLAP_S)
        return i < len(moments) and moments[i] <= at

    kinds = []
    for at in row["hold_at"]:
        s, e = near(setups, at), near(endings, at)
        kinds.append("set-ups and endings" if s and e else "set-ups" if s
                     else "endings" if e else "only play")
    return kinds


def breakdown(row: dict) -> str:
    """The bid error by round and by what else the server was doing."""
    errors = [abs(e) for e in row["bid_errors"]]
    groups: dict[str, list[float]] = {}
    for rnd, err in zip(row["hold_rounds"], errors):
        groups.setdefault(f"round {rnd}", []).append(err)
    for kind, err in zip(doing(row), errors):
        groups.setdefault(f"with {kind}", []).append(err)
    lines = [f"    {'bid err by':<26}{'holds':>6}{'p50':>6}{'p99':>6}{'max':>6}{'>20 ms':>8}"]
    for name in sorted(groups, key=lambda k: (not k.startswith("round"),
                                              int(k.split()[1]) if k.startswith("round") else k)):
        e = groups[name]
        lines.append(f"    {name:<26}{len(e):>6}{pct(e, .5):>6.0f}{pct(e, .99):>6.0f}"
                     f"{max(e):>6.0f}{sum(x > 20 for x in e):>8}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[250, 500, 1000])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--procs", type=int, default=0,
                        help="generator processes (default: one per 150 players, at most 4)")
    parser.add_argument("--ramp", type=float, default=4.0,
                        help="seconds over which the games start")
    parser.add_argument("--root", type=Path, default=HERE.parent,
                        help="the checkout to serve (e.g. an export of main, for a baseline)")
    parser.add_argument("--smoke", action="store_true", help="8 players, 1 worker, 1 round")
    parser.add_argument("--json-streams", action="store_true",
                        help="players follow the JSON view stream, not the phone's HTML parts")
    parser.add_argument("--late", type=int, default=0,
                        help="players more, in rooms arriving while the games run (overload)")
    parser.add_argument("--late-s", type=float, default=6.0,
                        help="the late rooms arrive over this long, once the games have begun")
    parser.add_argument("--arrive-s", type=float, default=0.0,
                        help="an evening: every room arrives over this long, sets up and "
                             "plays at once (none set up beforehand; --late ignored)")
    parser.add_argument("--env", nargs="*", default=[], metavar="KEY=VALUE",
                        help="the server's configuration, e.g. OVERLOAD_LAG_MS=20")
    parser.add_argument("--profile", type=Path, default=None,
                        help="py-spy each worker during the games into this folder; summarise")
    parser.add_argument("--profile-s", type=int, default=PROFILE_S,
                        help="--profile samples this many seconds from the games' start")
    args = parser.parse_args(argv)
    if args.smoke:
        args.players, args.workers, args.rounds, args.ramp = [8], [1], 1, 0.5
        args.late_s = min(args.late_s, 1.0)
    env = dict(item.split("=", 1) for item in args.env)
    store = RedisServer()
    rows = []
    print(header(), flush=True)
    try:
        for players in args.players:
            for workers in args.workers:
                # A generator process late by tens of ms at the rounds' starts (its
                # stamps and pong answers late too) shows as the server's error.
                procs = args.procs or min(4, math.ceil((players + args.late) / PLAYERS_PER_PROC))
                row = run_step(players, workers, args.rounds, procs, args.ramp, store, args.root,
                               args.profile, args.late, args.late_s, env, args.json_streams,
                               args.profile_s, args.arrive_s)
                rows.append(row)
                print(format_row(row), flush=True)
    finally:
        store.stop()
    print("bid err: |charged bid - client's hold| ms; res: last release (or entry close)"
          " -> result view ms;"
          " CPU in % of one core; ms/pl-rnd: ms of worker CPU per player per round")
    for row in rows:
        print(notes(row))
        print(breakdown(row))
        if "profile" in row:
            print("    py-spy of the workers, the games' first "
                  f"{args.profile_s} s: " + row["profile"].replace("\n", "\n    "))
    return rows


if __name__ == "__main__":
    main()
