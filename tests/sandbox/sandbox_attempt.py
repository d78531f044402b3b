"""Shared by the sandbox tests: fork a child, lock it down with chosen layers, run an attack in
it, report over a pipe.

An attack is a callable run in the locked child: it returns (anything JSON-able) when the attack
worked and raises when it was stopped. ``Attempt.succeeded`` says which; ``signal`` is set when
the child was killed instead (SIGKILL from the CPU hard limit, SIGSYS, ...).
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

import pytest
import torch

from api.grading import sandbox
from api.grading.sandbox import Layer, LayerStatus, Limits

# A child forked after a multi-threaded op hangs in libgomp (DESIGN pitfalls): as in the zygote.
torch.set_num_threads(1)

HYGIENE: tuple[Layer, ...] = (Layer.SETSID, Layer.CLOSE_FDS, Layer.CLEAR_ENV)


@dataclass(frozen=True)
class Attempt:
    succeeded: bool
    detail: str
    setup_error: str | None = None
    signal: int | None = None

    @property
    def blocked(self) -> bool:
        return self.setup_error is None and not self.succeeded


Attack = Callable[[], object]
# The result pipe of the current child, for attacks that must answer from another program.
CURRENT_PIPE = -1
Runner = Callable[..., Attempt]


def _child(attack: Attack, layers: Collection[Layer], w: int, slot: int, limits: Limits) -> None:
    global CURRENT_PIPE
    CURRENT_PIPE = w
    payload: dict[str, object]
    try:
        sandbox.apply_layers(layers, slot=slot, keep_fds=[w], limits=limits)
    except BaseException as exc:
        payload = {"setup_error": f"{type(exc).__name__}: {exc}"}
    else:
        try:
            payload = {"succeeded": True, "detail": repr(attack())[:4000]}
        except BaseException as exc:
            payload = {"succeeded": False, "detail": f"{type(exc).__name__}: {exc}"[:4000]}
    os.write(w, json.dumps(payload).encode())


def attempt(
    attack: Attack,
    layers: Collection[Layer],
    *,
    slot: int = 0,
    limits: Limits | None = None,
    timeout: float = 20.0,
) -> Attempt:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        try:
            os.close(r)
            _child(attack, layers, w, slot, limits or Limits())
        finally:
            os._exit(0)
    os.close(w)
    raw = _read(r, timeout)
    os.close(r)
    status = _reap(pid)
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    if not raw:
        return Attempt(False, f"no answer (wait status {status})", signal=sig)
    answer = json.loads(raw)
    if "setup_error" in answer:
        return Attempt(False, "", setup_error=answer["setup_error"], signal=sig)
    return Attempt(bool(answer["succeeded"]), str(answer["detail"]), signal=sig)


def _read(fd: int, timeout: float) -> bytes:
    deadline = time.monotonic() + timeout
    chunks = []
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            break
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _reap(pid: int) -> int:
    for _ in range(200):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    # The slot server's job in production: the wall-clock deadline kills the whole group.
    os.killpg(pid, signal.SIGKILL) if os.getpgid(pid) == pid else os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def require(status: dict[Layer, LayerStatus], *layers: Layer) -> None:
    """Skip, saying why, when this host lacks a layer a test exercises."""
    for layer in layers:
        if not status[layer].available:
            pytest.skip(f"layer {layer.value} unavailable here: {status[layer].detail}")


def full_layers(status: dict[Layer, LayerStatus]) -> list[Layer]:
    """Every layer this host can apply: the strongest lock-down available."""
    return [layer for layer in sandbox.APPLY_ORDER if status[layer].available]
