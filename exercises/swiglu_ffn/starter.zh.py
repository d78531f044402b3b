from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401  (F.silu、F.linear 可以直接用)
from torch import nn


class SwiGLUFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        # 评测程序会加载 w1.weight、w2.weight 和 w3.weight：请保持这些名字和形状不变。
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # 门控（gate）
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # 降维（down）
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # 升维（up）

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x 的形状为 (..., dim)。对门控分支 w1(x) 取 SiLU，再与升维投影 w3(x) 逐元素相乘，
        # 两者形状都是 (..., hidden_dim)；最后用 w2 把乘积投影回 (..., dim)。
        raise NotImplementedError("implement SwiGLUFFN.forward")
