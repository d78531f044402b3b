"""Worked solution for ``checkpointed_ffn``: an FFN whose activations are recomputed in
backward, by hand (what torch.utils.checkpoint does, without it).

The forward runs inside a custom autograd.Function, where autograd records nothing: the only
tensors kept for backward are the input and the parameters. Backward rebuilds the graph of
the FFN from them with grad mode on and differentiates it with the upstream gradient.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn


def _ffn(
    x: torch.Tensor, w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor, b2: torch.Tensor
) -> torch.Tensor:
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


class _Recompute(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, *params: torch.Tensor) -> torch.Tensor:
        # Inside forward autograd records nothing: the (N, hidden) activations are freed as
        # soon as this returns. Keep only what the recomputation starts from.
        ctx.save_for_backward(x, *params)
        return _ffn(x, *params)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        x, *params = ctx.saved_tensors
        with torch.enable_grad():
            # Fresh leaves: the recomputed graph starts here and is freed after this call.
            leaves = [t.detach().requires_grad_(True) for t in (x, *params)]
            out = _ffn(*leaves)  # the same function as forward, recorded this time
            grads = torch.autograd.grad(out, leaves, grad)  # the upstream gradient, passed on
        return tuple(grads)  # one per input of forward: x, w1, b1, w2, b2


class CheckpointedFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden_dim)
        self.linear2 = nn.Linear(hidden_dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b = self.linear1, self.linear2
        out: torch.Tensor = _Recompute.apply(x, a.weight, a.bias, b.weight, b.bias)  # type: ignore[no-untyped-call]
        return out
