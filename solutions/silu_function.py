"""SiLU (Swish with beta = 1) as a custom autograd.Function with a hand-written backward.

forward:  y = x * s, with s = sigmoid(x)
backward: dy/dx = s + x * s * (1 - s) = s * (1 + x * (1 - s))   (product rule, and
          sigmoid' = s * (1 - s)), so grad_x = grad_output * s * (1 + x * (1 - s)).

What to save: the input x alone. sigmoid(x) is recomputed in backward (one cheap elementwise
op) instead of being kept alive from forward to backward (one more activation-sized tensor
per call, the memory that dominates training). Saving the output y would not do: x cannot be
recovered from y cheaply.
"""

from __future__ import annotations

from typing import Any

import torch

_HALF_DTYPES = (torch.float16, torch.bfloat16)


def _wide(t: torch.Tensor) -> torch.Tensor:
    # Half precision: 1 - s cancels for large x, and the product of four rounded factors drifts;
    # compute in float32 and round once, as PyTorch's own kernels do.
    return t.float() if t.dtype in _HALF_DTYPES else t


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        # save_for_backward, not ctx.x = x: autograd then checks that x was not modified in
        # place before backward, frees it with the graph, and lets saved-tensor hooks
        # (offloading, checkpointing) see it.
        ctx.save_for_backward(x)
        xf = _wide(x)
        # torch.sigmoid is stable at both ends; exp(x) / (1 + exp(x)) is inf / inf above 88.7.
        return (xf * torch.sigmoid(xf)).to(x.dtype)  # same shape and dtype as x

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        xf = _wide(x)
        s = torch.sigmoid(xf)
        # Chain rule: the local derivative times the gradient flowing in from above.
        grad_x = _wide(grad_output) * s * (1.0 + xf * (1.0 - s))
        return grad_x.to(x.dtype)  # one gradient per forward input, in x's dtype
