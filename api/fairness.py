"""Per-learner limits on grading: concurrent gradings and submissions per minute.

In memory, per process: a single-process service is the default deployment. The clock is
injectable so tests can move time instead of sleeping.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Throttled(Exception):
    reason: str
    retry_after: int


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
                raise Throttled(f"more than {self.per_minute} submissions in a minute", wait)
            if self._running[user_id] >= self.max_concurrent:
                raise Throttled(
                    f"{self.max_concurrent} of your submissions are already being graded", 1
                )
            recent.append(now)
            self._running[user_id] += 1
        try:
            yield
        finally:
            with self._lock:
                self._running[user_id] -= 1
