"""The verdict reads the child's answer as hostile data: forged or malformed answers give a
``failed`` or ``crashed`` verdict of bounded size, never an exception (a 5xx over HTTP).

In-process: the answers are forged frames handed straight to ``verdict.decide``, which is
exactly what the parent does with the bytes a slot server relays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from api.content.catalog import load_catalog
from api.grading import verdict, wire
from api.grading.spec import Case, ExerciseSpec
from tests.support import REPO

CATALOG = load_catalog(REPO / "exercises")
SLUGS = list(CATALOG)
LONG = "x" * 100_000


def _cases(spec: ExerciseSpec) -> list[Case]:
    return spec.make_cases(torch.Generator().manual_seed(5))


def _decide(spec: ExerciseSpec, cases: list[Case], body: bytes) -> verdict.Verdict:
    return verdict.decide(
        spec, cases, body=body, timed_out=False, truncated=False, signal=None, time_limit=5.0
    )


def _huge_names(cases: list[Case]) -> dict[str, Any]:
    names = {f"{LONG[:300]}{i}": [1 << 60, -5, 3] for i in range(1000)}
    return {"cases": [{"name": c.name, "parameters": names, "buffers": names} for c in cases]}


def _long_errors(cases: list[Case]) -> dict[str, Any]:
    return {
        "cases": [
            {"name": c.name, "error": {"type": LONG, "message": LONG, "line": LONG}, "step": 10**9}
            for c in cases
        ],
        "stdout": LONG,
        "stderr": LONG,
    }


def _wrong_types(cases: list[Case]) -> dict[str, Any]:
    return {
        "cases": [
            {
                "name": c.name,
                "parameters": "all of them",
                "buffers": [1, 2],
                "missing": {"a": 1},
                "calls": ["x"] * 5000,
                "notes": LONG,
                "loaded": "yes",
            }
            for c in cases
        ],
        "banned_calls": {"torch.nn.LayerNorm": True},
        "load_error": None,
    }


def _lying_counts(cases: list[Case]) -> dict[str, Any]:
    # Sized to pass the frame's bounds (wire.MAX_HEADER, MAX_NODES), so that the verdict reads
    # the lies themselves: negative call counts, missing names and notes by the hundred. (At
    # 1,000 strings of 100,000 characters per case it was a frame of gigabytes, refused by its
    # header length before a field was read, and took 10-50 s per exercise to build;
    # test_an_oversized_header_is_refused covers that refusal.)
    per_case = max(10, min(1000, 3_000 // len(cases)))
    entries = []
    for c in cases:
        entries.append(
            {
                "name": c.name,
                "parameters": {},
                "buffers": {},
                "missing": [LONG[:100]] * per_case,
                "calls": {f"{k}.sublayer": -(10**18) for k in range(per_case)},
                "notes": {f"{k}.output_type": LONG[:100] for k in range(per_case)},
            }
        )
    return {"cases": entries, "not_a_module": LONG}


FORGERIES: dict[str, Callable[[list[Case]], dict[str, Any]]] = {
    "huge_names": _huge_names,
    "long_errors": _long_errors,
    "wrong_types": _wrong_types,
    "lying_counts": _lying_counts,
}


@pytest.mark.parametrize("forgery", list(FORGERIES))
@pytest.mark.parametrize("slug", SLUGS)
def test_forged_answer_gives_a_bounded_verdict(slug: str, forgery: str) -> None:
    spec = CATALOG[slug].spec
    cases = _cases(spec)
    body = wire.encode(FORGERIES[forgery](cases), {})
    if forgery == "lying_counts":
        wire.split(body)  # within the frame's bounds: the verdict reads every lie
    result = _decide(spec, cases, body)
    assert result.status in {"failed", "error", "crashed"}, result.message
    assert len(result.model_dump_json()) < verdict.MAX_VERDICT_BYTES


def test_an_oversized_header_is_refused() -> None:
    """A header over wire.MAX_HEADER is refused by its length, before it is parsed."""
    spec = CATALOG[SLUGS[0]].spec
    cases = _cases(spec)
    body = wire.encode({"cases": [], "stdout": "x" * (wire.MAX_HEADER + 1)}, {})
    with pytest.raises(wire.WireError, match="header length out of range"):
        wire.split(body)
    result = _decide(spec, cases, body)
    assert result.status == "crashed", result.message
    assert len(result.model_dump_json()) < verdict.MAX_VERDICT_BYTES


@pytest.mark.parametrize("slug", SLUGS)
def test_tensors_of_the_wrong_shape_and_dtype_fail(slug: str) -> None:
    """Outputs, gradients and buffers under the right keys but of any shape or dtype."""
    spec = CATALOG[slug].spec
    cases = _cases(spec)
    tensors: dict[str, torch.Tensor] = {}
    entries = []
    for i, c in enumerate(cases):
        expected = verdict.expected_outcome(spec.reference, c, spec)
        for key, t in expected.native.tensors.items():
            forged = torch.zeros(3, dtype=torch.int64) if i % 2 else torch.ones_like(t).bool()
            tensors[f"{i}.{key}"] = forged
        entries.append(
            {
                "name": c.name,
                "parameters": expected.native.parameters,
                "buffers": expected.native.buffers,
            }
        )
    result = _decide(spec, cases, wire.encode({"cases": entries}, tensors))
    assert result.status == "failed", result.message
    assert len(result.model_dump_json()) < verdict.MAX_VERDICT_BYTES


def test_malformed_frame_is_a_crash_with_a_plain_message() -> None:
    spec = CATALOG[SLUGS[0]].spec
    cases = _cases(spec)
    result = _decide(spec, cases, b"\x00\x00\x00\x05{not json")
    assert result.status == "crashed"
    assert "ended the process before it answered" in result.message
