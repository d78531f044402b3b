# expect: failed mistake=outputs_swapped
"""Known mistake `outputs_swapped`: the tuple is built stream first, (residual, hidden)."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    stream = torch.add(residual, x)
    f = stream.float() if stream.dtype in (torch.float16, torch.bfloat16) else stream
    inv = (f.square().sum(-1, keepdim=True) / f.shape[-1] + eps).rsqrt()
    out = (stream, (f * inv).to(stream.dtype) * weight)
    return out
