"""The floor of a verdict's cost: the same checks computed in one process, with no sandbox, no
HTTP and no database. The learner's code runs on the exercise's cases, the reference runs on
them (at the case's dtype and in float64), and every tensor the reference produced is compared
with the learner's by ``comparison.compare``. That is the cost of the math alone; a verdict's
CPU divided by it is the service's and the sandbox's overhead, a ratio that holds on any
machine.

Not counted: drawing the cases (a case set serves many verdicts). The reference is counted in
full, although a warm service shares it between the verdicts on one case set: the floor is
what one verdict would cost if it did only the math, with nothing shared.

Imported by ``scripts/benchmark.py`` only when a floor is asked for: the load generator must
not pay for torch otherwise.
"""

from __future__ import annotations

import contextlib
import statistics
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from api.content.catalog import load_catalog
from api.grading import comparison, coverage, harness
from api.grading.spec import ExerciseSpec

SEED = 20240607


@dataclass(frozen=True)
class Floor:
    """CPU milliseconds per verdict, median over the sources and rounds, and its parts."""

    total: float
    learner: float
    reference: float
    compare: float


def _entry(source: str, spec: ExerciseSpec) -> Any:
    namespace: dict[str, Any] = {"__name__": "submission"}
    exec(compile(source, "<submission>", "exec"), namespace)
    names = list(spec.functions or [spec.class_name])
    return {n: namespace.get(n) for n in names} if spec.functions else namespace.get(names[0])


def _once(source: str, spec: ExerciseSpec, cases: list[Any]) -> tuple[float, float, float]:
    """(learner, reference, compare) CPU seconds of one verdict's math."""
    learner = reference = compared = 0.0
    t0 = time.process_time()
    try:
        entry = _entry(source, spec)
    except Exception:  # a mistake that does not load: its cost is the load alone
        entry = None
    learner += time.process_time() - t0
    for case in cases:
        t0 = time.process_time()
        outcome = harness.Outcome()
        if entry is not None:
            # A failing case: what ran before the error is the cost.
            with contextlib.suppress(Exception):
                harness.run_case(harness.instantiate(entry, case, spec.kind), case, outcome)
        t1 = time.process_time()
        expected = comparison.expected_outcome(spec.reference, case, spec)
        t2 = time.process_time()
        for key, truth in expected.truth.tensors.items():
            got = outcome.tensors.get(key)
            if got is None:
                continue
            comparison.compare(
                got,
                truth,
                expected.native.tensors.get(key),
                case.dtype,
                1.0,
                expected.floor(case, key),
            )
        t3 = time.process_time()
        learner += t1 - t0
        reference += t2 - t1
        compared += t3 - t2
    return learner, reference, compared


def floor(slug: str, sources: list[str], root: Path, rounds: int = 3) -> Floor:
    """The floor of ``slug``'s verdicts on ``sources`` (each graded ``rounds`` times, after a
    warm-up): the median per verdict over every source and round."""
    torch.set_num_threads(1)  # as the grader's children run
    spec = load_catalog(root / "exercises")[slug].spec
    cases = coverage.cases(spec, torch.Generator().manual_seed(SEED))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a learner's code may warn
        for source in sources[:2]:
            _once(source, spec, cases)  # warm: first calls of torch's kernels
        runs = [_once(s, spec, cases) for _ in range(rounds) for s in sources]
    parts = [statistics.median(r[i] for r in runs) * 1000 for i in range(3)]
    total = statistics.median(sum(r) for r in runs) * 1000
    return Floor(total, *parts)
