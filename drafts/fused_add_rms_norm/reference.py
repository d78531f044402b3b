"""Reference, banned built-ins and edge cases for ``fused_add_rms_norm`` (draft).

The form inference engines use between two half-layers: add the branch output x to the
residual stream, keep the sum as the new stream, and return its RMSNorm as the next branch's
input. The reference uses F.rms_norm, in float32 for half-precision inputs (as vLLM's and
Hugging Face's RMSNorm do), and returns both results in the input dtype.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

HALF = (torch.float16, torch.bfloat16)


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    new_residual = x + residual
    if new_residual.dtype in HALF:
        stats = F.rms_norm(new_residual.float(), new_residual.shape[-1:], eps=eps)
        normed = stats.to(new_residual.dtype) * weight
    else:
        normed = F.rms_norm(new_residual, new_residual.shape[-1:], weight, eps)
    return normed, new_residual


BANNED = (
    "torch.nn.RMSNorm",
    "torch.nn.functional.rms_norm",
    "torch.rms_norm",
    "torch.nn.LayerNorm",
    "torch.nn.functional.layer_norm",
    "torch.layer_norm",
)

# Half precision: one or two roundings of the output in the input dtype either way.
TOLERANCE_HALF = {torch.float16: (5e-3, 2e-3), torch.bfloat16: (2e-2, 1e-2)}

EDGE_CASES = {
    "x and residual of different scales": "normalising x (or the residual) instead of the sum",
    "backward from both outputs": "the returned residual detached, or the old one returned",
    "forward under no_grad, inputs compared after": "residual updated in place (vLLM's kernel)",
    "tiny sums (1e-4 scale)": "eps outside the sqrt",
    "random weight": "weight not applied",
    "float16 with |x + residual| ~ 300": "squares computed in float16 overflow to inf",
    "bfloat16, 1-D to 4-D, dim 1 to 4096": "statistics over the wrong dims, dtype leaks",
}
