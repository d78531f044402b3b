# expect: failed mistake=unstable_sigmoid
from typing import Any

import torch


def _sigmoid(x: torch.Tensor) -> torch.Tensor:
    e = x.exp()
    return e.div(e.add(1))


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * _sigmoid(x)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors
        s = _sigmoid(x)
        return grad_output * (s + x * s * (1 - s))
