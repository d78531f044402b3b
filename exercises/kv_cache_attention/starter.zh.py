from __future__ import annotations

import torch
from torch import nn


class KVCacheAttention(nn.Module):
    def __init__(
        self,
        dim: int,
        n_heads: int,
        n_kv_heads: int,
        max_batch_size: int,
        max_seq_len: int,
        rope_base: float = 10000.0,
    ) -> None:
        super().__init__()
        # 待完成：n_heads 不能整除 dim、n_kv_heads 不能整除 n_heads，
        # 或 head_dim = dim // n_heads 为奇数时抛出 ValueError。
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.rope_base = rope_base
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        # 待完成：注册 buffer cache_k 和 cache_v，全零，形状为
        # (max_batch_size, n_kv_heads, max_seq_len, head_dim)。

    def reset(self) -> None:
        """Forget the cached sequence: both caches back to zeros, in place."""
        raise NotImplementedError("implement reset")

    def forward(self, x: torch.Tensor, start_pos: int) -> torch.Tensor:
        """x: (B, T, dim), the tokens at absolute positions start_pos .. start_pos + T - 1."""
        # 投影新 token，在它们的绝对位置上对 q、k 做 RoPE（rotate-half），把 k、v 写入
        # 缓存的 start_pos 处，对缓存到 start_pos + T 为止的部分做注意力（query t 只能看到
        # j <= start_pos + t 的 key），只对读出的部分复制 kv 头，合并多头，再做 wo。
        raise NotImplementedError("implement forward")
