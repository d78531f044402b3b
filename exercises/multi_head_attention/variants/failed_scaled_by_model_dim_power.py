# expect: failed mistake=scaled_by_model_dim
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads=None, bias=False):
        super().__init__()
        self.n_heads = n_heads
        self.n_kv = n_kv_heads or n_heads
        if dim % n_heads or n_heads % self.n_kv:
            raise ValueError(f"cannot split dim={dim} into {n_heads} heads / {self.n_kv} kv heads")
        self.hd = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.hd, bias=bias)
        self.wk = nn.Linear(dim, self.n_kv * self.hd, bias=bias)
        self.wv = nn.Linear(dim, self.n_kv * self.hd, bias=bias)
        self.wo = nn.Linear(n_heads * self.hd, dim, bias=bias)

    def _split(self, y, n):
        B, T, _ = y.shape
        return y.reshape(B, T, n, self.hd).permute(0, 2, 1, 3)

    def _expand(self, y):
        B, n, T, d = y.shape
        g = self.n_heads // n
        return y[:, :, None].expand(B, n, g, T, d).reshape(B, n * g, T, d)

    def forward(self, x, mask=None, is_causal=False):
        B, T, D = x.shape
        q = self._split(self.wq(x), self.n_heads)
        k = self._expand(self._split(self.wk(x), self.n_kv))
        v = self._expand(self._split(self.wv(x), self.n_kv))
        s = torch.einsum("bhqd,bhkd->bhqk", q, k) * D**-0.5
        allowed = torch.ones(B, 1, T, T, dtype=torch.bool)
        if is_causal:
            allowed = allowed & torch.ones(T, T, dtype=torch.bool).tril()
        if mask is not None:
            allowed = allowed & mask.view(B, 1, 1, T)
        has_key = allowed.any(-1, keepdim=True)
        s = torch.where(allowed & has_key, s, torch.full_like(s, float("-inf")))
        s = torch.where(has_key, s, torch.zeros_like(s))
        p = torch.softmax(s, dim=-1) * has_key
        o = torch.einsum("bhqk,bhkd->bhqd", p, v)
        o = o.permute(0, 2, 1, 3).reshape(B, T, self.n_heads * self.hd)
        return self.wo(o)
