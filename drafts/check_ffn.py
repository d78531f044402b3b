"""Prove the ffn drafts against PyTorch in-process: `.venv/bin/python drafts/check_ffn.py [seed]`.

For each exercise: the worked solution and every correct alternative match the reference on the
edge cases (outputs, input and parameter gradients, over train/eval steps with parameter
updates, float32 and float64); the starter, every known mistake and every wrong variant differ.
Exits non-zero on the first exercise with a wrong label.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from drafts._scenario import (
    ModuleCase,
    RaisesCase,
    Report,
    Step,
    load_class,
    verdict,
)

HERE = Path(__file__).resolve().parent
F32, F64 = torch.float32, torch.float64


def lin(gen: torch.Generator, out_f: int, in_f: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.randn(out_f, in_f, generator=gen, dtype=dtype) / in_f**0.5


def vec(gen: torch.Generator, n: int, dtype: torch.dtype, std: float = 0.5) -> torch.Tensor:
    return torch.randn(n, generator=gen, dtype=dtype) * std


def steps_for(
    gen: torch.Generator,
    shape: tuple[int, ...],
    dtype: torch.dtype,
    modes: Sequence[bool],
    *,
    scale: float = 1.0,
    offset: float = 0.0,
    transpose: bool = False,
    out_shape: tuple[int, ...] | None = None,
) -> list[Step]:
    """One step per mode: backward and a parameter update after each, a fresh input each time."""
    steps = []
    for train in modes:
        stored = (*shape[:-2], shape[-1], shape[-2]) if transpose else shape
        x = torch.randn(stored, generator=gen, dtype=dtype) * scale + offset
        g = torch.randn(out_shape or shape, generator=gen, dtype=dtype)
        steps.append(Step(x=x, train=train, grad=g, update=True, transpose=transpose))
    return steps


# ---------------------------------------------------------------------------- feed_forward


def feed_forward_cases(gen: torch.Generator) -> list[ModuleCase | RaisesCase]:
    cases: list[ModuleCase | RaisesCase] = []

    def add(
        name: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        *,
        d_ff: int | None = None,
        activation: str | None = None,
        dropout: float | None = None,
        modes: Sequence[bool] = (True, True, False),
        **kw: Any,
    ) -> None:
        d_model = shape[-1]
        hidden = 4 * d_model if d_ff is None else d_ff
        init: dict[str, Any] = {"d_model": d_model}
        if d_ff is not None:
            init["d_ff"] = d_ff
        if activation is not None:
            init["activation"] = activation
        if dropout is not None:
            init["dropout"] = dropout
        state = {
            "linear1.weight": lin(gen, hidden, d_model, dtype),
            "linear1.bias": vec(gen, hidden, dtype),
            "linear2.weight": lin(gen, d_model, hidden, dtype),
            "linear2.bias": vec(gen, d_model, dtype),
        }
        steps = steps_for(gen, shape, dtype, modes, **kw)
        cases.append(ModuleCase(name, init, state, steps, seed=len(cases)))

    add("defaults_train_eval_3d", (2, 5, 16), F32)  # gelu, dropout 0.1, d_ff = 64
    add("relu_train_eval", (3, 24), F64, d_ff=40, activation="relu", dropout=0.3)
    add("gelu_dropout_half_f64", (4, 12), F64, d_ff=48, dropout=0.5)
    add("no_dropout_train_4d", (2, 1, 3, 7), F64, d_ff=5, dropout=0.0, modes=(True, True))
    add("eval_only_dropout", (6, 20), F32, d_ff=30, dropout=0.5, modes=(False, False))
    add("large_inputs_gelu", (5, 32), F64, d_ff=64, dropout=0.0, scale=8.0, modes=(False,))
    add("default_width_odd_dim", (3, 7), F64, modes=(False, True))  # d_ff = 28
    add("default_width_200", (2, 200), F32, dropout=0.0, modes=(False,))  # d_ff = 800
    add("narrow_hidden_1", (4, 9), F64, d_ff=1, activation="relu", modes=(True, False))
    add("vector_1d", (48,), F32, d_ff=96, dropout=0.2)
    add("transposed_input", (2, 8, 300), F32, d_ff=64, dropout=0.1, transpose=True)
    add("leading_one", (1, 1, 16), F64, d_ff=32, activation="relu", dropout=0.25)
    cases.append(RaisesCase("unknown_activation", {"d_model": 8, "activation": "swish"}))
    return cases


def check_exercise(
    report: Report,
    slug: str,
    class_name: str,
    reference: Callable[..., Any],
    mistakes: Sequence[Any],
    cases: Sequence[ModuleCase | RaisesCase],
) -> None:
    folder = HERE / slug
    print(f"{slug}: {len(cases)} cases")
    for label in ["solution.py", *sorted(p.name for p in (folder / "variants").glob("correct_*"))]:
        path = folder / label if label == "solution.py" else folder / "variants" / label
        report.expect_pass(label, verdict(load_class(path, class_name), reference, cases))
    report.expect_fail(
        "starter.py", verdict(load_class(folder / "starter.py", class_name), reference, cases)
    )
    for m in mistakes:
        report.expect_fail(f"mistake {m.name}", verdict(m.build, reference, cases))
    for path in sorted((folder / "variants").glob("wrong_*")):
        report.expect_fail(path.name, verdict(load_class(path, class_name), reference, cases))


def main() -> int:
    report = Report()
    gen = torch.Generator().manual_seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)

    from drafts.feed_forward import mistakes as ff_mistakes
    from drafts.feed_forward import reference as ff_reference

    check_exercise(
        report,
        "feed_forward",
        "FeedForward",
        ff_reference.FeedForward,
        ff_mistakes.MISTAKES,
        feed_forward_cases(gen),
    )

    print(f"{report.lines} labels checked, {len(report.errors)} wrong")
    for e in report.errors:
        print("  -", e)
    return 1 if report.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
