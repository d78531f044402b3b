from __future__ import annotations

import math  # noqa: F401  (math.sqrt 可以直接用)

import torch
import torch.nn.functional as F  # noqa: F401  (F.gelu、F.relu、F.dropout 可以直接用)
from torch import nn


class FeedForward(nn.Module):
    def __init__(
        self,
        d_model: int,
        d_ff: int | None = None,
        activation: str = "gelu",
        dropout: float = 0.1,
    ) -> None:
        super().__init__()
        d_ff = 4 * d_model if d_ff is None else d_ff
        # 评测程序会加载 linear1.weight/bias 和 linear2.weight/bias：请不要改这些名字。
        self.linear1 = nn.Linear(d_model, d_ff)  # (d_ff, d_model), (d_ff,)
        self.linear2 = nn.Linear(d_ff, d_model)  # (d_model, d_ff), (d_model,)
        # 由你来写：根据 activation 选择激活函数（"gelu" 用精确的 GELU，"relu" 用 ReLU，其他值
        # 抛出 ValueError），并保存作用在隐藏层激活上的 dropout。

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., d_model) -> linear1 -> 激活函数 -> dropout（仅训练时生效）-> linear2
        raise NotImplementedError("implement FeedForward.forward")
