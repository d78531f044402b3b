"""The API side of the grader: starts the zygote, hands jobs to free slots, holds a deadline.

Thread-safe: ``run`` blocks the calling thread (the API calls it from a worker thread) until a
slot is free, then until that slot answers. A slot that does not answer within its deadline
plus a grace period, or a zygote that died, gets the whole zygote restarted.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from api.grading import frames, zygote_config

log = logging.getLogger("addnorm.grader")

START_TIMEOUT = 120.0
SLOT_GRACE = 5.0


class SandboxUnavailable(RuntimeError):
    """The configured sandbox profile needs a layer this machine cannot provide."""


class PoolBusy(RuntimeError):
    """No slot became free in time: the caller should answer 'busy', not hang."""


class GradingLost(RuntimeError):
    """The grader itself died or hung mid-job (the pool restarts it); nothing is known of the
    submission, which should be resubmitted."""


class _NotAccepted(ConnectionError):
    """The slot's connection broke before its server accepted the job."""


@dataclass
class RawResult:
    """How the child ended and its unparsed answer; the verdict code decides what it means."""

    body: bytes
    timed_out: bool = False
    truncated: bool = False
    signal: str | None = None
    exit_code: int | None = None
    wall_ms: float = 0.0
    lost: str | None = None  # the slot itself died or hung: nothing is known of the child


@dataclass
class _Slot:
    index: int
    sock: socket.socket
    pid: int | None = None
    # The exercise (index of its backstop list) the slot server's next child is armed for, as
    # far as the pool knows: the one of its last job. A guess that only steers the choice of
    # slot: the slot server checks every job's index against what it is armed for.
    armed: int | None = None


class _FreeSlots:
    """The idle slots. ``get`` prefers one armed for the job's exercise, then one armed for
    none, then any: a slot armed for another exercise discards its preforked child first."""

    def __init__(self) -> None:
        self._slots: list[_Slot] = []
        self._ready = threading.Condition()

    def put(self, slot: _Slot) -> None:
        with self._ready:
            self._slots.append(slot)
            self._ready.notify()

    def get(self, timeout: float, arm: int | None = None) -> _Slot:
        with self._ready:
            if not self._ready.wait_for(lambda: bool(self._slots), timeout):
                raise queue.Empty
            for wanted in (arm, None):
                for i, slot in enumerate(self._slots):
                    if slot.armed == wanted:
                        return self._slots.pop(i)
            return self._slots.pop(0)

    def get_nowait(self) -> _Slot:
        with self._ready:
            if not self._slots:
                raise queue.Empty
            return self._slots.pop(0)


@dataclass
class Ticket:
    """A job handed to a slot (or lost before it could be)."""

    job: bytes
    time_limit: float
    attempt: int
    slot: _Slot | None = None
    generation: int = 0
    job_id: int = 0
    lost: str | None = None
    arm: int | None = None


@dataclass
class PoolStatus:
    profile: str
    slots: int
    layers: dict[str, dict[str, Any]] = field(default_factory=dict)
    jobs: int = 0
    restarts: int = 0
    running: bool = False


def _write_config(fd: int, data: bytes, deadline: float) -> None:
    """The zygote's configuration through its pipe, not its command line (``zygote_config``),
    then EOF. Over the pipe's buffer (64 KiB) a write waits for the zygote, which reads after
    importing torch: bounded by the start's deadline. A zygote that died first shows as a start
    that failed when its slots do not answer."""
    os.set_blocking(fd, False)
    view = memoryview(data)
    try:
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError(
                    "the grader zygote did not start: it did not read its configuration in time"
                )
            _, writable, _ = select.select([], [fd], [], remaining)
            if writable:
                with contextlib.suppress(BlockingIOError):
                    view = view[os.write(fd, view) :]
    except BrokenPipeError:
        pass
    finally:
        os.close(fd)


def interpreter_env() -> dict[str, str]:
    """The whole environment of an interpreter the service starts for grading (the zygote, a
    decider): this code importable, one thread, nothing of the service's own environment."""
    import api

    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(Path(api.__file__).resolve().parent.parent),
        "OMP_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


class GraderPool:
    def __init__(
        self,
        *,
        slots: int = 2,
        profile: str = "strict",
        cpu_seconds: int = 10,
        queue_timeout: float = 10.0,
        banned: Sequence[Sequence[str]] = (),
    ) -> None:
        """``banned``: each exercise's banned names, for the zygote to resolve once for all
        the children it forks (``tripwire.prepare``); without them each child does it. Sent
        through a pipe at start (``zygote_config``), never on the zygote's command line."""
        self.status = PoolStatus(profile=profile, slots=slots)
        self._cpu_seconds = cpu_seconds
        self._banned = [list(names) for names in banned]
        self._queue_timeout = queue_timeout
        self._lock = threading.Lock()
        self._free = _FreeSlots()
        # Each exercise's backstop list -> its index in the zygote's configuration: a job's
        # header names it ("arm") so that a slot server arms once for many children.
        self._arming = {tuple(names): i for i, names in enumerate(self._banned)}
        self._proc: subprocess.Popen[bytes] | None = None
        self._generation = 0
        self._ids = itertools.count(1)

    # --- life cycle ------------------------------------------------------------------------

    def start(self) -> None:
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        config = zygote_config.encode(self._banned)
        pairs = [
            socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(self.status.slots)
        ]
        child_fds = [theirs.fileno() for _, theirs in pairs]
        config_fd, config_w = os.pipe()  # neither inheritable: pass_fds passes the read end
        env = interpreter_env()
        cmd = [
            sys.executable,
            "-m",
            "api.grading.zygote",
            "--fds",
            ",".join(map(str, child_fds)),
            "--profile",
            self.status.profile,
            "--cpu-seconds",
            str(self._cpu_seconds),
            "--config-fd",
            str(config_fd),
        ]
        # A fresh interpreter, not a fork of this process: it inherits no secrets, sockets or
        # database handles. Its own session, so that stopping it takes its slot servers along.
        try:
            self._proc = subprocess.Popen(
                cmd,
                pass_fds=[*child_fds, config_fd],
                env=env,
                cwd="/",
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except BaseException:
            os.close(config_w)
            raise
        finally:
            os.close(config_fd)
            for _, theirs in pairs:
                theirs.close()
        slots = [_Slot(i, ours) for i, (ours, _) in enumerate(pairs)]
        deadline = time.monotonic() + START_TIMEOUT
        try:
            _write_config(config_w, config, deadline)
            for slot in slots:
                slot.sock.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    header, _ = frames.recv(slot.sock)
                except (frames.FrameError, OSError) as exc:  # TimeoutError is an OSError
                    raise RuntimeError(f"the grader zygote did not start: {exc}") from exc
                if header.get("kind") == "refused":
                    raise RuntimeError(
                        f"the grader zygote refused its configuration: {header.get('error')}"
                    )
                if header.get("kind") == "fatal":
                    raise SandboxUnavailable("; ".join(header.get("missing", [])))
                slot.pid = header.get("pid")
                self.status.layers = header.get("layers", {})
        except BaseException:
            # A start that failed leaves nothing open: the zygote and every slot's socket.
            self._stop_locked()
            for slot in slots:
                slot.sock.close()
            raise
        # The same queue across restarts: threads already waiting on it get the new slots.
        for slot in slots:
            self._free.put(slot)
        self._generation += 1
        self.status.running = True
        log.info("grader pool up: %d slots, profile %s", len(slots), self.status.profile)

    def close(self) -> None:
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        self.status.running = False
        while True:
            try:
                self._free.get_nowait().sock.close()
            except queue.Empty:
                break
        if self._proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait()
            self._proc = None

    def _restart(self, generation: int, reason: str) -> None:
        with self._lock:
            if generation != self._generation:
                return  # another thread restarted it already
            log.warning("restarting the grader zygote: %s", reason)
            self._stop_locked()
            self.status.restarts += 1
            self._start_locked()

    # --- jobs ------------------------------------------------------------------------------

    def arming(self, backstop: Sequence[str]) -> int | None:
        """The index to pass as ``submit(arm=...)`` for a job whose backstop list (its
        header's ``banned``) is ``backstop``; None for a list the zygote was not given."""
        return self._arming.get(tuple(backstop))

    def run(self, job: bytes, *, time_limit: float, arm: int | None = None) -> RawResult:
        return self.result(self.submit(job, time_limit=time_limit, arm=arm))

    def submit(
        self, job: bytes, *, time_limit: float, attempt: int = 1, arm: int | None = None
    ) -> Ticket:
        """Hand the job to a free slot and return at once; ``result`` waits for the answer.

        The caller can work meanwhile: the grader computes the reference while the child runs.
        ``arm``: ``arming(...)`` of the job's backstop list, so that its child is forked
        already armed where a slot armed for that exercise is free (None: it arms itself).
        """
        try:
            slot = self._free.get(self._queue_timeout, arm)
        except queue.Empty:
            raise PoolBusy("every grader slot is busy") from None
        generation = self._generation
        if self._proc is None or self._proc.poll() is not None:
            self._restart(generation, "the zygote exited")
            return self._retry(job, time_limit, attempt, "the zygote exited", arm)
        job_id = next(self._ids)
        slot.sock.settimeout(time_limit + SLOT_GRACE)
        try:
            frames.send(
                slot.sock,
                {"kind": "job", "id": job_id, "time_limit": time_limit, "arm": arm},
                job,
            )
        except OSError as exc:
            slot.sock.close()
            self._restart(generation, f"slot {slot.index}: {exc}")
            return self._retry(job, time_limit, attempt, type(exc).__name__, arm)
        return Ticket(job, time_limit, attempt, slot, generation, job_id, arm=arm)

    def _retry(
        self, job: bytes, time_limit: float, attempt: int, why: str, arm: int | None
    ) -> Ticket:
        # A job the zygote never accepted (it had died while idle) is safe to send again, once,
        # to the restarted zygote; one it accepted is not: nothing is known of how it ended.
        if attempt == 1:
            return self.submit(job, time_limit=time_limit, attempt=2, arm=arm)
        return Ticket(job, time_limit, attempt, lost=f"the grader slot failed ({why})")

    def result(self, ticket: Ticket) -> RawResult:
        slot = ticket.slot
        if slot is None:
            return RawResult(body=b"", lost=ticket.lost or "the grader slot failed")
        try:
            result = self._receive(slot, ticket.job_id)
        except _NotAccepted as exc:
            slot.sock.close()
            self._restart(ticket.generation, f"slot {slot.index}: {exc}")
            retried = self._retry(
                ticket.job, ticket.time_limit, ticket.attempt, str(exc), ticket.arm
            )
            return self.result(retried)
        except (frames.FrameError, TimeoutError, OSError) as exc:
            slot.sock.close()
            self._restart(ticket.generation, f"slot {slot.index}: {exc}")
            return RawResult(body=b"", lost=f"the grader slot failed ({type(exc).__name__})")
        if ticket.generation == self._generation:
            # Its slot server arms itself for this exercise after the job (zygote._serve_slot).
            slot.armed = ticket.arm
            self._free.put(slot)
        self.status.jobs += 1
        return result

    def _receive(self, slot: _Slot, job_id: int) -> RawResult:
        accepted = False
        while True:
            try:
                header, body = frames.recv(slot.sock)
            except (frames.FrameError, OSError) as exc:
                if not accepted and not isinstance(exc, TimeoutError):
                    raise _NotAccepted(type(exc).__name__) from exc
                raise
            kind = header.get("kind")
            if kind == "ready":
                # A fresh slot server after ours accepted the job: ours died mid-grading.
                # Before that, it is the slot server announcing its next preforked child
                # (or a fresh slot server replacing one that served its last job).
                slot.pid = header.get("pid")
                if accepted:
                    return RawResult(body=b"", lost="the grader slot died while grading")
            elif kind == "accepted" and header.get("id") == job_id:
                accepted = True
            elif kind == "result" and header.get("id") == job_id:
                return RawResult(
                    body=body,
                    timed_out=bool(header.get("timed_out")),
                    truncated=bool(header.get("truncated")),
                    signal=header.get("signal"),
                    exit_code=header.get("exit_code"),
                    wall_ms=float(header.get("wall_ms", 0.0)),
                )
