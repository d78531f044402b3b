"""Which idle slot a job goes to: one armed for its exercise, else one armed for none, else any
(``pool._FreeSlots``); a slot server armed for another exercise discards its preforked child."""

from __future__ import annotations

import queue
import socket

import pytest

from api.grading.pool import _FreeSlots, _Slot


def _slots(*armed: int | None) -> list[_Slot]:
    return [_Slot(i, socket.socket(), armed=a) for i, a in enumerate(armed)]


def test_a_job_prefers_a_slot_armed_for_its_exercise_then_an_unarmed_one() -> None:
    free = _FreeSlots()
    slots = _slots(0, None, 1, 1)
    for slot in slots:
        free.put(slot)
    assert free.get(1.0, arm=1) is slots[2]
    assert free.get(1.0, arm=7) is slots[1]  # nobody armed for 7: the unarmed one
    assert free.get(1.0, arm=7) is slots[0]  # then whoever waited longest
    assert free.get(1.0, arm=None) is slots[3]
    for slot in slots:
        slot.sock.close()


def test_no_idle_slot_is_empty_after_the_timeout() -> None:
    with pytest.raises(queue.Empty):
        _FreeSlots().get(0.01, arm=0)
    with pytest.raises(queue.Empty):
        _FreeSlots().get_nowait()
