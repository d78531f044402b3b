"""The exercise's function written with torch's own ops, independently of ``spec.py``'s
reference: the in-process tests compare the two on every call of every case."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.spec import Call, Case


def expected_output(case: Case, module: nn.Module, step: Call) -> torch.Tensor:
    del case
    p = {k: v.to(step.inputs[0].dtype) for k, v in module.named_parameters()}
    x = step.inputs[0]
    return F.linear(
        F.silu(F.linear(x, p["w1.weight"])) * F.linear(x, p["w3.weight"]), p["w2.weight"]
    )
