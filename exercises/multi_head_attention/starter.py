from __future__ import annotations

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int | None = None, bias: bool = False
    ) -> None:
        super().__init__()
        # n_kv_heads None means n_heads. TODO: raise ValueError unless n_heads divides dim
        # and n_kv_heads divides n_heads.
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
        # x: (B, T, dim); mask: (B, T) bool, True = a real token that may be attended.
        # Split into heads, repeat the kv heads (query head i reads kv head i // group),
        # softmax(q @ k^T / sqrt(head_dim)) @ v with the masks, merge the heads, apply wo.
        # A query with no key left returns zeros (before wo), never NaN.
        raise NotImplementedError("implement multi-head attention")
