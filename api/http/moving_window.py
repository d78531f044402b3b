"""Moving-window counters in this process's memory: the rate limits' count when no Redis is
configured, or while it cannot be reached (``ratelimits``).

A key's window holds the times of its hits in the last ``period`` seconds; a hit is refused,
and not counted, once the window holds ``amount`` of them: the moving window of the ``limits``
library, which counts in Redis for a deployment of several processes. Its in-memory storage
started a timer thread whenever a hit found none running (one per request under steady load)
and each timer walked every key ever counted; here a key's expired hits are dropped when the
key is next hit, and keys left idle for a whole period are swept with the rest at most once a
minute. Measured with one learner submitting back to back (``scripts/benchmark.py``'s
settings): about 1.5 ms of the service's CPU per submission, of some 17.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

# How often idle keys are swept: their memory is bounded by the keys hit within the longest
# period plus this.
SWEEP_EVERY = 60.0


@dataclass
class _Window:
    period: float
    hits: deque[float] = field(default_factory=deque)


class MovingWindows:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        """``clock``: wall-clock seconds (the reset time a refusal reports is one)."""
        self._clock = clock
        self._lock = threading.Lock()
        self._windows: dict[str, _Window] = {}
        self._next_sweep = clock() + SWEEP_EVERY

    def hit(self, key: str, amount: int, period: float) -> tuple[bool, float]:
        """Count one hit of ``key`` unless its window already holds ``amount``: whether it was
        counted, and when the oldest hit in the window leaves it (``period`` seconds after it
        was made; now plus ``period`` for an empty window)."""
        now = self._clock()
        with self._lock:
            window = self._windows.get(key)
            if window is None or window.period != period:
                window = self._windows[key] = _Window(period)
            hits = window.hits
            edge = now - period
            while hits and hits[0] < edge:
                hits.popleft()
            counted = len(hits) < amount
            if counted:
                hits.append(now)
            reset = (hits[0] if hits else now) + period
            if now >= self._next_sweep:
                self._sweep(now)
        return counted, reset

    def __len__(self) -> int:
        """Keys held (for the tests)."""
        return len(self._windows)

    def _sweep(self, now: float) -> None:
        self._next_sweep = now + SWEEP_EVERY
        idle = [k for k, w in self._windows.items() if not w.hits or w.hits[-1] < now - w.period]
        for key in idle:
            del self._windows[key]
