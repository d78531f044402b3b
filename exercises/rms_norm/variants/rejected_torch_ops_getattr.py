# expect: rejected
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The composite op through torch.ops, its name assembled at run time: neither a source
        # scan nor the dispatch-level tripwire (which sees only the decomposed pow/mean/rsqrt)
        # can catch it; the function-mode tripwire must match OpOverloadPacket by name.
        op = getattr(torch.ops.aten, "rms" + "_norm")
        return op(x, [x.shape[-1]], self.weight, self.eps)
