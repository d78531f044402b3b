"""A decider process: where the verdict on a child's answer is decided, off the service's core.

The service (``deciders``) runs the sandbox and the decision used to follow there, in its one
Python process: parsing the child's answer, comparing it with the reference, and on failing code
naming the mistake (the known mistakes run and compared), about 40% of the service's CPU on a
passing verdict and more on a failing one, behind one interpreter lock. A decider is a fresh
interpreter of the service's own code, trusted like the service and holding nothing of it (no
database, no secrets): it draws the cases again from the seed the service sent the sandbox's
cases from, runs the reference, and decides with the very function the service would have run
(``grader.judge``), so the verdict is the same byte for byte. The child's answer reaches it as
bytes inside a frame and is parsed here exactly as it was in the service: nothing is unpickled.

Frames on the socket it is given (``frames``): ``prepare`` (a case set's reference, computed
while the child runs; no answer), ``decide`` (the child's answer as the blob; answered with the
verdict in its stored form as the blob, ``stored.encode``, or an ``error``).
"""

from __future__ import annotations

import logging
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import torch

from api.grading import casesets, frames, grader, longlived, stored, verdict
from api.grading.comparison import Expected
from api.grading.pool import RawResult
from api.grading.spec import Case, ExerciseSpec

log = logging.getLogger("addnorm.decider")

# A set the service stopped drawing from still serves the verdicts in flight on it (a child runs
# for up to its time limit after the set's last use): kept this long after its last use.
IDLE_SECONDS = 120.0
# And at most this many sets at once (private sets, one per explicit seed, are never reused):
# the least recently used goes first.
MAX_SETS = 256


@dataclass
class _Held:
    """One case set as this decider holds it: the cases, the reference on them (computed once),
    and the known mistakes' outcomes shared by the verdicts on it (None for a private set)."""

    spec: ExerciseSpec
    cases: list[Case]
    outcomes: casesets.MistakeOutcomes | None
    used: float
    expected: list[Expected] | None = field(default=None)

    def reference(self) -> list[Expected]:
        if self.expected is None:
            self.expected = [verdict.reference_outcome(self.spec, c) for c in self.cases]
        return self.expected


class Sets:
    """The case sets this decider was told of, by (slug, seed, shared). A shared set that a newer
    one of the same exercise replaced gives its mistakes' outcomes back to the budget at once,
    as the service's ``CaseSets`` retires it (a verdict still in flight on it recomputes what it
    needs: slower, never different)."""

    def __init__(
        self,
        specs: dict[str, ExerciseSpec],
        *,
        outcome_budget: int = casesets.OUTCOME_BUDGET_BYTES,
        clock: Any = time.monotonic,
    ) -> None:
        self.specs = specs
        self._budget = casesets.Budget(outcome_budget)
        self._clock = clock
        self._held: dict[tuple[str, int, bool], _Held] = {}
        self._latest: dict[str, tuple[str, int, bool]] = {}

    def __len__(self) -> int:
        return len(self._held)

    def get(self, slug: str, seed: int, shared: bool) -> _Held:
        now = self._clock()
        for key, held in list(self._held.items()):
            if now - held.used > IDLE_SECONDS:
                self._drop(key)
        key = (slug, seed, shared)
        found = self._held.get(key)
        if found is None:
            spec = self.specs.get(slug)
            if spec is None:
                raise LookupError(f"no exercise {slug!r} in this decider's catalogue")
            outcomes = casesets.MistakeOutcomes(self._budget) if shared else None
            held = self._held[key] = _Held(spec, casesets.draw(spec, seed), outcomes, now)
            if len(self._held) > MAX_SETS:
                self._drop(min(self._held, key=lambda k: self._held[k].used))
            if shared:
                before = self._latest.get(slug)
                if before is not None and before in self._held:
                    outcomes_before = self._held[before].outcomes
                    if outcomes_before is not None:
                        outcomes_before.release()
                self._latest[slug] = key
        else:
            held = found
        held.used = now
        return held

    def _drop(self, key: tuple[str, int, bool]) -> None:
        held = self._held.pop(key)
        if held.outcomes is not None:
            held.outcomes.release()


def decide(sets: Sets, header: dict[str, Any], body: bytes) -> bytes:
    """The verdict for one ``decide`` frame, in the form a submission keeps it (``stored``):
    the service stores it as it comes, after putting its own timings in."""
    seed = int(header["seed"])
    held = sets.get(str(header["slug"]), seed, bool(header["shared"]))
    raw = RawResult(
        body=body,
        timed_out=bool(header["timed_out"]),
        truncated=bool(header["truncated"]),
        signal=header["signal"] if isinstance(header["signal"], str) else None,
    )
    result = grader.judge(
        held.spec,
        held.cases,
        raw,
        float(header["time_limit"]),
        str(header["code"]),
        expected=held.reference(),
        outcomes=held.outcomes,
    )
    result.seed = seed
    result.timings_ms = dict.fromkeys(grader.BESIDE_TIMINGS, stored.TIMING_PLACEHOLDER)
    return stored.encode(stored.stored(result))


def serve(sock: socket.socket, specs: dict[str, ExerciseSpec]) -> None:
    """Answer frames until the service closes the socket."""
    sets = Sets(specs)
    while True:
        try:
            header, blob = frames.recv(sock)
        except frames.FrameError:
            return  # the service closed its end: it is stopping
        op = header.get("op")
        if op == "prepare":
            try:
                sets.get(
                    str(header["slug"]), int(header["seed"]), bool(header["shared"])
                ).reference()
            except Exception:  # the decide that follows says what went wrong
                log.exception("preparing a case set failed")
        elif op == "decide":
            try:
                answer = decide(sets, header, blob)
            except Exception as exc:
                log.exception("deciding failed")
                frames.send(
                    sock, {"id": header.get("id"), "error": f"{type(exc).__name__}: {exc}"[:500]}
                )
            else:
                frames.send(sock, {"id": header.get("id"), "ok": True}, answer)
        else:
            frames.send(sock, {"id": header.get("id"), "error": f"unknown op {op!r}"[:200]})


def run(fd: int, specs: dict[str, ExerciseSpec]) -> None:
    """A decider's life, on the socket ``fd`` the service passed it: warm up, say it is ready
    with each exercise's fingerprint, then serve. Started by ``deciders`` as ``addnorm decider``
    (the command loads the catalogue: a layer above this one)."""
    logging.basicConfig(level=logging.INFO, format="decider %(process)d: %(message)s")
    # As the service: one thread, so a verdict's figures do not depend on the core count.
    torch.set_num_threads(1)
    sock = socket.socket(fileno=fd)
    grader.warm_up(specs.values())
    fingerprints = {slug: grader.fingerprint(spec) for slug, spec in specs.items()}
    longlived.settle()  # what warming up loaded lives as long as the decider
    frames.send(sock, {"kind": "ready", "fingerprints": fingerprints})
    serve(sock, specs)
