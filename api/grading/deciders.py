"""The service's side of its decider processes (``decider``): starting them, sending each
verdict to one, reading the answers back.

With deciders the service keeps what needs it (HTTP, the database, the static check, drawing a
case set and sending the job to the sandbox) and the decision runs beside it, on other cores. A
verdict's two frames go to one decider, the least busy: ``prepare`` as the job leaves for the
sandbox (its reference runs while the child does), ``decide`` with the child's answer.
Every decider holds the case sets it was told of (``decider.Sets``), so with several a busy
exercise's set is held, and its reference computed, once in each: a few milliseconds per set,
against the decision of every verdict moving off the service's core.

A decider that dies (or stops answering within ``DECIDE_TIMEOUT``) loses the verdicts it was
deciding (``DeciderLost``: the learner resubmits) and is started again on the next verdict.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import socket
import subprocess
import sys
import threading
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path

from api.grading import frames, stored
from api.grading.pool import RawResult, interpreter_env
from api.grading.stored import StoredVerdict

log = logging.getLogger("addnorm.grader")

# A decider's start: a fresh interpreter importing torch and running every reference once.
START_TIMEOUT = 120.0
# The longest a decision may take (the slowest lab's takes about a second on a slow core).
DECIDE_TIMEOUT = 60.0


class DeciderLost(RuntimeError):
    """The decider deciding a verdict died or stopped answering: the verdict is lost."""


class _Decider:
    def __init__(self, index: int, content_dir: Path, fingerprints: dict[str, str]) -> None:
        self.index = index
        self._content_dir = content_dir
        self._fingerprints = fingerprints
        self._send_lock = threading.Lock()
        self._pending: dict[int, Future[tuple[dict[str, object], bytes]]] = {}
        self._pending_lock = threading.Lock()
        self.in_flight = 0
        self.alive = False
        self._sock: socket.socket | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self.restart_lock = threading.Lock()
        self._generation = 0

    def start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = interpreter_env()
        cmd = [
            sys.executable,
            "-m",
            "api.cli",
            "decider",
            "--fd",
            str(theirs.fileno()),
            "--content",
            str(self._content_dir),
        ]
        # A fresh interpreter, not a fork of this process: no database handle, no secret, no
        # request thread's state. Its own session, so a signal to the service's group spares it
        # and stopping it is explicit.
        try:
            self._proc = subprocess.Popen(
                cmd,
                pass_fds=[theirs.fileno()],
                env=env,
                cwd="/",
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            theirs.close()
        ours.settimeout(START_TIMEOUT)
        try:
            header, _ = frames.recv(ours)
        except (frames.FrameError, OSError) as exc:
            ours.close()
            self._kill()
            raise RuntimeError(f"decider {self.index} did not start: {exc}") from exc
        if header.get("kind") != "ready":
            ours.close()
            self._kill()
            raise RuntimeError(f"decider {self.index} did not start: {str(header)[:200]}")
        theirs_seen = header.get("fingerprints")
        differ = sorted(
            slug
            for slug, mine in self._fingerprints.items()
            if not isinstance(theirs_seen, dict) or theirs_seen.get(slug) != mine
        )
        if differ:
            # It would decide on other cases than the sandbox ran: the exercise changed on
            # disk since the service loaded it. Restart the service to load it anew.
            ours.close()
            self._kill()
            raise RuntimeError(
                f"decider {self.index} loaded other exercises than the service: {differ[:5]}"
            )
        ours.settimeout(None)
        # A new generation: whatever the last one was deciding is lost, and its reader, still
        # to notice its socket closed, can no longer touch this one's verdicts.
        with self._pending_lock:
            self._generation += 1
            generation = self._generation
            stale, self._pending = self._pending, {}
            self._sock = ours
            self.alive = True
        for future in stale.values():
            if not future.done():
                future.set_exception(DeciderLost(f"decider {self.index} was started again"))
        threading.Thread(
            target=self._read, args=(ours, generation), name=f"decider-{self.index}", daemon=True
        ).start()

    def _read(self, sock: socket.socket, generation: int) -> None:
        """Hands each answer to the verdict waiting for it; on a dead decider, fails them all."""
        try:
            while True:
                header, blob = frames.recv(sock)
                ident = header.get("id")
                with self._pending_lock:
                    future = self._pending.pop(ident, None) if isinstance(ident, int) else None
                if future is not None:
                    future.set_result((header, blob))
        except (frames.FrameError, OSError, ValueError) as exc:
            self._lost(f"decider {self.index} stopped: {exc}", generation)

    def _lost(self, why: str, generation: int) -> None:
        with self._pending_lock:
            if generation != self._generation:
                return  # an earlier process's news: this one is another
            was_alive, self.alive = self.alive, False
            pending, self._pending = self._pending, {}
        if was_alive:
            log.warning("%s", why)
        for future in pending.values():
            if not future.done():
                future.set_exception(DeciderLost(why))

    def send(self, header: dict[str, object], blob: bytes = b"") -> None:
        sock, generation = self._sock, self._generation
        if sock is None or not self.alive:
            raise DeciderLost(f"decider {self.index} is not running")
        try:
            with self._send_lock:
                frames.send(sock, header, blob)
        except OSError as exc:
            why = f"decider {self.index} stopped: {exc}"
            self._lost(why, generation)
            raise DeciderLost(why) from exc

    def expect(self, ident: int) -> Future[tuple[dict[str, object], bytes]]:
        future: Future[tuple[dict[str, object], bytes]] = Future()
        with self._pending_lock:
            self._pending[ident] = future
        return future

    def forget(self, ident: int) -> None:
        with self._pending_lock:
            self._pending.pop(ident, None)

    def stop(self) -> None:
        self.alive = False
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
            self._sock = None
        self._kill()

    def _kill(self) -> None:
        if self._proc is not None:
            with contextlib.suppress(ProcessLookupError):
                self._proc.kill()
            self._proc.wait()
            self._proc = None

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid


@dataclass
class Decision:
    """One verdict's place in a decider, from the job's start to its verdict."""

    _decider: _Decider
    _deciders: Deciders
    slug: str
    seed: int
    shared: bool
    _finished: bool = False

    def decide(self, raw: RawResult, time_limit: float, code: str) -> StoredVerdict:
        ident = next(self._deciders._ids)
        future = self._decider.expect(ident)
        try:
            self._decider.send(
                {
                    "op": "decide",
                    "id": ident,
                    "slug": self.slug,
                    "seed": self.seed,
                    "shared": self.shared,
                    "timed_out": raw.timed_out,
                    "truncated": raw.truncated,
                    "signal": raw.signal,
                    "time_limit": time_limit,
                    "code": code,
                },
                # A child that ran out of time or wrote past the cap is decided without its
                # answer being read (``verdict.decide``): up to 64 MiB not copied for nothing.
                b"" if raw.timed_out or raw.truncated else raw.body,
            )
            try:
                header, blob = future.result(timeout=DECIDE_TIMEOUT)
            except FutureTimeout:
                # A decider that does not answer in time is not trusted to answer later.
                self._decider.stop()
                raise DeciderLost(f"decider {self._decider.index} did not answer") from None
        finally:
            self._decider.forget(ident)
            self.abandon()
        if "error" in header:
            raise RuntimeError(f"the decider could not decide: {header['error']}")
        # Already bounded, from a trusted process (``decider.decide``); its shape checked.
        return stored.decode(blob)

    def abandon(self) -> None:
        """Gives the verdict's place back (once): decided, or lost before deciding."""
        if not self._finished:
            self._finished = True
            self._deciders._done(self._decider)


class Deciders:
    """``count`` decider processes, each started on first need after a death."""

    def __init__(self, count: int, content_dir: Path, fingerprints: dict[str, str]) -> None:
        """``fingerprints``: ``grader.fingerprint`` of each exercise the service grades; a
        decider that loaded any other way is refused."""
        if count < 1:
            raise ValueError("at least one decider")
        self._all = [_Decider(i, content_dir, fingerprints) for i in range(count)]
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self.restarts = 0

    @property
    def count(self) -> int:
        return len(self._all)

    def running(self) -> int:
        return sum(d.alive for d in self._all)

    def pids(self) -> list[int]:
        return [d.pid for d in self._all if d.pid is not None]

    def start(self) -> None:
        """Starts them side by side (each imports torch and runs every reference once)."""
        errors: list[BaseException] = []

        def one(d: _Decider) -> None:
            try:
                d.start()
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=one, args=(d,)) for d in self._all]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.close()
            raise errors[0]

    def close(self) -> None:
        for d in self._all:
            d.stop()

    def open(self, slug: str, seed: int, *, shared: bool) -> Decision:
        """Picks the least busy decider for a verdict and has it prepare the case set."""
        with self._lock:
            decider = min(self._all, key=lambda d: (not d.alive, d.in_flight))
            decider.in_flight += 1
        try:
            if not decider.alive:
                self._restart(decider)
            decider.send({"op": "prepare", "slug": slug, "seed": seed, "shared": shared})
        except BaseException:
            self._done(decider)
            raise
        return Decision(decider, self, slug, seed, shared)

    def _restart(self, decider: _Decider) -> None:
        with decider.restart_lock:  # the others go on deciding meanwhile
            if decider.alive:
                return
            decider.stop()
            self.restarts += 1
            log.warning("starting decider %d again", decider.index)
            decider.start()

    def _done(self, decider: _Decider) -> None:
        with self._lock:
            decider.in_flight = max(0, decider.in_flight - 1)
