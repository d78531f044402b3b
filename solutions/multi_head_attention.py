"""Worked solution: multi-head self-attention with grouped key/value heads (GQA, MQA).

Project, split into heads (view then transpose: each token's features stay together), repeat the
kv heads so that query head i reads kv head i // group (LLaMA's repeat_kv), scaled dot-product
attention per head with the causal and key-padding masks, merge the heads back and project with
wo. A query with no key left (a padded position under a causal mask) gets zero weights, not NaN.
"""

from __future__ import annotations

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int | None = None, bias: bool = False
    ) -> None:
        super().__init__()
        n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        if n_heads < 1 or n_kv_heads < 1:
            raise ValueError("n_heads and n_kv_heads must be positive")
        if dim % n_heads != 0:
            raise ValueError(f"dim ({dim}) must be divisible by n_heads ({n_heads})")
        if n_heads % n_kv_heads != 0:
            raise ValueError(f"n_heads ({n_heads}) must be divisible by n_kv_heads ({n_kv_heads})")
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=bias)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=bias)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=bias)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=bias)

    def forward(
        self, x: torch.Tensor, mask: torch.Tensor | None = None, is_causal: bool = False
    ) -> torch.Tensor:
        b, t, _ = x.shape
        h, kv, hd = self.n_heads, self.n_kv_heads, self.head_dim
        # (B, T, H * hd) -> (B, T, H, hd) -> (B, H, T, hd): a head is a slice of features.
        q = self.wq(x).view(b, t, h, hd).transpose(1, 2)
        k = self.wk(x).view(b, t, kv, hd).transpose(1, 2)
        v = self.wv(x).view(b, t, kv, hd).transpose(1, 2)
        # Query heads [g*j, g*(j+1)) share kv head j.
        k = k.repeat_interleave(h // kv, dim=1)
        v = v.repeat_interleave(h // kv, dim=1)

        scores = q @ k.transpose(-2, -1) / math.sqrt(hd)  # (B, H, T, T)
        if is_causal:
            future = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(future, float("-inf"))  # key j > query i: hidden
        if mask is not None:
            # (B, T) key-padding mask, True = a real token: hide the keys where it is False.
            scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        # A query with no key left has a row of -inf (softmax would be 0 / 0): zero weights.
        alive = torch.isfinite(scores).any(dim=-1, keepdim=True)
        weights = torch.softmax(scores.masked_fill(~alive, 0.0), dim=-1)
        weights = weights.masked_fill(~alive, 0.0)

        out = (weights @ v).transpose(1, 2).reshape(b, t, h * hd)  # merge the heads
        result: torch.Tensor = self.wo(out)
        return result
