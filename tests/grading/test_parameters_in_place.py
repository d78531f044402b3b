"""Contracts that update parameters in place (``spec.Parameters``): a call hands the learner
parameters built from the case's tensors (a list, the tensor itself, a generator, groups),
and what is compared afterwards is the return value plus every parameter's values and
``.grad``; the optimiser kind builds its class once per case and calls its methods again.

Each behaviour is shown on a tiny contract written here, through the harness and the verdict
the grader uses, including the checks failing on code that breaks them."""

from __future__ import annotations

import sys
import types
import warnings
from typing import Any, ClassVar

import torch

from api.grading import grader, harness, verdict
from api.grading.spec import Call, Case, ExerciseSpec, Parameters, ParamGroup
from api.grading.step_words import step_words

NAMES = ("w", "b")


def _tensors() -> tuple[tuple[torch.Tensor, ...], tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(0)
    values = (torch.randn(3, 4, generator=g), torch.randn(4, generator=g))
    grads = (torch.randn(3, 4, generator=g), torch.randn(4, generator=g))
    return values, grads


def _case(*steps: Call, name: str = "c", **init: Any) -> Case:
    first = steps[0]
    return Case(
        name=name, description="x = N(0,1)", x=first.inputs[0], init_kwargs=init, steps=steps
    )


def halve_grads(parameters: Any, factor: float = 0.5) -> torch.Tensor:
    """The contract of the tiny function exercise: every .grad times ``factor``, in place;
    returns the number of gradients seen."""
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    for grad in grads:
        grad.mul_(factor)
    return torch.tensor(float(len(grads)))


def test_a_function_call_compares_the_return_value_and_every_parameter_after_it() -> None:
    values, grads = _tensors()
    step = Call(values, grads, args=(0.25,), parameters=Parameters(names=NAMES))
    before = [t.clone() for t in (*values, *grads)]
    out = harness.run_case(harness.instantiate(halve_grads, _case(step), "function"), _case(step))
    assert sorted(out.tensors) == [
        "0.output",
        "0.output.b",
        "0.output.b.grad",
        "0.output.w",
        "0.output.w.grad",
    ]
    assert out.tensors["0.output"].item() == 2.0
    assert torch.equal(out.tensors["0.output.w.grad"], grads[0] * 0.25)
    assert torch.equal(out.tensors["0.output.w"], values[0])
    # The case's own tensors were copied, never handed over: they are as drawn.
    assert all(torch.equal(a, b) for a, b in zip(before, (*values, *grads), strict=True))
    assert not any("input_after" in k for k in out.tensors)


def test_no_grad_sets_none_and_a_none_grad_is_compared_as_zeros() -> None:
    values, grads = _tensors()
    seen: list[Any] = []

    def record(parameters: Any) -> torch.Tensor:
        seen.extend(p.grad for p in parameters)
        return torch.tensor(0.0)

    step = Call(values, grads, parameters=Parameters(names=NAMES, no_grad=(1,)))
    out = harness.run_case(harness.instantiate(record, _case(step), "function"), _case(step))
    assert seen[0] is not None and seen[1] is None
    assert torch.equal(out.tensors["0.output.b.grad"], torch.zeros(4))
    # No gradients at all: every .grad is left None.
    seen.clear()
    bare = Call(values, None, parameters=Parameters(names=NAMES))
    harness.run_case(harness.instantiate(record, _case(bare), "function"), _case(bare))
    assert seen == [None, None]


def test_the_forms_hand_a_list_the_tensor_a_generator_or_groups() -> None:
    values, grads = _tensors()
    got: list[Any] = []

    def keep(parameters: Any) -> torch.Tensor:
        got.append(parameters)
        return torch.tensor(0.0)

    for form in ("list", "tensor", "generator"):
        step = Call(values[:1], grads[:1], parameters=Parameters(names=("w",), form=form))
        harness.run_case(harness.instantiate(keep, _case(step), "function"), _case(step))
    assert isinstance(got[0], list) and isinstance(got[0][0], torch.nn.Parameter)
    assert isinstance(got[1], torch.nn.Parameter)
    assert isinstance(got[2], types.GeneratorType)
    groups = (ParamGroup((0,), (("lr", 0.1),)), ParamGroup((1,), (("betas", (0.0, 0.9)),)))
    step = Call(values, grads, parameters=Parameters(names=NAMES, form="groups", groups=groups))
    harness.run_case(harness.instantiate(keep, _case(step), "function"), _case(step))
    handed = got[3]
    assert [len(g["params"]) for g in handed] == [1, 1]
    assert handed[0]["lr"] == 0.1 and handed[1]["betas"] == (0.0, 0.9)


class SGD:
    """The tiny optimiser contract: ``p -= lr * grad`` for each parameter with a gradient."""

    built: ClassVar[int] = 0  # how many times a case built it

    def __init__(self, params: Any, lr: float = 0.1) -> None:
        self.params = list(params)
        self.lr = lr
        SGD.built += 1

    @torch.no_grad()
    def step(self) -> None:
        for p in self.params:
            if p.grad is not None:
                p.sub_(self.lr * p.grad)

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None


def test_an_optimiser_is_built_once_and_its_methods_called_at_every_step() -> None:
    values, grads = _tensors()
    how = Parameters(names=NAMES)
    ignored = tuple(torch.full_like(t, 99.0) for t in values)  # a later call's inputs: unread
    case = _case(
        Call(values, grads, parameters=how),
        Call(ignored, grads, parameters=how),
        Call(ignored, None, function="zero_grad", parameters=how),
        lr=0.5,
    )
    SGD.built = 0
    out = harness.run_case(harness.instantiate(SGD, case, "optimizer"), case)
    assert SGD.built == 1
    assert torch.allclose(out.tensors["1.output.w"], values[0] - 2 * 0.5 * grads[0])
    assert torch.equal(out.tensors["2.output.w"], out.tensors["1.output.w"])
    assert torch.equal(out.tensors["2.output.w.grad"], torch.zeros(3, 4))
    assert "0.output" not in out.tensors and out.notes["0.output_type"] == "NoneType"


def test_the_job_carries_the_parameters_to_the_child() -> None:
    values, grads = _tensors()
    groups = (ParamGroup((0, 1), (("weight_decay", 0.0), ("betas", (0.0, 0.999)))),)
    how = Parameters(names=NAMES, form="groups", no_grad=(1,), groups=groups)
    case = _case(Call(values, grads, parameters=how), Call(values, None, function="zero_grad"))
    frame = harness.encode_job(code="", class_name="SGD", banned=(), cases=[case], kind="optimizer")
    _, decoded = harness.decode_job(frame)
    first, second = decoded[0].scenario
    assert isinstance(first, Call) and isinstance(second, Call)
    assert first.parameters is not None and second.parameters is None
    assert first.parameters.names == NAMES and first.parameters.no_grad == (1,)
    assert first.parameters.groups[0].params == (0, 1)
    assert dict(first.parameters.groups[0].options)["betas"] == [0.0, 0.999]  # JSON: a list


def _spec(kind: str = "function") -> ExerciseSpec:
    def cases(gen: torch.Generator) -> list[Case]:
        values, grads = _tensors()
        if kind == "optimizer":
            how = Parameters(names=NAMES)
            return [_case(Call(values, grads, parameters=how), Call(values, grads, parameters=how))]
        return [_case(Call(values, grads, args=(0.25,), parameters=Parameters(names=NAMES)))]

    return ExerciseSpec(
        slug="tiny",
        class_name="SGD" if kind == "optimizer" else "halve_grads",
        kind=kind,  # type: ignore[arg-type]
        reference=SGD if kind == "optimizer" else halve_grads,
        make_cases=cases,
        trains=False,
    )


def _grade(source: str, spec: ExerciseSpec) -> verdict.Verdict:
    cases = spec.make_cases(torch.Generator())
    problem = grader.precheck(source, spec)
    assert problem is None, problem
    frame = grader.job_template(spec, cases).with_code(source)
    out, err = sys.stdout, sys.stderr
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            answer = harness.run_job(frame)
    finally:
        sys.stdout, sys.stderr = out, err
    return verdict.decide(
        spec, cases, body=answer, timed_out=False, truncated=False, signal=None, time_limit=5.0
    )


HALVE = """
import torch

def halve_grads(parameters, factor=0.5):
    params = list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    for g in grads:
        g.mul_(factor)
    return torch.tensor(float(len(grads)))
"""


def test_the_in_place_changes_pass_and_are_not_an_in_place_mutation() -> None:
    result = _grade(HALVE, _spec())
    assert result.status == "passed", result.message


def test_the_checks_fail_on_grads_left_alone_and_on_values_touched() -> None:
    left_alone = _grade(HALVE.replace("g.mul_(factor)", "pass"), _spec())
    assert left_alone.status == "failed"
    assert ".grad after the call" in left_alone.message, left_alone.message
    touched = HALVE.replace(
        "        g.mul_(factor)", "        g.mul_(factor)\n    params[0].data.zero_()"
    )
    result = _grade(touched, _spec())
    assert result.status == "failed" and "w after the call" in result.message, result.message
    assert result.diagnosis is None or result.diagnosis.name != "in_place_mutation"


SGD_SOURCE = """
import torch

class SGD:
    def __init__(self, params, lr=0.1):
        self.params = list(params)
        self.lr = lr

    @torch.no_grad()
    def step(self):
        for p in self.params:
            if p.grad is not None:
                p.sub_(self.lr * p.grad)
"""


def test_an_optimiser_passes_and_a_wrong_second_step_fails_there() -> None:
    assert _grade(SGD_SOURCE, _spec("optimizer")).status == "passed"
    # Right on the first step only: the second call's check fails, step 2 named.
    once = SGD_SOURCE.replace(
        "    def step(self):\n", "    def step(self):\n        self.lr = self.lr / 2\n"
    ).replace("self.lr = lr", "self.lr = 2 * lr")
    result = _grade(once, _spec("optimizer"))
    assert result.status == "failed", result.message
    assert "step 2 of 2: step() with fresh gradients" in result.message, result.message


def test_a_parameter_call_is_said_as_such() -> None:
    values, grads = _tensors()
    how = Parameters(names=NAMES, no_grad=(1,))
    case = _case(
        Call(values, grads, parameters=how),
        Call(values, None, function="zero_grad", parameters=how),
    )
    first = step_words(case, 0, "optimizer")
    assert first.en.startswith("step 1 of 2: step() with fresh gradients, 1 parameter(s)")
    assert "写入新的梯度后调用 step()" in first.zh
    second = step_words(case, 1, "optimizer")
    assert second.en == (
        "step 2 of 2: zero_grad(), the gradients left as they are, 1 parameter(s) without a "
        "gradient (None)"
    )
