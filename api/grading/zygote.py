"""The warm zygote: imports torch once, then forks one slot server per socket it was handed.

Started by the pool as its own fresh process (``python -m api.grading.zygote``), never forked
from the API process, so it holds no secrets, sockets or database handles. Each slot server
serves one job at a time: fork a child, lock it down, let it run the submission, relay its raw
answer, and kill its process group when the deadline passes. Slot servers exit after
``--recycle`` jobs and the zygote forks a fresh one from its clean memory.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import select
import signal
import socket
import sys
import time
from dataclasses import dataclass
from typing import Any

# Before torch's first op: a child forked after a multi-threaded OpenMP op hangs in libgomp.
import torch

torch.set_num_threads(1)

from api.grading import frames, harness, sandbox, wire  # noqa: E402
from api.grading.spec import Case  # noqa: E402

EXIT_RECYCLE = 75
UID_RANGE_START = 1_000_000
MAX_SLOTS = 64
MAX_RESULT = 64 << 20
REAP_GRACE = 0.2


_WARM_CODE = """
import torch
from torch import nn
import torch.nn.functional as F


class Warm(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        print("warm")
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        y = (x - mean) * torch.rsqrt(var + 1e-5) * self.weight
        return F.silu(y) + torch.sigmoid(y) * torch.tanh(y) + F.gelu(y) + F.dropout(y, 0.1)
"""


def _warm_up() -> None:
    """Run every code path a child runs, so that it finds them imported and warm.

    The first pass through the tripwire modes and autograd costs ~1 s of lazy imports; a child
    that paid it would blow the latency budget on every submission.
    """
    cases = []
    for dtype in (torch.float32, torch.float64, torch.bfloat16):
        x = torch.randn(2, 3, 8, dtype=dtype)
        state = {"weight": torch.ones(8, dtype=dtype)}
        cases.append(Case(f"warm-{dtype}", "", x, {"dim": 8}, state, torch.randn_like(x)))
    cases.append(Case("warm-no-grad", "", torch.randn(4, 8), {"dim": 8}, None, None, train=True))
    job = harness.encode_job(
        code=_WARM_CODE,
        class_name="Warm",
        banned=("torch.nn.functional.layer_norm", "aten.native_layer_norm"),
        cases=cases,
    )
    stdout, stderr = sys.stdout, sys.stderr
    try:
        for _ in range(2):
            header, blob = wire.split(harness.run_job(job))
            wire.decode_tensors(header, blob)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    try:
        raise ValueError("warm")
    except ValueError as exc:
        harness.describe_exception(exc)


def _run_child(
    slot: int, job: bytes, time_limit: float, profile: sandbox.Profile, limits: sandbox.Limits
) -> dict[str, Any]:
    """Fork, lock down, run; return how the child ended and its raw answer."""
    r, w = os.pipe()
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: untrusted from the moment learner code runs
        code = 70
        try:
            os.close(r)
            sandbox.lock_down(slot=slot, keep_fds=[w], profile=profile, limits=limits)
            frames.write_all(w, harness.run_job(job))
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    chunks: list[bytes] = []
    size = 0
    timed_out = truncated = False
    deadline = started + time_limit
    try:
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            data = os.read(r, 1 << 20)
            if not data:
                break
            size += len(data)
            if size > MAX_RESULT:
                truncated = True
                break
            chunks.append(data)
    finally:
        os.close(r)
    status = _reap(pid, grace=0.0 if (timed_out or truncated) else REAP_GRACE)
    sandbox.reap_slot(slot, limits)
    return {
        "wall_ms": round((time.perf_counter() - started) * 1000, 2),
        "timed_out": timed_out,
        "truncated": truncated,
        **status,
        "body": b"" if truncated else b"".join(chunks),
    }


def _reap(pid: int, grace: float) -> dict[str, Any]:
    """Wait briefly for a normal exit, then kill the child's whole process group."""
    end = time.perf_counter() + grace
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or time.perf_counter() >= end:
            break
        time.sleep(0.001)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)  # the child called setsid: its pid is its group
    if not done:
        _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"signal": signal.Signals(os.WTERMSIG(status)).name, "exit_code": None}
    return {"signal": None, "exit_code": os.WEXITSTATUS(status)}


def _serve_slot(slot: int, sock: socket.socket, ctx: _Context) -> None:
    frames.send(sock, {"kind": "ready", "slot": slot, "pid": os.getpid(), "layers": ctx.layers})
    for _ in range(ctx.recycle):
        try:
            header, blob = frames.recv(sock)
        except frames.FrameError:
            os._exit(0)  # the pool went away
        job_id = header.get("id")
        frames.send(sock, {"kind": "accepted", "id": job_id, "pid": os.getpid()})
        outcome = _run_child(slot, blob, float(header["time_limit"]), ctx.profile, ctx.limits)
        body = outcome.pop("body")
        frames.send(sock, {"kind": "result", "id": job_id, **outcome}, body)
    os._exit(EXIT_RECYCLE)


@dataclass(frozen=True)
class _Context:
    fds: list[int]
    recycle: int
    profile: sandbox.Profile
    limits: sandbox.Limits
    layers: dict[str, dict[str, Any]]


def _fork_slot(slot: int, ctx: _Context) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            for other in ctx.fds:
                if other != ctx.fds[slot]:
                    os.close(other)
            sock = socket.socket(fileno=ctx.fds[slot])
            _serve_slot(slot, sock, ctx)
        finally:
            os._exit(1)
    return pid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="api.grading.zygote")
    parser.add_argument("--fds", required=True, help="comma-separated slot socket fds")
    parser.add_argument("--recycle", type=int, default=200)
    parser.add_argument("--profile", default="strict")
    parser.add_argument("--cpu-seconds", type=int, default=10)
    args = parser.parse_args(argv)
    fds = [int(f) for f in args.fds.split(",")]
    profile = sandbox.Profile(args.profile)
    # 1 GiB above what the warm child maps: ample for any case, and a memory bomb hits the
    # limit in about a second instead of zero-filling gigabytes until the deadline.
    # Slot uids unique to this zygote (its pid is unique while it lives; at most 64 slots): a
    # slot's reaping kills every process of its uid, so two services (or test servers) on one
    # host must never share one, or each would kill the other's children mid-grading.
    limits = sandbox.Limits(
        cpu_seconds=args.cpu_seconds,
        address_space_headroom=1 << 30,
        uid_base=UID_RANGE_START + os.getpid() * MAX_SLOTS,
    )

    # Warm first: prepare() then drops what warming left behind (linecache of grader sources).
    _warm_up()
    gc.collect()
    gc.freeze()  # children then do not copy the zygote's objects when the collector runs
    status = sandbox.prepare()
    missing = sandbox.check_profile(profile, status)
    active = set(sandbox.layers_for(profile, status)) if not missing else set()
    layers = {
        str(name): {"available": s.available, "active": name in active, "detail": s.detail}
        for name, s in status.items()
    }
    if missing:
        for fd in fds:
            frames.send(
                socket.socket(fileno=fd), {"kind": "fatal", "missing": missing, "layers": layers}
            )
        return 3

    ctx = _Context(fds, args.recycle, profile, limits, layers)
    slots = {_fork_slot(i, ctx): i for i in range(len(fds))}
    while slots:
        try:
            pid, status_code = os.wait()
        except ChildProcessError:
            break
        slot = slots.pop(pid, None)
        if slot is None:
            continue
        # Exit 0 means the pool closed the slot's socket: the service is shutting down.
        if os.WIFEXITED(status_code) and os.WEXITSTATUS(status_code) == 0:
            continue
        slots[_fork_slot(slot, ctx)] = slot
    return 0


if __name__ == "__main__":
    sys.exit(main())
