"""``GradingTurns`` on its own: a freed slot goes to the address (then the learner) with the fewest
jobs running, not to the longest queue; an address's jobs in are capped; a wait is bounded."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from api.http.fairness import GradingTurns, NoTurn, Throttled


def test_a_freed_slot_goes_to_the_address_with_fewest_jobs_running() -> None:
    turns = GradingTurns(slots=1, per_address=10, timeout=10)
    order: list[str] = []
    release = threading.Event()
    started = threading.Event()

    def job(address: str, user: int, hold: bool = False) -> None:
        with turns.turn(address, user):
            order.append(address)
            if hold:
                started.set()
                release.wait(10)

    first = threading.Thread(target=job, args=("flood", 1, True))
    first.start()
    assert started.wait(5)
    # Five more jobs of the flooding address (five fresh accounts) queue first, then one other.
    queued = [threading.Thread(target=job, args=("flood", 2 + i)) for i in range(5)]
    for t in queued:
        t.start()
    time.sleep(0.3)
    other = threading.Thread(target=job, args=("neighbour", 99))
    other.start()
    time.sleep(0.3)
    release.set()
    for t in [first, *queued, other]:
        t.join(10)
    # The neighbour waited for the one running job, not for the five queued before it.
    assert order[:2] == ["flood", "neighbour"]
    assert order.count("flood") == 6


def test_an_address_has_at_most_its_share_in_and_a_wait_is_bounded() -> None:
    turns = GradingTurns(slots=1, per_address=2, timeout=1.0)
    outcomes: list[str] = []

    def waiter() -> None:
        try:
            with turns.turn("a", 3):
                outcomes.append("turn")
        except NoTurn:
            outcomes.append("no turn")

    with turns.turn("a", 1):
        holder = threading.Thread(target=waiter)
        holder.start()
        time.sleep(0.2)
        # Two of "a" in (one running, one waiting): a third is refused at once.
        began = time.monotonic()
        with pytest.raises(Throttled) as refused, turns.turn("a", 4):
            pass
        assert time.monotonic() - began < 0.5
        assert "from your address" in refused.value.reason
        holder.join(5)
        # The waiter gave up after its timeout: the slot stayed busy all along.
        assert outcomes == ["no turn"]
    # Everything was given back: a new job gets a slot at once.
    with turns.turn("b", 5):
        pass


def test_a_freed_slot_wakes_only_the_job_it_goes_to(monkeypatch: pytest.MonkeyPatch) -> None:
    """Waking every waiting job on each freed slot made each take the interpreter lock to find
    it was not its turn; each job now wakes once, when it is admitted."""
    wakes: list[int] = []

    class Counted(threading.Condition):
        def wait(self, timeout: float | None = None) -> bool:
            woken = super().wait(timeout)
            wakes.append(1)
            return woken

    # Only the turns' conditions are counted, not those inside every Thread and Event.
    monkeypatch.setattr(
        "api.http.fairness.threading", SimpleNamespace(Condition=Counted, Lock=threading.Lock)
    )
    turns = GradingTurns(slots=1, per_address=20, timeout=10)
    order: list[int] = []
    release = threading.Event()

    def job(user: int) -> None:
        with turns.turn(f"address{user}", user):
            order.append(user)
            if user == 0:
                release.wait(10)

    first = threading.Thread(target=job, args=(0,))
    first.start()
    while not order:
        time.sleep(0.01)
    waiting = [threading.Thread(target=job, args=(u,)) for u in range(1, 9)]
    for t in waiting:
        t.start()
        time.sleep(0.05)  # in this order
    release.set()
    for t in [first, *waiting]:
        t.join(10)
    assert order == list(range(9))
    assert len(wakes) == 8  # one per waiting job; waking all of them on every change made 51
