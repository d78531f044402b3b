"""Warnings raised by the learner's code point at the learner's line, over HTTP through the real
sandbox: ``<submission>:15: UserWarning: ...``, never the grader's file or a server path."""

from __future__ import annotations

import httpx

from tests.support import REPO

# x.var() divides by n - 1: on the one-feature case torch warns from C++ (dof <= 0).
UNBIASED = (
    REPO / "exercises" / "layer_norm" / "variants" / "failed_unbiased_variance.py"
).read_text()


def _line_of(code: str, needle: str) -> int:
    return next(i for i, text in enumerate(code.splitlines(), 1) if needle in text)


def test_a_torch_warning_points_at_the_learners_line(api: httpx.Client) -> None:
    stderr = _stderr_of(api, UNBIASED)
    line = _line_of(UNBIASED, "x.var(")
    assert f"<submission>:{line}: UserWarning: var(): degrees of freedom" in stderr, stderr
    assert "x.var(-1, keepdim=True)" in stderr  # the learner's own line, quoted
    for leak in ("harness.py", "tripwire.py", "api/grading", "Triggered internally", "/work/"):
        assert leak not in stderr, stderr


def test_a_warning_the_learner_raises_keeps_its_line(api: httpx.Client) -> None:
    code = UNBIASED.replace(
        "        mean = x.mean(-1, keepdim=True)\n",
        "        import warnings\n"
        "        warnings.warn('careful: /srv/secret/path/config.py is mine')\n"
        "        mean = x.mean(-1, keepdim=True)\n",
    )
    assert code != UNBIASED
    stderr = _stderr_of(api, code)
    line = _line_of(code, "warnings.warn(")
    assert f"<submission>:{line}: UserWarning: careful: config.py is mine" in stderr, stderr
    # The path is cut from the warning's message; the quoted source line is the learner's own.
    assert "UserWarning: careful: /srv" not in stderr
    assert "warnings.warn('careful: /srv/secret/path/config.py is mine')" in stderr


def _stderr_of(api: httpx.Client, code: str) -> str:
    r = api.post("/exercises/layer_norm/submissions", json={"code": code})
    assert r.status_code == 201, r.text
    return str(r.json()["stderr"])
