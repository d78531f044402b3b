"""The exercise's function written with torch's own ops, independently of ``spec.py``'s
reference: the in-process tests compare the two on every call of every case."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.spec import Call, Case


def expected_output(case: Case, module: nn.Module, step: Call) -> torch.Tensor:
    x = step.inputs[0]
    p = {k: v.to(x.dtype) for k, v in module.named_parameters()}
    z = F.linear(x, p["w1.weight"])
    activation = case.init_kwargs.get("activation", "swish")
    if activation == "swish":
        gate = z * torch.sigmoid(z)
    elif activation == "gelu":
        gate = 0.5 * z * (1 + torch.erf(z * 0.5**0.5))
    else:
        gate = torch.clamp(z, min=0)
    return F.linear(gate * F.linear(x, p["w3.weight"]), p["w2.weight"])
