"""The learner CLI as a learner runs it: ``addnorm`` subprocesses against a live server."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import REPO, Server

# The learner's code, written here rather than derived from solutions/ (which the material
# changes): a correct LayerNorm, and two mistakes with their parts marked.
_LAYER_NORM = """\
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=-1, keepdim=True){detach}
        var = (x - mean).pow(2){reduce}{detach}
        return (x - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias
"""
BIASED = ".mean(dim=-1, keepdim=True)"
SOLUTION = _LAYER_NORM.format(detach="", reduce=BIASED)
# The classic mistake the grader names: the sample (n - 1) variance instead of the biased one.
UNBIASED = _LAYER_NORM.format(detach="", reduce=".sum(dim=-1, keepdim=True) / (x.shape[-1] - 1)")
# Right forward pass, wrong gradients: fails the local backward check and the server's verdict.
DETACHED = _LAYER_NORM.format(detach=".detach()", reduce=BIASED)


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
            # No controlling terminal: nothing the CLI does may read the keyboard of whoever
            # runs the tests (getpass opens /dev/tty, not stdin).
            start_new_session=True,
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
