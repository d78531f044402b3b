# expect: passed
"""Correct: einsum on the weights, F.gelu/F.silu/F.relu looked up by name, ceil by math."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

_ACTS = {"swish": F.silu, "gelu": F.gelu, "relu": F.relu}


def llama_hidden_dim(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden_dim = 4 * dim
    hidden_dim = int(2 * hidden_dim / 3)
    if ffn_dim_multiplier is not None:
        hidden_dim = int(ffn_dim_multiplier * hidden_dim)
    return math.ceil(hidden_dim / multiple_of) * multiple_of


class GLUFFN(nn.Module):
    def __init__(
        self,
        dim: int,
        hidden_dim: int | None = None,
        activation: str = "swish",
        multiple_of: int = 256,
        ffn_dim_multiplier: float | None = None,
    ) -> None:
        super().__init__()
        if activation not in _ACTS:
            raise ValueError(f"activation {activation!r} is not one of {list(_ACTS)}")
        self.act = _ACTS[activation]
        if hidden_dim is None:
            hidden_dim = llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = torch.einsum("...d,hd->...h", x, self.w1.weight)
        up = torch.einsum("...d,hd->...h", x, self.w3.weight)
        return torch.einsum("...h,dh->...d", self.act(gate) * up, self.w2.weight)
