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
        # TODO: raise ValueError unless n_heads divides dim, n_kv_heads divides n_heads and
        # head_dim = dim // n_heads is even.
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.rope_base = rope_base
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        # TODO: register the buffers cache_k and cache_v, zeros of shape
        # (max_batch_size, n_kv_heads, max_seq_len, head_dim).

    def reset(self) -> None:
        """Forget the cached sequence: both caches back to zeros, in place."""
        raise NotImplementedError("implement reset")

    def forward(self, x: torch.Tensor, start_pos: int) -> torch.Tensor:
        """x: (B, T, dim), the tokens at absolute positions start_pos .. start_pos + T - 1."""
        # Project the new tokens, rotate q and k (rotate-half RoPE) at their absolute
        # positions, write k and v into the caches at start_pos, attend over the cache up to
        # start_pos + T (query t sees keys j <= start_pos + t), repeat the kv heads only on
        # what you read, merge the heads, apply wo.
        raise NotImplementedError("implement forward")
