"""The exercise's function written with torch's own ops, independently of ``spec.py``'s
reference: torch's ONNX ``RotaryEmbedding`` operator (``torch.onnx.ops.rotary_embedding``,
``interleaved=False``: the rotate-half layout) fed a cos/sin table indexed by the positions.
The angles are the contract's (``base ** (-2i / head_dim)`` times the position), computed at the
case's working precision (float64 for float64 input, float32 otherwise)."""

from __future__ import annotations

from typing import Any

import torch
import torch.onnx.ops

from api.grading.spec import Call, Case


def expected_output(case: Case, function: Any, step: Call) -> torch.Tensor:
    del function  # the contract is torch's operator, not the learner's function
    x, positions = step.inputs
    base = float(case.init_kwargs.get("base", 10000.0))
    work = torch.float64 if x.dtype == torch.float64 else torch.float32
    d = x.shape[-1]
    table = torch.arange(int(positions.max()) + 1, dtype=work)[:, None] * (
        base ** (-(torch.arange(0, d, 2, dtype=work) / d))
    )
    ids = positions.long()[None, :].expand(x.shape[0], -1)
    out = torch.onnx.ops.rotary_embedding(
        x.to(work), table.cos(), table.sin(), ids, interleaved=False
    )
    return out.to(x.dtype)
