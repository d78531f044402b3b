"""The exercise's schedule computed independently of ``spec.py``'s reference: each integer step
in the decay read off a real ``torch.optim.SGD`` driven by ``CosineAnnealingLR`` (base rate 1,
``eta_min = min_ratio``, ``T_max = total_steps - warmup_steps``), so the learning rate PyTorch's
own scheduler sets is the multiplier; fractional steps and the warm-up from the textbook formula
in Python floats; every step at or past ``total_steps`` the floor (where ``CosineAnnealingLR``
itself would climb back, the contract clamps)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

from api.grading.spec import Call, Case


def _arguments(case: Case, step: Call) -> tuple[int, int, float]:
    given: list[Any] = list(step.args)
    names = ("warmup_steps", "total_steps", "min_ratio")
    values = [*given, *(case.init_kwargs.get(n) for n in names[len(given) :])]
    warmup, total, floor = values
    return int(warmup), int(total), 0.0 if floor is None else float(floor)


def _annealed(decay_steps: int, floor: float) -> list[float]:
    """The learning rate SGD holds after k scheduler steps, k = 0 .. decay_steps."""
    param = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([param], lr=1.0)
    sched = CosineAnnealingLR(opt, T_max=decay_steps, eta_min=floor)
    rates = []
    with warnings.catch_warnings():
        # sched.step() before any opt.step(): the order warning is about training, not this.
        warnings.simplefilter("ignore")
        for _ in range(decay_steps + 1):
            rates.append(float(opt.param_groups[0]["lr"]))
            sched.step()
    return rates


def expected_output(case: Case, functions: Any, step: Call) -> torch.Tensor:
    del functions  # the contract is the schedule, not the learner's function
    warmup, total, floor = _arguments(case, step)
    steps = step.inputs[0]
    rates = _annealed(total - warmup, floor)
    out = []
    for s in steps.double().reshape(-1).tolist():
        if s < warmup:
            out.append(s / warmup)
        elif s >= total:
            out.append(floor)
        elif s == int(s):
            out.append(rates[int(s) - warmup])
        else:
            p = (s - warmup) / (total - warmup)
            out.append(floor + (1.0 - floor) * (1.0 + math.cos(math.pi * p)) / 2.0)
    return torch.tensor(out, dtype=torch.float64).reshape(steps.shape).to(steps.dtype)
