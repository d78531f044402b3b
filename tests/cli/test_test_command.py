"""scripts/test on a machine whose npm cannot reach its registry (a fresh user behind a proxy
whose CA that user's npm does not trust): every Python test still runs, one line says the bundle
check did not and why; under CI=true the same failure stops the run (nothing is skipped there).

The real script runs, up to pytest's collection (the quick tier's entry point with every marker
selected), with an ``npm`` in front on PATH that fails as an unreachable registry does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.support import REPO

FAILING_NPM = """#!/bin/sh
echo "npm error code SELF_SIGNED_CERT_IN_CHAIN" >&2
echo "npm error request to https://registry.npmjs.org/axe-core failed" >&2
exit 1
"""


def _run(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAILING_NPM)
    npm.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["ADDNORM_TEST_WORKERS"] = "0"
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [
            *("bash", "scripts/test", "--quick", "--collect-only", "-q"),
            *("-m", "quick or not quick", "-p", "no:cacheprovider", "tests/browser"),
        ],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_npm_that_cannot_reach_its_registry_leaves_out_only_the_bundle_check(
    tmp_path: Path,
) -> None:
    run = _run(tmp_path, ci=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    # pyproject's addopts already say -q: with this -q pytest lists "path: count" per file.
    counts = dict(
        (path, int(n))
        for path, n in re.findall(r"^(tests/\S+\.py): (\d+)$", run.stdout, flags=re.M)
    )
    collected = [path.rsplit("/", 1)[-1] for path in counts]
    if shutil.which("chromium") is None:
        # Without Chromium the browser tests are left out first, and say so.
        assert "== NOT RUN: tests/browser (" in run.stdout
        assert collected == []
        return
    assert "== NOT RUN: tests/browser/test_bundle.py (npm ci could not install" in run.stdout
    assert "test_bundle.py" not in collected
    # The accessibility scans read the vendored axe-core: every file that scans is collected.
    scanning = {
        p.name
        for p in (REPO / "tests" / "browser").glob("test_*.py")
        if "axe_source" in p.read_text(encoding="utf-8")
    }
    assert scanning
    assert scanning <= set(collected)
    assert sum(counts.values()) > 100, counts


def test_under_ci_the_same_failure_stops_the_run(tmp_path: Path) -> None:
    run = _run(tmp_path, ci=True)
    assert run.returncode != 0
    assert "CI=true: nothing is skipped" in run.stderr
    assert not re.search(r"^tests/\S+\.py", run.stdout, flags=re.M)
