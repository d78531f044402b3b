"""Case sets shared by the submissions that arrive together (api/grading/casesets.py).

The policy with a clock the test moves; sharing in the real grader and sandbox gives the very
verdicts a private draw of the same seed gives; over HTTP, submissions in quick succession are
graded on one draw and a later one on another."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from api.content.catalog import load_catalog
from api.grading import casesets, verdict
from api.grading.casesets import CaseSets
from api.grading.grader import Grader
from api.grading.spec import ExerciseSpec
from tests.support import REPO, in_process_grader


@pytest.fixture(scope="module")
def spec() -> ExerciseSpec:
    return load_catalog(REPO / "exercises")["layer_norm"].spec


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_set_serves_the_submissions_that_arrive_together(spec: ExerciseSpec) -> None:
    clock = Clock()
    sets = CaseSets(max_age=2.0, max_uses=3, clock=clock)
    first = sets.take(spec)
    clock.now += 0.5
    assert sets.take(spec) is first
    assert sets.take(spec) is first
    assert first.uses == 3
    fourth = sets.take(spec)  # used up: drawn anew
    assert fourth is not first and fourth.uses == 1
    clock.now += 2.0  # stale: drawn anew even though it was used once only
    fifth = sets.take(spec)
    assert fifth is not fourth
    assert [c.name for c in fifth.cases] == [c.name for c in first.cases]


def test_a_set_serves_only_the_spec_it_was_drawn_for(spec: ExerciseSpec) -> None:
    sets = CaseSets(clock=Clock())
    first = sets.take(spec)
    reloaded = load_catalog(REPO / "exercises")["layer_norm"].spec  # the same slug, anew
    assert reloaded is not spec
    assert sets.take(reloaded) is not first
    assert sets.take(reloaded).spec is reloaded


def test_an_explicit_seed_gets_a_private_set_drawn_from_it(spec: ExerciseSpec) -> None:
    sets = CaseSets(clock=Clock())
    shared = sets.take(spec)
    private = sets.take(spec, seed=shared.seed)
    assert private is not shared and private.seed == shared.seed
    assert sets.take(spec) is shared  # the private one replaced nothing
    for a, b in zip(private.cases, shared.cases, strict=True):
        assert a.name == b.name
        assert all(
            (x == y).all() for x, y in zip(a.scenario[0].inputs, b.scenario[0].inputs, strict=True)
        )


def test_the_reference_runs_once_per_set(spec: ExerciseSpec) -> None:
    case_set = CaseSets(clock=Clock()).take(spec)
    runs: list[int] = []

    def compute() -> list[verdict.Expected]:
        runs.append(1)
        return [verdict.expected_outcome(spec.reference, c, spec) for c in case_set.cases]

    first = case_set.reference(compute)
    assert case_set.reference(compute) is first
    assert len(runs) == 1 and len(first) == len(case_set.cases)


def _mistake_outcome(spec: ExerciseSpec, case_set: casesets.CaseSet, i: int) -> verdict.Expected:
    factory = spec.factories(spec.mistakes[0].build)[0]
    return verdict.expected_outcome(factory, case_set.cases[i], spec)


def test_the_mistakes_outcomes_stay_within_the_budget_and_are_freed(
    spec: ExerciseSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(casesets.secrets, "randbits", lambda _bits: 7)  # the shared draws too
    clock = Clock()
    private = CaseSets(clock=clock).take(spec, seed=7)
    assert private.outcomes is None  # an explicit seed's set keeps nothing for anyone
    one = casesets.nbytes(_mistake_outcome(spec, private, 0))
    sets = CaseSets(max_uses=100, outcome_budget=one, clock=clock)

    live = sets.take(spec)
    store = live.outcomes
    assert store is not None and sets.outcome_bytes == 0
    store.keep(("m", 0, "raised"), None, 0)  # a mistake that raised is kept too
    assert store.lookup(("m", 0, "raised")) == (True, None)
    first = _mistake_outcome(spec, live, 0)
    store.keep(("m", 0, "c0"), first, casesets.nbytes(first))
    assert store.lookup(("m", 0, "c0")) == (True, first)
    assert sets.outcome_bytes == casesets.nbytes(first) > 0
    # Over the budget: not kept, computed again by whoever needs it.
    second = _mistake_outcome(spec, live, 1)
    store.keep(("m", 0, "c1"), second, casesets.nbytes(second))
    assert store.lookup(("m", 0, "c1")) == (False, None)

    clock.now += casesets.MAX_AGE  # retired on the next take, its outcomes freed
    fresh = sets.take(spec)
    assert fresh is not live and sets.outcome_bytes == 0
    # A verdict still in flight on the retired set adds nothing to the budget.
    third = _mistake_outcome(spec, live, 2)
    store.keep(("m", 0, "c2"), third, casesets.nbytes(third))
    assert sets.outcome_bytes == 0


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    with in_process_grader(slots=2) as grader:
        yield grader


def _dump(v: verdict.Verdict) -> dict[str, object]:
    d = v.model_dump(mode="json")
    d.pop("timings_ms")
    return d


def test_a_shared_set_gives_the_verdicts_a_private_draw_gives(
    grader: Grader, spec: ExerciseSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every failing variant of layer_norm graded on one shared set, in turn: each later one
    # reads the mistakes' outcomes the earlier ones kept. Each verdict must equal the one its
    # own private draw of the same seed gives, where nothing is shared.
    variants = sorted((REPO / "exercises" / "layer_norm" / "variants").glob("failed_*.py"))
    codes = [p.read_text() for p in variants[:8]] + [(REPO / "solutions/layer_norm.py").read_text()]
    monkeypatch.setattr(grader, "case_sets", CaseSets(max_age=3600, max_uses=len(codes)))
    monkeypatch.setattr(casesets.secrets, "randbits", lambda _bits: 12345)
    shared = [grader.grade(code, spec) for code in codes]
    assert grader.case_sets.outcome_bytes > 0  # the diagnoses did share outcomes
    assert {v.seed for v in shared} == {12345}
    assert [v.status for v in shared] == ["failed"] * 8 + ["passed"]
    for code, v in zip(codes, shared, strict=True):
        assert _dump(v) == _dump(grader.grade(code, spec, seed=12345))


def test_submissions_in_quick_succession_share_a_draw_over_http(api: httpx.Client) -> None:
    code = (REPO / "solutions" / "layer_norm.py").read_text()

    def seed() -> object:
        r = api.post("/exercises/layer_norm/submissions", json={"code": code})
        assert r.status_code == 201, r.text
        assert r.json()["verdict"] == "passed", r.json()["message"]
        return r.json()["seed"]

    time.sleep(casesets.MAX_AGE + 0.1)  # whatever set earlier tests used is stale
    first, second = seed(), seed()
    assert first == second
    time.sleep(casesets.MAX_AGE + 0.1)
    assert seed() != first  # a learner's next attempt, seconds later, meets new cases
