"""Grading spec for ``layer_norm_backward`` in the scenario platform's format (issue 9).

Kept in drafts/ until the platform's case policy fits a custom autograd Function (see
drafts/README.md): it is probed against the platform's own child program and verdict by
``drafts/probe_platform.py``.

Each call is ``LayerNormFunction.apply(x, weight, bias, eps)`` with a random upstream gradient;
the grader compares the output and the gradients of x, weight and bias, and checks that the
learner's backward is the node autograd runs.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from api.grading.draw import choice, constant_rows, describe, normal, scenario, shape_for
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, Layout
from drafts.layer_norm_backward import mistakes as drafted


class Reference(torch.autograd.Function):
    """``F.layer_norm`` behind the contract's ``apply``; autograd differentiates it."""

    @staticmethod
    def apply(
        x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float
    ) -> torch.Tensor:
        return F.layer_norm(x, (x.shape[-1],), weight, bias, eps)


def make_cases(gen: torch.Generator) -> list[Case]:
    f32, f64 = torch.float32, torch.float64
    cases: list[Case] = []

    def add(
        name: str,
        what: str,
        x: torch.Tensor,
        *,
        eps: float = 1e-5,
        default_params: bool = False,
        backward: bool = True,
        layout: Layout = "contiguous",
    ) -> None:
        d, dtype = x.shape[-1], x.dtype
        if default_params:
            w, b = torch.ones(d, dtype=dtype), torch.zeros(d, dtype=dtype)
        else:
            w = (1 + 0.5 * normal(gen, (d,), f64)).to(dtype)
            b = normal(gen, (d,), dtype)
        grads = (normal(gen, x.shape, dtype),) if backward else None
        extra = [
            "weight = 1, bias = 0" if default_params else "random weight/bias",
            f"eps = {eps:g}",
        ]
        if layout != "contiguous":
            extra.append(f"a non-contiguous ({layout}) view")
        if not backward:
            extra.append("forward only, under torch.no_grad()")
        step = Call((x, w, b), grads, layout=layout, args=(eps,))
        cases.append(
            scenario(
                name=name,
                description=describe(x, what, *extra),
                steps=[step],
                init_kwargs={},
                state=None,
            )
        )

    # Order matters for naming: the families that separate similar mistakes come first.
    add(
        "few_features",
        "N(0,1) * 2 + 1",
        normal(gen, shape_for(gen, 2, choice(gen, [2, 3, 4, 6])), f64) * 2 + 1,
    )
    add("rows_2d", "N(0,1)", normal(gen, shape_for(gen, 2, 48), f32))
    add("eps_0.1", "N(0,1)", normal(gen, shape_for(gen, 2, choice(gen, [3, 5, 8])), f64), eps=0.1)
    add("leading_3d", "N(0,1)", normal(gen, shape_for(gen, 3, 24), f32))
    add("leading_4d_strided", "N(0,1)", normal(gen, shape_for(gen, 4, 16), f64), layout="strided")
    add("vector_1d", "N(0,1)", normal(gen, (choice(gen, [33, 50, 96]),), f32))
    add("batch_of_one", "N(0,1)", normal(gen, (1, 1, choice(gen, [17, 40])), f32))
    add("tiny_inputs", "N(0,1) * 1e-3", normal(gen, shape_for(gen, 2, 16), f32) * 1e-3)
    add("offset_1e3", "N(0,1) + 1e3", normal(gen, shape_for(gen, 2, 64, max_rows=16), f32) + 1e3)
    rows = constant_rows(gen, shape_for(gen, 2, 12, max_rows=8), f32)
    add("constant_rows", "constant along the last dim (k/4)", rows)
    add(
        "default_params_transposed",
        "N(0,1)",
        normal(gen, shape_for(gen, 3, 32), f32),
        default_params=True,
        layout="transposed",
    )
    odd = choice(gen, [200, 300])
    add(
        "odd_features_f64",
        "N(0,1) + 1e4",
        normal(gen, shape_for(gen, 2, odd, max_rows=8), f64) + 1e4,
    )
    add("forward_only", "N(0,1)", normal(gen, shape_for(gen, 2, 32), f32), backward=False)
    return cases


MISTAKES = tuple(
    KnownMistake(m.name, m.title, m.explanation, m.title_zh, m.explanation_zh, m.build)
    for m in drafted.MISTAKES
)

SPEC = ExerciseSpec(
    slug="layer_norm_backward",
    class_name="LayerNormFunction",
    reference=Reference,
    make_cases=make_cases,
    mistakes=MISTAKES,
    banned=(
        "torch.nn.functional.layer_norm",
        "torch.layer_norm",
        "torch.native_layer_norm",
        "torch.nn.LayerNorm",
        "torch.nn.functional.group_norm",
        "torch.nn.functional.instance_norm",
        "torch.nn.functional.batch_norm",
        "torch.autograd.grad",
        "torch.func.vjp",
        "torch.func.grad",
    ),
    kind="autograd_function",
)
