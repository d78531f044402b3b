# expect: passed
import torch
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

        self.act = nn.SiLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.act(torch.einsum("...d,hd->...h", x, self.w1.weight))
        h = h * torch.einsum("...d,hd->...h", x, self.w3.weight)
        return torch.einsum("...h,dh->...d", h, self.w2.weight)
