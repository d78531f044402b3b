from __future__ import annotations

import math  # noqa: F401  （可以用 math.sqrt）

import torch
import torch.nn.functional as F  # noqa: F401  （可以用 F.silu、F.linear、torch.softmax）
from torch import nn


class DecoderBlock(nn.Module):
    # 本题的类放在最前面，它用到的三个部件跟在后面。
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int, hidden_dim: int, eps: float = 1e-6
    ) -> None:
        super().__init__()
        # 评测会按这些名字加载参数（与 Meta 的 LLaMA 层一致），请不要改名。
        self.attention_norm = RMSNorm(dim, eps)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = RMSNorm(dim, eps)
        self.feed_forward = FeedForward(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (batch, seq, dim) -> h = x + attention(attention_norm(x))
        #                      -> out = h + feed_forward(ffn_norm(h))
        raise NotImplementedError("implement DecoderBlock.forward")


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,)：增益，初始化为 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> x * rsqrt(mean(x^2) + eps) * weight，均值在最后一维上求
        raise NotImplementedError("implement RMSNorm.forward")


class Attention(nn.Module):
    def __init__(self, dim: int, n_heads: int, n_kv_heads: int) -> None:
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (batch, seq, dim) -> 因果分组查询注意力，q 和 k 做 RoPE -> (batch, seq, dim)
        raise NotImplementedError("implement Attention.forward")


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # 门控
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # 降维
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # 升维

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (..., dim) -> w2(silu(w1(x)) * w3(x))
        raise NotImplementedError("implement FeedForward.forward")
