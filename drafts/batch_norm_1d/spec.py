"""Grading spec for ``batch_norm_1d`` in the scenario platform's format (issue 9).

Kept in drafts/ until the platform's case policy admits an exercise whose input has only two
ranks (BatchNorm1d takes (N, C) and (N, C, L), not 1-D or 4-D; see drafts/README.md). Probed
against the platform's own child program and verdict by ``drafts/probe_platform.py``.

The scenarios are those of ``reference.py`` (train steps, parameter updates, eval steps,
buffers compared after every call), in the platform's Call / Update steps.
"""

from __future__ import annotations

import torch
from torch import nn

from api.grading.draw import describe, normal
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake, Step, Update
from drafts.batch_norm_1d import mistakes as drafted
from drafts.batch_norm_1d import reference as drafts_reference


def reference(num_features: int, eps: float = 1e-5, momentum: float = 0.1) -> nn.Module:
    return nn.BatchNorm1d(num_features, eps=eps, momentum=momentum)


def make_cases(gen: torch.Generator) -> list[Case]:
    cases: list[Case] = []
    for sc in drafts_reference.make_scenarios(gen):
        steps: list[Step] = []
        params = ("weight", "bias")
        for k, st in enumerate(sc.steps):
            x = st.x.contiguous().to(sc.dtype)
            layout = "transposed" if not st.x.is_contiguous() else "contiguous"
            grads = (normal(gen, x.shape, x.dtype),) if st.backward else None
            note = "after an update" if k and st.mode == "eval" else ""
            steps.append(
                Call((x,), grads, train=st.mode == "train", layout=layout, note=note)  # type: ignore[arg-type]
            )
            if st.update_lr:
                c = x.shape[1]
                deltas = {p: normal(gen, (c,), sc.dtype, std=st.update_lr) for p in params}
                steps.append(Update(deltas))
        state = None
        if sc.state is not None:
            state = {k: v.to(sc.dtype) if v.is_floating_point() else v for k, v in sc.state.items()}
        kinds = " then ".join(s.mode for s in sc.steps)
        cases.append(
            Case(
                name=sc.family,
                description=describe(steps[0].inputs[0], sc.description, kinds),  # type: ignore[union-attr]
                x=steps[0].inputs[0],  # type: ignore[union-attr]
                init_kwargs=sc.init_kwargs,
                state=state,
                steps=tuple(steps),
            )
        )
    return cases


SPEC = ExerciseSpec(
    slug="batch_norm_1d",
    class_name="BatchNorm1d",
    reference=reference,
    make_cases=make_cases,
    mistakes=tuple(
        KnownMistake(m.name, m.title, m.explanation, m.title_zh, m.explanation_zh, m.build)
        for m in drafted.MISTAKES
    ),
    banned=drafts_reference.BANNED,
    kind="module",
    feature_axis=1,
)
