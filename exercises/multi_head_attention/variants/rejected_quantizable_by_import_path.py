# expect: rejected
# The quantizable MultiheadAttention runs only matmuls and a softmax, each of them allowed; it
# is reached here through a module path built at run time, so only the child can refuse it.
import importlib

import torch
from torch import nn

_mod = importlib.import_module("torch.ao.nn." + "quantizable")
_MHA = getattr(_mod, "Multihead" + "Attention")


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
        self.n_heads = n_heads

    def forward(self, x, mask=None, is_causal=False):
        T = x.shape[1]
        g = self.h // self.kv
        core = _MHA(x.shape[-1], self.n_heads, bias=False).to(x.dtype)  # (T, B, dim) layout
        with torch.no_grad():
            core.linear_Q.weight.copy_(self.wq.weight)
            core.linear_K.weight.copy_(
                self.wk.weight.view(self.kv, 1, self.hd, -1)
                .expand(self.kv, g, self.hd, x.shape[-1])
                .reshape(-1, x.shape[-1])
            )
            core.linear_V.weight.copy_(
                self.wv.weight.view(self.kv, 1, self.hd, -1)
                .expand(self.kv, g, self.hd, x.shape[-1])
                .reshape(-1, x.shape[-1])
            )
            core.out_proj.weight.copy_(self.wo.weight)
        attn_mask = torch.ones(T, T, dtype=torch.bool).triu(1) if is_causal else None
        xt = x.transpose(0, 1)
        out, _ = core(
            xt,
            xt,
            xt,
            key_padding_mask=None if mask is None else ~mask,
            attn_mask=attn_mask,
            need_weights=False,
        )
        return out.transpose(0, 1)
