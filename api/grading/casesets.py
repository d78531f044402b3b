"""Case sets shared by the submissions to one exercise that arrive together.

Drawing an exercise's cases and running its reference on them cost the service about as much as
the rest of a passing verdict together (layer_norm, in-process: 4.6 ms drawing and 11.8 ms of
reference out of 27.7 ms). A set drawn for one submission therefore serves the submissions to the
same exercise that arrive within ``MAX_AGE`` seconds, at most ``MAX_USES`` of them: under load
the draw and the reference are paid once per ``MAX_USES`` verdicts, while a learner practising
alone still gets freshly drawn cases on every submission, as before.

A set holds nothing of any learner's: the cases, the reference's outcomes and the outcomes of the
exercise's known mistakes on those cases (what a failing verdict's diagnosis runs), none of which
depends on the code submitted. Each verdict still reports the seed its cases were drawn from.

Not thread-safe by itself: the grader calls it under its turn lock.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from api.grading import coverage
from api.grading.spec import Case, ExerciseSpec

# Long enough for a busy exercise to reuse a set many times, short enough that a learner's next
# attempt, seconds later, is graded on new cases. The first failing verdicts on a set run most of
# the known mistakes' outcomes (layer_norm: about 140 runs over its first 16 verdicts, ~1 ms
# each on a slow core), so a set is not retired for its uses before its age at ordinary rates.
MAX_AGE = 2.0
MAX_USES = 64
# The known mistakes' outcomes kept across every live set. A failing verdict runs up to a few
# hundred of them; the whole catalogue's, on one draw of each exercise, is about 180 MiB.
OUTCOME_BUDGET_BYTES = 64 * 1024 * 1024


def nbytes(outcome: Any) -> int:
    """The tensors' storage an ``Expected`` keeps alive (``truth`` may be ``native`` itself)."""
    seen: set[int] = set()
    total = 0
    for part in (outcome.native, outcome.truth):
        for t in part.tensors.values():
            if id(t) not in seen:
                seen.add(id(t))
                total += t.numel() * t.element_size()
    return total


class Budget:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0


@dataclass
class MistakeOutcomes:
    """The known mistakes' outcomes on one set's cases, and what follows from them and the
    reference alone (how far each is from the reference), within the grader's byte budget.
    Keys are the diagnosis's: ``(mistake name, form, case name)`` for an outcome, ``None`` kept
    for one that raised."""

    _budget: Budget
    _kept: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    _bytes: int = 0
    # A retired set may still serve a verdict in flight: it keeps nothing more once released.
    _released: bool = False

    def lookup(self, key: tuple[Any, ...]) -> tuple[bool, Any]:
        """(found, outcome)."""
        if key in self._kept:
            return True, self._kept[key]
        return False, None

    def keep(self, key: tuple[Any, ...], value: Any, size: int) -> None:
        """``size``: the bytes ``value`` keeps alive (its tensors' storage)."""
        if self._released or self._budget.used + size > self._budget.limit:
            return  # computed again by the next verdict that needs it: slower, never wrong
        self._kept[key] = value
        self._bytes += size
        self._budget.used += size

    def release(self) -> None:
        self._released = True
        self._budget.used -= self._bytes
        self._bytes = 0
        self._kept.clear()


@dataclass
class CaseSet:
    spec: ExerciseSpec
    seed: int
    cases: list[Case]
    # None for a private set: nobody else would read what it kept.
    outcomes: MistakeOutcomes | None
    born: float
    uses: int = 0
    # The reference's outcome per case, computed by the first submission that needs it (while
    # its own code runs in the sandbox).
    expected: list[Any] | None = None

    # Everything of a job but the code (``harness.JobTemplate``), encoded once per set.
    template: Any | None = None

    def reference(self, compute: Callable[[], list[Any]]) -> list[Any]:
        if self.expected is None:
            self.expected = compute()
        return self.expected

    def job_template(self, compute: Callable[[], Any]) -> Any:
        if self.template is None:
            self.template = compute()
        return self.template


def draw(spec: ExerciseSpec, seed: int) -> list[Case]:
    """The cases a seed stands for: the same wherever they are drawn (a decider process draws
    them again from the seed the service sent the sandbox's cases from)."""
    return list(coverage.cases(spec, torch.Generator().manual_seed(seed)))


class CaseSets:
    """The live set of each exercise, and the policy that decides when a set is drawn anew."""

    def __init__(
        self,
        *,
        max_age: float = MAX_AGE,
        max_uses: int = MAX_USES,
        outcome_budget: int = OUTCOME_BUDGET_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_age = max_age
        self.max_uses = max_uses
        self._budget = Budget(outcome_budget)
        self._clock = clock
        self._live: dict[str, CaseSet] = {}

    @property
    def outcome_bytes(self) -> int:
        return self._budget.used

    def take(self, spec: ExerciseSpec, seed: int | None = None) -> CaseSet:
        """The set a submission is graded on. An explicit ``seed`` (reproducing a verdict, the
        tests) gets its own set, drawn from that seed and shared with no one."""
        now = self._clock()
        self._retire_stale(now)
        if seed is not None:
            return self._draw(spec, seed, now, shared=False)
        live = self._live.get(spec.slug)
        # The very spec it was drawn for: a catalogue loaded anew may bring other cases under
        # the same slug.
        if live is None or live.spec is not spec or live.uses >= self.max_uses:
            if live is not None:
                self._retire(live)
            live = self._live[spec.slug] = self._draw(spec, secrets.randbits(31), now)
        live.uses += 1
        return live

    def _draw(self, spec: ExerciseSpec, seed: int, now: float, *, shared: bool = True) -> CaseSet:
        outcomes = MistakeOutcomes(self._budget) if shared else None
        return CaseSet(spec, seed, draw(spec, seed), outcomes, born=now)

    def _retire_stale(self, now: float) -> None:
        for slug, live in list(self._live.items()):
            if now - live.born >= self.max_age:
                self._retire(live)
                del self._live[slug]

    @staticmethod
    def _retire(live: CaseSet) -> None:
        if live.outcomes is not None:
            live.outcomes.release()
