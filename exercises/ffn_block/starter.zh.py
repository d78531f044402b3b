from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401  (F.silu、F.linear 可以直接用)
from torch import nn


class FFNBlock(nn.Module):
    # 题目要求的类写在最前面，组成它的两个部件在后面。
    def __init__(self, dim: int, hidden_dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        # 评测程序会加载 norm.weight 和 ffn.w1/w2/w3.weight：请不要改这些名字。
        self.norm = RMSNorm(dim, eps)
        self.ffn = SwiGLU(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> LLaMA 层中 FFN 那一半（含残差）-> (..., dim)
        raise NotImplementedError("implement FFNBlock.forward")


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,)：增益，初始化为全 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> x * rsqrt(最后一维上 x^2 的均值 + eps) * weight
        raise NotImplementedError("implement RMSNorm.forward")


class SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # 门控（gate）
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # 降维（down）
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # 升维（up）

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> w2(silu(w1(x)) * w3(x))
        raise NotImplementedError("implement SwiGLU.forward")
