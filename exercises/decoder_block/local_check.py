"""The layer h = x + attention(attention_norm(x)), out = h + feed_forward(ffn_norm(h)), with
causal grouped-query attention and RoPE (rotate-half, base 10000), random weights

这一层 h = x + attention(attention_norm(x))，out = h + feed_forward(ffn_norm(h))，
因果分组查询注意力，
RoPE（rotate-half，base 10000），权重取随机值
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from addnorm_client.local import LocalCase


def _rope(t: torch.Tensor) -> torch.Tensor:  # (batch, heads, seq, head_dim)
    seq, d = t.shape[-2], t.shape[-1]
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = torch.outer(torch.arange(seq, dtype=torch.float64), inv_freq)
    cos = torch.cat((angles, angles), -1).cos().to(t.dtype)
    sin = torch.cat((angles, angles), -1).sin().to(t.dtype)
    t1, t2 = t[..., : d // 2], t[..., d // 2 :]
    return t * cos + torch.cat((-t2, t1), -1) * sin


def local_cases() -> list[LocalCase]:
    g = torch.Generator().manual_seed(0)

    def case(name: str, shape: tuple[int, int, int], heads: int, kv: int, hidden: int) -> LocalCase:
        b, seq, dim = shape
        hd = dim // heads

        def w(rows: int, cols: int) -> torch.Tensor:
            # Scaled by 1/sqrt(fan_in) so the activations stay around unit size.
            return torch.randn(rows, cols, generator=g) / math.sqrt(cols)

        x = torch.randn(shape, generator=g)
        state = {
            "attention_norm.weight": 1 + 0.5 * torch.randn(dim, generator=g),
            "attention.wq.weight": w(heads * hd, dim),
            "attention.wk.weight": w(kv * hd, dim),
            "attention.wv.weight": w(kv * hd, dim),
            "attention.wo.weight": w(dim, heads * hd),
            "ffn_norm.weight": 1 + 0.5 * torch.randn(dim, generator=g),
            "feed_forward.w1.weight": w(hidden, dim),
            "feed_forward.w2.weight": w(dim, hidden),
            "feed_forward.w3.weight": w(hidden, dim),
        }
        s = state
        a = F.rms_norm(x, (dim,), s["attention_norm.weight"], 1e-6)
        q = F.linear(a, s["attention.wq.weight"]).view(b, seq, heads, hd).transpose(1, 2)
        k = F.linear(a, s["attention.wk.weight"]).view(b, seq, kv, hd).transpose(1, 2)
        v = F.linear(a, s["attention.wv.weight"]).view(b, seq, kv, hd).transpose(1, 2)
        o = F.scaled_dot_product_attention(
            _rope(q), _rope(k), v, is_causal=True, enable_gqa=heads != kv
        )
        h = x + F.linear(o.transpose(1, 2).reshape(b, seq, dim), s["attention.wo.weight"])
        n = F.rms_norm(h, (dim,), s["ffn_norm.weight"], 1e-6)
        up = F.silu(F.linear(n, s["feed_forward.w1.weight"])) * F.linear(
            n, s["feed_forward.w3.weight"]
        )
        return LocalCase(
            name=name,
            x=x,
            build=lambda cls: cls(dim, heads, kv, hidden),
            state=state,
            expected=h + F.linear(up, s["feed_forward.w2.weight"]),
        )

    return [
        case("multi-head, dim 16, 2 heads, 5 tokens", (2, 5, 16), 2, 2, 24),
        case("grouped-query, 4 heads, 2 kv heads", (2, 6, 32), 4, 2, 40),
        case("multi-query, 3 heads, 1 kv head, batch of 1", (1, 7, 24), 3, 1, 36),
    ]
