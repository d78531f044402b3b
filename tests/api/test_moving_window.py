"""The in-memory moving windows behind the rate limits (``api.http.moving_window``), on a clock
the test moves. Over HTTP, with the deployed defaults: tests/hostile/test_shared_deployment.py."""

from __future__ import annotations

import threading

from api.http import moving_window
from api.http.moving_window import MovingWindows


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_window_counts_up_to_its_amount_and_refuses_beyond_without_counting() -> None:
    clock = Clock()
    windows = MovingWindows(clock)
    for _ in range(3):
        clock.now += 1
        assert windows.hit("k", 3, 60) == (True, 1_000_001.0 + 60)
    clock.now += 10
    # Refused, and the refusal is not a hit: the oldest hit still decides when room comes.
    assert windows.hit("k", 3, 60) == (False, 1_000_001.0 + 60)
    assert windows.hit("k", 3, 60) == (False, 1_000_001.0 + 60)


def test_a_hit_leaves_the_window_a_period_after_it_was_made() -> None:
    clock = Clock()
    windows = MovingWindows(clock)
    first = clock.now
    assert windows.hit("k", 2, 60)[0]
    clock.now += 30
    assert windows.hit("k", 2, 60)[0]
    clock.now = first + 59.5
    assert windows.hit("k", 2, 60) == (False, first + 60)
    # A hit made exactly a period ago is still in the window; just after, it has left.
    clock.now = first + 60
    assert not windows.hit("k", 2, 60)[0]
    clock.now = first + 60.5
    assert windows.hit("k", 2, 60) == (True, first + 30 + 60)


def test_keys_and_periods_are_counted_apart() -> None:
    clock = Clock()
    windows = MovingWindows(clock)
    assert windows.hit("a", 1, 60)[0]
    assert not windows.hit("a", 1, 60)[0]
    assert windows.hit("b", 1, 60)[0]
    # A key hit with another period (a limit changed at a restart never meets its old count,
    # but a caller that mixes them must not read one window as the other).
    assert windows.hit("a", 1, 3600)[0]


def test_an_empty_window_resets_a_period_from_now() -> None:
    clock = Clock()
    windows = MovingWindows(clock)
    assert windows.hit("k", 0, 60) == (False, clock.now + 60)


def test_idle_keys_are_swept_and_busy_ones_kept() -> None:
    clock = Clock()
    windows = MovingWindows(clock)  # first sweep a minute from now
    for i in range(100):
        windows.hit(f"idle{i}", 5, 60)
    windows.hit("hourly", 5, 3600)
    clock.now += 30
    windows.hit("busy", 5, 60)
    assert len(windows) == 102  # no sweep yet
    clock.now += moving_window.SWEEP_EVERY - 29
    windows.hit("busy", 5, 60)
    # The minute windows that saw no hit for a minute are gone; the hour's is not.
    assert len(windows) == 2


def test_concurrent_hits_never_count_past_the_amount() -> None:
    windows = MovingWindows()
    counted: list[bool] = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def hammer() -> None:
        start.wait()
        mine = [windows.hit("shared", 50, 60)[0] for _ in range(40)]
        with lock:
            counted.extend(mine)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(counted) == 320
    assert sum(counted) == 50
