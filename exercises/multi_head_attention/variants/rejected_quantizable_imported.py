# expect: rejected
from torch import nn
from torch.ao.nn.quantizable import MultiheadAttention as _Core


class MultiHeadAttention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads=None, bias=False):
        super().__init__()
        kv = n_kv_heads or n_heads
        if dim % n_heads or n_heads % kv:
            raise ValueError("bad heads")
        self.wq = nn.Linear(dim, dim, bias=bias)
        self.wk = nn.Linear(dim, kv * (dim // n_heads), bias=bias)
        self.wv = nn.Linear(dim, kv * (dim // n_heads), bias=bias)
        self.wo = nn.Linear(dim, dim, bias=bias)
        self.n_heads = n_heads

    def forward(self, x, mask=None, is_causal=False):
        core = _Core(x.shape[-1], self.n_heads, batch_first=True)  # built per call, unregistered
        out, _ = core(x, x, x, need_weights=False)
        return self.wo(out)
