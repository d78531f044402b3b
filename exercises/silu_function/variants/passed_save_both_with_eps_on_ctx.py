# expect: passed
from typing import Any

import torch


class SiLUFunction(torch.autograd.Function):
    """Saves x and sigmoid(x) (memory for one sigmoid less in backward); a plain number on ctx
    is fine, only tensors belong in save_for_backward."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        wide = x.dtype in (torch.float16, torch.bfloat16)
        xf = x.float() if wide else x
        s = torch.sigmoid(xf)
        ctx.save_for_backward(xf, s)
        ctx.out_dtype = x.dtype
        return (xf * s).to(x.dtype)

    @staticmethod
    def backward(ctx: Any, grad_output: torch.Tensor) -> torch.Tensor:
        xf, s = ctx.saved_tensors
        return (grad_output.to(s.dtype) * (s + xf * s * (1 - s))).to(ctx.out_dtype)
