"""The routes of ``scratch_routes``, by class, through the real service and the armed sandbox:
none may be ``passed``, and the verdict says what ran; the correct alternatives pass."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.grading.scratch_attacks import Attack
from tests.grading.scratch_routes import CLASSES, NEW_ALTERNATIVES, NEW_ATTACKS, class_of

# What a verdict other than ``rejected`` must say, by status: the private implementations'
# stub or a second thread's death in the sandbox. The checkpoint routes are refused by name.
NAMES_WHAT_RAN = (
    "Your code ran ",
    "Your code called ",
    "Your Function ",
    "does the whole job",
    "private operator implementations",
    "thread",
)


def _submit(api: httpx.Client, attack: Attack) -> dict[str, object]:
    r = api.post(f"/exercises/{attack.slug}/submissions", json={"code": attack.code})
    assert r.status_code == 201, r.text
    body: dict[str, object] = r.json()
    return body


def test_every_route_has_a_class() -> None:
    names = [a.name for a in NEW_ATTACKS]
    assert all(any(n in c for c in CLASSES.values()) for n in names)


@pytest.mark.parametrize("attack", NEW_ATTACKS, ids=lambda a: f"{class_of(a)}:{a.slug}/{a.name}")
def test_route_to_a_whole_job_is_not_passed(api: httpx.Client, attack: Attack) -> None:
    body = _submit(api, attack)
    message = str(body["message"])
    assert body["verdict"] != "passed", f"{attack.route}: {message}"
    assert any(words in message for words in NAMES_WHAT_RAN), f"{body['verdict']}: {message}"
    if class_of(attack) == "checkpoint_at_run_time":
        # Not the memory budget: the machinery itself, by its name (api/grading/stand_ins.py).
        assert body["verdict"] == "rejected", message
        assert "checkpoint" in message or "saved_tensors_hooks" in message, message
    if body["verdict"] == "rejected":
        r = api.get(f"/submissions/{body['id']}", params={"lang": "zh"})
        assert r.status_code == 200, r.text
        zh = str(r.json()["message"])
        assert re.search("[\u4e00-\u9fff]", zh) and "Your " not in zh, zh


@pytest.mark.parametrize("alternative", NEW_ALTERNATIVES, ids=lambda a: f"{a.slug}/{a.name}")
def test_correct_alternative_passes(api: httpx.Client, alternative: Attack) -> None:
    body = _submit(api, alternative)
    assert body["verdict"] == "passed", f"{alternative.route}: {body['message']}"
