from __future__ import annotations

import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        # p 是丢弃一个单元的概率；不在 [0, 1] 之内就是错误。
        self.p = p

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # 训练时：keep = torch.empty_like(x).bernoulli_(1 - p)，保留的单元乘以 1 / (1 - p)；
        # eval 时：恒等映射。
        raise NotImplementedError("implement Dropout.forward")
