"""A LLaMA decoder layer from scratch: pre-norm attention and FFN halves on the residual stream.

    h   = x + attention(attention_norm(x))      causal grouped-query attention, RoPE on q and k
    out = h + feed_forward(ffn_norm(h))         SwiGLU

Every part is written here: RMSNorm (no centring, no bias, eps inside the root), the attention
(projections, rotary embeddings in the rotate-half convention, kv heads repeated for GQA, the
causal mask, the softmax), and the SwiGLU feed-forward. The submodules carry Meta's LLaMA names,
so a LLaMA checkpoint's layer loads into it key for key.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # (dim,), ones: the identity gain

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (..., dim)
        # One statistic per token, kept as (..., 1) so that it scales that token's features.
        ms = x.pow(2).mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(ms + self.eps) * self.weight


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """(x1, x2) -> (-x2, x1), the halves of the last dim: pair i is (x[i], x[i + d/2])."""
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary embedding of (batch, heads, seq, head_dim) at positions 0..seq-1."""
    seq, head_dim = x.shape[-2], x.shape[-1]
    # Angles in float64, then cast: the same tables whatever x's dtype.
    inv_freq = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.outer(torch.arange(seq, dtype=torch.float64), inv_freq)  # (seq, head_dim/2)
    angles = torch.cat((angles, angles), dim=-1)  # (seq, head_dim): pair i at i and i + d/2
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    return x * cos + rotate_half(x) * sin


class Attention(nn.Module):
    def __init__(self, dim: int, n_heads: int, n_kv_heads: int) -> None:
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def heads(self, t: torch.Tensor, n: int) -> torch.Tensor:
        # (batch, seq, n * head_dim) -> (batch, n, seq, head_dim): split, then transpose.
        b, seq, _ = t.shape
        return t.view(b, seq, n, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (batch, seq, dim)
        b, seq, _ = x.shape
        q = rope(self.heads(self.wq(x), self.n_heads))
        k = rope(self.heads(self.wk(x), self.n_kv_heads))
        v = self.heads(self.wv(x), self.n_kv_heads)
        # GQA: kv head i serves query heads i * n_rep .. (i + 1) * n_rep - 1 (LLaMA's repeat_kv).
        n_rep = self.n_heads // self.n_kv_heads
        k = k.repeat_interleave(n_rep, dim=1)
        v = v.repeat_interleave(n_rep, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)  # (b, heads, seq, seq)
        future = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
        weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        out = (weights @ v).transpose(1, 2).reshape(b, seq, self.n_heads * self.head_dim)
        result: torch.Tensor = self.wo(out)
        return result


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)  # gate
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)  # down
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)  # up

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.w2(F.silu(self.w1(x)) * self.w3(x))
        return out


class DecoderBlock(nn.Module):
    def __init__(
        self, dim: int, n_heads: int, n_kv_heads: int, hidden_dim: int, eps: float = 1e-6
    ) -> None:
        super().__init__()
        self.attention_norm = RMSNorm(dim, eps)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = RMSNorm(dim, eps)  # its own gain: two norms, not one used twice
        self.feed_forward = FeedForward(dim, hidden_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (batch, seq, dim)
        # Pre-norm: each sublayer reads a normalised copy; the stream itself is only added to.
        h = x + self.attention(self.attention_norm(x))
        out: torch.Tensor = h + self.feed_forward(self.ffn_norm(h))
        return out
