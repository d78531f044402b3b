"""Worked solution for ``adamw_step``: AdamW from scratch, with parameter groups.

Adam keeps, per parameter, running averages of the gradient (m) and of its square (v), and
steps by m / sqrt(v): about lr per parameter whatever the gradient's scale. Both averages start
at 0, so they are divided by 1 - beta^t (t the parameter's own count of updates) to remove the
bias towards 0. AdamW's weight decay is decoupled from that step: the weight is shrunk by
lr * weight_decay directly, so every weight decays at the same relative rate, instead of having
its decay term divided by sqrt(v) as L2 regularisation inside Adam would be.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import torch


class AdamW:
    def __init__(
        self,
        params: Iterable[torch.Tensor] | Iterable[dict[str, Any]],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
    ) -> None:
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay}
        given: list[Any] = list(params)  # read once: model.parameters() is a generator
        groups = given if given and isinstance(given[0], dict) else [{"params": given}]
        # Each group keeps its own options; what it leaves out takes the constructor's.
        self.param_groups: list[dict[str, Any]] = [
            {**defaults, **group, "params": list(group["params"])} for group in groups
        ]
        self.state: dict[torch.Tensor, dict[str, Any]] = {}

    def zero_grad(self) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue  # frozen or unused this step: no decay, no moments, no count
                grad = p.grad
                state = self.state.setdefault(p, {})
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t = state["step"]
                m, v = state["exp_avg"], state["exp_avg_sq"]
                # Decoupled weight decay: on the weight, not in the gradient.
                p.mul_(1 - lr * wd)
                m.mul_(beta1).add_(grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                # Bias correction; eps outside the square root.
                denom = (v.sqrt() / math.sqrt(1 - beta2**t)).add_(eps)
                p.addcdiv_(m, denom, value=-lr / (1 - beta1**t))
