"""The parameter builders in ``api/grading/draw.py`` name and shape what the modules hold.

A builder that drifted from the module it fills (a registry sublayer given another layer, an
FFN renamed) would make every case of its exercises fail to load into the reference; these
tests say which key or shape drifted.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

from api.grading import modargs
from api.grading.draw import (
    ffn_parameters,
    gated_ffn_parameters,
    norm_function_case,
    sublayer_parameters,
)
from api.grading.spec import Call, ModuleArg


def _shapes(state: dict[str, torch.Tensor]) -> dict[str, tuple[int, ...]]:
    return {k: tuple(v.shape) for k, v in state.items()}


@pytest.mark.parametrize("kind", sorted(modargs.REGISTRY))
def test_sublayer_parameters_fit_the_registry_module(kind: str) -> None:
    dims = (12, 20) if modargs.REGISTRY[kind].arity == 2 else (12,)
    desc = ModuleArg(kind, dims, init_seed=0)
    module = modargs.build(desc)
    wanted = {f"sublayer.{k}": tuple(v.shape) for k, v in module.state_dict().items()}
    drawn = sublayer_parameters(torch.Generator().manual_seed(0), desc, torch.float64)
    assert _shapes(drawn) == wanted
    assert all(t.dtype == torch.float64 for t in drawn.values())


def test_ffn_parameters_fit_two_linears() -> None:
    module = nn.ModuleDict({"linear1": nn.Linear(8, 32), "linear2": nn.Linear(32, 8)})
    drawn = ffn_parameters(torch.Generator().manual_seed(0), 8, 32, torch.float32)
    assert _shapes(drawn) == {k: tuple(v.shape) for k, v in module.state_dict().items()}


def test_gated_ffn_parameters_are_three_independent_projections() -> None:
    drawn = gated_ffn_parameters(
        torch.Generator().manual_seed(0), 8, 24, torch.float32, prefix="ffn."
    )
    assert _shapes(drawn) == {
        "ffn.w1.weight": (24, 8),
        "ffn.w2.weight": (8, 24),
        "ffn.w3.weight": (24, 8),
    }
    # A swapped gate and up projection must change the output: the two are drawn apart.
    assert not torch.equal(drawn["ffn.w1.weight"], drawn["ffn.w3.weight"])


@pytest.mark.parametrize("bias", [True, False])
def test_norm_function_case_sends_weight_bias_and_eps(bias: bool) -> None:
    x = torch.randn(4, 6, 10, dtype=torch.float64)
    case = norm_function_case(
        torch.Generator().manual_seed(0),
        name="c",
        what="N(0,1)",
        x=x,
        eps=1e-5,
        bias=bias,
        default_params=False,
        backward=True,
        layout="contiguous",
        feature_axis=1,
    )
    (step,) = case.steps
    assert isinstance(step, Call)
    assert [tuple(t.shape) for t in step.inputs] == [(4, 6, 10), (6,)] + ([(6,)] if bias else [])
    assert step.args == (1e-5,)
    assert step.grad_outputs is not None and step.grad_outputs[0].shape == x.shape
    assert ("random weight/bias" if bias else "random weight") in case.description
