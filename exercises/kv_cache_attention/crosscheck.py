"""The exercise's outputs computed another way, independently of ``spec.py``'s reference: no
cache at all. Every token of the sequence so far (the inputs of the calls since the last
``reset()``, each at its start_pos) goes through full causal attention at once, RoPE built as a
complex product at positions 0..L-1,
``F.scaled_dot_product_attention(is_causal=True, enable_gqa=True)`` in float64; the call's
output is the last T rows, cast back to the input's dtype."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from api.grading.spec import Call, Case


def _sequence(case: Case, step: Call) -> torch.Tensor:
    """The tokens of the sequence up to this call's last one: position by position, the token
    last given there (a call at start_pos s gives positions s..s+T-1), since the last reset."""
    seen: torch.Tensor | None = None
    for s in case.scenario:
        if not isinstance(s, Call):
            continue
        if s.function == "reset":
            seen = None
            continue
        x, start = s.inputs[0], int(s.args[0])
        kept = x[:, :0] if seen is None else seen[:, :start]
        assert kept.shape[1] == start, "a call continues the tokens before it"
        seen = torch.cat((kept, x), dim=1)
        if s is step:
            return seen
    raise AssertionError("the step is not in its case")


def _rope(t: torch.Tensor, base: float) -> torch.Tensor:
    """Rotate-half RoPE as a complex product: feature i pairs with i + hd/2."""
    hd = t.shape[-1]
    half = hd // 2
    inv_freq = base ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)
    angles = torch.outer(torch.arange(t.shape[-2], dtype=torch.float64), inv_freq)
    z = torch.complex(t[..., :half], t[..., half:]) * torch.polar(torch.ones_like(angles), angles)
    return torch.cat((z.real, z.imag), dim=-1)


def expected_output(case: Case, module: nn.Module, step: Call) -> torch.Tensor:
    x = step.inputs[0]
    heads = int(case.init_kwargs["n_heads"])
    kv = int(case.init_kwargs["n_kv_heads"])
    base = float(case.init_kwargs.get("rope_base", 10000.0))
    p = {k: v.double() for k, v in module.named_parameters()}
    whole = _sequence(case, step).double()
    b, length, dim = whole.shape
    hd = dim // heads

    def project(name: str, n: int) -> torch.Tensor:
        return F.linear(whole, p[f"{name}.weight"]).view(b, length, n, hd).transpose(1, 2)

    out = F.scaled_dot_product_attention(
        _rope(project("wq", heads), base),
        _rope(project("wk", kv), base),
        project("wv", kv),
        is_causal=True,
        enable_gqa=True,
    )
    merged = out.transpose(1, 2).reshape(b, length, dim)
    return F.linear(merged, p["wo.weight"])[:, -x.shape[1] :].to(x.dtype)
