"""Per-learner limits on grading: concurrent gradings and submissions per minute.

In memory, per process, for the single-process default deployment (``GradingLimits``); in Redis
when several API processes serve one cohort (``SharedGradingLimits``), so N processes enforce
one limit. The clock is injectable so tests can move time instead of sleeping.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import redis

log = logging.getLogger("addnorm.fairness")


class Throttled(Exception):
    # Not a frozen dataclass: raised through an outer context manager (the learner's slot
    # around the grading turn), the exception gets its traceback assigned.
    def __init__(self, reason: str, retry_after: int, reason_zh: str = "") -> None:
        super().__init__(reason, retry_after)
        self.reason = reason
        self.retry_after = retry_after
        self.reason_zh = reason_zh or reason


class GradingLimits:
    def __init__(
        self,
        *,
        max_concurrent: int,
        per_minute: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_concurrent = max_concurrent
        self.per_minute = per_minute
        self._clock = clock
        self._lock = threading.Lock()
        self._running: dict[int, int] = defaultdict(int)
        self._recent: dict[int, deque[float]] = defaultdict(deque)

    @contextmanager
    def slot(self, user_id: int) -> Iterator[None]:
        """Hold one of the learner's grading slots, or raise Throttled."""
        with self._lock:
            now = self._clock()
            recent = self._recent[user_id]
            while recent and now - recent[0] >= 60.0:
                recent.popleft()
            if len(recent) >= self.per_minute:
                wait = int(60.0 - (now - recent[0])) + 1
                raise Throttled(
                    f"more than {self.per_minute} submissions in a minute",
                    wait,
                    f"每分钟提交超过 {self.per_minute} 次",
                )
            if self._running[user_id] >= self.max_concurrent:
                raise Throttled(
                    f"{self.max_concurrent} of your submissions are already being graded",
                    1,
                    f"你已有 {self.max_concurrent} 个提交正在评测",
                )
            recent.append(now)
            self._running[user_id] += 1
        try:
            yield
        finally:
            with self._lock:
                self._running[user_id] -= 1


# One round trip, atomic across every API process: drop what fell out of the window (and leases
# of processes that died holding a slot), check both limits, take a slot.
_TAKE_SLOT = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 60)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {1, oldest[2]}
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  return {2, '0'}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[4])
redis.call('EXPIRE', KEYS[1], 61)
redis.call('EXPIRE', KEYS[2], math.ceil(tonumber(ARGV[5])) + 1)
return {0, '0'}
"""


class SharedGradingLimits(GradingLimits):
    """The same limits, held in Redis. A slot is a lease: if the API process holding it dies,
    it lapses after ``lease_seconds`` instead of blocking the learner for good.

    If Redis cannot be reached the request goes ahead (logged): these limits keep one learner
    from crowding out the others; they are not a security boundary, and refusing every learner
    while Redis restarts would be worse."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        prefix: str,
        max_concurrent: int,
        per_minute: int,
        lease_seconds: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(max_concurrent=max_concurrent, per_minute=per_minute, clock=clock)
        self.client = client
        self.prefix = prefix
        self.lease_seconds = lease_seconds
        self._take = client.register_script(_TAKE_SLOT)

    @contextmanager
    def slot(self, user_id: int) -> Iterator[None]:
        import redis

        recent = f"{self.prefix}limits:{user_id}:recent"
        running = f"{self.prefix}limits:{user_id}:running"
        token = secrets.token_hex(8)
        now = self._clock()
        try:
            code, detail = self._take(
                keys=[recent, running],
                args=[now, self.per_minute, self.max_concurrent, token, self.lease_seconds],
            )
        except redis.RedisError as exc:
            log.warning("shared limits unavailable, not enforced for this request: %s", exc)
            yield
            return
        if int(code) == 1:
            wait = int(60.0 - (now - float(detail))) + 1
            raise Throttled(
                f"more than {self.per_minute} submissions in a minute",
                max(wait, 1),
                f"每分钟提交超过 {self.per_minute} 次",
            )
        if int(code) == 2:
            raise Throttled(
                f"{self.max_concurrent} of your submissions are already being graded",
                1,
                f"你已有 {self.max_concurrent} 个提交正在评测",
            )
        try:
            yield
        finally:
            try:
                self.client.zrem(running, token)
            except redis.RedisError as exc:
                log.warning("could not release a grading slot (it lapses by itself): %s", exc)


class NoTurn(Exception):
    """No grading slot came free for this job in time (every slot busy the whole wait)."""


@dataclass(eq=False)
class _Waiter:
    address: str
    user_id: int
    seq: int
    # Signalled when this job, and only it, is given a slot (on the turns' one lock).
    wake: threading.Condition
    admitted: bool = False


class GradingTurns:
    """The grader's slots, handed out fairly (embedded mode).

    A job waits here, not in the pool, until a slot is free for it; when one frees, it goes to
    the waiting job whose client address has the fewest jobs running (ties: the address served
    least recently), then whose learner has, then the earliest. So a client arriving while
    another address fills every slot (with one account or a thousand) waits for one job to
    finish, not for that address's whole queue.
    An address may have ``per_address`` jobs running or waiting at once; more is Throttled.
    """

    def __init__(self, *, slots: int, per_address: int, timeout: float) -> None:
        self.slots = slots
        self.per_address = per_address
        self.timeout = timeout
        self._lock = threading.Lock()
        self._waiting: list[_Waiter] = []
        self._running = 0
        self._by_address: dict[str, int] = defaultdict(int)  # running per address
        self._by_user: dict[int, int] = defaultdict(int)  # running per learner
        self._held: dict[str, int] = defaultdict(int)  # running or waiting per address
        self._last_turn: dict[str, int] = {}  # when each address with jobs in was last served
        self._turns = 0
        self._seq = 0

    def _admit_locked(self) -> None:
        while self._running < self.slots and self._waiting:
            best = min(
                self._waiting,
                key=lambda w: (
                    self._by_address.get(w.address, 0),
                    # Ties in turn: the address served least recently first (one never served
                    # before any), so one with a long queue cannot take slot after slot.
                    self._last_turn.get(w.address, 0),
                    self._by_user.get(w.user_id, 0),
                    w.seq,
                ),
            )
            self._waiting.remove(best)
            self._turns += 1
            self._last_turn[best.address] = self._turns
            best.admitted = True
            self._running += 1
            self._by_address[best.address] += 1
            self._by_user[best.user_id] += 1
            # Only the job admitted wakes. Waking every waiter on each freed slot made each of
            # them take the interpreter lock to find it was not its turn: 16 clients on known
            # mistakes, about a seventh of the service's interpreter time (sampled).
            best.wake.notify()

    @contextmanager
    def turn(self, address: str, user_id: int) -> Iterator[None]:
        """Hold a grading slot for this job; raises Throttled (the address has too many jobs
        in) or NoTurn (no slot came free within ``timeout``)."""
        with self._lock:
            if self._held[address] >= self.per_address:
                raise Throttled(
                    f"{self.per_address} submissions from your address are already being graded",
                    1,
                    f"你的地址已有 {self.per_address} 个提交正在评测",
                )
            self._held[address] += 1
            self._seq += 1
            waiter = _Waiter(address, user_id, self._seq, threading.Condition(self._lock))
            self._waiting.append(waiter)
            self._admit_locked()
            admitted = waiter.wake.wait_for(lambda: waiter.admitted, self.timeout)
            if not admitted:
                self._waiting.remove(waiter)
                self._release_held_locked(address)
                raise NoTurn()
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                self._by_address[address] -= 1
                if not self._by_address[address]:
                    del self._by_address[address]
                self._by_user[user_id] -= 1
                if not self._by_user[user_id]:
                    del self._by_user[user_id]
                self._release_held_locked(address)
                self._admit_locked()

    def _release_held_locked(self, address: str) -> None:
        self._held[address] -= 1
        if not self._held[address]:
            del self._held[address]
            self._last_turn.pop(address, None)
