# expect: passed
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class _Block(nn.Module):
    def __init__(self, dim: int, pre_ln: bool) -> None:
        super().__init__()
        self.pre_ln = pre_ln
        self.norm = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, 4 * dim)
        self.ff2 = nn.Linear(4 * dim, dim)
        nn.init.xavier_uniform_(self.ff1.weight)
        nn.init.xavier_uniform_(self.ff2.weight)

    def sublayer(self, h: torch.Tensor) -> torch.Tensor:
        # Each token averaged with the sequence's mean: attention with near-uniform weights.
        mixed = (h + h.mean(dim=-2, keepdim=True)) / 2
        out: torch.Tensor = self.ff2(F.relu(self.ff1(mixed)))
        return out

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        if self.pre_ln:
            return h + self.sublayer(self.norm(h))  # the residual stream is never normalised
        out: torch.Tensor = self.norm(h + self.sublayer(h))  # normalised after every add
        return out


def pre_post_ln_gradients(
    x: torch.Tensor, target: torch.Tensor, depth: int, seed: int
) -> torch.Tensor:
    dim = x.shape[-1]
    rows = []
    for pre_ln in (True, False):
        torch.manual_seed(seed)  # the same weights for both placements
        blocks = [_Block(dim, pre_ln).to(x.dtype) for _ in range(depth)]
        h = x
        for block in blocks:
            h = block(h)
        if pre_ln:
            h = F.layer_norm(h, (dim,))  # a parameter-free final norm: the same at init
        loss = ((h - target) ** 2).mean()
        torch.autograd.backward(loss)
        norms = []
        for block in blocks:
            grad = block.ff2.weight.grad
            assert grad is not None
            norms.append(torch.linalg.vector_norm(grad))
        rows.append(torch.stack(norms))
    return torch.stack(rows).detach()
