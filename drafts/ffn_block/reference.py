"""Reference, banned built-ins and edge cases for ``ffn_block`` (draft, platform-independent).

The LLaMA FFN half-layer, y = x + ffn(norm(x)), with norm an RMSNorm (weight only) and ffn a
bias-free SwiGLU. The reference is built from nn.RMSNorm and F.silu; the learner writes both
pieces themselves (their own RMSNorm and SwiGLU classes, or the ones from the earlier
exercises), so the norm built-ins are banned.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    return F.linear(x, layer.weight, layer.bias)


class SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, F.silu(_lin(self.w1, x)) * _lin(self.w3, x))


class FFNBlock(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.norm = nn.RMSNorm(dim, eps=eps)
        self.ffn = SwiGLU(dim, hidden_dim)

    def normed(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.norm(x)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = x + self.ffn(self.normed(x))
        return out


# The whole-norm built-ins: the norm is the learner's own. nn.Linear and F.silu are allowed.
BANNED = (
    "torch.nn.RMSNorm",
    "torch.nn.functional.rms_norm",
    "torch.rms_norm",
    "torch.nn.LayerNorm",
    "torch.nn.functional.layer_norm",
    "torch.layer_norm",
)

# The tolerance: an RMSNorm that computes in float32 and casts back (LLaMA's `_norm(x.float())
# .type_as(x)`) is correct, so float64 cases are compared at float32-level tolerance.
TOLERANCE_F64 = (2e-5, 2e-6)

EDGE_CASES = {
    "random norm weight and ffn weights": "norm weight ignored, (1 + weight) offset",
    "default construction: norm.weight is ones": "zero-initialised weight with a (1 + w) offset",
    "tiny inputs (1e-4 * N(0,1)), default eps": "eps 1e-5 instead of 1e-6, eps outside the sqrt",
    "large offset (x + 5)": "mean-centring (LayerNorm) instead of RMS",
    "square input (n == dim)": "mean without keepdim broadcasting over the wrong axis",
    "4-D, leading 1, transposed, odd dims": "statistics over the wrong dims, .view on a view",
    "train, backward, update, call again": "a norm weight folded into w1 once and cached",
}
