from __future__ import annotations

import torch
import torch.nn.functional as F  # noqa: F401  (F.silu、F.one_hot、F.softmax 可以直接用)
from torch import nn


# 一个 SwiGLU 专家。评测程序会加载 experts.{e}.w1/w2/w3.weight：请保持这些名字不变。
class _Expert(nn.Module):
    """One SwiGLU expert. The grader loads experts.{e}.w1/w2/w3.weight: keep these names."""

    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # 门控（gate）
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # 降维（down）
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # 升维（up）

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError("implement _Expert.forward: w2(silu(w1(x)) * w3(x))")


class MoEFFN(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, n_experts: int, top_k: int = 2) -> None:
        super().__init__()
        self.n_experts = n_experts
        self.top_k = top_k
        self.gate = nn.Linear(dim, n_experts, bias=False)  # 路由器
        self.experts = nn.ModuleList(_Expert(dim, hidden_dim) for _ in range(n_experts))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # x 的形状为 (batch, seq, dim)。每个 token 单独路由：在专家维上做 softmax，取 top_k 个，
        # 权重在这 k 个上重新归一化；out = 各专家输出按权重求和。
        # aux_loss = n_experts * sum_e f_e * P_e（f：分到专家 e 的 token 比例，
        # P：专家 e 的平均路由概率）。返回 (out, aux_loss)，aux_loss 为 0 维张量。
        raise NotImplementedError("implement MoEFFN.forward")
