from __future__ import annotations

from torch import nn


def residual_scaled_init(model: nn.Module, n_layers: int, std: float = 0.02) -> None:
    """Initialise every parameter of ``model`` (a GPT-2-style stack) in place, GPT-2's way.

    - every nn.Linear weight and every nn.Embedding weight: N(0, std);
    - the residual branches' output projections (``attn.c_proj`` and ``mlp.c_proj``, names
      ending in ``c_proj.weight``): N(0, std / sqrt(2 * n_layers)) instead;
    - every nn.Linear bias: 0;
    - every nn.LayerNorm: weight 1, bias 0.
    """
    # Walk the modules (model.named_modules() or model.apply) and give each tensor its law.
    raise NotImplementedError("implement residual_scaled_init")
