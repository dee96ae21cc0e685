"""The timer loop's look at every shard's earliest deadline, on one Redis."""

from __future__ import annotations

import redis

from auction.server.store import SHARDS, Store, deadlines_key


def test_earliest_gives_each_shards_first_deadline_or_none(redis_url):
    client = redis.Redis.from_url(redis_url)
    store = Store(client)
    keys = [deadlines_key(k) for k in range(SHARDS)]
    client.delete(*keys)
    try:
        assert store.earliest() == [None] * SHARDS
        client.zadd(keys[0], {"AAAA": 1_796_000_000_123, "BBBB": 1_796_000_000_122})
        client.zadd(keys[SHARDS - 1], {"CCCC": 5})
        expected = [None] * SHARDS
        expected[0], expected[SHARDS - 1] = 1_796_000_000_122, 5
        assert store.earliest() == expected
        # The same as a ZRANGE of each set, the way a cluster is asked.
        firsts = [client.zrange(key, 0, 0, withscores=True) for key in keys]
        assert [int(f[0][1]) if f else None for f in firsts] == expected
    finally:
        client.delete(*keys)
