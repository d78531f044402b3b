"""GPT-2's depth-scaled initialisation on three small GPT-2-style models: each group of
tensors checked against its law (standard deviation within 15% of its target, no more than a
few standard errors of mean, LayerNorms exactly 1 and 0, biases exactly 0). The server
grades with bounds stated for each tensor's size; any correct draw passes both.

三个小型 GPT-2 式模型上的按深度缩放初始化：逐组检查张量是否符合它应服从的分布（标准差与目标
相差不超过 15%，均值足够接近 0，LayerNorm 恰好为 1 和 0，偏置恰好为 0）。服务器按每个张量的
大小给出范围来评测；任何正确的抽取在两边都能通过。
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from addnorm_client.local import LocalCase

GROUPS = ("embeddings", "Linear weights", "c_proj weights", "biases", "LayerNorms")


class _Block(nn.Module):
    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = nn.Module()
        self.attn.c_attn = nn.Linear(dim, 3 * dim)
        self.attn.c_proj = nn.Linear(dim, dim)
        self.ln_2 = nn.LayerNorm(dim)
        self.mlp = nn.Module()
        self.mlp.c_fc = nn.Linear(dim, hidden)
        self.mlp.c_proj = nn.Linear(hidden, dim)


class TinyGPT(nn.Module):
    """The grader's model (``api/grading/handed_models.py``), rebuilt here."""

    def __init__(self, vocab: int, n_ctx: int, dim: int, n_layers: int, hidden: int) -> None:
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(n_ctx, dim)
        self.h = nn.ModuleList(_Block(dim, hidden) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)


def _verdicts(model: nn.Module, n_layers: int, std: float) -> torch.Tensor:
    """1.0 per group whose every tensor holds its law, else 0.0 (in ``GROUPS`` order)."""
    ok = [True] * len(GROUPS)
    for name, p in model.named_parameters():
        x = p.detach().double().reshape(-1)
        if ".ln_" in name or name.startswith("ln_f"):
            ok[4] &= bool((x == (1.0 if name.endswith("weight") else 0.0)).all())
        elif name.endswith("bias"):
            ok[3] &= bool((x == 0).all())
        else:
            proj = name.endswith("c_proj.weight")
            want = std / math.sqrt(2 * n_layers) if proj else std
            group = 2 if proj else (0 if name.startswith(("wte", "wpe")) else 1)
            s, mean = float(x.std()), float(x.mean())
            ok[group] &= abs(s / want - 1) < 0.15 and abs(mean) < 6 * want / math.sqrt(x.numel())
    return torch.tensor([1.0 if o else 0.0 for o in ok])


def local_cases() -> list[LocalCase]:
    def case(name: str, dims: tuple[int, int, int, int, int], std: float) -> LocalCase:
        n_layers = dims[3]

        def build(fn: Any) -> Callable[[torch.Tensor], torch.Tensor]:
            def call(x: torch.Tensor) -> torch.Tensor:
                model = TinyGPT(*dims)
                fn(model, n_layers=n_layers, std=std)
                return _verdicts(model, n_layers, std)

            return call

        return LocalCase(
            name=name,
            x=torch.zeros(len(GROUPS)),
            build=build,
            expected=torch.ones(len(GROUPS)),
            updates_in_place=True,
        )

    return [
        case("4 layers, dim 64, std 0.02", (64, 32, 64, 4, 256), 0.02),
        case("12 layers, dim 48, std 0.02", (48, 32, 48, 12, 192), 0.02),
        case("6 layers, dim 64, std 0.05", (40, 32, 64, 6, 256), 0.05),
    ]
