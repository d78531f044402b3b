# expect: failed mistake=in_place_mutation
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.is_grad_enabled() and x.dtype == torch.float32:
            # "Inference fast path": reuses the input buffer.
            return (
                x.mul_(0.5 * (1 + torch.erf(x / math.sqrt(2))))
                if self.approximate == "none"
                else x.mul_(0.5 * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))))
            )
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        if self.approximate == "tanh":
            y = 0.5 * xf * (1 + torch.tanh(math.sqrt(2 / math.pi) * (xf + 0.044715 * xf**3)))
        else:
            y = 0.5 * xf * (1 + torch.erf(xf / math.sqrt(2)))
        return y.to(x.dtype)
