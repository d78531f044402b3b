"""Reference, banned built-ins and edge cases for ``rms_norm_backward``."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from drafts._fn_cases import FnCase, make_fn_cases


def reference(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return F.rms_norm(x, (x.shape[-1],), weight, eps)


BANNED = (
    "torch.nn.functional.rms_norm",
    "torch.rms_norm",
    "torch._fused_rms_norm",
    "torch.nn.RMSNorm",
    "torch.nn.functional.layer_norm",
    "torch.layer_norm",
    "torch.nn.LayerNorm",
    "torch.autograd.grad",
    "torch.autograd.backward",
    "torch.autograd.functional.vjp",
    "torch.func.vjp",
    "torch.func.grad",
    "torch.enable_grad",
)


def make_cases(gen: torch.Generator) -> list[FnCase]:
    return make_fn_cases(gen, bias=False, default_eps=1e-6)
