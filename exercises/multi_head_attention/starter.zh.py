from __future__ import annotations

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int | None = None, bias: bool = False
    ) -> None:
        super().__init__()
        # n_kv_heads 为 None 时等于 n_heads。待完成：n_heads 不能整除 dim、
        # 或 n_kv_heads 不能整除 n_heads 时抛出 ValueError。
        n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=bias)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=bias)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=bias)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=bias)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, is_causal: bool = False
    ) -> torch.Tensor:
        # x：(B, T, dim)；mask：(B, T) 布尔张量，True 表示真实 token、可以被关注。
        # 拆成多头，复制 kv 头（第 i 个 query 头读第 i // group 个 kv 头），
        # 带掩码计算 softmax(q @ k^T / sqrt(head_dim)) @ v，合并多头，再做 wo。
        # 一个可见 key 都没有的 query 在 wo 之前输出 0，不能是 NaN。
        raise NotImplementedError("implement multi-head attention")
