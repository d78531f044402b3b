"""Reference, banned built-ins and edge cases for ``feed_forward`` (draft, platform-independent).

The reference is built from PyTorch built-ins (nn.Linear, F.gelu, F.relu, nn.Dropout) so it
shares nothing with the worked solution. Dropout is graded by replaying the random stream: the
grader seeds torch's global generator identically before each call of the submission and of the
reference, so one dropout over the (..., d_ff) hidden tensor draws the same mask in both.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

ACTIVATIONS = ("gelu", "relu")


def _lin(layer: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    # What layer(x) computes, typed: nn.Module.__call__ returns Any.
    return F.linear(x, layer.weight, layer.bias)


class FeedForward(nn.Module):
    def __init__(
        self,
        d_model: int,
        d_ff: int | None = None,
        activation: str = "gelu",
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be 'gelu' or 'relu', got {activation!r}")
        d_ff = 4 * d_model if d_ff is None else d_ff
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.activation = activation
        self.dropout = nn.Dropout(dropout)

    def act(self, h: torch.Tensor) -> torch.Tensor:
        return F.gelu(h) if self.activation == "gelu" else F.relu(h)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h: torch.Tensor = self.dropout(self.act(_lin(self.linear1, x)))
        return _lin(self.linear2, h)


# Nothing is banned: nn.Linear, F.gelu, nn.Dropout are what the material's block is made of.
BANNED: tuple[str, ...] = ()

# The edge-case families the cases must cover, and the mistake each one exposes.
EDGE_CASES = {
    "train, dropout 0.1 (default) and 0.5, gelu": (
        "dropout missing, before the activation (GELU is not positively homogeneous, ReLU is: "
        "with relu the two placements are the same function), on the output, applied twice"
    ),
    "eval with dropout > 0": "dropout left on in eval (F.dropout's training=True default)",
    "train, dropout 0.0": "deterministic train step: the FFN itself, gradients included",
    "activation='relu'": "the activation flag ignored",
    "large inputs (8 * N(0,1)), gelu": "tanh-approximate GELU (differs by up to ~1e-3 near |z|=2)",
    "d_ff=None with d_model in {7, 64, 200}": "d_ff default other than 4*d_model (2048 hard-coded)",
    "d_ff < d_model, d_ff = 1": "linear1/linear2 shapes swapped",
    "non-contiguous (transposed) input, leading dim 1, 1-D to 4-D": "view() on a non-contiguous x",
    "train, backward, parameter update, train again": "a mask or a weight cached on the first call",
    "activation='swish' at construction": "unknown names silently falling back to ReLU",
}
