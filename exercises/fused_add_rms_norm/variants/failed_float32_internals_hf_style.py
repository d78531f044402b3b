# expect: failed mistake=float32_internals class=float32_internals
"""Wrong here: Hugging Face's LlamaRMSNorm as it is, float32 for every input, float64 too; the
prompt asks float64 to be computed in float64."""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    hidden_states = residual + x
    new_residual = hidden_states
    input_dtype = hidden_states.dtype
    hidden_states = hidden_states.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states / torch.sqrt(variance + eps)
    return weight * hidden_states.to(input_dtype), new_residual
