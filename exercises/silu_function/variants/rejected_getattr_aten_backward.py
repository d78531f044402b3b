# expect: rejected
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        # The fused derivative kernel, looked up by a name the source never spells out.
        (x,) = ctx.saved_tensors
        kernel = getattr(torch.ops.aten, "_".join(["silu", "backward"]))
        return kernel(grad_output, x)
