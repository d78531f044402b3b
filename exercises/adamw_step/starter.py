from __future__ import annotations

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
        # params: tensors, or parameter groups (dicts with "params" and their own lr,
        # weight_decay, betas, eps). Keep the groups, with the defaults filled in, and one
        # state per parameter (its step count and the two moments).
        self.param_groups: list[dict[str, Any]] = []
        self.state: dict[torch.Tensor, dict[str, Any]] = {}

    def zero_grad(self) -> None:
        # Set every parameter's .grad to None.
        raise NotImplementedError("implement zero_grad")

    @torch.no_grad()
    def step(self) -> None:
        # For each parameter with a gradient: decoupled decay p *= 1 - lr * wd, the moments,
        # the bias correction with the parameter's own step count, then
        # p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
        raise NotImplementedError("implement step")
