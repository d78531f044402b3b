""" "From scratch" held by construction, through the real service and sandbox: every route to a
whole-job operator in ``scratch_attacks`` is ``rejected`` with a message that says what ran and
what to use instead, and correct code written other ways still passes.

The child here is armed (its dispatcher-level backstop in place), so this is where a route that
switches off every Python layer (``every_python_layer_off``) is shown refused: in-process it
would pass, which is why the backstop exists.
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.grading.scratch_attacks import ALTERNATIVES, EVERY_ATTACK, Attack


def _submit(api: httpx.Client, attack: Attack) -> dict[str, object]:
    r = api.post(f"/exercises/{attack.slug}/submissions", json={"code": attack.code})
    assert r.status_code == 201, r.text
    body: dict[str, object] = r.json()
    return body


@pytest.mark.parametrize("attack", EVERY_ATTACK, ids=lambda a: f"{a.slug}/{a.name}")
def test_route_to_a_whole_job_operator_is_rejected(api: httpx.Client, attack: Attack) -> None:
    body = _submit(api, attack)
    message = str(body["message"])
    assert body["verdict"] == "rejected", f"{attack.route}: {body['verdict']}: {message}"
    # The message names what ran (an operator, a banned callable, or what the Function did)
    # and what to do instead: never a bare "rejected".
    assert any(
        words in message
        for words in (
            "Your code ran ",
            "Your code called ",
            "Your Function ",
            "does the whole job",
            "switched off the grader's check",
        )
    ), message
    assert "Instead," in message or "Implement it" in message or "write the gradient" in message
    # Read in Chinese, it is a translation, not the English left in place.
    r = api.get(f"/submissions/{body['id']}", params={"lang": "zh"})
    assert r.status_code == 200, r.text
    zh = str(r.json()["message"])
    assert re.search("[\u4e00-\u9fff]", zh) and "Your " not in zh, zh


@pytest.mark.parametrize("alternative", ALTERNATIVES, ids=lambda a: f"{a.slug}/{a.name}")
def test_correct_alternative_passes(api: httpx.Client, alternative: Attack) -> None:
    body = _submit(api, alternative)
    assert body["verdict"] == "passed", f"{alternative.route}: {body['message']}"
