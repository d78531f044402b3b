"""The exercise's function written with torch's own ops, independently of ``spec.py``'s
reference: the in-process tests compare the two on every call of every case."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.spec import Call, Case


def expected_output(case: Case, module: nn.Module, step: Call) -> torch.Tensor:
    approximate = str(case.init_kwargs.get("approximate", "none"))
    return F.gelu(step.inputs[0], approximate=approximate)
