# expect: failed mistake=float32_internals
"""Wrong here: the mean square in float32 (a float32 accumulator for every dtype), the rest in
the input's dtype."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    hidden_states = residual + x
    new_residual = hidden_states
    input_dtype = hidden_states.dtype
    variance = hidden_states.float().pow(2).mean(-1, keepdim=True)  # float32 for every dtype
    if input_dtype != torch.float64:
        hidden_states = hidden_states.to(torch.float32)
    hidden_states = hidden_states / torch.sqrt(variance.to(hidden_states.dtype) + eps)
    return weight * hidden_states.to(input_dtype), new_residual
