"""A module case may call another method of the same instance between forwards
(``Call.function`` on a module: a KV cache's ``reset()``): the harness calls it with nothing,
records the buffers after it, and a cache of another shape is named by the mistake whose
buffers have that shape (``diagnosis._structural_match``)."""

from __future__ import annotations

import torch

from api.grading import harness
from api.grading.diagnosis import _structural_match
from api.grading.spec import Call
from exercises.kv_cache_attention.spec import SPEC, CacheRepeatsKvHeads, ResetKeepsCache


def _reset_case() -> tuple[int, object]:
    case = next(
        c
        for c in SPEC.make_cases(torch.Generator().manual_seed(0))
        if c.name == "reset_new_sequence_f64"
    )
    k = next(i for i, s in enumerate(case.scenario) if isinstance(s, Call) and s.function)
    return k, case


def test_a_reset_step_records_buffers_and_no_output() -> None:
    k, case = _reset_case()
    for build, cleared in ((SPEC.reference, True), (ResetKeepsCache, False)):
        outcome = harness.Outcome()
        harness.run_case(harness.instantiate(build, case), case, outcome)  # type: ignore[arg-type]
        assert not any(key.startswith(f"{k}.output") for key in outcome.tensors)
        after = outcome.tensors[f"{k}.buffer.cache_k"]
        assert bool((after == 0).all()) is cleared
        assert bool(outcome.tensors[f"{k - 1}.buffer.cache_k"].abs().sum() > 0)


def test_a_cache_of_repeated_heads_is_named_by_its_buffers() -> None:
    _, case = _reset_case()
    module = harness.instantiate(CacheRepeatsKvHeads, case).module  # type: ignore[arg-type]
    assert module is not None
    params = {n: list(p.shape) for n, p in module.named_parameters()}
    buffers = {n: list(b.shape) for n, b in module.named_buffers()}
    found = _structural_match(SPEC, case, params, buffers)  # type: ignore[arg-type]
    assert found is not None and found[0].name == "cache_repeats_kv_heads"
