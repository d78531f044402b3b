"""The private mount view: what a child can learn about files without reading them.

``stat``, ``readlink`` and ``access`` are not Landlock rights, so Landlock alone leaves the size
and mtime of ``solutions/``, the database's path and the process table in view. The
``mount_ns`` layer gives the child a root holding only the readable roots.
"""

from __future__ import annotations

import os

import pytest
import torch
from sandbox_attempt import HYGIENE, Runner, full_layers, require

from api.grading import sandbox
from api.grading.sandbox import Layer, LayerStatus

REPO = sandbox.repo_root()


def learn_metadata() -> object:
    """What an attacker would collect: sizes, mtimes, owners, link targets, existence."""
    found = {}
    for path in (REPO / "solutions", REPO / "solutions" / "layer_norm.py", REPO / "api", "/etc"):
        try:
            st = os.stat(path)
            found[str(path)] = (st.st_size, int(st.st_mtime))
        except OSError as exc:
            found[str(path)] = type(exc).__name__
    try:
        found["processes"] = len([p for p in os.listdir("/proc") if p.isdigit()])
    except OSError as exc:
        found["processes"] = type(exc).__name__
    try:
        found["exe"] = os.readlink("/proc/1/exe")
    except OSError as exc:
        found["exe"] = type(exc).__name__
    found["access"] = os.access(REPO / "solutions", os.F_OK)
    return found


def test_without_the_private_view_metadata_leaks(
    run: Runner, status: dict[Layer, LayerStatus]
) -> None:
    """The leak is real: full lock-down minus ``mount_ns`` still stats the repo."""
    layers = [layer for layer in full_layers(status) if layer is not Layer.MOUNT_NS]
    result = run(learn_metadata, layers)
    assert result.succeeded, result.detail
    assert "solutions/layer_norm.py': (" in result.detail, result.detail
    assert "'access': True" in result.detail, result.detail


def test_the_private_view_hides_metadata(run: Runner, status: dict[Layer, LayerStatus]) -> None:
    require(status, Layer.MOUNT_NS)
    result = run(learn_metadata, full_layers(status))
    assert result.succeeded, result.detail
    assert "(" not in result.detail, f"something was stat()ed: {result.detail}"
    assert "'processes': 'FileNotFoundError'" in result.detail, result.detail
    assert "'access': False" in result.detail, result.detail


def test_torch_works_in_the_private_view(run: Runner, status: dict[Layer, LayerStatus]) -> None:
    require(status, Layer.MOUNT_NS)

    def layer_norm() -> object:
        import email.mime.text  # noqa: F401 - a stdlib module nobody imported yet

        x = torch.randn(4, 16, requires_grad=True)
        mean = x.mean(-1, keepdim=True)
        y = (x - mean) * torch.rsqrt(((x - mean) ** 2).mean(-1, keepdim=True) + 1e-5)
        y.sum().backward()
        return os.path.exists("/proc/self"), x.grad is not None

    result = run(layer_norm, full_layers(status))
    assert result.succeeded, result.detail
    assert result.detail == "(False, True)", result.detail


@pytest.mark.parametrize("layer", [Layer.MOUNT_NS])
def test_the_view_is_read_only(layer: Layer, run: Runner, status: dict[Layer, LayerStatus]) -> None:
    """Without Landlock or seccomp, the private root itself refuses writes."""
    require(status, layer)

    def write() -> object:
        with open("/planted", "w") as f:
            f.write("x")
        return "wrote /planted"

    # Hygiene as in every profile: the fds this test process holds would otherwise fill the
    # low numbers past RLIMIT_NOFILE and the mount set-up could open nothing (EMFILE).
    result = run(write, [*HYGIENE, Layer.RLIMITS, layer])
    assert result.blocked, result.detail
    assert "Read-only file system" in result.detail or "File too large" in result.detail
