"""SwiGLU feed-forward block from scratch: y = w2(silu(w1(x)) * w3(x)).

After attention has mixed information between tokens, the FFN transforms each token on its own.
SwiGLU (Shazeer 2020, "GLU Variants Improve Transformer"; used by PaLM, Llama, Mistral) replaces
up-projection -> ReLU -> down-projection with a *gated* up-projection: one branch (w1) goes
through SiLU and multiplies the other, linear branch (w3) element-wise, so each hidden feature
is switched and scaled by a gate computed from the same token, before the down-projection (w2).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        # No biases, as in PaLM and Llama. PaLM's stated reason is training stability for large
        # models; it also saves parameters. (It is not that a norm supplies the shift: the
        # RMSNorm before the block has no bias at all.)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate projection, weight (hidden, dim)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down projection, weight (dim, hidden)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up projection, weight (hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (..., dim)
        # nn.Linear acts on the last dim, so any leading shape (tokens, batch, ...) works.
        # silu(z) = z * sigmoid(z) goes on the gate only; the up branch stays linear, and
        # their product is what makes it a GLU.
        gate = F.silu(self.w1(x))  # (..., hidden)
        up = self.w3(x)  # (..., hidden)
        out: torch.Tensor = self.w2(gate * up)  # (..., dim)
        return out
