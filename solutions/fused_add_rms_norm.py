"""Fused residual add + RMSNorm from scratch: (normed, new_residual) = (rms(x + r) * w, x + r).

Between two half-layers the stream update `h = residual + x` and the next block's
`norm(h)` read and write the same (tokens, dim) tensor; inference engines do both in one pass
and hand back both results: the new stream (for the next add) and its normalised copy (for
the next branch).
"""

from __future__ import annotations

import torch


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    # x, residual: (..., dim), weight: (dim,). Out of place: the caller's tensors are untouched.
    new_residual = x + residual  # (..., dim), the stream the next add builds on
    # Statistics in float32 for half inputs: a float16 square overflows beyond |v| = 255.9, and
    # bfloat16 keeps only 8 bits of mantissa for the mean. float64 stays float64.
    compute = torch.float32 if new_residual.dtype in (torch.float16, torch.bfloat16) else None
    h = new_residual if compute is None else new_residual.to(compute)
    inv_rms = torch.rsqrt(h.pow(2).mean(dim=-1, keepdim=True) + eps)  # (..., 1)
    # Normalise the *sum*, the stream as it now is, cast back, then apply the gain.
    normed = (h * inv_rms).to(new_residual.dtype) * weight  # (..., dim)
    return normed, new_residual
