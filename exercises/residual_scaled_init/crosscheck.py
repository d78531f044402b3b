"""The exercise written with ``torch.nn.init``, independently of ``spec.py``'s reference (which
walks the modules): the same model rebuilt from the call's tensors (laid out as the harness
lays them out), the generator seeded as the grader seeds it before the call, and every
parameter drawn in ``named_parameters`` order by its name: ``c_proj.weight`` at
std / sqrt(2 n_layers), other matrices at std, LayerNorm weights 1, the rest 0. Every value
the grader compares, in the order of its keys (each parameter's values and ``.grad``)."""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from api.grading import handed_models
from api.grading.harness import laid_out
from api.grading.spec import Call, Case


def expected_output(case: Case, functions: Any, step: Call) -> Any:
    del functions
    how = step.parameters
    assert how is not None and how.model is not None
    params = [
        nn.Parameter(laid_out(t.clone(), step.layout if i == 0 else "contiguous"))
        for i, t in enumerate(step.inputs)
    ]
    for i, p in enumerate(params):
        if step.grad_outputs is not None:
            p.grad = step.grad_outputs[i].clone()
    model = handed_models.hand(how.model, how.names, params)
    n_layers = int(case.init_kwargs["n_layers"])
    std = float(case.init_kwargs.get("std", 0.02))
    torch.default_generator.manual_seed(step.seed)  # what the harness does before each call
    for name, p in model.named_parameters():
        if p.dim() == 2:
            scale = 1 / math.sqrt(2 * n_layers) if name.endswith("c_proj.weight") else 1.0
            nn.init.normal_(p, mean=0.0, std=std * scale)
        elif ".ln_" in name or name.startswith("ln_f"):
            nn.init.constant_(p, 1.0 if name.endswith("weight") else 0.0)
        else:
            nn.init.zeros_(p)
    found: dict[str, torch.Tensor] = {}
    for name, p in model.named_parameters():
        found[f"output.{name}"] = p.detach()
        found[f"output.{name}.grad"] = p.grad if p.grad is not None else torch.zeros_like(p)
    return tuple(found[key] for key in sorted(found))
