# expect: failed mistake=gelu_tanh_approximation
"""The worked solution with the known mistake `gelu_tanh_approximation`."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn


def silu(z: torch.Tensor) -> torch.Tensor:
    return z * torch.sigmoid(z)


def gelu(z: torch.Tensor) -> torch.Tensor:
    return 0.5 * z * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z**3)))


def relu(z: torch.Tensor) -> torch.Tensor:
    return z.clamp_min(0.0)


GATES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "swish": silu,
    "gelu": gelu,
    "relu": relu,
}


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
        if activation not in GATES:
            raise ValueError(f"activation must be one of {sorted(GATES)}, got {activation!r}")
        if hidden_dim is None:
            hidden_dim = llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)
        self.gate = GATES[activation]
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.gate(self.w1(x)) * self.w3(x)
        out: torch.Tensor = self.w2(h)
        return out
