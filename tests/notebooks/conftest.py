"""A live addnorm server and a hermetic Jupyter kernel for the notebook and client tests."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
KERNEL_NAME = "addnorm-test"
HEALTH_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class LiveServer:
    url: str
    token: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """`addnorm serve` on a free port with its own data dir, and one learner's token."""
    executable = Path(sys.executable).parent / "addnorm"
    if not executable.exists():
        pytest.fail(f"{executable} missing: install the project first (pip install -e '.[dev]')")
    tmp = tmp_path_factory.mktemp("live-server")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, ADDNORM_DATA_DIR=str(tmp / "data"))
    log = tmp / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(executable), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + HEALTH_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"`addnorm serve` exited with {proc.returncode}:\n{log.read_text()}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"/health not OK within {HEALTH_TIMEOUT_S:.0f} s:\n{log.read_text()}")
            time.sleep(0.25)
        response = httpx.post(f"{url}/users", json={"name": "notebook-tests"}, timeout=10)
        response.raise_for_status()
        yield LiveServer(url=url, token=response.json()["token"])
    finally:
        # The grader's zygote is a process of its own: stop the whole group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


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
