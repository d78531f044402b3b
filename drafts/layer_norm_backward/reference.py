"""Reference, banned built-ins and edge cases for ``layer_norm_backward``."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from drafts._fn_cases import FnCase, make_fn_cases


def reference(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


# The forward built-ins, and every way to have autograd do the backward's work for you.
BANNED = (
    "torch.nn.functional.layer_norm",
    "torch.layer_norm",
    "torch.native_layer_norm",
    "torch.ops.aten.native_layer_norm_backward",
    "torch.nn.LayerNorm",
    "torch.nn.functional.group_norm",
    "torch.nn.functional.instance_norm",
    "torch.nn.functional.batch_norm",
    "torch.autograd.grad",
    "torch.autograd.backward",
    "torch.autograd.functional.vjp",
    "torch.func.vjp",
    "torch.func.grad",
    "torch.enable_grad",
)


def make_cases(gen: torch.Generator) -> list[FnCase]:
    return make_fn_cases(gen, bias=True, default_eps=1e-5)
