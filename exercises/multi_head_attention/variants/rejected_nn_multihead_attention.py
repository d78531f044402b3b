# expect: rejected
# nn.MultiheadAttention built on every call (kept out of the module's parameters) with wq, wk, wv
# and wo copied in; the kv heads repeated into the weights for GQA.
import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads=None, bias=False):
        super().__init__()
        kv = n_kv_heads or n_heads
        if dim % n_heads or n_heads % kv:
            raise ValueError("bad heads")
        self.h, self.kv, self.hd = n_heads, kv, dim // n_heads
        self.wq = nn.Linear(dim, dim, bias=bias)
        self.wk = nn.Linear(dim, kv * self.hd, bias=bias)
        self.wv = nn.Linear(dim, kv * self.hd, bias=bias)
        self.wo = nn.Linear(dim, dim, bias=bias)

    def _wide(self, w):
        g = self.h // self.kv
        return (
            w.view(self.kv, 1, self.hd, -1)
            .expand(self.kv, g, self.hd, w.shape[-1])
            .reshape(self.h * self.hd, -1)
        )

    def forward(self, x, mask=None, is_causal=False):
        T, D = x.shape[1], x.shape[2]
        mha = nn.MultiheadAttention(D, self.h, bias=False, batch_first=True).to(x.dtype)
        with torch.no_grad():
            mha.in_proj_weight.copy_(
                torch.cat([self.wq.weight, self._wide(self.wk.weight), self._wide(self.wv.weight)])
            )
            mha.out_proj.weight.copy_(self.wo.weight)
        attn_mask = torch.ones(T, T, dtype=torch.bool).triu(1) if is_causal else None
        out, _ = mha(
            x,
            x,
            x,
            key_padding_mask=None if mask is None else ~mask,
            attn_mask=attn_mask,
            need_weights=False,
        )
        return out
