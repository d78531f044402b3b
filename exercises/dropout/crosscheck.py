"""The exercise's module written with torch's own ops, independently of ``spec.py``'s reference
(``F.dropout``): ``nn.Dropout(p)`` in the module's mode, on the generator seeded as the grader
seeds it before the call. The in-process tests compare the two on every call of every case."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from api.grading.harness import laid_out
from api.grading.spec import Call, Case


def expected_output(case: Case, module: Any, step: Call) -> torch.Tensor:
    # The mask is drawn in the input's memory order (empty_like keeps its strides), so the
    # input is laid out as the harness lays it out.
    x = laid_out(step.inputs[0], step.layout)
    layer = nn.Dropout(float(case.init_kwargs.get("p", 0.5)))
    layer.train(bool(module.training))
    torch.default_generator.manual_seed(step.seed)  # what the harness does before each call
    out: torch.Tensor = layer(x)
    return out
