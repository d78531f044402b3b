"""Fixtures for the notebook and client tests: a learner on the shared live server (see
``tests/support.py``) and a hermetic Jupyter kernel."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from nbclient import NotebookClient

from tests.support import REPO, Server, free_port

KERNEL_NAME = "addnorm-test"


@dataclass(frozen=True)
class LiveServer:
    url: str
    token: str


@pytest.fixture(scope="session")
def live_server(server: Server) -> LiveServer:
    """The session's `addnorm serve` (tests/conftest.py) and a learner of our own on it."""
    return LiveServer(url=server.url, token=server.new_learner("notebook-tests"))


@pytest.fixture(scope="session")
def kernel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kernelspec for this interpreter, installed under a temporary prefix.

    The tests never rely on whatever kernels the machine has: this one runs the interpreter
    running the tests, which has torch, ipykernel and the project.
    """
    prefix = tmp_path_factory.mktemp("jupyter-prefix")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ipykernel",
            "install",
            "--prefix",
            str(prefix),
            "--name",
            KERNEL_NAME,
        ],
        check=True,
        capture_output=True,
    )
    kernels = prefix / "share" / "jupyter" / "kernels"
    assert (kernels / KERNEL_NAME / "kernel.json").is_file()
    return kernels


RunNotebook = Callable[[Any, Mapping[str, str]], Any]


@pytest.fixture
def run_notebook(kernel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RunNotebook:
    """Execute a notebook (nbformat node) in a fresh kernel with ``env`` added to its environment.

    A cell that raises fails the test (nbclient's CellExecutionError): the notebooks must run to
    the end whatever the server says. The kernel's working directory is a temporary one, and the
    repo is on its ``PYTHONPATH`` so ``addnorm_client`` imports as it would from an install.
    """

    # Only the kernelspec installed above is found under this name; nbclient then owns (and
    # shuts down) the kernel manager it makes.
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_dir.parent))

    def run(nb: Any, env: Mapping[str, str]) -> Any:
        client = NotebookClient(
            nb,
            kernel_name=KERNEL_NAME,
            timeout=180,
            startup_timeout=60,
            resources={"metadata": {"path": str(tmp_path)}},
        )
        pythonpath = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
        client.execute(env=dict(os.environ, PYTHONPATH=pythonpath, **env))
        return nb

    return run


@pytest.fixture
def unreachable_url() -> str:
    """A loopback URL where nothing listens."""
    return f"http://127.0.0.1:{free_port()}"
