"""The exercise's function written with torch's own ops, independently of ``spec.py``'s
reference: the in-process tests compare the two on every call of every case. Here the kv heads
are expanded by indexing (query head h reads kv head h // n_rep), RoPE is written with complex
numbers on the two halves, and the attention is an einsum with an additive mask."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.spec import Call, Case


def _rope(t: torch.Tensor) -> torch.Tensor:
    seq, d = t.shape[-2], t.shape[-1]
    pos = torch.arange(seq, dtype=torch.float64)[:, None]
    angle = pos * 10000.0 ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
    z = torch.complex(t[..., : d // 2].double(), t[..., d // 2 :].double()) * torch.polar(
        torch.ones_like(angle), angle
    )
    return torch.cat((z.real, z.imag), dim=-1).to(t.dtype)


def expected_output(case: Case, module: nn.Module, step: Call) -> torch.Tensor:
    x = step.inputs[0]
    p = {k: v.to(x.dtype) for k, v in module.named_parameters()}
    eps = float(case.init_kwargs.get("eps", 1e-6))
    heads, kv = int(case.init_kwargs["n_heads"]), int(case.init_kwargs["n_kv_heads"])
    b, seq, dim = x.shape
    hd = dim // heads
    a = F.rms_norm(x, (dim,), p["attention_norm.weight"], eps)
    q = _rope((a @ p["attention.wq.weight"].T).reshape(b, seq, heads, hd).permute(0, 2, 1, 3))
    k = _rope((a @ p["attention.wk.weight"].T).reshape(b, seq, kv, hd).permute(0, 2, 1, 3))
    v = (a @ p["attention.wv.weight"].T).reshape(b, seq, kv, hd).permute(0, 2, 1, 3)
    group = torch.arange(heads) // (heads // kv)
    k, v = k[:, group], v[:, group]
    bias = torch.full((seq, seq), float("-inf"), dtype=x.dtype).triu(1)
    s = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(hd) + bias
    o = torch.einsum("bhqk,bhkd->bqhd", s.softmax(-1), v).reshape(b, seq, heads * hd)
    h = x + o @ p["attention.wo.weight"].T
    n = F.rms_norm(h, (dim,), p["ffn_norm.weight"], eps)
    g = F.silu(n @ p["feed_forward.w1.weight"].T) * (n @ p["feed_forward.w3.weight"].T)
    return h + g @ p["feed_forward.w2.weight"].T
