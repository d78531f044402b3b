"""Each exercise's allow-list and dispatcher-level backstop admit correct code, in an armed
child: the worked solution and every ``passed_*`` variant run every case, forward and the
grader's backward (autograd's backward of an admitted operation may need a kernel the backstop
removed: attention's softmax backward once was), with nothing refused and no case raising.

The same holds over HTTP through the sandbox (``tests/grading/test_exercises_over_http.py``);
this is the fast, focused check of the arming alone, one fresh process per exercise."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from api.content.catalog import load_catalog
from tests.support import REPO

SLUGS = list(load_catalog(REPO / "exercises"))


@pytest.mark.parametrize("slug", SLUGS)
def test_armed_child_admits_correct_code(slug: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "tests.sandbox.armed_child_run", slug],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert "solution" in report and len(report) >= 2, report.keys()
    for name, got in report.items():
        assert got["load_error"] is None, (name, got)
        assert got["cases"] > 0, (name, got)
        assert got["refused"] == [] and got["by_hand"] == [], (name, got)
        assert got["errors"] == [], (name, got)
