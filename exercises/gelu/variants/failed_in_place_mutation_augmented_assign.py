# expect: failed mistake=in_place_mutation
import math

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def _cdf(self, x: torch.Tensor) -> torch.Tensor:
        if self.approximate == "tanh":
            inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x.pow(3))
            return 0.5 * (1 + inner.tanh())
        return 0.5 * (1 + torch.erf(x / math.sqrt(2)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        cdf = self._cdf(xf)
        if x.requires_grad:
            return (xf * cdf).to(x.dtype)
        # Nothing to differentiate, so no need for a new tensor: scale x where it is.
        x *= cdf
        return x
