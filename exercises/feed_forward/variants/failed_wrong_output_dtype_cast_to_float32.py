# expect: failed mistake=wrong_output_dtype class=dtype_leak
"""Wrong (dtype leak): the output is always cast to float32, so a float64 input comes back as
float32: a habit carried over from mixed-precision code, where float32 was the "safe" dtype."""

from __future__ import annotations

import torch
from torch import nn


class FeedForward(nn.Module):
    def __init__(
        self, d_model: int, d_ff: int | None = None, activation: str = "gelu", dropout: float = 0.1
    ) -> None:
        super().__init__()
        acts = {"gelu": nn.GELU, "relu": nn.ReLU}
        if activation not in acts:
            raise ValueError(activation)
        d_ff = d_ff if d_ff is not None else d_model * 4
        self.linear1 = nn.Linear(d_model, d_ff)
        self.act = acts[activation]()
        self.drop = nn.Dropout(p=dropout)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.linear2(self.drop(self.act(self.linear1(x))))
        return out.to(torch.float32)
