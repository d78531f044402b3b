"""Reference, banned built-ins and edge cases for ``glu_ffn`` (draft, platform-independent).

y = w2(act(w1(x)) * w3(x)) with act = SiLU ("swish": SwiGLU), exact GELU ("gelu": GeGLU) or
ReLU ("relu": ReGLU); w1 is the gate, w3 the up projection, w2 the down projection, no biases.
``llama_hidden_dim`` is Meta's sizing rule from the LLaMA reference code: two thirds of 4 * dim,
optionally scaled, rounded up to a multiple of ``multiple_of``. The module takes the same two
knobs and uses the rule when ``hidden_dim`` is None, so the rule is graded through the module's
parameter shapes as well as directly.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

GATES = {"swish": F.silu, "gelu": F.gelu, "relu": F.relu}


def llama_hidden_dim(
    dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None
) -> int:
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    # What layer(x) computes, typed: nn.Module.__call__ returns Any.
    return F.linear(x, layer.weight, layer.bias)


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
            hidden_dim = self.size(dim, multiple_of, ffn_dim_multiplier)
        self.activation = activation
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    @staticmethod
    def size(dim: int, multiple_of: int, ffn_dim_multiplier: float | None) -> int:
        return llama_hidden_dim(dim, multiple_of, ffn_dim_multiplier)

    def gate(self, z: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = GATES[self.activation](z)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _lin(self.w2, self.gate(_lin(self.w1, x)) * _lin(self.w3, x))


BANNED: tuple[str, ...] = ()

# (dim, multiple_of, ffn_dim_multiplier) -> hidden, the published sizes first.
HIDDEN_DIM_TABLE: tuple[tuple[tuple[int, int, float | None], int], ...] = (
    ((4096, 256, None), 11008),  # LLaMA-7B
    ((5120, 256, None), 13824),  # LLaMA-13B
    ((6656, 256, None), 17920),  # LLaMA-33B
    ((8192, 4096, 1.3), 28672),  # Llama 2 70B
    ((4096, 1024, 1.3), 14336),  # Llama 3 8B
    ((96, 256, None), 256),  # 2/3 of 4d is exactly 256: must not be bumped to 512
    ((24, 1, None), 64),
    ((25, 1, None), 66),  # int() truncates 66.67
    ((10, 7, None), 28),
    ((100, 8, 0.5), 136),  # int(0.5 * 266) = 133, up to 136
    ((64, 32, 1.5), 256),  # int(1.5 * 170) = 255, up to 256
)

EDGE_CASES = {
    "activation swish/gelu/relu, random weights": "gate function swapped or ignored",
    "gelu, large inputs (8 * N(0,1))": "tanh-approximate GELU where exact is asked",
    "hidden_dim < dim, hidden_dim = 1": "w1/w2/w3 shapes swapped",
    "hidden_dim=None, odd dims, multiple_of 1/7/32, multipliers": "sizing rule mistakes",
    "train, backward, update, call again": "a fused [w1; w3] weight cached on the first call",
    "transposed input, leading 1, 1-D to 4-D": "view on a non-contiguous x",
    "activation='glu'": "unknown names silently accepted",
}
