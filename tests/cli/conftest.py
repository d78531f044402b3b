"""The learner CLI as a learner runs it: ``addnorm`` subprocesses against a live server."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import REPO, Server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text(encoding="utf-8")
# The classic mistake the grader names: the sample (n - 1) variance instead of the biased one.
UNBIASED = SOLUTION.replace(
    "var = centred.pow(2).mean(dim=-1, keepdim=True)",
    "var = centred.pow(2).sum(dim=-1, keepdim=True) / (x.shape[-1] - 1)",
)
# Right forward pass, wrong gradients: passes the local cases (forward only), fails on the server.
DETACHED = SOLUTION.replace(
    "mean = x.mean(dim=-1, keepdim=True)", "mean = x.mean(dim=-1, keepdim=True).detach()"
).replace(
    "var = centred.pow(2).mean(dim=-1, keepdim=True)",
    "var = centred.pow(2).mean(dim=-1, keepdim=True).detach()",
)
assert SOLUTION != UNBIASED and SOLUTION.count(".detach()") + 2 == DETACHED.count(".detach()"), (
    "the worked solution changed: update the mistakes above"
)


@dataclass
class Learner:
    """One learner's shell: its own config file, ADDNORM_URL pointing at the live server."""

    env: dict[str, str]
    home: Path
    config: Path

    def run(
        self, *args: str, input: str | None = None, timeout: float = 180, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "api.cli", *args],
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            env={**self.env, **env},
            cwd=self.home,
            timeout=timeout,
        )


def learner_env(tmp_path: Path, url: str) -> Learner:
    home = tmp_path / "home"
    home.mkdir(parents=True)
    config = home / ".config" / "addnorm" / "config.json"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("ADDNORM_TOKEN", "ADDNORM_CONFIG")},
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "ADDNORM_URL": url,
        "PYTHONPATH": str(REPO),
        # Wide and plain: rich must not wrap or colour what the tests read.
        "COLUMNS": "200",
        "NO_COLOR": "1",
    }
    return Learner(env, home, config)


@pytest.fixture
def learner(tmp_path: Path, server: Server) -> Learner:
    """A learner who has not signed up yet."""
    return learner_env(tmp_path, server.url)


@pytest.fixture
def signed_up(learner: Learner) -> Learner:
    r = learner.run("signup", "cli-learner")
    assert r.returncode == 0, r.stderr
    return learner


def one_line_error(r: subprocess.CompletedProcess[str]) -> str:
    """The contract for every failure a learner can act on: exit 2, one line, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("addnorm: ")
    return lines[0]
