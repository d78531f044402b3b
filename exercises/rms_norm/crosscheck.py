"""The exercise's function written with torch's own ops, independently of ``spec.py``'s
reference: the in-process tests compare the two on every call of every case."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.spec import Call, Case


def expected_output(case: Case, module: nn.Module, step: Call) -> torch.Tensor:
    p = dict(module.named_parameters())
    x = step.inputs[0]
    eps = float(case.init_kwargs.get("eps", 1e-6))
    return F.rms_norm(x, (x.shape[-1],), p["weight"].to(x.dtype), eps)
