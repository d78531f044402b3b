"""An initialiser graded by its law (``laws.init_law``) on a model handed over whole
(``spec.Parameters`` with ``form="model"``, ``api/grading/handed_models.py``): the bounds hold
every correct draw over many seeds and refuse the wrong laws, the model reaches the learner's
function with the case's tensors as its parameters, and a parameter the function replaces is
the one read back."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
import torch
from torch import nn

from api.grading import handed_models, harness, laws
from api.grading.spec import Call, Case, LawCheck, ModuleArg, Parameters

DESC = ModuleArg("tiny_gpt", (16, 8, 32, 2, 64), 3)


def _case(seed: int = 0) -> Case:
    model = handed_models.blank(DESC)
    names = tuple(n for n, _ in model.named_parameters())
    values = tuple(p.detach().clone() for p in model.parameters())
    how = Parameters(names=names, form="model", model=DESC)
    step = Call(values, None, seed=seed, parameters=how)
    return Case(
        name="c",
        description="x = a model",
        x=values[0],
        init_kwargs={"n_layers": 2},
        steps=(step,),
        stochastic=True,
    )


def test_chi_square_bounds_hold_every_correct_draw_over_many_seeds() -> None:
    gen = torch.Generator().manual_seed(0)
    for n in (100, 1024, 4096, 65536):
        lo, hi = laws.chi_square_std_bounds(n, 0.02)
        stds = (torch.randn(2000, n, generator=gen, dtype=torch.float64) * 0.02).std(-1)
        assert bool(((stds >= lo) & (stds <= hi)).all()), n
        # And a factor of sqrt(2) (1/sqrt(n_layers) against 1/sqrt(2 n_layers)) is outside
        # from 1024 draws on.
        if n >= 1024:
            assert hi < 0.02 * math.sqrt(2) and lo > 0.02 / math.sqrt(2)
    # Wilson-Hilferty is asymmetric, as the chi-square is: the upper bound is further out.
    lo, hi = laws.chi_square_std_bounds(200, 1.0)
    assert hi - 1.0 > 1.0 - lo


def test_a_uniform_of_the_right_spread_has_too_few_tails() -> None:
    n = laws.MIN_DRAWS
    least = laws.binomial_bounds(n, laws.BEYOND_TWO_SIGMA)[0]
    assert least > 0
    _, hi = laws.chi_square_std_bounds(n, 1.0)
    # The largest uniform whose sample std passes never reaches 2 std.
    assert math.sqrt(3.0) * hi < 2.0


def _expect(case: Case, name: str) -> laws.InitDraw:
    if "ln_" in name:
        value = 1.0 if name.endswith("weight") else 0.0
        return laws.InitDraw("ln", "norms", "归一化层", None, value)
    if name.endswith("bias"):
        return laws.InitDraw("bias", "biases", "偏置", None)
    std = 0.02 / 2.0 if name.endswith("c_proj.weight") else 0.02
    return laws.InitDraw("w", "weights", "权重", std, wrong=(("unscaled", 0.02),))


LAW = laws.init_law(_expect, lambda signs: signs[0] if signs else None)


def _judge(fn: Callable[..., None], seed: int = 0) -> list[LawCheck]:
    case = _case(seed)
    out = harness.run_case(harness.instantiate(fn, case, "function"), case)
    return LAW.judge(case, out.tensors, 1.0)


def _correct(model: nn.Module, n_layers: int, std: float = 0.02) -> None:
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln_" in name:
                p.fill_(1.0 if name.endswith("weight") else 0.0)
            elif name.endswith("bias"):
                p.zero_()
            else:
                p.normal_(0.0, std / math.sqrt(2 * n_layers) if "c_proj" in name else std)


def test_a_correct_initialiser_passes_on_any_seed() -> None:
    for seed in range(200):
        checks = _judge(_correct, seed * 7919 + 1)
        assert len(checks) == 3 and all(c.passed for c in checks), (
            seed,
            [c.message for c in checks if not c.passed],
        )


def test_the_law_names_what_broke_it() -> None:
    def unscaled(model: nn.Module, n_layers: int) -> None:
        _correct(model, n_layers)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name.endswith("c_proj.weight"):
                    p.normal_(0.0, 0.02)

    def uniform(model: nn.Module, n_layers: int) -> None:
        _correct(model, n_layers)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name.endswith("c_fc.weight"):
                    p.uniform_(-0.02 * math.sqrt(3.0), 0.02 * math.sqrt(3.0))

    def untouched_biases(model: nn.Module, n_layers: int) -> None:
        biases = {n: p.detach().clone() for n, p in model.named_parameters() if "bias" in n}
        _correct(model, n_layers)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if name in biases and "ln_" not in name:
                    p.copy_(biases[name])

    named = ((unscaled, "unscaled"), (uniform, "w:tails"), (untouched_biases, "bias:changed"))
    for fn, sign in named:
        failing = [c for c in _judge(fn) if not c.passed]
        assert failing and failing[0].sign == sign, (sign, [c.message for c in failing])


def test_the_handed_model_holds_the_case_tensors_and_a_replaced_parameter_is_read_back() -> None:
    case = _case()
    step = case.scenario[0]
    assert isinstance(step, Call)
    seen: list[bool] = []

    def replace_head(model: nn.Module, n_layers: int) -> None:
        assert isinstance(model, handed_models.TinyGPT) and len(model.h) == n_layers
        seen.append(torch.equal(model.wte.weight.detach(), step.inputs[0]))
        model.lm_head.weight = nn.Parameter(torch.full_like(model.lm_head.weight, 7.0))
        with torch.no_grad():
            model.ln_f.bias.fill_(3.0)

    out = harness.run_case(harness.instantiate(replace_head, case, "function"), case)
    assert seen == [True]
    assert bool((out.tensors["0.output.lm_head.weight"] == 7.0).all())
    assert bool((out.tensors["0.output.ln_f.bias"] == 3.0).all())
    assert torch.equal(out.tensors["0.output.wte.weight"], step.inputs[0])
    # The case's own tensors were copied, never handed over.
    assert not bool((step.inputs[-1] == 3.0).all())


def test_a_model_description_crosses_the_job_wire() -> None:
    case = _case()
    frame = harness.encode_job(
        code="x = 1", class_name="f", banned=[], cases=[case], kind="function"
    )
    _, decoded = harness.decode_job(frame)
    step = decoded[0].scenario[0]
    assert isinstance(step, Call) and step.parameters is not None
    assert step.parameters.form == "model" and step.parameters.model == DESC


def test_a_model_handed_with_names_not_its_own_is_refused() -> None:
    model = handed_models.blank(DESC)
    params = [nn.Parameter(p.detach().clone()) for p in model.parameters()]
    names = tuple(n for n, _ in model.named_parameters())
    with pytest.raises(ValueError):
        handed_models.hand(DESC, names[::-1], params)
    with pytest.raises(ValueError):
        handed_models.blank(ModuleArg("tiny_gpt", (16, 8, 32), 0))
