# expect: failed mistake=cached_keys_rotated_twice
# The cached (rotated) keys rotated again on read.
import math

import torch
from torch import nn


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


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
        if dim % n_heads != 0 or n_heads % n_kv_heads != 0 or (dim // n_heads) % 2 != 0:
            raise ValueError("need n_heads | dim, n_kv_heads | n_heads and an even head_dim")
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.head_dim = dim // n_heads
        self.rope_base = rope_base
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)
        shape = (max_batch_size, n_kv_heads, max_seq_len, self.head_dim)
        self.register_buffer("cache_k", torch.zeros(shape))
        self.register_buffer("cache_v", torch.zeros(shape))

    def reset(self) -> None:
        self.cache_k.zero_()
        self.cache_v.zero_()

    def rope(self, t: torch.Tensor, start_pos: int) -> torch.Tensor:
        # Angles in float64 for float64 input, in float32 otherwise.
        work = torch.float64 if t.dtype == torch.float64 else torch.float32
        hd = t.shape[-1]
        inv_freq = self.rope_base ** (-torch.arange(0, hd, 2, dtype=work) / hd)
        positions = torch.arange(start_pos, start_pos + t.shape[-2], dtype=work)
        angles = positions[:, None] * inv_freq[None, :]
        angles = torch.cat((angles, angles), dim=-1)
        return t * angles.cos().to(t.dtype) + rotate_half(t) * angles.sin().to(t.dtype)

    def forward(self, x: torch.Tensor, start_pos: int) -> torch.Tensor:
        b, t, _ = x.shape
        end = start_pos + t
        q = self.wq(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q, k = self.rope(q, start_pos), self.rope(k, start_pos)
        self.cache_k[:b, :, start_pos:end] = k
        self.cache_v[:b, :, start_pos:end] = v
        group = self.n_heads // self.n_kv_heads
        keys = self.rope(self.cache_k[:b, :, :end], 0).repeat_interleave(group, dim=1)
        values = self.cache_v[:b, :, :end].repeat_interleave(group, dim=1)
        scores = q @ keys.transpose(-2, -1) / math.sqrt(self.head_dim)
        # Query i sits at absolute position start_pos + i: it sees keys 0..start_pos + i.
        visible = torch.ones(t, end, dtype=torch.bool).tril(diagonal=start_pos)
        scores = scores.masked_fill(~visible, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ values
        return self.wo(out.transpose(1, 2).reshape(b, t, self.n_heads * self.head_dim))
