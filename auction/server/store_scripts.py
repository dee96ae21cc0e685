"""The store's Lua scripts: each runs whole inside Redis, touching the keys of one
hash slot (see store.py), so a write is all or nothing and races are detected.

``SAVE`` publishes with the command its caller names (PUBLISH, or SPUBLISH on a
cluster), on a channel in the same slot as the keys it writes -- or, named none,
leaves that to ``ANNOUNCE``, sent after a replica has the save (replicas.py).
"""

CREATE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'v', 1)
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
return 1
"""

SAVE = """
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
if ARGV[8] ~= '' then redis.call(ARGV[8], ARGV[7], nv .. '\\n' .. ARGV[2]) end
return nv
"""

# Publish a room's record as saved, after its save (replicas.py: once a replica
# has it) -- unless a later save has come, which publishes its own.
ANNOUNCE = """
local saved = redis.call('HMGET', KEYS[1], 'state', 'v')
if saved[2] ~= ARGV[1] then return 0 end
redis.call(ARGV[3], ARGV[2], saved[2] .. '\\n' .. saved[1])
return 1
"""

# Claim due deadlines by pushing them a lease into the future: the claimer
# replaces it with the room's real next deadline when it saves; if the
# claimer dies first, the lease runs out and another worker claims it.
CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, code in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[2], code) end
return due
"""


# The one-socket-per-seat claim doubles as the holder's heartbeat: its value
# is "<owner> <last alive ms>", kept a while after the socket ends ("-" as
# owner) so another worker can still read the last-alive moment.
TAKE_SLOT = """
local cur = redis.call('GET', KEYS[1])
if cur then
  local owner, ms = string.match(cur, '(%S+) (%d+)')
  if owner ~= '-' and tonumber(ARGV[2]) - tonumber(ms) < tonumber(ARGV[3]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[4])
return 1
"""



# Leases on connections (web/door/limits.py): members scored by when they run out.
LEASE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""


# Many holds' heartbeats and round trips at once (beats.py), all in one shard:
# KEYS are pairs (hold slot, round trips); ARGV: keep ms, samples kept, their
# TTL, then per hold: owner, owner to write ("-" once the socket ended), last
# alive ms, the number of samples, the samples (oldest first). A slot another
# socket has taken since is left alone.
BEATS = """
local keep, rkeep, rttl = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local a = 4
for i = 1, #KEYS, 2 do
  local owner, as, alive, n = ARGV[a], ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3])
  a = a + 4
  local cur = redis.call('GET', KEYS[i])
  if cur and string.match(cur, '(%S+) ') == owner then
    redis.call('SET', KEYS[i], as .. ' ' .. alive, 'PX', keep)
  end
  if n > 0 then
    for j = 0, n - 1 do redis.call('LPUSH', KEYS[i + 1], ARGV[a + j]) end
    redis.call('LTRIM', KEYS[i + 1], 0, rkeep - 1)
    redis.call('EXPIRE', KEYS[i + 1], rttl)
    a = a + n
  end
end
return 1
"""


# One room's hold slots (one hash slot): each value, and how long ago it was last
# written -- its time to live counts down from SLOT_KEEP_MS at every write (ARGV[1]),
# on the store's own clock. -1: no expiry to tell by (a key set by hand).
HEARTBEATS = """
local out = {}
for i = 1, #KEYS do
  local ttl = redis.call('PTTL', KEYS[i])
  out[i] = {redis.call('GET', KEYS[i]), ttl >= 0 and tonumber(ARGV[1]) - ttl or -1}
end
return out
"""


# Set a room's next deadline without saving it, if it is still at the version
# the caller looked at (else the writer that moved it on set its own).
RESCHEDULE = """
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('ZREM', KEYS[2], ARGV[3])
else
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
end
return 1
"""

# Each shard's earliest deadline in one command, on one Redis (a cluster spreads the
# shards' sets over its nodes: there the timer loop pipelines a ZRANGE for each).
EARLIEST = """
local out = {}
for i, key in ipairs(KEYS) do
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  out[i] = first[2] or false
end
return out
"""
