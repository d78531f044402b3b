"""The platform beyond the four exercises, on small fixture specs defined here (not in the
catalog): a function exercise, a custom ``autograd.Function`` whose hand-written backward is
graded, and a module with buffers, a string constructor argument and its features at dim 1.
Each runs through the grader's real pipeline in-process (the child's program, then the
verdict): the correct answer passes and the wrong ones fail on the right check."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from api.grading import draw
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake
from tests.exercises.golden import grade

# --- a function: softmax(x, dim) ------------------------------------------------------------


def _softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return F.softmax(x, dim=dim)


def _softmax_no_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x)
    return e / e.sum(dim, keepdim=True)


def _softmax_cases(gen: torch.Generator) -> list[Case]:
    cases = []
    for i, (dim, scale) in enumerate([(-1, 1.0), (0, 1.0), (-1, 100.0)]):
        x = draw.normal(gen, draw.shape_for(gen, 3, 24), torch.float32, std=scale)
        cases.append(
            draw.scenario(
                name=f"softmax_{i}",
                description=draw.describe(x, f"{scale:g} * N(0,1)", f"dim = {dim}"),
                steps=[draw.call(gen, x, layout="transposed" if i == 1 else "contiguous")],
                init_kwargs={"dim": dim},
                state=None,
            )
        )
    return cases


SOFTMAX = ExerciseSpec(
    slug="fixture_softmax",
    class_name="softmax",
    kind="function",
    reference=_softmax,
    make_cases=_softmax_cases,
    mistakes=(KnownMistake("no_max_subtraction", "t", "e", "标题", "解释", _softmax_no_max),),
    banned=("torch.nn.functional.softmax", "torch.softmax"),
)


def test_function_exercise_passes_and_names_its_mistake() -> None:
    good = """
        import torch
        def softmax(x, dim=-1):
            z = x - x.amax(dim, keepdim=True)
            e = z.exp()
            return e / e.sum(dim, keepdim=True)
    """
    verdict = grade(textwrap.dedent(good), SOFTMAX, seed=1)
    assert verdict.status == "passed", verdict.message
    bad = """
        import torch
        def softmax(x, dim=-1):
            e = x.exp()
            return e / e.sum(dim, keepdim=True)
    """
    verdict = grade(textwrap.dedent(bad), SOFTMAX, seed=1)
    assert verdict.status == "failed" and "softmax_2" in verdict.message
    assert verdict.diagnosis is not None and verdict.diagnosis.name == "no_max_subtraction"
    banned = "import torch\ndef softmax(x, dim=-1):\n    return torch.softmax(x, dim)\n"
    assert grade(banned, SOFTMAX, seed=1).status == "rejected"
    assert grade("def soft_max(x, dim=-1):\n    return x\n", SOFTMAX).status == "error"


# --- a custom autograd.Function: the learner's backward is graded ---------------------------


class _Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, g: torch.Tensor) -> torch.Tensor:
        (x,) = ctx.saved_tensors  # type: ignore[attr-defined]
        return g * 3 * x**2


def _cube_cases(gen: torch.Generator) -> list[Case]:
    x = draw.normal(gen, (4, 8), torch.float64)
    return [
        draw.scenario(
            name="cube",
            description=draw.describe(x, "N(0,1)"),
            steps=[draw.call(gen, x), draw.call(gen, 2 * x, note="again")],
            init_kwargs={},
            state=None,
        )
    ]


CUBE = ExerciseSpec(
    slug="fixture_cube",
    class_name="Cube",
    kind="autograd_function",
    reference=_Cube,
    make_cases=_cube_cases,
)
_CUBE_HEAD = """
import pytest
import torch
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
"""


def test_autograd_function_backward_is_what_gets_graded() -> None:
    right = (
        _CUBE_HEAD
        + """
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * g
"""
    )
    assert grade(right, CUBE).status == "passed"
    wrong = (
        _CUBE_HEAD
        + """
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g
"""
    )
    verdict = grade(wrong, CUBE)
    assert verdict.status == "failed"
    failing = [c for c in verdict.checks if not c.passed]
    assert failing[0].target == "grad of input", verdict.message
    # A forward that autograd differentiates by itself bypasses the hand-written backward.
    bypass = (
        _CUBE_HEAD
        + """
    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("never called")

    @classmethod
    def apply(cls, x):
        return x ** 3
"""
    )
    verdict = grade(bypass, CUBE)
    assert verdict.status == "failed"
    assert verdict.diagnosis is not None and verdict.diagnosis.name == "backward_not_used"


# --- a Function with a parameter: raw gradients, bans inside backward, save_for_backward -----


class _Scale(torch.autograd.Function):
    """``x * weight`` over the last dim, the weight's gradient summed over every leading dim."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        return x * weight

    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, weight = ctx.saved_tensors
        return g * weight, (g * x).reshape(-1, x.shape[-1]).sum(0)


class _ScaleSumsDimZero(_Scale):
    @staticmethod
    def backward(ctx: Any, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x, weight = ctx.saved_tensors
        return g * weight, (g * x).sum(0)


def _scale_cases(gen: torch.Generator) -> list[Case]:
    x = draw.normal(gen, (2, 3, 5), torch.float64)
    w = draw.normal(gen, (5,), torch.float64)
    go = draw.normal(gen, x.shape, torch.float64)
    return [
        draw.scenario(
            name="scale",
            description=draw.describe(x, "N(0,1)", "random weight"),
            steps=[Call((x, w), (go,))],
            init_kwargs={},
            state=None,
        )
    ]


SCALE = ExerciseSpec(
    slug="fixture_scale",
    class_name="Scale",
    kind="autograd_function",
    reference=_Scale,
    make_cases=_scale_cases,
    mistakes=(KnownMistake("weight_grad_not_summed", "t", "e", "标题", "解释", _ScaleSumsDimZero),),
    banned=("torch.autograd.grad", "torch.autograd.backward"),
    save_for_backward=True,
)
_SCALE_FORWARD = """
import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return x * weight

    @staticmethod
    def backward(ctx, g):
        x, weight = ctx.saved_tensors
"""


def test_raw_gradients_show_a_sum_autograd_would_have_done() -> None:
    right = _SCALE_FORWARD + "        return g * weight, (g * x).reshape(-1, x.shape[-1]).sum(0)\n"
    assert grade(right, SCALE).status == "passed"
    # Autograd would sum the (3, 5) gradient down to (5,) and give the right values; the
    # grader compares it as backward returned it.
    wrong = _SCALE_FORWARD + "        return g * weight, (g * x).sum(0)\n"
    verdict = grade(wrong, SCALE)
    assert verdict.status == "failed", verdict.message
    failing = [c for c in verdict.checks if not c.passed]
    assert failing[0].target == "grad of input[1]" and "shape (3, 5)" in failing[0].message
    assert verdict.diagnosis is not None and verdict.diagnosis.name == "weight_grad_not_summed"


def test_banned_calls_inside_backward_trip_and_the_graders_own_do_not() -> None:
    # Reached by a name the static check cannot see: only the run-time check inside backward.
    hidden = (
        _SCALE_FORWARD
        + """        run = getattr(torch.autograd, "back" + "ward")
        with getattr(torch, "enable" + "_grad")():
            xl, wl = x.detach().requires_grad_(), weight.detach().requires_grad_()
            run([xl * wl], [g])
        return xl.grad, wl.grad
"""
    )
    verdict = grade(hidden, SCALE)
    assert verdict.status == "rejected", verdict.message
    assert "torch.autograd.backward" in verdict.message
    # A bypassed backward makes the grader run autograd.backward itself: that is not the
    # learner's call, so it fails as backward_not_used instead of being rejected.
    bypass = (
        _SCALE_FORWARD
        + """        return g, g

    @classmethod
    def apply(cls, x, weight):
        return x * weight
"""
    )
    verdict = grade(bypass, SCALE)
    assert verdict.status == "failed", verdict.message
    assert verdict.diagnosis is not None and verdict.diagnosis.name == "backward_not_used"


def test_tensors_kept_on_ctx_are_named_when_the_contract_asks_for_save_for_backward() -> None:
    on_ctx = _SCALE_FORWARD.replace("ctx.save_for_backward(x, weight)", "ctx.x, ctx.w = x, weight")
    on_ctx = on_ctx.replace("x, weight = ctx.saved_tensors", "x, weight = ctx.x, ctx.w")
    on_ctx += "        return g * weight, (g * x).reshape(-1, x.shape[-1]).sum(0)\n"
    verdict = grade(on_ctx, SCALE)
    assert verdict.status == "failed", verdict.message
    assert verdict.diagnosis is not None and verdict.diagnosis.name == "saved_on_ctx_attribute"
    assert "(x,w)" in verdict.message
    # The same code passes where the contract does not ask for it.
    assert grade(on_ctx, replace(SCALE, save_for_backward=False)).status == "passed"


# --- buffers, a string argument, channels at dim 1 ------------------------------------------


class _RunningMean(nn.Module):
    """Channel means over (N, C, L), tracked in a buffer in training (EMA or cumulative)."""

    def __init__(self, channels: int, mode: str = "ema") -> None:
        super().__init__()
        self.mode = mode
        self.scale = nn.Parameter(torch.ones(channels))
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("count", torch.tensor(0, dtype=torch.long))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.training:
            mean = x.mean(dim=(0, 2)).detach()
            with torch.no_grad():
                self.count += 1
                if self.mode == "ema":
                    self.running_mean.mul_(0.9).add_(0.1 * mean)
                else:
                    self.running_mean.add_((mean - self.running_mean) / self.count)
        out: torch.Tensor = x * self.scale[:, None]
        return out


def _running_cases(gen: torch.Generator) -> list[Case]:
    cases = []
    for mode in ("ema", "cumulative"):
        x = draw.normal(gen, draw.shape_for(gen, 3, 6, axis=1), torch.float32) + 1.0
        x2 = draw.normal(gen, x.shape, torch.float32)
        cases.append(
            draw.scenario(
                name=mode,
                description=draw.describe(x, "N(0,1) + 1", f"mode = {mode!r}"),
                steps=[draw.call(gen, x, train=True), draw.call(gen, x2, train=True)],
                init_kwargs={"channels": x.shape[1], "mode": mode},
                state=None,
            )
        )
    return cases


RUNNING = ExerciseSpec(
    slug="fixture_running_mean",
    class_name="RunningMean",
    reference=_RunningMean,
    make_cases=_running_cases,
    feature_axis=1,
)
_RUNNING_SRC = """
import pytest
import torch
from torch import nn
class RunningMean(nn.Module):
    def __init__(self, channels, mode="ema"):
        super().__init__()
        self.mode = mode
        self.scale = nn.Parameter(torch.ones(channels))
        self.register_buffer("running_mean", torch.zeros(channels))
        self.register_buffer("count", torch.tensor(0, dtype=torch.long))

    def forward(self, x):
        if self.training:
            mean = x.mean(dim=(0, 2)).detach()
            with torch.no_grad():
                self.count += 1
                if self.mode == "ema":
                    self.running_mean.mul_(MOMENTUM).add_((1 - MOMENTUM) * mean)
                else:
                    self.running_mean.add_((mean - self.running_mean) / self.count)
        return x * self.scale[:, None]
"""


def test_buffers_string_arguments_and_channel_axis() -> None:
    cases = _running_cases(torch.Generator().manual_seed(0))
    assert all(c.x.shape[1] == 6 for c in cases), "features at dim 1"
    assert grade(_RUNNING_SRC.replace("MOMENTUM", "0.9"), RUNNING).status == "passed"
    verdict = grade(_RUNNING_SRC.replace("MOMENTUM", "0.1"), RUNNING)  # momentum inverted
    assert verdict.status == "failed", verdict.message
    failing = [c for c in verdict.checks if not c.passed]
    assert failing[0].target == "buffer running_mean" and failing[0].case == "ema"
    assert "step 1 of 2" in verdict.message
    no_buffer = _RUNNING_SRC.replace('self.register_buffer("count"', "self.count_ = (0,")
    no_buffer = no_buffer.replace("torch.long))", "torch.long)))")
    assert grade(no_buffer, RUNNING).status in {"failed", "error"}


def test_a_call_with_several_inputs_and_a_tuple_output() -> None:
    def fused(x: torch.Tensor, r: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s = x + r
        return s * 2, s

    def cases(gen: torch.Generator) -> list[Case]:
        x, r = (draw.normal(gen, (3, 5), torch.float64) for _ in range(2))
        grads = (draw.normal(gen, (3, 5), torch.float64), draw.normal(gen, (3, 5), torch.float64))
        return [
            draw.scenario(
                name="two_inputs",
                description=draw.describe(x, "N(0,1)"),
                steps=[Call((x, r), grads)],
                init_kwargs={},
                state=None,
            )
        ]

    spec = ExerciseSpec(
        slug="fixture_fused", class_name="fused", kind="function", reference=fused, make_cases=cases
    )
    ok = "def fused(x, r):\n    s = x + r\n    return s * 2, s\n"
    assert grade(ok, spec).status == "passed"
    stale = "def fused(x, r):\n    return (x + r) * 2, r\n"  # returns the old residual
    verdict = grade(stale, spec)
    assert verdict.status == "failed"
    assert next(c.target for c in verdict.checks if not c.passed) == "output[1]"


def test_static_precheck_by_kind() -> None:
    """The parent's checks before anything runs ask for a `def` in a function exercise."""
    from api.grading.grader import precheck

    assert precheck("import torch\ndef softmax(x, dim=-1):\n    return x\n", SOFTMAX) is None
    missing = precheck("class softmax:\n    pass\n", SOFTMAX)
    assert missing is not None and missing.status == "error" and "def softmax" in missing.message
    banned = precheck(
        "import torch.nn.functional as F\ndef softmax(x, dim=-1):\n    return F.softmax(x, dim)\n",
        SOFTMAX,
    )
    assert banned is not None and banned.status == "rejected"
    broken = precheck("def softmax(x:\n", SOFTMAX)
    assert broken is not None and broken.line == 1
    assert precheck("class Cube: pass\n", CUBE) is None


# --- several functions in one exercise: softmax and log_softmax ------------------------------


def _log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return F.log_softmax(x, dim=dim)


def _log_softmax_no_max(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    return x - x.exp().sum(dim, keepdim=True).log()


def _pair_cases(gen: torch.Generator) -> list[Case]:
    cases = []
    for i, offset in enumerate([0.0, 1e4]):
        x = draw.normal(gen, (3, 6), torch.float32) + offset
        x[:, -1] = float("-inf")  # a masked position: -inf must come back as -inf
        steps = [
            Call((x,), (draw.normal(gen, (3, 6), torch.float32),), function=name)
            for name in ("softmax", "log_softmax")
        ]
        cases.append(
            draw.scenario(
                name=f"pair_{i}",
                description=draw.describe(x, f"N(0,1) + {offset:g}, last column -inf"),
                steps=list(steps),
                init_kwargs={},
                state=None,
            )
        )
    return cases


PAIR = ExerciseSpec(
    slug="fixture_pair",
    class_name="softmax",
    functions=("softmax", "log_softmax"),
    kind="function",
    reference={"softmax": _softmax, "log_softmax": _log_softmax},
    make_cases=_pair_cases,
    mistakes=(
        KnownMistake(
            "no_max_subtraction",
            "t",
            "e",
            "标题",
            "解释",
            {"softmax": _softmax_no_max, "log_softmax": _log_softmax_no_max},
        ),
    ),
    banned=("torch.nn.functional.softmax", "torch.nn.functional.log_softmax"),
)

_GOOD_PAIR = """
import pytest
import torch
def softmax(x, dim=-1):
    z = x - x.amax(dim, keepdim=True)
    return z.exp() / z.exp().sum(dim, keepdim=True)
def log_softmax(x, dim=-1):
    z = x - x.amax(dim, keepdim=True)
    return z - z.exp().sum(dim, keepdim=True).log()
"""


def test_several_functions_each_call_names_its_function() -> None:
    assert grade(_GOOD_PAIR, PAIR, seed=2).status == "passed"
    # The mistake in one of the two functions only is still the mistake, named; the failing
    # checks say which function they called.
    bad = _GOOD_PAIR.replace(
        "    z = x - x.amax(dim, keepdim=True)\n    return z - z", "    z = x\n    return z - z"
    )
    assert bad != _GOOD_PAIR
    verdict = grade(bad, PAIR, seed=2)
    assert verdict.status == "failed", verdict.message
    assert verdict.diagnosis is not None and verdict.diagnosis.name == "no_max_subtraction"
    failing = [c for c in verdict.checks if not c.passed]
    assert failing and {c.function for c in failing} == {"log_softmax"}
    assert {c.function for c in verdict.checks} == {"softmax", "log_softmax"}
    assert "call of log_softmax" in verdict.message
    # A finite value where the reference is -inf (the masked column) fails.
    finite = _GOOD_PAIR.replace(
        "return z - z.exp().sum(dim, keepdim=True).log()",
        "return (z - z.exp().sum(dim, keepdim=True).log()).clamp_min(-50.0)",
    )
    verdict = grade(finite, PAIR, seed=2)
    assert verdict.status == "failed" and "log_softmax" in verdict.message, verdict.message


def test_several_functions_every_name_is_required() -> None:
    from api.grading.grader import precheck

    assert precheck(_GOOD_PAIR, PAIR) is None
    # Another way to bind the name at the top of the module is still a function.
    alias = _GOOD_PAIR.replace("def log_softmax(x, dim=-1):", "def _lsm(x, dim=-1):")
    assert precheck(alias + "log_softmax = _lsm\n", PAIR) is None
    only_one = _GOOD_PAIR.split("def log_softmax")[0]
    problem = precheck(only_one, PAIR)
    assert problem is not None and problem.status == "error"
    assert "`log_softmax`" in problem.message.split("does not define")[1]
    # A nested def does not define the name the grader calls.
    nested = only_one + "def outer():\n    def log_softmax(x, dim=-1):\n        return x\n"
    assert precheck(nested, PAIR) is not None
    # Past the parent's check (a name bound only when the code runs), the child says so too.
    verdict = grade(only_one + "globals()['log_softmax'] = 3\n", PAIR)
    assert verdict.status == "error" and "def log_softmax(...)" in verdict.message
    assert grade(only_one, PAIR).status == "error"


def test_several_functions_spec_is_checked() -> None:
    with pytest.raises(ValueError, match="maps every name"):
        ExerciseSpec(
            slug="x",
            class_name="softmax",
            functions=("softmax", "log_softmax"),
            kind="function",
            reference={"softmax": _softmax},
            make_cases=_pair_cases,
        )
    with pytest.raises(ValueError, match="needs `functions`"):
        ExerciseSpec(
            slug="x",
            class_name="softmax",
            kind="function",
            reference={"softmax": _softmax},
            make_cases=_pair_cases,
        )


# --- a mistake that raises on most shapes and is silently wrong on others --------------------


def _softmax_max_no_keepdim(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    e = torch.exp(x - x.max(dim).values)
    return e / e.sum(dim, keepdim=True)


def _square_and_not_cases(gen: torch.Generator) -> list[Case]:
    cases = []
    for i, shape in enumerate([(6, 6), (3, 5), (4, 7), (2, 3, 9), (5, 5)]):
        x = draw.normal(gen, shape, torch.float32, std=3.0)
        cases.append(
            draw.scenario(
                name=f"shape_{i}",
                description=draw.describe(x, "3 * N(0,1)"),
                steps=[draw.call(gen, x)],
                init_kwargs={},
                state=None,
            )
        )
    return cases


KEEPDIM = ExerciseSpec(
    slug="fixture_keepdim",
    class_name="softmax",
    kind="function",
    reference=_softmax,
    make_cases=_square_and_not_cases,
    mistakes=(
        KnownMistake("no_max_subtraction", "t", "e", "标题", "解释", _softmax_no_max),
        KnownMistake("max_without_keepdim", "t", "e", "标题", "解释", _softmax_max_no_keepdim),
    ),
)


def test_a_mistake_that_raises_on_most_shapes_is_named_from_the_others() -> None:
    code = (
        "import torch\ndef softmax(x, dim=-1):\n"
        "    e = (x - x.max(dim).values).exp()\n    return e / e.sum(dim, keepdim=True)\n"
    )
    verdict = grade(code, KEEPDIM, seed=4)
    assert verdict.status == "failed", verdict.message
    assert verdict.diagnosis is not None and verdict.diagnosis.name == "max_without_keepdim"
    assert "shape_0" in verdict.message and "raised RuntimeError" in verdict.message
    # Code that raises where the mistake does not is an error, not that mistake.
    other = code.replace("    e = ", "    assert x.shape[0] == x.shape[-1]\n    e = ")
    verdict = grade(other, KEEPDIM, seed=4)
    assert verdict.status == "error" and verdict.diagnosis is None, verdict.message
