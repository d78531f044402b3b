"""The warm zygote: imports torch once, then forks one slot server per socket it was handed.

Started by the pool as its own fresh process (``python -m api.grading.zygote``), never forked
from the API process, so it holds no secrets, sockets or database handles; its configuration
comes through an inherited pipe, not its command line (``zygote_config``). A slot server forks
its child and locks it down before the job arrives (off the critical path), hands it the job,
relays its raw answer, kills its process group when the deadline passes, reaps the slot's uid,
and forks the next child. It serves many jobs (a fork and an exit of a torch-sized process fewer
per verdict) yet holds no learner data between them: a job and an answer only ever live in a
buffer mapped for that job and unmapped before the next child is forked (``_JobBuffer``), never
in its Python heap, whose freed memory would keep their bytes. So no child ever inherits memory
that held another learner's code or results. After ``JOBS_PER_SLOT_SERVER`` jobs, or when
anything goes wrong, it exits and the zygote forks a fresh one from its clean memory.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import mmap
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Before torch's first op: a child forked after a multi-threaded OpenMP op hangs in libgomp.
import torch

torch.set_num_threads(1)

from api.grading import (  # noqa: E402
    allowlist,
    deaths,
    frames,
    harness,
    hugepages,
    sandbox,
    tripwire,
    wire,
    zygote_config,
)
from api.grading.spec import Case  # noqa: E402

EXIT_RECYCLE = 75  # a slot server that served its jobs
JOBS_PER_SLOT_SERVER = 256  # then a fresh one: whatever its heap gathered is dropped too
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
        # The allow-list guard's first dispatch costs lazy imports too.
        allowed=(*allowlist.ELEMENTARY, "activations"),
    )
    stdout, stderr = sys.stdout, sys.stderr
    try:
        for _ in range(2):
            header, blob = wire.split(harness.run_job(job))
            wire.decode_tensors(header, blob)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    # cpuinfo reads /proc and /sys once, lazily: never inside a child's private mount view.
    torch.backends.cpu.get_cpu_capability()
    try:
        raise ValueError("warm")
    except ValueError as exc:
        harness.describe_exception(exc)


def _prefork_child(slot: int, profile: sandbox.Profile, limits: sandbox.Limits) -> _Child:
    """Fork the child and lock it down before any job exists; it then waits for its job.

    Both happen off the critical path: the fork and the lock-down cost ~8 ms, paid while the
    slot server waits for work. The slot server holds no learner data at this point (see
    ``_JobBuffer``), so the child inherits no other learner's code or results.
    """
    job_r, job_w = os.pipe()
    result_r, result_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: untrusted from the moment learner code runs
        code = 70
        try:
            tripwire.seal_inherited()
            os.close(job_w)
            os.close(result_r)
            _batch_policy()
            sandbox.lock_down(slot=slot, keep_fds=[job_r, result_w], profile=profile, limits=limits)
            tripwire.arm()  # from now on the harness's guard removes banned kernels for good
            job = _read_to_eof(job_r)
            os.close(job_r)
            frames.write_all(result_w, harness.run_job(job))
            code = 0
        finally:
            os._exit(code)
    os.close(job_r)
    os.close(result_w)
    return _Child(pid, job_w, result_r)


def _batch_policy() -> None:
    """A learner's child runs under SCHED_BATCH: a CPU-bound job that does not preempt the
    service's threads when it wakes, so the service (one process, one GIL, a thread that must
    not stall while it holds the GIL) keeps its core. Measured with 16 clients on 2 cores, three
    interleaved rounds: 37.5 -> 38.5 verdicts/s, CPU per verdict 48.6 -> 47.2 ms. A scheduling
    hint, not a sandbox layer: where the call fails nothing else changes. The child cannot undo
    it: seccomp allows no sched_setscheduler."""
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


@dataclass(frozen=True)
class _Child:
    pid: int
    job_w: int
    result_r: int


def _read_to_eof(fd: int) -> bytes:
    chunks = []
    while data := os.read(fd, 1 << 20):
        chunks.append(data)
    return b"".join(chunks)


class _JobBuffer:
    """Anonymous memory for one job's bytes or one answer's, unmapped on ``close``: learner
    data never enters the slot server's Python heap, so none is left for its next child.

    Mapped lazily by the kernel: only the pages written cost anything. Not inherited by a fork
    (``MADV_DONTFORK``), should one ever happen while it is mapped.
    """

    def __init__(self, size: int) -> None:
        self._map = mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        with contextlib.suppress(AttributeError, OSError):
            self._map.madvise(mmap.MADV_DONTFORK)
        self.view = memoryview(self._map)[:size]
        self.size = 0  # bytes filled, for an answer

    def close(self) -> None:
        self.view.release()
        self._map.close()


def _hand_over(child: _Child, job: memoryview, deadline: float) -> bool:
    """Write the job into the child's pipe; False if the deadline passed first. A child that
    died before reading it all (a failed lock-down) shows as an answerless exit instead."""
    view = job
    try:
        while view:
            left = deadline - time.perf_counter()
            if left <= 0:
                return False
            _, ready, _ = select.select([], [child.job_w], [], left)
            if ready:
                view = view[os.write(child.job_w, view[: 1 << 16]) :]
        return True
    except BrokenPipeError:
        return True
    finally:
        os.close(child.job_w)


def _collect(child: _Child, deadline: float, answer: _JobBuffer) -> dict[str, Any]:
    """The child's answer into ``answer`` (``MAX_RESULT`` + 1 bytes), read until EOF, the
    deadline, or the size cap."""
    timed_out = truncated = False
    try:
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([child.result_r], [], [], left)
            if not ready:
                continue
            n = os.readv(child.result_r, [answer.view[answer.size :]])
            if not n:
                break
            answer.size += n
            if answer.size > MAX_RESULT:
                truncated = True
                break
    finally:
        os.close(child.result_r)
    return {"timed_out": timed_out, "truncated": truncated}


def _reap(pid: int, grace: float) -> dict[str, Any]:
    """Wait briefly for a normal exit, then kill the child's whole process group."""
    end = time.perf_counter() + grace
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or time.perf_counter() >= end:
            break
        time.sleep(0.001)
    # The child itself first: one reaped before it reached setsid (the pool went away while it
    # was locking down) has no group of its own yet, and would block the wait below forever.
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)  # after setsid its pid is its group: escapees too
    if not done:
        _, status = os.waitpid(pid, 0)
    return deaths.describe(status)


def _serve_slot(slot: int, sock: socket.socket, ctx: _Context) -> None:
    """Serve up to ``JOBS_PER_SLOT_SERVER`` jobs, each in a child forked for it, then exit: the
    zygote forks a fresh slot server. Each job is handled in ``_serve_job``, whose frame (and
    its buffers) are gone before the next child is forked.

    After a job the slot server arms itself for that job's exercise (``tripwire.
    arm_slot_server``: the backstop's kernels blocked once here, not in every child), so the
    next child is forked already armed: learners resubmit to the exercise they are on, and the
    pool sends a job to a slot armed for its exercise when one is free. A job for another
    exercise meets a child that carries the wrong blocks: that child is discarded unused, the
    slot server disarms, and a fresh child takes the job and arms itself, as every child did
    before slot servers were armed."""
    for _ in range(JOBS_PER_SLOT_SERVER):
        child = _prefork_child(slot, ctx.profile, ctx.limits)
        try:
            frames.send(
                sock, {"kind": "ready", "slot": slot, "pid": os.getpid(), "layers": ctx.layers}
            )
            header, size = frames.recv_head(sock)
        except OSError:  # FrameError included: the pool went away
            _reap(child.pid, grace=0.0)
            os._exit(0)
        wanted = _arming(header, ctx)
        if tripwire.slot_server_armed() not in (None, wanted):
            # The preforked child carries another exercise's blocks: discarded before it read
            # a byte of any job, and one forked without them takes this job (arming itself).
            _reap(child.pid, grace=0.0)
            _arm(None, ctx)
            child = _prefork_child(slot, ctx.profile, ctx.limits)
        _serve_job(slot, sock, ctx, child, header, size)
        # Defence in depth: kills anything still running as the slot's uid before the next
        # child exists (an escapee of this job must never meet the next learner's child).
        sandbox.reap_slot(slot, ctx.limits)
        # After the answer has gone back: the next child is forked armed for this exercise.
        _arm(wanted, ctx)
    os._exit(EXIT_RECYCLE)


def _arming(header: Mapping[str, Any], ctx: _Context) -> int | None:
    """The exercise a job's child must be armed for: the index of its backstop list in the
    zygote's configuration, as the pool named it; None (the child arms itself, as a job
    without an index always did) for anything else."""
    index = header.get("arm")
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(ctx.arming):
        return index
    return None


def _arm(index: int | None, ctx: _Context) -> None:
    """Arm this slot server for exercise ``index`` (None: disarm). A failure leaves it
    disarmed: its children then arm themselves, as they do for a job without an index."""
    try:
        tripwire.arm_slot_server(index, ctx.arming[index] if index is not None else ())
    except Exception:  # a speed-up must never stop grading
        tripwire.arm_slot_server(None, ())


def _serve_job(
    slot: int,
    sock: socket.socket,
    ctx: _Context,
    child: _Child,
    header: dict[str, Any],
    size: int,
) -> None:
    """One job: read it into a buffer, hand it to ``child``, relay the answer, reap."""
    job = _JobBuffer(size)
    answer: _JobBuffer | None = None
    try:
        try:
            frames.recv_into(sock, job.view)
            frames.send(sock, {"kind": "accepted", "id": header.get("id"), "pid": os.getpid()})
        except OSError:  # FrameError included: the pool went away
            _reap(child.pid, grace=0.0)
            os._exit(0)
        started = time.perf_counter()
        deadline = started + float(header["time_limit"])
        handed = _hand_over(child, job.view, deadline)
        job.close()
        answer = _JobBuffer(MAX_RESULT + 1)
        outcome = _collect(child, deadline, answer)
        outcome["timed_out"] = outcome["timed_out"] or not handed
        body = answer.view[: 0 if outcome["truncated"] else answer.size]
        answered = bool(body) and not outcome["timed_out"]
        # An answer goes back at once; the child's teardown (a few ms) is waited for afterwards.
        # Without one, how the child ended (a signal?) is the news, so reap first.
        status = (
            {"signal": None, "exit_code": None} if answered else _reap(child.pid, grace=REAP_GRACE)
        )
        result = {
            "kind": "result",
            "id": header.get("id"),
            "wall_ms": round((time.perf_counter() - started) * 1000, 2),
            **outcome,
            **status,
        }
        try:
            frames.send_view(sock, result, body)
        except OSError:  # the pool went away: clean up, then leave
            body.release()
            _reap(child.pid, grace=REAP_GRACE)
            sandbox.reap_slot(slot, ctx.limits)
            os._exit(0)
        body.release()
        if answered:
            _reap(child.pid, grace=REAP_GRACE)
    finally:
        job.close()
        if answer is not None:
            answer.close()


@dataclass(frozen=True)
class _Context:
    fds: list[int]
    profile: sandbox.Profile
    limits: sandbox.Limits
    layers: dict[str, dict[str, Any]]
    # Each exercise's backstop list, by the index the pool names in a job's header ("arm").
    arming: tuple[tuple[str, ...], ...] = ()


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


def make_ready(banned: Sequence[Sequence[str]]) -> dict[sandbox.Layer, sandbox.LayerStatus]:
    """Everything the zygote does before its first fork, in order; the sandbox's layers as
    probed. Also what ``scripts/child_cost.py`` builds its measuring zygote with."""
    # Warm first: prepare() then drops what warming left behind (linecache of grader sources).
    _warm_up()
    # Each exercise's banned operators resolved once here, not in every child (tripwire.prepare).
    tripwire.prepare(banned)
    # After warm-up (which may touch them) and before any fork: torch's Python implementations
    # of whole operators raise from now on in this process and every child (tripwire).
    tripwire.disable_private_implementations()
    gc.collect()
    gc.freeze()  # children then do not copy the zygote's objects when the collector runs
    hugepages.collapse_anonymous_memory()  # cheaper forks: see the module
    return sandbox.prepare()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="api.grading.zygote")
    parser.add_argument("--fds", required=True, help="comma-separated slot socket fds")
    parser.add_argument("--profile", default="strict")
    parser.add_argument("--cpu-seconds", type=int, default=10)
    parser.add_argument(
        "--config-fd",
        type=int,
        required=True,
        help="an inherited pipe holding the configuration (zygote_config), read to EOF",
    )
    args = parser.parse_args(argv)
    fds = [int(f) for f in args.fds.split(",")]
    profile = sandbox.Profile(args.profile)
    try:
        config = zygote_config.read(args.config_fd)
    except zygote_config.ConfigError as exc:
        # Refuse, and say why: on stderr (the service's log) and to the pool, which names it.
        print(f"api.grading.zygote: refusing to start: {exc}", file=sys.stderr, flush=True)
        for fd in fds:
            with contextlib.suppress(OSError):
                frames.send(socket.socket(fileno=fd), {"kind": "refused", "error": str(exc)})
        return 2
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

    status = make_ready(config.banned)
    missing = sandbox.check_profile(profile, status)
    active = set(sandbox.layers_for(profile, status)) if not missing else set()
    layers = {
        str(name): {"available": s.available, "active": name in active, "detail": s.detail}
        for name, s in status.items()
    }
    # Not a layer of its own: how the layers in force bound a child's threads (its CPU share).
    cap = sandbox.thread_cap(active, limits)
    layers["thread_cap"] = {
        "available": cap.available,
        "active": cap.available,
        "detail": cap.detail,
    }
    if missing:
        for fd in fds:
            frames.send(
                socket.socket(fileno=fd), {"kind": "fatal", "missing": missing, "layers": layers}
            )
        return 3

    # Orphans (a child's escaped descendants, whose slot server is gone) are reparented here
    # and reaped by the loop below, instead of piling up as zombies under a container's PID 1.
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    ctx = _Context(fds, profile, limits, layers, tuple(tuple(b) for b in config.banned))
    slots = {_fork_slot(i, ctx): i for i in range(len(fds))}
    while slots:
        try:
            pid, status_code = os.wait()
        except ChildProcessError:
            break
        slot = slots.pop(pid, None)
        if slot is None:
            continue  # a reaped orphan
        code = os.WEXITSTATUS(status_code) if os.WIFEXITED(status_code) else None
        if code == 0:
            continue  # the pool closed the slot's socket: the service is going away
        if code != EXIT_RECYCLE:
            time.sleep(0.05)  # a slot server that crashed: never spin re-forking it
        slots[_fork_slot(slot, ctx)] = slot
    return 0


PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


if __name__ == "__main__":
    sys.exit(main())
