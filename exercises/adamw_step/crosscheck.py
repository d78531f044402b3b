"""The exercise written with ``torch.optim.AdamW`` itself, independently of ``spec.py``'s
reference: the case replayed from its first call up to the step asked for, on parameters
rebuilt from the first call's tensors, and every value the grader compares listed in the order
of its keys (each parameter's values and ``.grad`` after the call, as ``spec.Parameters``
records them; ``step`` and ``zero_grad`` return nothing)."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from api.grading.spec import Call, Case


def _optimiser(case: Case, first: Call, params: list[nn.Parameter]) -> torch.optim.AdamW:
    how = first.parameters
    assert how is not None
    kwargs: dict[str, Any] = dict(case.init_kwargs)
    if how.form == "groups":
        groups: list[dict[str, Any]] = []
        for g in how.groups:
            options = {k: tuple(v) if k == "betas" else v for k, v in g.options}
            groups.append({"params": [params[i] for i in g.params], **options})
        return torch.optim.AdamW(groups, **kwargs)
    return torch.optim.AdamW(params, **kwargs)


def expected_output(case: Case, functions: Any, step: Call) -> Any:
    del functions
    calls = [s for s in case.scenario if isinstance(s, Call)]
    upto = next(i for i, s in enumerate(calls) if s is step)
    params = [nn.Parameter(t.clone()) for t in calls[0].inputs]
    optimiser = _optimiser(case, calls[0], params)
    for call in calls[: upto + 1]:
        how = call.parameters
        assert how is not None
        if call.grad_outputs is not None:
            for i, p in enumerate(params):
                p.grad = None if i in how.no_grad else call.grad_outputs[i].clone()
        if call.function == "zero_grad":
            optimiser.zero_grad()
        else:
            optimiser.step()
    how = step.parameters
    assert how is not None
    found: dict[str, torch.Tensor] = {}
    for name, p in zip(how.names, params, strict=True):
        found[f"output.{name}"] = p.detach().clone()
        found[f"output.{name}.grad"] = p.grad.clone() if p.grad is not None else torch.zeros_like(p)
    return tuple(found[key] for key in sorted(found))
