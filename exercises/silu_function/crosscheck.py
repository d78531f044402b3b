"""The exercise's function written with torch's own ops, independently of ``spec.py``'s
reference (``F.silu``): the in-process tests compare the two on every call of every case."""

from __future__ import annotations

from typing import Any

import torch

from api.grading.spec import Call, Case


def expected_output(case: Case, module: Any, step: Call) -> torch.Tensor:
    x = step.inputs[0]
    xf = x.double()
    return (xf * torch.sigmoid(xf)).to(x.dtype)
