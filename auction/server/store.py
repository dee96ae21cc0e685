"""Redis, the only store: room records with versions, deadlines, pub/sub.

A room is a hash holding the JSON record and a version. Saving is one Lua
script that checks the version, writes the record, sets the room's next
deadline in its shard's sorted set and publishes the record on the room's
channel -- all or nothing, so deadlines and messages are always in version
order and a writer that lost a race learns it (and retries) instead of
overwriting. (On a cluster whose masters have replicas, the record is published
a moment later, once a replica has the save -- replicas.py -- and only if it is
still the room's newest, so messages stay in version order.)

Every key is named here. A room's keys (record, code reservation, hold
slots, round trips, its streams' lateness) and its channel carry the hash tag of the room's
*shard*, ``{s<k>...}``, and so does that shard's deadline set: on Redis
Cluster everything one script touches lies in one slot, while the rooms
spread over SHARDS slots (their tags are picked so the slots are evenly
spaced) and so over the cluster's masters. A tag per room would put each
deadline in a slot of its own, leaving the timer loops 16,384 sets to scan;
a tag per shard keeps it to SHARDS. On one Redis the names are the same and
pub/sub is plain PUBLISH; on a cluster the script uses SPUBLISH (sharded
pub/sub, Redis 7), so a change travels only within its shard's node.
"""

from __future__ import annotations

import zlib
from typing import Any, cast

import redis
from redis.cluster import RedisCluster

from . import jsontext
from . import store_scripts as scripts
from .config import SERVER_CONFIG
from .replicas import Replicas
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

PREFIX = "ta:"
# Fixed for the life of a store: a room's shard decides where its keys live
# (TA_STORE_SHARDS, read in config.py).
SHARDS = SERVER_CONFIG.store_shards

# How long a room lives after its last write, by phase.
LOBBY_TTL_S = 2 * 3600
PLAYING_TTL_S = 6 * 3600
ENDED_TTL_S = 25 * 3600        # finished games stay readable for at least a day
CODE_COOLDOWN_S = 3600          # a freed code rests this long before reuse
GAMES_KEPT = 20                 # a device's "your games" list: the newest this many


class NoSuchRoom(LookupError):
    """No room with that code (or it expired)."""


# What redis-py raises while the store is away: down, restarting, loading its
# file, failing over, or out of memory. Callers answer "try again shortly".
UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.ClusterError,
               redis.exceptions.TryAgainError, redis.exceptions.ReadOnlyError,
               redis.exceptions.SlotNotCoveredError, redis.exceptions.OutOfMemoryError)


# -- key names: the one place --------------------------------------------------


def _shard_tag(k: int) -> str:
    """A hash tag whose slot lies in the k-th of SHARDS equal slices of the slots."""
    n = 0
    while key_slot(f"s{k}.{n}".encode()) * SHARDS // REDIS_CLUSTER_HASH_SLOTS != k:
        n += 1
    return f"s{k}.{n}"


TAGS = [_shard_tag(k) for k in range(SHARDS)]


def shard(code: str) -> int:
    return zlib.crc32(code.encode()) % SHARDS


def _room(code: str) -> str:
    """The prefix of every key of this room: ``ta:{<its shard's tag>}:``."""
    return f"{PREFIX}{{{TAGS[shard(code)]}}}:"


def room_key(code: str) -> str:
    return f"{_room(code)}room:{code}"


def code_key(code: str) -> str:
    """The code's reservation, which outlives the room by a cool-down."""
    return f"{_room(code)}code:{code}"


def channel(code: str) -> str:
    return f"{_room(code)}changes:{code}"


def code_of_channel(chan: str) -> str:
    return chan.rpartition(":")[2]


def hold_key(code: str, pid: str) -> str:
    """A seat's hold-socket claim and heartbeat."""
    return f"{_room(code)}hold:{code}:{pid}"


def rtt_key(code: str, pid: str) -> str:
    return f"{_room(code)}rtt:{code}:{pid}"


def late_key(code: str, pid: str, rnd: int) -> str:
    """How late the seat's own stream showed round ``rnd``'s spending (holds.py): beside
    the seat's hold, in its slot."""
    return f"{hold_key(code, pid)}:late:{rnd}"


def deadlines_key(k: int) -> str:
    return f"{PREFIX}{{{TAGS[k]}}}:deadlines"


def games_key(digest: str) -> str:
    """A device's finished games: a device's, not a room's, so in a slot of its own."""
    return f"{PREFIX}games:{digest}"


def lease_key(key: str) -> str:
    """Connection leases (web/door/limits.py), per address or device: slots of their own."""
    return f"{PREFIX}conc:{key}"


# Where flask-limiter keeps the abuse limits' counters (Service.limiter_storage).
LIMITS_PREFIX = f"{PREFIX}limit"


# Game time is this key's node's clock, the same for every worker of a cluster.
CLOCK_KEY = f"{PREFIX}{{clock}}"

# A hold slot is kept a while after its socket ends, so its last-alive moment can be read.
SLOT_KEEP_MS = 60_000

# A hold slot as read back: owner, last alive ms, ms since its worker last wrote it.
Heartbeat = tuple[str, int, int | None]

# A seat's round trips outlive any one round.
RTT_KEEP = 32
RTT_TTL_S = 6 * 3600
# A round's note of a stream's lateness outlives any hold of it.
LATE_TTL_S = 600


class Store:
    """Room records, deadlines and change messages in one Redis or one Redis Cluster."""

    def __init__(self, client: redis.Redis | RedisCluster) -> None:
        # redis-py types every command's answer as "a value or an awaitable of it" (its
        # sync and async clients share the annotations): each method here says instead
        # what it returns.
        self.redis: Any = cast(Any, client)
        self.cluster = isinstance(client, RedisCluster)
        # Sharded pub/sub keeps a room's messages on its own node (Redis 7).
        self.publish = "SPUBLISH" if self.cluster else "PUBLISH"
        # On a cluster, a room's creation and saves wait for a replica (replicas.py).
        self.replicas = Replicas(client, self.cluster)
        self._create = self.redis.register_script(scripts.CREATE)
        self._save = self.redis.register_script(scripts.SAVE)
        self._claim = self.redis.register_script(scripts.CLAIM)
        self._take_slot = self.redis.register_script(scripts.TAKE_SLOT)
        self._beats = self.redis.register_script(scripts.BEATS)
        self._heartbeats = self.redis.register_script(scripts.HEARTBEATS)
        self._reschedule = self.redis.register_script(scripts.RESCHEDULE)
        self._lease = self.redis.register_script(scripts.LEASE)
        self._earliest = self.redis.register_script(scripts.EARLIEST)

    def time(self) -> tuple[int, int]:
        """The store's clock: TIME of the one node every worker asks alike."""
        if self.cluster:
            return self.redis.time(target_nodes=self.redis.get_node_from_key(CLOCK_KEY))
        return self.redis.time()

    def create(self, code: str, record: dict) -> bool:
        """Reserve ``code`` and store its first record; False if the code is taken."""
        keys = [room_key(code), code_key(code)]
        args = [jsontext.dumps(record), LOBBY_TTL_S, LOBBY_TTL_S + CODE_COOLDOWN_S]
        master = self.replicas.master(keys[0])
        if master is not None:
            created, = self.replicas.run(master, [("EVAL", scripts.CREATE, 2, *keys, *args)])
            return bool(created)
        return bool(self._create(keys=keys, args=args))

    def load(self, code: str) -> tuple[dict, int]:
        """The room's record and version."""
        state, version = self.redis.hmget(room_key(code), "state", "v")
        if state is None:
            raise NoSuchRoom(code)
        return jsontext.loads(state), int(version)

    def save(self, code: str, version: int, record: dict, deadline_ms: int | None,
             ttl_s: int) -> int | None:
        """Write if still at ``version``; returns the new version, or None on a lost race."""
        keys = [room_key(code), code_key(code), deadlines_key(shard(code))]
        args = [str(version), jsontext.dumps(record), ttl_s, ttl_s + CODE_COOLDOWN_S,
                "" if deadline_ms is None else deadline_ms, code, channel(code), self.publish]
        master = self.replicas.master(keys[0])
        if master is not None:
            # Published once a replica has it, by ANNOUNCE, not by the script itself.
            announce = ("EVAL", scripts.ANNOUNCE, 1, keys[0], str(version + 1), channel(code),
                        self.publish)
            saved, _ = self.replicas.run(master, [("EVAL", scripts.SAVE, 3, *keys, *args[:-1], "")],
                                         (announce,))
            return saved or None
        return self._save(keys=keys, args=args) or None

    def reschedule(self, code: str, version: int, deadline_ms: int | None) -> None:
        """Set the room's next deadline alone (nothing to save), if still at ``version``."""
        self._reschedule(keys=[room_key(code), deadlines_key(shard(code))],
                         args=[str(version), "" if deadline_ms is None else deadline_ms, code])

    def earliest(self) -> list[int | None]:
        """Each shard's earliest pending deadline (ms), or None: one command on one
        Redis (the timer loop asks after every tick it fires), a round trip per node
        on a cluster."""
        if not self.cluster:
            keys = [deadlines_key(k) for k in range(SHARDS)]
            return [None if due is None else int(float(due)) for due in self._earliest(keys=keys)]
        pipe = self.redis.pipeline(transaction=False)
        for k in range(SHARDS):
            pipe.zrange(deadlines_key(k), 0, 0, withscores=True)
        return [int(first[0][1]) if first else None for first in pipe.execute()]

    def drop(self, code: str) -> None:
        """Delete a room nobody has seen (a rematch that lost a race); its code
        stays reserved for the usual cool-down."""
        self.redis.delete(room_key(code))

    # -- each device's finished games, under its token's digest (never the token) --

    def remember_game(self, digests: list[str], code: str, ended_ms: int) -> None:
        """Add a finished game to each device's list; the list lives as long as
        its newest game's room (ENDED_TTL_S)."""
        pipe = self.redis.pipeline()
        for d in digests:
            key = games_key(d)
            pipe.zadd(key, {code: ended_ms})
            pipe.zremrangebyrank(key, 0, -GAMES_KEPT - 1)
            pipe.expire(key, ENDED_TTL_S)
        pipe.execute()

    def recent_games(self, digest: str, now_ms: int) -> list[tuple[str, int]]:
        """(code, ended ms) of the device's games that ended within ENDED_TTL_S, newest first."""
        since = now_ms - ENDED_TTL_S * 1000
        rows = self.redis.zrevrangebyscore(games_key(digest), "+inf", since,
                                           withscores=True)
        return [(code.decode(), int(ms)) for code, ms in rows]

    def claim_due(self, k: int, now_ms: int, lease_ms: int, most: int) -> list[str]:
        """Up to ``most`` rooms of shard ``k`` whose deadlines have come, leased to
        the caller, earliest first."""
        codes = self._claim(keys=[deadlines_key(k)], args=[now_ms, now_ms + lease_ms, most])
        return [code.decode() for code in codes]

    def forget_deadline(self, code: str) -> None:
        self.redis.zrem(deadlines_key(shard(code)), code)

    def take_slot(self, key: str, owner: str, now_ms: int, stale_ms: int) -> bool:
        """Claim a seat's hold slot (``hold_key``) unless a live socket (seen within
        stale_ms) has it."""
        return bool(self._take_slot(keys=[key], args=[owner, now_ms, stale_ms, SLOT_KEEP_MS]))

    def beat_many(self, entries: list[tuple]) -> None:
        """Heartbeats and round trips of holds of one shard, in one script call:
        (code, pid, owner, last alive ms, samples oldest first, socket ended)."""
        keys: list[str] = []
        args: list[str | int] = [SLOT_KEEP_MS, RTT_KEEP, RTT_TTL_S]
        for code, pid, owner, alive_ms, samples, ended in entries:
            keys += [hold_key(code, pid), rtt_key(code, pid)]
            args += [owner, "-" if ended else owner, alive_ms, len(samples), *samples]
        self._beats(keys=keys, args=args)

    def heartbeats(self, keys: list[str]) -> list[Heartbeat | None]:
        """Each slot's (owner, last alive ms, ms since its worker last wrote it; None:
        unknown), one room's (one hash slot); owner "-" once the socket has ended."""
        out: list[Heartbeat | None] = []
        for value, age in self._heartbeats(keys=keys, args=[SLOT_KEEP_MS]) if keys else []:
            if not value:
                out.append(None)
            else:
                owner, ms = value.decode().split(" ")
                out.append((owner, int(ms), None if age < 0 else age))
        return out

    def take_lease(self, key: str, member: str, cap: int, now_ms: int, ttl_ms: int) -> bool:
        """One of at most ``cap`` live leases under ``key`` (expired ones drop out)."""
        return bool(self._lease(keys=[lease_key(key)], args=[now_ms, cap, now_ms + ttl_ms, member,
                                                           ttl_ms]))

    def renew_lease(self, key: str, member: str, now_ms: int, ttl_ms: int) -> None:
        pipe = self.redis.pipeline()
        pipe.zadd(lease_key(key), {member: now_ms + ttl_ms}, xx=True)
        pipe.pexpire(lease_key(key), ttl_ms)
        pipe.execute()

    def drop_lease(self, key: str, member: str) -> None:
        self.redis.zrem(lease_key(key), member)

    # -- fairness: what the hold socket measures, kept between its sockets --

    def rtt_samples(self, code: str, pid: str) -> list[int]:
        """The seat's recent round trips, newest first."""
        return [int(s) for s in self.redis.lrange(rtt_key(code, pid), 0, RTT_KEEP - 1)]

    def note_late(self, code: str, pid: str, rnd: int, late_ms: int) -> None:
        """The seat's stream was ``late_ms`` late showing round ``rnd``'s spending, by the
        server's doing (fairness.stream_lateness): kept only if no stream of the seat
        said so first -- the first screen to show it is the one the player saw."""
        self.redis.set(late_key(code, pid, rnd), late_ms, nx=True, ex=LATE_TTL_S)

    def late_ms(self, code: str, pid: str, rnd: int) -> int:
        """How late the seat's stream showed round ``rnd``'s spending; 0 if none said."""
        late = self.redis.get(late_key(code, pid, rnd))
        return int(late) if late is not None else 0

