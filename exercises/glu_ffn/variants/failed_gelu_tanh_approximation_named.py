# expect: failed mistake=gelu_tanh_approximation
import math

import torch
import torch.nn.functional as F
from torch import nn


def hidden_size(dim: int, multiple_of: int, ffn_dim_multiplier: float | None) -> int:
    hidden = int(8 * dim / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(hidden * ffn_dim_multiplier)
    return math.ceil(hidden / multiple_of) * multiple_of


def act(name: str, z: torch.Tensor) -> torch.Tensor:
    if name == "swish":
        return F.silu(z)
    if name == "gelu":
        return F.gelu(z, approximate="tanh")
    return F.relu(z)


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
        if activation not in ("swish", "gelu", "relu"):
            raise ValueError(f"unknown activation {activation!r}")
        width = hidden_dim or hidden_size(dim, multiple_of, ffn_dim_multiplier)
        self.activation = activation
        self.w1 = nn.Linear(dim, width, bias=False)
        self.w2 = nn.Linear(width, dim, bias=False)
        self.w3 = nn.Linear(dim, width, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(act(self.activation, self.w1(x)) * self.w3(x))
