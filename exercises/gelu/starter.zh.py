from __future__ import annotations

import math  # noqa: F401  (sqrt、pi：两种形式都要用到的常数)

import torch
from torch import nn


class GELU(nn.Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        # "none"：精确形式 x * Phi(x)；"tanh"：tanh 近似。请保留这个属性。
        self.approximate = approximate

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # 可以用 math.sqrt、math.pi、torch.erf、torch.tanh；返回值的形状和 dtype 要与 x 相同。
        raise NotImplementedError("implement GELU.forward")
