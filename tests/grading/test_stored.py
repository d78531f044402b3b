"""The stored form of a verdict (``api.grading.stored``): what a decider sends and a submission
keeps. Bounded once where it is decided, so the service's timings cannot push it past the cap,
and a blob of another shape is refused rather than stored."""

from __future__ import annotations

import pytest

from api import jsonbody, plaintext
from api.grading import grader, stored
from api.grading.verdict import Check, Verdict


def _forged(status: str = "failed") -> Verdict:
    """A verdict that fills the cap: what a child's forged answer could make of one."""
    checks = [
        Check(case=f"case {i}", description="x" * 2_000, target="output", passed=False, message="m")
        for i in range(180)
    ]
    return Verdict(status=status, message="\ud800" + "m" * 5_000, checks=checks, stdout="\ud800")


def test_the_form_is_bounded_and_survives_the_wire() -> None:
    form = stored.stored(_forged())
    assert len(form.message) <= plaintext.MAX_MESSAGE + len(plaintext.TRUNCATED)
    assert "\ud800" not in form.message and form.result["stdout"] == "\ufffd"
    assert len(jsonbody.dumps(form.result)) <= plaintext.MAX_RESULT_BYTES
    assert stored.decode(stored.encode(form)) == form


def test_the_services_timings_never_push_a_verdict_past_the_cap() -> None:
    """A decider bounds with a placeholder for each timing the service fills in later: a verdict
    that fits the cap with short timings by ten bytes still fits with the longest real ones."""
    slowest = dict.fromkeys(grader.BESIDE_TIMINGS, 999_999_999.99)

    def form(stdout: int, timing: float) -> stored.StoredVerdict:
        verdict = _forged()
        verdict.checks, verdict.stdout = verdict.checks[:110], "s" * stdout
        verdict.timings_ms = dict.fromkeys(grader.BESIDE_TIMINGS, timing)
        return stored.stored(verdict)

    short = len(jsonbody.dumps(form(0, 0.0).result))
    pad = plaintext.MAX_RESULT_BYTES - 10 - short
    assert 0 < pad < plaintext.MAX_TEXT
    assert len(jsonbody.dumps(form(pad, 0.0).result)) == plaintext.MAX_RESULT_BYTES - 10
    # Bounded with short timings, then timed: past the cap. With the placeholder: within it.
    assert len(jsonbody.dumps(form(pad, 0.0).timed(slowest).result)) > plaintext.MAX_RESULT_BYTES
    kept = form(pad, stored.TIMING_PLACEHOLDER).timed(slowest).result
    assert len(jsonbody.dumps(kept)) <= plaintext.MAX_RESULT_BYTES


def test_timed_replaces_the_timings_and_only_where_there_are_some() -> None:
    form = stored.stored(Verdict(status="passed", message="ok", timings_ms={"total": 1.0}))
    assert form.timed({"total": 2.5}).result["timings_ms"] == {"total": 2.5}
    truncated = stored.StoredVerdict("failed", "m", {"truncated": "too large"})
    assert truncated.timed({"total": 2.5}) is truncated


@pytest.mark.parametrize(
    "blob",
    [
        b"not json",
        b"[]",
        b'{"status": "passed", "message": "ok"}',
        b'{"status": "passed", "message": "ok", "result": [], }',
        b'{"status": "passed", "message": "ok", "result": []}',
        b'{"status": "", "message": "ok", "result": {}}',
        b'{"status": "passed; drop", "message": "ok", "result": {}}',
        b'{"status": "passed", "message": 3, "result": {}}',
        b'{"status": "passed", "message": "ok", "result": {}, "extra": 1}',
    ],
)
def test_another_shape_is_refused(blob: bytes) -> None:
    with pytest.raises(stored.StoredVerdictError):
        stored.decode(blob)
