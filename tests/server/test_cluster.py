"""The game on a Redis Cluster: 3 masters on loopback, two app processes.

A room's keys and its channel share its shard's hash tag, so every save
(a Lua script touching the record, the code, the deadline set, and an
SPUBLISH) runs on one node; rooms spread over the masters; a room's players
on both app processes see each other's moves through sharded pub/sub.
"""

from __future__ import annotations

import pytest

import games
from client import Player
from cluster_harness import RedisCluster
from harness import AppServer

from auction.server import store


@pytest.fixture(scope="module")
def cluster():
    c = RedisCluster(3)
    yield c
    c.stop()


def test_a_room_across_two_app_processes_on_a_cluster(cluster):
    a, b = AppServer(cluster.url), AppServer(cluster.url)
    try:
        players = games.set_up([a.url, b.url])
        assert {p.base for p in players} == {a.url, b.url}
        # The streams listen with SSUBSCRIBE, on the node that owns the room's slot.
        code = players[0].code
        owner = cluster.owner(store.room_key(code))
        assert owner.exists(store.room_key(code))
        players[0].wait_view(lambda v: len(v["players"]) == 3)
        assert store.channel(code).encode() in owner.execute_command("PUBSUB", "SHARDCHANNELS")
        holds = games.play(players)
        games.check(players, holds)
    finally:
        a.stop()
        b.stop()


def test_rooms_spread_over_the_masters_and_keep_to_one_slot(cluster):
    srv = AppServer(cluster.url)
    try:
        codes = [Player(srv.url).create(f"Host {i}", "stake") for i in range(24)]
        holders = {i: cluster.node(i).dbsize() for i in range(3)}
        assert sum(1 for n in holders.values() if n) >= 2, holders
        for code in codes:
            slots = {cluster.node(0).cluster("KEYSLOT", key) for key in (
                store.room_key(code), store.code_key(code), store.channel(code),
                store.hold_key(code, "p1"), store.rtt_key(code, "p1"),
                store.deadlines_key(store.shard(code)))}
            assert len(slots) == 1
    finally:
        srv.stop()
