from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class _Block(nn.Module):
    # 本题约定的块：__init__ 保持原样（同一个种子必须得到同样的权重）。
    def __init__(self, dim: int, pre_ln: bool) -> None:
        super().__init__()
        self.pre_ln = pre_ln
        self.norm = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, 4 * dim)
        self.ff2 = nn.Linear(4 * dim, dim)
        nn.init.xavier_uniform_(self.ff1.weight)
        nn.init.xavier_uniform_(self.ff2.weight)

    def sublayer(self, h: torch.Tensor) -> torch.Tensor:
        # 每个 token 与序列均值取平均，再经过 FFN。
        mixed = (h + h.mean(dim=-2, keepdim=True)) / 2
        out: torch.Tensor = self.ff2(F.relu(self.ff1(mixed)))
        return out

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        # Pre-LN（self.pre_ln）还是 Post-LN：self.norm 放在哪里？
        raise NotImplementedError("implement _Block.forward")


def pre_post_ln_gradients(
    x: torch.Tensor, target: torch.Tensor, depth: int, seed: int
) -> torch.Tensor:
    # 先 Pre-LN 再 Post-LN：torch.manual_seed(seed)，按 x 的 dtype 构建 depth 个块
    # （以及 Pre-LN 最后的 nn.LayerNorm），做一次前向，loss = ((out - target) ** 2).mean()，一次
    # 反向传播。返回 (2, depth)：每个块 ff2.weight 的梯度范数，第 0 行是 Pre-LN。
    raise NotImplementedError("implement pre_post_ln_gradients")
