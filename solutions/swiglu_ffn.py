"""SwiGLU feed-forward block from scratch: y = w2(silu(w1(x)) * w3(x)).

The FFN is where each token "thinks" on its own after attention mixed information between
tokens. SwiGLU (Shazeer, 2020; Llama, Mistral, PaLM) replaces up-projection -> ReLU -> down-
projection with a *gated* up-projection: one branch (w1) goes through SiLU and gates the other,
linear branch (w3) element-wise before the down-projection (w2).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        # No biases, as in Llama: the norms around the block already provide the shifts.
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate projection
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down projection
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up projection

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # nn.Linear acts on the last dim, so any leading shape (tokens, batch, ...) works.
        # silu(z) = z * sigmoid(z) goes on the gate only; the up branch stays linear, and
        # the product is what makes it a GLU.
        gate = F.silu(self.w1(x))
        up = self.w3(x)
        out: torch.Tensor = self.w2(gate * up)
        return out
