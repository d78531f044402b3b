"""Code in, verdict out: the one entry point the API, the CLI and the tests call.

Knows nothing of HTTP or the database. Draws fresh cases per submission, sends the job to a
sandbox slot, and decides the verdict in this (trusted) process, or has a decider process decide
it with the same function (``judge``; ``deciders``).
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import torch

from api.grading import advice, allowlist, casesets, coverage, harness, static, verdict
from api.grading.casesets import CaseSet, CaseSets, MistakeOutcomes
from api.grading.comparison import Expected
from api.grading.deciders import DeciderLost, Deciders
from api.grading.pool import GraderPool, GradingLost, RawResult, Ticket
from api.grading.spec import Case, ExerciseSpec
from api.grading.stored import StoredVerdict, stored
from api.grading.verdict import Verdict

log = logging.getLogger("addnorm")

# What a verdict decided in a decider is timed by, in the service (``Grader._grade_beside``); the
# decider bounds the verdict with a placeholder for each (``stored.TIMING_PLACEHOLDER``).
BESIDE_TIMINGS = ("draw", "sandbox", "child", "compare", "total")


class _Sent(NamedTuple):
    """A job on its way through the sandbox: its case set, the pool's ticket for it, and when
    its grading began and its cases were drawn (``perf_counter``)."""

    case_set: CaseSet
    ticket: Ticket
    started: float
    drawn: float


class Grader:
    def __init__(
        self, pool: GraderPool, *, time_limit: float = 5.0, deciders: Deciders | None = None
    ) -> None:
        """``deciders``: decide each verdict in a decider process (``deciders``) instead of in
        this one, where the service's requests compete for the same interpreter lock."""
        self.pool = pool
        self.time_limit = time_limit
        self.deciders = deciders
        # One grading at a time computes in this process (drawing, the reference, the decision)
        # while the others' submissions run in the sandbox. torch releases the GIL around every
        # kernel, so with many request threads computing at once each release hands the
        # interpreter to another thread: a futex wake and a context switch per operation,
        # thousands per verdict. Taking turns, 16 clients, four interleaved rounds: 24.4 -> 22.9
        # ms of CPU per verdict in this process, 36.4 -> 37.4 verdicts/s; alone it never waits.
        self._turn = threading.Lock()
        self.case_sets = CaseSets()
        self._armings: dict[tuple[object, ...], int | None] = {}

    def warm_up(self, specs: Iterable[ExerciseSpec]) -> None:
        warm_up(specs)

    def warm_up_in_background(self, specs: Iterable[ExerciseSpec]) -> threading.Thread:
        """``warm_up`` on a daemon thread, one spec at a time under the grader's turn: a
        reference is built under ``torch.manual_seed`` (the global generator), so it must never
        interleave with a submission's reference being drawn; a submission waits at most one
        spec's warm-up for its turn."""
        specs = list(specs)

        def run() -> None:
            for spec in specs:
                with self._turn:
                    try:
                        warm_up([spec])
                    except Exception:  # a cold first verdict, not a failed service
                        log.exception("warming up %s's reference failed", spec.slug)
            log.info("references warmed up for %d exercises", len(specs))

        thread = threading.Thread(target=run, name="addnorm-warm-up", daemon=True)
        thread.start()
        return thread

    def grade(
        self, code: str, spec: ExerciseSpec, *, seed: int | None = None, checked: bool = False
    ) -> Verdict:
        """The whole verdict, decided in this process (the CLI, the tests), deciders or not.

        ``checked``: the caller got None from ``static_verdict(code, spec)`` just before (the
        HTTP path answers refusals itself), so the code is not parsed a second time."""
        started = time.perf_counter()
        refused = None if checked else static_verdict(code, spec)
        if refused is not None:
            return refused
        return self._grade_here(code, spec, self._send(code, spec, seed, started))

    def grade_for_record(
        self, code: str, spec: ExerciseSpec, *, seed: int | None = None, checked: bool = False
    ) -> StoredVerdict:
        """The verdict as a submission keeps it (``stored``): decided in a decider process when
        the grader has them, else here. What the service and the queue's workers record."""
        started = time.perf_counter()
        refused = None if checked else static_verdict(code, spec)
        if refused is not None:
            return stored(refused)
        sent = self._send(code, spec, seed, started)
        if self.deciders is None:
            return stored(self._grade_here(code, spec, sent))
        return self._grade_beside(code, spec, sent)

    def _send(self, code: str, spec: ExerciseSpec, seed: int | None, started: float) -> _Sent:
        """Draw (or share) the case set and send the job to a sandbox slot."""
        with self._turn:
            case_set = self.case_sets.take(spec, seed)
            cases = case_set.cases
            template: harness.JobTemplate = case_set.job_template(lambda: job_template(spec, cases))
            job = template.with_code(code)
        drawn = time.perf_counter()
        ticket = self.pool.submit(job, time_limit=self.time_limit, arm=self._arming(spec))
        return _Sent(case_set, ticket, started, drawn)

    def _grade_here(self, code: str, spec: ExerciseSpec, sent: _Sent) -> Verdict:
        case_set, ticket, started, drawn = sent
        cases = case_set.cases
        # The reference runs here, in the trusted process, while the child runs the submission
        # (once per case set: the submissions sharing it find it done).
        try:
            with self._turn:
                expected = case_set.reference(
                    lambda: [verdict.reference_outcome(spec, c) for c in cases]
                )
        finally:
            referenced = time.perf_counter()
            raw = self.pool.result(ticket)
        if raw.lost:
            raise GradingLost(raw.lost)
        ran = time.perf_counter()
        with self._turn:
            result = judge(
                spec,
                cases,
                raw,
                self.time_limit,
                code,
                expected=expected,
                outcomes=case_set.outcomes,
            )
        result.seed = case_set.seed
        result.timings_ms = {
            "draw": _ms(started, drawn),
            "reference": _ms(drawn, referenced),  # overlaps the sandbox run
            "sandbox": _ms(drawn, ran),
            "child": raw.wall_ms,
            "compare": _ms(ran),
            "total": _ms(started),
        }
        return result

    def _grade_beside(self, code: str, spec: ExerciseSpec, sent: _Sent) -> StoredVerdict:
        """``grade_for_record``'s second half with a decider deciding: it computes the case
        set's reference while the child runs, then decides on the child's answer and sends the
        verdict already in its stored form."""
        assert self.deciders is not None
        case_set, ticket, started, drawn = sent
        try:
            decision = self.deciders.open(
                spec.slug, case_set.seed, shared=case_set.outcomes is not None
            )
        except BaseException as exc:
            self.pool.result(ticket)  # the slot goes back to the pool either way
            if isinstance(exc, DeciderLost):
                raise GradingLost(str(exc)) from exc
            raise
        try:
            raw = self.pool.result(ticket)
        except BaseException:
            decision.abandon()
            raise
        if raw.lost:
            decision.abandon()
            raise GradingLost(raw.lost)
        ran = time.perf_counter()
        try:
            form = decision.decide(raw, self.time_limit, code)
        except DeciderLost as exc:
            raise GradingLost(str(exc)) from exc
        timings = (_ms(started, drawn), _ms(drawn, ran), raw.wall_ms, _ms(ran), _ms(started))
        return form.timed(dict(zip(BESIDE_TIMINGS, timings, strict=True)))

    def _arming(self, spec: ExerciseSpec) -> int | None:
        """The index the pool knows this exercise's backstop list by (its slot servers arm once
        for many children), worked out once per exercise."""
        key = (tuple(spec.banned), None if spec.allowed is None else tuple(spec.allowed), spec.kind)
        if key not in self._armings:
            backstop = allowlist.spec_backstop(spec.banned, spec.allowed, spec.kind)
            self._armings[key] = self.pool.arming(backstop)
        return self._armings[key]


def job_template(spec: ExerciseSpec, cases: Sequence[Case]) -> harness.JobTemplate:
    """Everything of a job but the code."""
    return harness.job_template(
        class_name=spec.class_name,
        banned=spec.banned,
        cases=cases,
        kind=spec.kind,
        functions=spec.functions,
        allowed=spec.allowed,
        measure_saved=spec.saved_bytes_budget is not None,
    )


def fingerprint(spec: ExerciseSpec) -> str:
    """What the child would be sent for an exercise on one fixed draw, hashed: two processes
    that loaded the catalogue at different times (a decider started again after the exercise
    changed on disk) agree on it only if they would grade on the same cases."""
    return hashlib.sha256(job_template(spec, casesets.draw(spec, 0)).with_code("")).hexdigest()


def warm_up(specs: Iterable[ExerciseSpec]) -> None:
    """Run each spec's reference once, so the first learner does not pay for lazy imports."""
    for spec in specs:
        for case in coverage.cases(spec, torch.Generator().manual_seed(0)):
            expected = verdict.reference_outcome(spec, case)
            for t in expected.truth.tensors.values():
                if t.is_floating_point():
                    verdict.compare(t, t, None, case.dtype)


def judge(
    spec: ExerciseSpec,
    cases: Sequence[Case],
    raw: RawResult,
    time_limit: float,
    code: str,
    *,
    expected: Sequence[Expected] | None,
    outcomes: MistakeOutcomes | None,
) -> Verdict:
    """The verdict on a child's answer, with the fix suggested in the code's own terms: the
    same function in this process and in a decider process (``deciders``), so the two cannot
    drift apart."""
    result = verdict.decide(
        spec,
        cases,
        body=raw.body,
        timed_out=raw.timed_out,
        truncated=raw.truncated,
        signal=raw.signal,
        time_limit=time_limit,
        expected=expected,
        outcomes=outcomes,
    )
    # The fix suggested must fit how the code was written: read from its source here.
    result.diagnosis = advice.advise(result.diagnosis, spec, code)
    return result


def static_verdict(code: str, spec: ExerciseSpec) -> Verdict | None:
    """The verdict of code the static check refuses (nothing runs), or None when it passes.
    No pool needed: the API answers these itself, in queue mode too."""
    started = time.perf_counter()
    problem = precheck(code, spec)
    if problem is None:
        return None
    error = None
    if problem.line is not None:
        error = {
            "type": "SyntaxError" if "SyntaxError" in problem.message else None,
            "line": problem.line,
            "column": problem.column,
        }
    return Verdict(
        status=problem.status,
        message=problem.message,
        message_zh=problem.message_zh,
        error=error,
        timings_ms={"total": _ms(started)},
    )


def precheck(code: str, spec: ExerciseSpec) -> static.StaticProblem | None:
    """Size, syntax, banned names and the required definitions, before anything runs."""
    if spec.kind == "autograd_function":
        return static.check(
            code, class_name=spec.class_name, banned=spec.banned, base="torch.autograd.Function"
        )
    if spec.kind == "optimizer":
        return static.check(code, class_name=spec.class_name, banned=spec.banned, base="object")
    functions = spec.names if spec.kind == "function" else ()
    return static.check(code, class_name=spec.class_name, banned=spec.banned, functions=functions)


def _ms(start: float, end: float | None = None) -> float:
    return round(((end if end is not None else time.perf_counter()) - start) * 1000, 2)
