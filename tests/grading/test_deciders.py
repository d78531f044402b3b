"""Decider processes (api/grading/deciders.py, decider.py): the decision off the service's core.

The same verdict as a submission keeps it, byte for byte, as the service deciding in its own
process: every worked solution, starter and variant of the catalogue on a fixed seed, through the
real sandbox, once each way. Then what a decider's failure costs: the verdict it was deciding is
lost (never a wrong one), the next is decided by a decider started again; and a decider that
loaded other exercises than the service (changed on disk since) is refused."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from api.content.catalog import load_catalog
from api.grading import stored
from api.grading.decider import IDLE_SECONDS, Sets
from api.grading.deciders import Deciders, Decision
from api.grading.grader import Grader, fingerprint
from api.grading.pool import GradingLost
from tests.support import REPO, in_process_grader, start_server, stop_server

CATALOG = load_catalog(REPO / "exercises")
SEED = 20261204


def _sources() -> list[tuple[str, str, str]]:
    """(slug, label, code) of every solution, starter and variant."""
    found = []
    for slug, exercise in CATALOG.items():
        found.append((slug, "solution", (REPO / "solutions" / f"{slug}.py").read_text()))
        found.append((slug, "starter", exercise.starter))
        for path in sorted((REPO / "exercises" / slug / "variants").glob("*.py")):
            found.append((slug, path.stem, path.read_text()))
    return found


@pytest.fixture(scope="module")
def graders() -> Iterator[tuple[Grader, Grader]]:
    """(deciding here, deciding in a decider), on one pool. One torch thread here, as in the
    service and in a decider: float64 sums over more threads round in another order."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    fingerprints = {slug: fingerprint(e.spec) for slug, e in CATALOG.items()}
    deciders = Deciders(1, REPO / "exercises", fingerprints)
    deciders.start()
    try:
        with in_process_grader(3, catalog=True) as here:
            beside = Grader(here.pool, time_limit=here.time_limit, deciders=deciders)
            # One turn for both, as in the one service: drawing cases builds modules from
            # torch's global generator, which a reference with dropout seeds and draws from;
            # two graders computing at once in this process would race on it.
            beside._turn = here._turn
            yield here, beside
    finally:
        deciders.close()
        torch.set_num_threads(threads)


def _said(grader: Grader, slug: str, code: str) -> str:
    """The verdict as the submission would keep it (decided here, or sent so by a decider),
    without its timings."""
    form = grader.grade_for_record(code, CATALOG[slug].spec, seed=SEED).timed({})
    return stored.encode(form).decode()


def test_a_decider_gives_the_verdict_the_service_gives(graders: tuple[Grader, Grader]) -> None:
    here, beside = graders
    sources = _sources()
    assert len(sources) > 600

    def both(item: tuple[str, str, str]) -> tuple[str, str, str]:
        slug, label, code = item
        return f"{slug}/{label}", _said(here, slug, code), _said(beside, slug, code)

    with ThreadPoolExecutor(3) as ex:
        results = list(ex.map(both, sources))
    differ = [name for name, a, b in results if a != b]
    assert not differ, f"{len(differ)} verdicts differ, first {differ[:5]}"
    statuses = {a.split('"status":"', 1)[1].split('"', 1)[0] for _, a, _ in results}
    assert {"passed", "failed", "rejected"} <= statuses  # the comparison covered every kind


def test_a_dead_decider_loses_its_verdict_and_is_started_again(
    graders: tuple[Grader, Grader], monkeypatch: pytest.MonkeyPatch
) -> None:
    _here, beside = graders
    deciders = beside.deciders
    assert deciders is not None
    spec = CATALOG["layer_norm"].spec
    solution = (REPO / "solutions" / "layer_norm.py").read_text()
    (pid,) = deciders.pids()
    opened = deciders.open

    def open_then_die(slug: str, seed: int, *, shared: bool) -> Decision:
        """The decider dies once it holds the verdict: while the child runs."""
        decision = opened(slug, seed, shared=shared)
        os.kill(pid, signal.SIGKILL)
        return decision

    monkeypatch.setattr(deciders, "open", open_then_die)
    with pytest.raises(GradingLost, match="decider"):
        beside.grade_for_record(solution, spec)
    monkeypatch.undo()
    restarts = deciders.restarts
    assert beside.grade_for_record(solution, spec).status == "passed"
    assert deciders.restarts == restarts + 1
    assert deciders.pids() != [pid] and deciders.running() == 1


def test_a_decider_that_loaded_other_exercises_is_refused() -> None:
    fingerprints = {"layer_norm": "0" * 64}
    deciders = Deciders(1, REPO / "exercises", fingerprints)
    with pytest.raises(RuntimeError, match="layer_norm"):
        deciders.start()
    assert deciders.pids() == []


def test_a_decider_holds_the_sets_the_service_would() -> None:
    """A newer shared set of an exercise gives the older one's mistakes' outcomes back (it may
    still serve a verdict in flight); a set unused for long goes; a private set is its own."""
    now = [100.0]
    sets = Sets({"layer_norm": CATALOG["layer_norm"].spec}, clock=lambda: now[0])
    first = sets.get("layer_norm", 1, True)
    assert first.outcomes is not None
    first.outcomes.keep(("a",), object(), 1000)
    assert first.outcomes.lookup(("a",))[0]
    second = sets.get("layer_norm", 2, True)
    assert not first.outcomes.lookup(("a",))[0]  # released, as the service retires a set
    assert sets.get("layer_norm", 1, True) is first  # still held for a verdict in flight
    private = sets.get("layer_norm", 2, False)
    assert private is not second and private.outcomes is None
    assert [c.name for c in private.cases] == [c.name for c in second.cases]
    now[0] += IDLE_SECONDS + 1
    sets.get("layer_norm", 3, True)
    assert len(sets) == 1
    with pytest.raises(LookupError, match="no_such"):
        sets.get("no_such", 1, True)


@pytest.mark.parametrize("deciders", [0, 1])
def test_over_http_either_way(deciders: int, tmp_path: Path) -> None:
    """The service deciding itself (ADDNORM_DECIDERS=0) and through a decider: a pass, a named
    mistake, and a lone surrogate the child printed (valid JSON, not UTF-8) all come back as
    verdicts, and /health says where verdicts are decided."""
    server = start_server(tmp_path, ADDNORM_DECIDERS=str(deciders))
    try:
        with server.client() as c:
            said = c.get("/health").json()["deciders"]
            assert said == {"processes": deciders, "running": deciders, "restarts": 0}
            token = server.new_learner("decided")
            c.headers["Authorization"] = f"Bearer {token}"
            solution = (REPO / "solutions" / "layer_norm.py").read_text()
            passed = c.post("/exercises/layer_norm/submissions", json={"code": solution})
            assert passed.status_code == 201 and passed.json()["verdict"] == "passed"
            mistake = (REPO / "exercises/layer_norm/variants/failed_no_eps.py").read_text()
            failed = c.post("/exercises/layer_norm/submissions", json={"code": mistake})
            assert failed.status_code == 201, failed.text[:300]
            assert failed.json()["verdict"] == "failed"
            assert failed.json()["diagnosis"]["name"] == "no_eps"
            printing = solution.replace(
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (..., dim)\n",
                "    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (..., dim)\n"
                "        print('\\ud800 lone')\n",
                1,
            )
            assert printing != solution
            odd = c.post("/exercises/layer_norm/submissions", json={"code": printing})
            assert odd.status_code == 201, odd.text[:300]
            assert "\ufffd lone" in odd.json()["stdout"]
    finally:
        stop_server(server)
