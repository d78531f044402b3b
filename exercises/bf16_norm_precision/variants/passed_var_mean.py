# expect: passed
from __future__ import annotations

import math
import statistics

import torch

EPS = 1e-5


def _two_pass(t: torch.Tensor) -> torch.Tensor:
    m = torch.mean(t, dim=-1, keepdim=True)
    c = t - m
    return c / torch.sqrt(torch.mean(torch.square(c), dim=-1, keepdim=True) + EPS)


def bf16_norm_precision(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    # One offset at a time, the float32 arm through torch.var_mean, the median and the log in
    # Python floats.
    out = torch.empty(4, offsets.numel(), dtype=x.dtype)
    for j, offset in enumerate(offsets):
        b = (x.to(torch.float64) + offset.item()).to(torch.bfloat16)
        exact = b.to(torch.float64)
        var, mean = torch.var_mean(exact, dim=-1, keepdim=True, correction=0)
        ln64 = (exact - mean) / torch.sqrt(var + EPS)
        rms64 = exact / torch.sqrt(torch.mean(exact * exact, dim=-1, keepdim=True) + EPS)

        m = torch.mean(b, dim=-1, keepdim=True)
        e_sq = torch.mean(b * b, dim=-1, keepdim=True)
        one = (b - m) / torch.sqrt(torch.clamp(e_sq - m * m, min=0) + EPS)
        f = b.to(torch.float32)
        v32, m32 = torch.var_mean(f, dim=-1, keepdim=True, correction=0)
        f32 = ((f - m32) / torch.sqrt(v32 + EPS)).to(torch.bfloat16)
        rms = b / torch.sqrt(torch.mean(b * b, dim=-1, keepdim=True) + EPS)

        for i, (y, ref) in enumerate(
            ((_two_pass(b), ln64), (one, ln64), (f32, ln64), (rms, rms64))
        ):
            diff = y.to(torch.float64) - ref
            rel = (diff * diff).sum(-1).sqrt() / (ref * ref).sum(-1).sqrt()
            out[i, j] = math.log10(statistics.median(rel.tolist()))
    return out
