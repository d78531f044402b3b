"""The routes of ``scratch_bypass`` through the real service and the armed sandbox: a submission
that switches off every check its own Python can reach (Python dispatch disabled in C, the modes
popped, the guard's state emptied), or walks around them (an in-place sibling, a quantizable
attention module, the autograd engine in a hand-written backward), is never ``passed``."""

from __future__ import annotations

import httpx
import pytest

from tests.grading.scratch_attacks import Attack
from tests.grading.scratch_bypass import BYPASS_ATTACKS


@pytest.mark.parametrize("attack", BYPASS_ATTACKS, ids=lambda a: f"{a.slug}/{a.name}")
def test_switched_off_or_walked_around_is_not_passed(api: httpx.Client, attack: Attack) -> None:
    r = api.post(f"/exercises/{attack.slug}/submissions", json={"code": attack.code})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["verdict"] in {"rejected", "failed"}, (
        f"{attack.route}: {body['verdict']}: {body['message']}"
    )
