# expect: failed finding=no_raise
"""Wrong: an unknown gate name quietly becomes SwiGLU, the default."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn


def silu(z: torch.Tensor) -> torch.Tensor:
    # Swish with beta = 1: the input times its own sigmoid gate.
    return z * torch.sigmoid(z)


def gelu(z: torch.Tensor) -> torch.Tensor:
    # Exact GELU z * Phi(z); the tanh formula is an approximation.
    return 0.5 * z * (1.0 + torch.erf(z / math.sqrt(2.0)))


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
    # Three matrices of dim x hidden cost what two of dim x 4*dim cost when hidden = 2/3 * 4*dim:
    # the same parameters and FLOPs as the classic FFN it replaces. int() truncates, as Meta's
    # reference code does, and only then the optional multiplier (Llama 2 70B: 1.3) scales it.
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    # Round *up* to a multiple of multiple_of (matmul tiles, tensor-parallel shards); a width
    # that already is a multiple stays as it is.
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
            activation = "swish"  # the LLaMA default
        if hidden_dim is None:
            hidden_dim = llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)
        self.gate = GATES[activation]
        # No biases, as in PaLM and Llama (PaLM: better training stability at scale).
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate, weight (hidden, dim)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down, weight (dim, hidden)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up, weight (hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (..., dim)
        # The activation goes on the gate branch only; the up branch stays linear.
        h = self.gate(self.w1(x)) * self.w3(x)  # (..., hidden)
        out: torch.Tensor = self.w2(h)  # (..., dim)
        return out
