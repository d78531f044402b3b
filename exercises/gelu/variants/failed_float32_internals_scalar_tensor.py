# expect: failed mistake=float32_internals
"""Wrong for float64: the constants are float32 tensors (torch.scalar_tensor without
dtype=), so float64 input is computed to float32's precision. Right in float32."""

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(approximate)
        self.approximate = approximate

    def forward(self, x):
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.approximate == "tanh":
            c = torch.scalar_tensor(2.0 / torch.pi).sqrt()
            y = 0.5 * xf * (1 + torch.tanh(c * (xf + 0.044715 * torch.pow(xf, 3))))
        else:
            y = 0.5 * xf * (1 + torch.erf(xf / torch.scalar_tensor(2.0).sqrt()))
        return y.to(x.dtype)
