"""scripts/install: the CPU build of torch, no reinstall unless pyproject.toml changed, and a
clear stop instead of PyPI's CUDA build. The whole first run (clean clone, non-root user,
offline restarts) is scripts/test-install, which CI runs as root."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support import REPO, free_port


def test_the_installed_torch_is_the_cpu_build() -> None:
    assert importlib.metadata.version("torch").endswith("+cpu")
    names = {d.metadata["Name"].lower() for d in importlib.metadata.distributions()}
    assert not {n for n in names if n.startswith("nvidia")}


def _checkout(tmp_path: Path) -> Path:
    """scripts/install and pyproject.toml beside a .venv that the stamp says is complete."""
    root = tmp_path / "checkout"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "install", root / "scripts" / "install")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def _install(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(root / "scripts" / "install"), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **env},
    )


def test_a_complete_venv_is_not_reinstalled_until_pyproject_changes(tmp_path: Path) -> None:
    root = _checkout(tmp_path)
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "addnorm").write_text("#!/bin/sh\n")
    (root / ".venv" / "bin" / "addnorm").chmod(0o755)
    digest = hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()
    (root / ".venv" / ".addnorm-install").write_text(f"{digest} dev\n")

    # PYTHON=false: any attempt to build or install would fail, so passing proves none was made.
    for args in ((), ("--dev",)):
        r = _install(root, *args, PYTHON="false")
        assert r.returncode == 0, r.stdout + r.stderr
        assert "up to date" in r.stdout

    with (root / "pyproject.toml").open("a") as f:
        f.write("\n# changed\n")
    changed = _install(root, PYTHON="false")
    assert changed.returncode != 0  # it tried to (re)build the venv, with the `false` Python
    assert "pyproject.toml changed" in changed.stdout


def test_without_a_cpu_build_it_stops_and_says_what_to_do(tmp_path: Path) -> None:
    root = _checkout(tmp_path)
    subprocess.run([sys.executable, "-m", "venv", str(root / ".venv")], check=True)
    dead_proxy = f"http://127.0.0.1:{free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env |= {
        # Nothing answers: not PyTorch's CPU index, not PyPI, and no wheel folder is configured.
        "https_proxy": dead_proxy,
        "HTTPS_PROXY": dead_proxy,
        "http_proxy": dead_proxy,
        "HOME": str(tmp_path),
        "PIP_CONFIG_FILE": os.devnull,
    }
    r = subprocess.run(
        ["bash", str(root / "scripts" / "install")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert "cannot get the CPU-only build of torch" in r.stderr
    assert "ADDNORM_TORCH_INDEX" in r.stderr and "PIP_FIND_LINKS" in r.stderr
    installed = subprocess.run(
        [str(root / ".venv" / "bin" / "python"), "-m", "pip", "list"],
        capture_output=True,
        text=True,
        env=env,
    ).stdout.lower()
    assert "torch" not in installed and "nvidia" not in installed
    assert not (root / ".venv" / ".addnorm-install").exists()
