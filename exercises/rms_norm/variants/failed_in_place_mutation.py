# expect: failed mistake=in_place_mutation
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inv_rms = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        if torch.is_inference_mode_enabled() or not torch.is_grad_enabled():
            # Saves an allocation at inference time by scaling the caller's tensor in place.
            return x.mul_(inv_rms).mul_(self.weight)
        return x * inv_rms * self.weight
