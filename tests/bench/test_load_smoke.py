"""bench/load.py in its smoke size: every column of its table is produced from real games.

Rates are the bench's business; this asserts the code paths: games played to
the end over real hold sockets and JSON streams, holds counted and charged,
no result lost, two generator processes merged into one row.
"""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import load  # noqa: E402
import loadgen  # noqa: E402
from meters import AcceptQueue  # noqa: E402


# The bench serves the door as it ships; on a busy test machine a worker's lag and its
# accept queue say nothing, so these code-path runs turn its checks off (the door's own
# tests are tests/web/door/test_capacity.py).
NO_DOOR_ENV = ["OVERLOAD_LAG_MS=0", "OVERLOAD_QUEUE=0"]
NO_DOOR = ["--env", *NO_DOOR_ENV]


def test_smoke_run_fills_the_table(capsys):
    rows = load.main(["--smoke", "--procs", "2", *NO_DOOR])
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
    assert row["cpu_ms_per_player_round"] > 0
    assert load.header() in out and load.format_row(row) in out
    assert "2/2 rooms ended" in out


def test_an_evening_lets_rooms_arrive_and_end_while_others_play(capsys):
    """--arrive-s: no room is set up beforehand; each arrives at its own moment, sets
    up and plays at once, so set-ups, play and endings overlap; the breakdown
    splits the bid error by round and by what else went on around each hold."""
    [row] = load.main(["--players", "16", "--workers", "1", "--rounds", "2",
                       "--arrive-s", "3", "--procs", "2", *NO_DOOR])
    out = capsys.readouterr().out
    assert row["rooms"] == row["rooms_ended"] == row["late_admitted"] == 4
    assert row["turned_away"] == 0 and row["lost"] == 0 and row["inconsistent"] == 0
    otherwise = row["cut"] + row["disturbed"] + sum(row["refusals"].values()) + sum(
        n for kind, n in row["errors"].items() if kind.startswith((
            "clean hold not charged", "hold refused", "missed a countdown",
            "no countdown view")))
    assert row["holds"] > 0 and row["holds"] + otherwise == 16 * 2, row
    starts = sorted(start for start, _ in row["setups"])
    assert len(starts) == 4 and starts[-1] - starts[0] > 0.5      # spread, not at once
    # A room still arrived after another had been set up and begun its game.
    assert starts[-1] > min(end for _, end in row["setups"]), row["setups"]
    assert len(row["endings"]) == 4
    assert len(row["hold_rounds"]) == len(row["hold_at"]) == row["holds"]
    assert re.search(r"^ +round 1 +\d+", out, re.M) and re.search(r"^ +round 2 +\d+", out, re.M)
    kinds = load.doing(row)
    assert "set-ups" in " ".join(kinds), kinds
    assert re.search(r"^ +with set-ups", out, re.M)
    assert "4 let in, 0 turned away" in out


def test_each_room_plays_from_an_address_of_its_own():
    """A room's four players share one loopback address, as a household shares its
    Wi-Fi; rooms don't, so per-address shares see an evening's many addresses."""
    addresses = {loadgen.household(seed) for seed in range(1, 3_001)}
    assert len(addresses) == 3_000
    for address in addresses:
        parts = [int(x) for x in address.split(".")]
        assert parts[0] == 127 and all(1 <= x <= 254 for x in parts[1:]), address


def test_compare_serves_two_checkouts_in_turns_and_prints_the_ratio(capsys, tmp_path):
    """bench/compare.py's code path: the reference checkout (here a copy of this one,
    served from its own folder) and this one each play a smoke step, and the ratio
    printed is the reference's figure over this one's."""
    import shutil

    import compare
    root = Path(__file__).resolve().parents[2]
    copy = tmp_path / "reference"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(
        ".venv", ".git", "instance", "test-artifacts", "__pycache__", "*.egg-info"))
    [result] = compare.main(["--against", str(copy), "--smoke"])
    out = capsys.readouterr().out
    assert len(result["runs"]["reference"]) == 1 and len(result["runs"]["this"]) == 1
    assert result["reference"] > 0 and result["this"] > 0
    assert result["ratio"] == result["reference"] / result["this"]
    for build in ("reference", "this"):
        assert len(re.findall(rf"^ *{build} +8 +1 ", out, re.M)) == 1, out
    assert f"{result['ratio']:.2f}x less" in out


def test_rooms_arriving_past_capacity_are_turned_away_and_the_others_play_on(capsys):
    """The overload run's code path: a worker full of streams (here: its cap is the
    8 players already playing) turns the rooms that arrive mid-run away with 503;
    with room to spare it lets them in and they play to the end too."""
    [full] = load.main(["--smoke", "--late", "8", "--env", "MAX_STREAMS_PER_WORKER=8",
                         *NO_DOOR_ENV])
    assert full["turned_away"] == 2 and full["late_admitted"] == 0
    assert full["door"]["busy_streams"] == 2 and full["door"]["let_in"] >= 2    # /metrics
    assert full["rooms"] == 2 and full["rooms_ended"] == 2 and full["lost"] == 0
    assert full["statuses"][503] >= 2
    [spare] = load.main(["--smoke", "--late", "8", "--env", "MAX_STREAMS_PER_WORKER=100",
                          *NO_DOOR_ENV])
    assert spare["turned_away"] == 0 and spare["late_admitted"] == 2
    assert spare["rooms"] == 4 and spare["rooms_ended"] == 4 and spare["lost"] == 0
    out = capsys.readouterr().out
    assert "the door's turn-aways by check: streams 2" in out
    assert "2 let in, 0 turned away" in out


def test_profile_summary_groups_samples_by_what_they_were_doing(tmp_path):
    """bench/spy.py reads py-spy's raw format: idle waits are left out, and a busy
    sample counts for every group its stack names."""
    import spy
    raw = tmp_path / "worker.txt"
    raw.write_text(
        "Hub.run (gevent/hub.py:647) 50\n"
        "hold (auction/web/live/hold.py:9);HoldSocket.run (auction/web/live/hold.py:1);"
        "HoldSocket._watch (auction/web/live/hold.py:2);Redis._execute_command (redis/client.py:6) 30\n"
        "serve.<locals>.generate (auction/web/live/stream.py:3);view_for (auction/game/views.py:4) 20\n"
        # a frame name with newlines in it breaks its sample into lines: left out
        "identify (auction/web/door/identity.py:37); (Working outside of\n"
        "application context. See the documentation (flask.palletsprojects.com).) 7\n")
    summary = spy.summarize([raw])
    assert summary.startswith("50 busy samples of 100 (50 % busy)")
    assert " 60.0 %  hold sockets" in summary and " 60.0 %  redis-py, any caller" in summary
    assert " 40.0 %  event streams" in summary and " 40.0 %    building views" in summary
    assert "  0.0 %  timer loop (scheduler)" in summary


def test_the_bench_reads_the_accept_queue_of_the_servers_port():
    """Connections the kernel has taken and nobody accepted, as /proc/net/tcp lists them."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    seen = AcceptQueue(listener.getsockname()[1])
    clients = [socket.create_connection(listener.getsockname(), timeout=5) for _ in range(2)]
    try:
        seen.sample()
        assert seen.now() == 2 and seen.peak == 2
        listener.accept()[0].close()
        seen.sample()
        assert seen.now() == 1 and seen.peak == 2
    finally:
        for sock in [*clients, listener]:
            sock.close()


def test_the_floor_server_plays_the_benchs_games_to_the_end(capsys):
    """bench/floor, the bare server that does only the wire's work (docs/scaling.md,
    "The floor"), speaks enough of the protocol for the bench's players: every room's
    game ends, every hold is charged, nothing else goes wrong, and its CPU is measured."""
    floor = Path(__file__).resolve().parents[2] / "bench" / "floor"
    [row] = load.main(["--smoke", "--root", str(floor)])
    assert row["rooms_ended"] == row["rooms"] == 2
    assert row["holds"] == 8 and len(row["bid_errors"]) == 8, row
    assert row["lost"] == 0 and row["inconsistent"] == 0 and row["cut"] == 0
    assert not row["errors"] and not row["refusals"] and row["wrong_refusals"] == 0
    assert all(abs(e) < 1000 for e in row["bid_errors"])
    assert row["cpu_ms_per_player_round"] > 0


def test_the_connection_flood_opens_connections_and_asks_for_rooms_meanwhile():
    """bench/connection_flood.py's code path: it holds the connections it opened, samples
    the accept queue and asks for a new room each second of the flood (what the door
    answers on a busy test machine is the bench's business, not this smoke's)."""
    import connection_flood
    [row] = connection_flood.main(["--rates", "200", "--seconds", "2"])
    assert row["opened"] >= 300 and row["queue"] is not None
    assert len(row["during"]) >= 1 and set(row["during"]) <= {201, 503}, row
    assert row["before"] in (201, 503) and row["after"] in (201, 503)
