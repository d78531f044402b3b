# expect: failed mistake=in_place_mutation
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        if not torch.is_grad_enabled():
            # "Inference fast path": reuses the caller's buffer, and so overwrites their input.
            x.sub_(mean).mul_(torch.rsqrt(var + self.eps))
            return x * self.weight + self.bias
        return (x - mean) * torch.rsqrt(var + self.eps) * self.weight + self.bias
