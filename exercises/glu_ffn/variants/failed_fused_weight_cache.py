# expect: failed class=state_across_calls
"""Wrong (state across calls): [w1; w3] fused once, on the first call, and reused after updates."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def llama_hidden_dim(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


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
        gates = {"swish": F.silu, "gelu": F.gelu, "relu": F.relu}
        if activation not in gates:
            raise ValueError(activation)
        self.act = gates[activation]
        if hidden_dim is None:
            hidden_dim = llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)
        self.fused: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.fused is None:
            self.fused = torch.cat([self.w1.weight, self.w3.weight]).detach()
        gate, up = F.linear(x, self.fused).chunk(2, dim=-1)
        return F.linear(self.act(gate) * up, self.w2.weight)
