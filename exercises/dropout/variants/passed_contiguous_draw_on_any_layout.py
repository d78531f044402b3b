# expect: passed
import torch
from torch import nn


class Dropout(nn.Module):
    """The mask drawn contiguous whatever the input's strides (as dropout's C++ kernel does on a
    transposed input): the same law, another order of draws."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p={p} is not a probability")
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return x * 0.0
        keep = torch.empty(x.shape, dtype=x.dtype).bernoulli_(1.0 - self.p)
        return torch.where(keep.bool(), x / (1.0 - self.p), torch.zeros((), dtype=x.dtype))
