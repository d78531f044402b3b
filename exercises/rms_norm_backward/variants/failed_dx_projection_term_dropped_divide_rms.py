# expect: failed mistake=dx_projection_term_dropped
"""Wrong: saves the RMS and divides by it: dx = dy * weight / rms, as if the RMS did not depend
on x."""

from __future__ import annotations

from typing import Any

import torch


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        rms = torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        ctx.save_for_backward(x, rms, weight)
        return x / rms * weight

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        x, rms, weight = ctx.saved_tensors
        d = x.shape[-1]
        dx = dy * weight / rms  # d(x / rms)/dx with rms treated as a constant
        dweight = (dy * x / rms).reshape(-1, d).sum(0)
        return dx, dweight, None
