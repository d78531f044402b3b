"""Fair turns for queue mode: the cluster's grading slots shared between client addresses, then
learners, the way ``api.http.fairness.GradingTurns`` shares one process's slots.

Celery's queue is first in, first out: eight fresh accounts on one address that keep it full
put their whole backlog ahead of everyone else. So a job reaches Celery only when a slot of the
cluster is free for it. Until then it waits in Redis (``pending``); each time a job ends (its
worker releases it), the free slot goes to the pending job whose address has the fewest jobs
sent and not finished, ties to the address served least recently, then to the learner with
the fewest, then to the earliest. A client arriving while another address fills every slot
therefore waits for one job to end, not for that address's queue.

Each address may have ``per_address`` jobs pending or running at once (a ``reserve`` taken
before the row is stored; more is refused with 429). Every entry is a lease, so a process that
dies holding one frees it after a while: a reservation never stored after a minute, a sent job
after the longest a job can take, redelivery included. The cluster's capacity is what the live
workers announce (``announce``), so a worker that stops stops counting.

Every step is one Lua script, atomic across every API process and worker. If Redis cannot be
reached the callers send the job straight to Celery (logged), as before this existed.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from api.config import Settings

if TYPE_CHECKING:
    import redis

# Shared by every script. KEYS: 1 running (zset sid -> lease end), 2 pending (zset sid -> seq),
# 3 meta (hash sid -> "address\tlearner\ttoken"), 4 last (hash address -> turn it was last
# served), 5 turns (counter), 6 workers (zset node -> last seen), 7 slots (hash node -> slots),
# 8 seq (counter). ARGV: 1 now, 2 lease of a sent job, 3 workers seen since, 4 the per-address
# holds' key prefix, 5 how long the keys live; then the script's own.
_PRELUDE = """
local running, pending, meta, last = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local turns, workers, slots, seq = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local now, lease, alive = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local heldp, ttl = ARGV[4], tonumber(ARGV[5])

local function parse(sid)
  local v = redis.call('HGET', meta, sid)
  if not v then return nil end
  return string.match(v, '^(.-)\\t(.-)\\t(.*)$')
end

local function keep(key)
  redis.call('EXPIRE', key, ttl)
end

local function forget(sid)
  local a, u, t = parse(sid)
  redis.call('ZREM', running, sid)
  redis.call('ZREM', pending, sid)
  redis.call('HDEL', meta, sid)
  if a then
    local h = heldp .. a
    redis.call('ZREM', h, t)
    if redis.call('ZCARD', h) == 0 then redis.call('HDEL', last, a) end
  end
end

local function capacity()
  local n = 0
  for _, node in ipairs(redis.call('ZRANGEBYSCORE', workers, alive, '+inf')) do
    n = n + (tonumber(redis.call('HGET', slots, node)) or 0)
  end
  return n
end

local function before(x, y)
  for i = 1, 4 do
    if x[i] ~= y[i] then return x[i] < y[i] end
  end
  return false
end

local function dispatch()
  for _, sid in ipairs(redis.call('ZRANGEBYSCORE', running, '-inf', now)) do forget(sid) end
  local cap = capacity()
  local sent = {}
  while redis.call('ZCARD', running) < cap do
    local waiting = redis.call('ZRANGE', pending, 0, -1, 'WITHSCORES')
    if #waiting == 0 then break end
    local by_a, by_u = {}, {}
    for _, sid in ipairs(redis.call('ZRANGE', running, 0, -1)) do
      local a, u = parse(sid)
      if a then
        by_a[a] = (by_a[a] or 0) + 1
        by_u[u] = (by_u[u] or 0) + 1
      end
    end
    local best, best_key, best_a, best_t
    for i = 1, #waiting, 2 do
      local sid = waiting[i]
      local a, u, t = parse(sid)
      if not a then
        redis.call('ZREM', pending, sid)
      else
        local k = {by_a[a] or 0, tonumber(redis.call('HGET', last, a)) or 0, by_u[u] or 0,
                   tonumber(waiting[i + 1])}
        if not best_key or before(k, best_key) then
          best, best_key, best_a, best_t = sid, k, a, t
        end
      end
    end
    if not best then break end
    redis.call('ZREM', pending, best)
    redis.call('ZADD', running, now + lease, best)
    redis.call('HSET', last, best_a, redis.call('INCR', turns))
    redis.call('ZADD', heldp .. best_a, now + lease, best_t)
    keep(heldp .. best_a)
    table.insert(sent, best)
  end
  for _, key in ipairs({running, pending, meta, last, turns, seq}) do keep(key) end
  return sent
end
"""

# ARGV 6 address, 7 token, 8 per-address cap, 9 how long an unstored reservation holds.
_RESERVE = """
local h = heldp .. ARGV[6]
redis.call('ZREMRANGEBYSCORE', h, '-inf', now)
if redis.call('ZCARD', h) >= tonumber(ARGV[8]) then return 0 end
redis.call('ZADD', h, now + tonumber(ARGV[9]), ARGV[7])
keep(h)
return 1
"""

# ARGV 6 address, 7 token.
_UNRESERVE = """
local h = heldp .. ARGV[6]
redis.call('ZREM', h, ARGV[7])
if redis.call('ZCARD', h) == 0 then redis.call('HDEL', last, ARGV[6]) end
return 1
"""

# ARGV 6 submission id, 7 address, 8 learner, 9 token, 10 how long a pending job holds.
_ENQUEUE = """
redis.call('HSET', meta, ARGV[6], ARGV[7] .. '\\t' .. ARGV[8] .. '\\t' .. ARGV[9])
redis.call('ZADD', pending, redis.call('INCR', seq), ARGV[6])
redis.call('ZADD', heldp .. ARGV[7], now + tonumber(ARGV[10]), ARGV[9])
keep(heldp .. ARGV[7])
return dispatch()
"""

# ARGV 6 submission id.
_RELEASE = """
forget(ARGV[6])
return dispatch()
"""

_DISPATCH = """
return dispatch()
"""


class FairQueue:
    """The cluster's grading turns in Redis (see the module's docstring). Each method may raise
    ``redis.RedisError``; the callers fall back to sending straight to Celery."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        prefix: str,
        per_address: int,
        lease_seconds: float,
        alive_seconds: float,
        pending_seconds: float = 900.0,
        reserve_seconds: float = 60.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self.prefix = prefix
        self.per_address = per_address
        self.lease_seconds = lease_seconds
        self.alive_seconds = alive_seconds
        self.pending_seconds = pending_seconds
        self.reserve_seconds = reserve_seconds
        self._clock = clock
        base = f"{prefix}fair:"
        self.keys = [
            f"{base}running",
            f"{base}pending",
            f"{base}meta",
            f"{base}last",
            f"{base}turns",
            f"{prefix}workers",
            f"{prefix}worker-slots",
            f"{base}seq",
        ]
        self.held_prefix = f"{base}held:"
        self._ttl = math.ceil(max(pending_seconds, lease_seconds) + 3600)
        self._reserve = client.register_script(_PRELUDE + _RESERVE)
        self._unreserve = client.register_script(_PRELUDE + _UNRESERVE)
        self._enqueue = client.register_script(_PRELUDE + _ENQUEUE)
        self._release = client.register_script(_PRELUDE + _RELEASE)
        self._dispatch = client.register_script(_PRELUDE + _DISPATCH)

    def _args(self, *extra: Any) -> list[Any]:
        now = self._clock()
        return [
            now,
            self.lease_seconds,
            now - self.alive_seconds,
            self.held_prefix,
            self._ttl,
            *extra,
        ]

    def reserve(self, address: str) -> str | None:
        """A place for one more job of ``address`` (its token), or None: it has ``per_address``
        pending or running already."""
        token = secrets.token_hex(8)
        taken = self._reserve(
            keys=self.keys,
            args=self._args(address, token, self.per_address, self.reserve_seconds),
        )
        return token if int(taken) == 1 else None

    def unreserve(self, address: str, token: str) -> None:
        """Give back a reservation whose job was not stored after all."""
        self._unreserve(keys=self.keys, args=self._args(address, token))

    def enqueue(self, submission_id: int, *, address: str, user_id: int, token: str) -> list[int]:
        """Put a stored job in line; the jobs to send to Celery now (this one among them if a
        slot is free for it)."""
        sent = self._enqueue(
            keys=self.keys,
            args=self._args(submission_id, address, user_id, token, self.pending_seconds),
        )
        return [int(s) for s in sent]

    def release(self, submission_id: int) -> list[int]:
        """A job ended (verdict stored, closed, or found done already): free its slot and its
        address's place; the jobs to send now."""
        sent = self._release(keys=self.keys, args=self._args(submission_id))
        return [int(s) for s in sent]

    def dispatch(self) -> list[int]:
        """Hand free slots to pending jobs (after leases lapsed or workers joined)."""
        return [int(s) for s in self._dispatch(keys=self.keys, args=self._args())]

    def status(self) -> dict[str, int]:
        """The cluster's slots (announced by live workers), jobs sent and not finished, jobs
        waiting their turn: for the operator's /health."""
        running, pending, _, _, _, workers, slots, _ = self.keys
        seen = self.client.zrangebyscore(workers, self._clock() - self.alive_seconds, "+inf")
        alive = [node for node in seen if isinstance(node, bytes | str)]
        counts = self.client.hmget(slots, alive) if alive else []
        return {
            "slots": sum(int(c) for c in counts if c is not None),
            "running": int(self.client.zcard(running)),
            "pending": int(self.client.zcard(pending)),
        }

    def is_pending(self, submission_id: int) -> bool:
        return self.client.zscore(self.keys[1], str(submission_id)) is not None

    def announce(self, node: str, slots: int) -> None:
        """How many jobs this worker grades at once (read with its liveness, ``workers``)."""
        self.client.hset(self.keys[6], node, slots)
        self.client.expire(self.keys[6], self._ttl)

    def withdraw(self, node: str) -> None:
        self.client.hdel(self.keys[6], node)


def fair_queue(client: redis.Redis, settings: Settings) -> FairQueue:
    """The deployment's turns, from its settings (API processes and workers alike)."""
    return FairQueue(
        client,
        prefix=settings.redis_prefix,
        per_address=settings.gradings_per_address,
        # A sent job ends within its grading (time limit, queue wait) or, if its worker died,
        # once Redis redelivers it and another grades it.
        lease_seconds=settings.visibility_timeout_seconds
        + settings.time_limit_seconds
        + settings.queue_timeout_seconds
        + 30,
        alive_seconds=3 * settings.sweep_interval_seconds,
    )
