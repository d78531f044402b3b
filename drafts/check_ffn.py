"""Prove the ffn drafts against PyTorch in-process: `python drafts/check_ffn.py [--seed N] [slug]`.

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
    TOLERANCE,
    FunctionCase,
    ModuleCase,
    RaisesCase,
    Report,
    Step,
    Tolerance,
    banned_names_used,
    disagreements,
    expectation,
    function_verdict,
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
    inference: bool = False,
) -> list[Step]:
    """One step per mode: backward and a parameter update after each, a fresh input each time.

    With `inference`, eval steps run forward-only under no_grad, as a model serving requests.
    """
    steps = []
    for train in modes:
        stored = (*shape[:-2], shape[-1], shape[-2]) if transpose else shape
        x = torch.randn(stored, generator=gen, dtype=dtype) * scale + offset
        g = torch.randn(out_shape or shape, generator=gen, dtype=dtype)
        if inference and not train:
            steps.append(Step(x=x, train=False, grad=None, transpose=transpose))
        else:
            steps.append(Step(x=x, train=train, grad=g, update=True, transpose=transpose))
    return steps


# ---------------------------------------------------------------------------- fused_add_rms_norm


def fused_add_rms_norm_cases(gen: torch.Generator) -> list[FunctionCase]:
    cases: list[FunctionCase] = []
    f16, bf16 = torch.float16, torch.bfloat16

    def add(
        name: str,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        *,
        eps: float = 1e-6,
        x_scale: float = 1.0,
        r_scale: float = 3.0,
        r_offset: float = 0.0,
        backward: bool = True,
    ) -> None:
        dim = shape[-1]
        # Built in float32 and rounded once, so half-precision inputs are exactly representable.
        x = (torch.randn(shape, generator=gen) * x_scale).to(dtype)
        r = (torch.randn(shape, generator=gen) * r_scale + r_offset).to(dtype)
        w = (1 + 0.5 * torch.randn(dim, generator=gen)).to(dtype)
        grads = None
        if backward:
            grads = [torch.randn(shape, generator=gen, dtype=dtype) for _ in range(2)]
        cases.append(FunctionCase(name, [x, r, w], {"eps": eps}, grads))

    add("normal_2d", (6, 32), F32)
    add("stream_much_larger_3d_f64", (2, 5, 24), F64, x_scale=0.1, r_scale=10.0)
    add("vector_1d", (64,), F64)
    add("four_d_leading_one", (1, 2, 3, 16), F32)
    add("dim_1", (7, 1), F64)
    add("tiny_sum_eps_1e5", (4, 40), F64, eps=1e-5, x_scale=1e-4, r_scale=1e-4)
    add("wide_4096", (2, 4096), F32)
    add("forward_no_grad_mutation", (3, 48), F32, backward=False)
    add("bf16_well_conditioned", (4, 256), bf16, backward=False)
    add("f16_square_overflow", (3, 128), f16, r_offset=300.0, r_scale=20.0, backward=False)
    add("f16_normal", (5, 64), f16, backward=False)
    return cases


def check_exercise(
    report: Report,
    slug: str,
    class_name: str,
    reference: Callable[..., Any],
    mistakes: Sequence[Any],
    cases: Sequence[ModuleCase | RaisesCase],
    tolerance: Tolerance = TOLERANCE,
    banned: Sequence[str] = (),
) -> None:
    folder = HERE / slug
    print(f"{slug}: {len(cases)} cases")
    check_banned(report, folder, banned)

    def labelled(path: Path) -> list[tuple[str, str]]:
        return verdict(load_class(path, class_name), reference, cases, tolerance)

    report.expect_pass("solution.py", labelled(folder / "solution.py"))
    report.expect_fail("starter.py", labelled(folder / "starter.py"))
    for m in mistakes:
        report.expect_fail(f"mistake {m.name}", verdict(m.build, reference, cases, tolerance))
    by_name = {m.name: m.build for m in mistakes}
    check_variants(report, folder, cases, tolerance, by_name, labelled, class_name)


def check_variants(
    report: Report,
    folder: Path,
    cases: Sequence[Any],
    tolerance: Tolerance,
    by_name: dict[str, Callable[..., Any]],
    labelled: Callable[[Path], list[tuple[str, str]]],
    name: str,
) -> None:
    """Every variant gets the verdict its first line expects; a named one matches its mistake."""
    for path in sorted((folder / "variants").glob("*.py")):
        status, mistake = expectation(path)
        if status == "rejected":
            continue  # proved statically by check_banned
        if status == "passed":
            report.expect_pass(path.name, labelled(path))
            continue
        report.expect_fail(path.name, labelled(path))
        if mistake in by_name:
            found = disagreements(load_class(path, name), by_name[mistake], cases, tolerance)
            report.expect_pass(f"{path.name} reproduces mistake {mistake}", found)


def check_banned(report: Report, folder: Path, banned: Sequence[str]) -> None:
    """Rejected variants reach a banned name; nothing that must pass or fail on values does."""
    for path in sorted(folder.glob("*.py")) + sorted((folder / "variants").glob("*.py")):
        if path.name in ("reference.py", "mistakes.py"):
            continue
        used = banned_names_used(path, banned)
        should = path.name.startswith("rejected_")
        report.lines += 1
        if bool(used) != should:
            report.errors.append(f"{path.name}: banned names used {sorted(used)}")
        if should or used:
            mark = "ok " if bool(used) == should else "BAD"
            print(f"  {mark} rejected: {path.name} ({', '.join(sorted(used)) or 'nothing banned'})")


def check_fused_add_rms_norm(report: Report, gen: torch.Generator) -> None:
    from drafts.fused_add_rms_norm import mistakes, reference

    folder = HERE / "fused_add_rms_norm"
    cases = fused_add_rms_norm_cases(gen)
    tolerance = {**TOLERANCE, **reference.TOLERANCE_HALF}
    ref = reference.fused_add_rms_norm
    print(f"fused_add_rms_norm: {len(cases)} cases")
    check_banned(report, folder, reference.BANNED)

    def labelled(path: Path) -> list[tuple[str, str]]:
        return function_verdict(load_class(path, "fused_add_rms_norm"), ref, cases, tolerance)

    report.expect_pass("solution.py", labelled(folder / "solution.py"))
    report.expect_fail("starter.py", labelled(folder / "starter.py"))
    for m in mistakes.MISTAKES:
        failures = function_verdict(m.function, ref, cases, tolerance)
        report.expect_fail(f"mistake {m.name}", failures)
    by_name = {m.name: m.function for m in mistakes.MISTAKES}
    check_variants(report, folder, cases, tolerance, by_name, labelled, "fused_add_rms_norm")


EXERCISES: dict[str, Callable[[Report, torch.Generator], None]] = {
    "fused_add_rms_norm": check_fused_add_rms_norm,
}


def main(argv: Sequence[str]) -> int:
    """Usage: check_ffn.py [--seed N] [slug ...] (all exercises by default)."""
    args = list(argv)
    seed = 0
    if "--seed" in args:
        at = args.index("--seed")
        seed = int(args[at + 1])
        del args[at : at + 2]
    slugs = args or list(EXERCISES)
    report = Report()
    for slug in slugs:
        EXERCISES[slug](report, torch.Generator().manual_seed(seed))
    print(f"{report.lines} labels checked, {len(report.errors)} wrong")
    for e in report.errors:
        print("  -", e)
    return 1 if report.errors else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
