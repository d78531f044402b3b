# expect: failed class=state_across_calls
import torch
import torch.nn.functional as F
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)
        self._w13: torch.Tensor | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # One matmul for gate and up, fused on the first call and never rebuilt.
        if self._w13 is None:
            self._w13 = torch.cat([self.w1.weight, self.w3.weight])
        gate, up = F.linear(x, self._w13).chunk(2, dim=-1)
        return self.w2(F.silu(gate) * up)
