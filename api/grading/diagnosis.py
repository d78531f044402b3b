"""Naming the mistake behind a failed verdict, in the trusted parent.

The order of evidence:

1. What the grader sees for every exercise: the input modified in place, the output's dtype,
   the given module re-initialised or called the wrong number of times, a hand-written
   backward that autograd never runs.
2. A known mistake whose parameters (names and shapes) are the learner's.
3. A known mistake that reproduces the learner's outputs, gradients and buffers. Each tensor of
   each step of each failing case is a *check*. A check is *informative* when the mistake
   differs from the reference there. A mistake matches when the learner agrees with it on
   every check, except where the disagreement lies only in non-finite values (NaN or inf on
   one side): two spellings of one mistake legitimately differ on degenerate inputs
   (``sqrt(mean((x - mean)**2)) + eps`` has a NaN gradient on a constant row, ``x.std() + eps``
   does not). Those checks are *skipped* and counted, and the verdict says how many checks
   matched. Among several matches the most specific wins: fewest skipped, most agreeing checks,
   closest values.
4. A *partial* match: a mistake that explains the failing cases sharing one feature (a flag, the
   mode, the rank, the dtype...) and no others, stated with that scope; a second mistake may
   explain the rest ("with norm_first=True your code computes post-norm; with norm_first=False
   pre-norm").
5. Otherwise, or for what a partial match leaves, *findings* (``findings.py``): the shape of the
   discrepancy (a factor, an offset, the input added, NaN where the reference is finite...).

The case quoted first in the verdict's message is the one where the diagnosed mistake stands
out the most from the reference (for an eps mistake, the small-variance case), not simply the
first in the list.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import numpy as np
import torch

from api.grading import casesets, comparison, findings, harness
from api.grading.casesets import MistakeOutcomes
from api.grading.findings import Diagnosis, Discrepancy, Finding, ScopedMistake
from api.grading.scope import Condition, separate, zh_pad
from api.grading.spec import Call, Case, ExerciseSpec, KnownMistake

# A full match is decided on the first failing cases (the specs order their cases so that
# these discriminate between mistakes); a partial match needs them all, up to a bound.
MAX_DIAGNOSIS_CASES = 6
MAX_SCOPE_CASES = 16
MAX_MISTAKE_RUNS = 240


class Memo(dict[tuple[Any, ...], Any]):
    """What one diagnosis computed once and reads again, keyed by what it depends on. What
    depends on the case set alone (a known mistake's outcome on a case, how far it is from the
    reference) also comes from and goes to ``outcomes``, shared with the other verdicts graded
    on the same set (``casesets``)."""

    def __init__(self, outcomes: MistakeOutcomes | None = None) -> None:
        super().__init__()
        self.outcomes = outcomes

    def lasting(
        self,
        key: tuple[Any, ...],
        compute: Callable[[], Any],
        size: Callable[[Any], int] = lambda _value: 0,
    ) -> Any:
        """The value for ``key``, which must depend on the case set alone: computed here
        already, else by another verdict on the set, else now (and shared)."""
        if key in self:
            return self[key]
        found, value = self.outcomes.lookup(key) if self.outcomes is not None else (False, None)
        if not found:
            value = compute()
            if self.outcomes is not None:
                self.outcomes.keep(key, value, size(value))
        self[key] = value
        return value


# A check agrees with a mistake it is this many times nearer to than to the reference.
NEARER = 0.01


class Judged(Protocol):
    """What diagnosis reads from a case's judgement (``verdict._CaseJudgement``)."""

    @property
    def checks(self) -> Sequence[Any]: ...

    @property
    def error(self) -> Mapping[str, Any] | None: ...

    @property
    def parameters(self) -> Mapping[str, Any] | None: ...

    @property
    def mutated(self) -> bool: ...

    @property
    def wrong_dtype(self) -> bool: ...

    @property
    def wrong_grad_dtype(self) -> bool: ...

    @property
    def reinitialised(self) -> bool: ...

    @property
    def calls(self) -> bool: ...

    @property
    def foreign_backward(self) -> bool: ...

    @property
    def not_saved(self) -> bool: ...

    @property
    def over_budget(self) -> bool: ...

    @property
    def raised(self) -> list[str] | None: ...  # a construction case: what the constructor raised

    @property
    def learner(self) -> Mapping[str, torch.Tensor] | None: ...

    @property
    def expected(self) -> Any: ...  # comparison.Expected | None

    @property
    def passed(self) -> bool: ...


@dataclass
class Result:
    """The diagnosis, the findings, and the case the message should quote first."""

    diagnosis: Diagnosis | None = None
    findings: list[Finding] = field(default_factory=list)
    first_case: str | None = None


IN_PLACE = Diagnosis(
    name="in_place_mutation",
    title="Modified the input in place",
    explanation=(
        "Your forward changed the tensor it was given (an in-place op such as x.sub_() or "
        "x -= mean). The caller still needs x: in a Transformer it is the residual stream. "
        "Use out-of-place ops (x - mean) and return a new tensor."
    ),
    title_zh="原地修改了输入",
    explanation_zh=(
        "forward 修改了传入的张量（例如 x.sub_() 或 x -= mean 这类原地操作）。调用方之后还要用 x，"
        "在 Transformer 里它就是残差流。请改用非原地运算（x - mean），返回一个新张量。"
    ),
)
WRONG_DTYPE = Diagnosis(
    name="wrong_output_dtype",
    title="Output dtype differs from the input's",
    explanation=(
        "The output must have the input's dtype. Computing in float32 or float64 for precision "
        "is fine, but cast the result back with .to(x.dtype) (or .type_as(x)); never hard-code "
        "a dtype."
    ),
    title_zh="输出的 dtype 与输入不一致",
    explanation_zh=(
        "输出必须与输入的 dtype 相同。为了精度在 float32/float64 中计算没有问题，但最后要用 "
        ".to(x.dtype)（或 .type_as(x)）转换回去；不要写死 dtype。"
    ),
)
WRONG_GRAD_DTYPE = Diagnosis(
    name="wrong_gradient_dtype",
    title="A gradient's dtype differs from its input's",
    explanation=(
        "Your backward returned a gradient in another dtype than the tensor it is the gradient "
        "of (float64 for a float32 input, say). autograd casts it back silently when it "
        "accumulates, so the extra precision is lost anyway and the copy costs memory; a caller "
        "that uses the returned gradient as it is gets the wrong dtype. Compute in a wider "
        "dtype if you like, then return grad.to(x.dtype) for each input."
    ),
    title_zh="梯度的 dtype 与对应输入不一致",
    explanation_zh=(
        "你的 backward 返回的梯度与它所对应的张量 dtype 不同（例如 float32 的输入返回了 float64 "
        "的梯度）。autograd 在累加时会悄悄转换回去，多出来的精度反正会丢掉，转换还要多占一份显存；"
        "直接使用返回值的调用方拿到的 dtype 是错的。可以在更宽的 dtype 里计算，最后对每个输入返回 "
        "grad.to(x.dtype)。"
    ),
)
LOW_PRECISION = Diagnosis(
    name="low_precision_statistics",
    title="Computed in half precision: right in float32, wrong in bfloat16/float16",
    explanation=(
        "Every float32 and float64 case passes; only half-precision inputs fail. The formula is "
        "right, the arithmetic is not: a sum, mean or variance kept in bfloat16 (8 significant "
        "bits) or float16 (11) is rounded by as much as the spread of the values once they sit "
        "around a large mean, and a constant row no longer cancels exactly. Compute in float32 "
        "(x.float(), or dtype=torch.float32 in the reduction) and cast the result back with "
        ".to(x.dtype) once, at the end, as nn.LayerNorm and Llama's RMSNorm do."
    ),
    title_zh="在半精度里计算：float32 下正确，bfloat16/float16 下出错",
    explanation_zh=(
        "所有 float32 和 float64 用例都通过了，只有半精度输入出错：公式没错，错在算术精度。"
        "在 bfloat16（8 位有效位）或 float16（11 位）里保存的和、均值或方差，数值集中在一个较大"
        "的均值附近时，舍入误差和数值本身的离散程度一样大，整行相同的输入也不再能精确抵消。"
        "请在 float32 里计算（x.float()，或在归约里指定 dtype=torch.float32），最后只用一次 "
        ".to(x.dtype) 转回去，nn.LayerNorm 和 Llama 的 RMSNorm 都是这样做的。"
    ),
)
FLOAT32_INTERNALS = Diagnosis(
    name="float32_internals",
    title="float64 input computed in float32",
    explanation=(
        "Every float32 case passes; the float64 cases fail by about float32's rounding "
        "(1e-7 of the values). Somewhere the float64 input goes through float32: x.float(), a "
        "float32 constant or buffer it is combined with, torch.tensor(..., dtype=float32), or "
        "a .to(torch.float32) meant for half precision only. This exercise computes float64 "
        "in float64 (its prompt says so): upcast only bfloat16 and float16 "
        "(x.float() if x.dtype in (torch.float16, torch.bfloat16) else x)."
    ),
    title_zh="float64 的输入被放到 float32 里计算了",
    explanation_zh=(
        "所有 float32 用例都通过了，float64 用例的误差大约是 float32 的舍入量级（数值的 1e-7）。"
        "float64 的输入在某处经过了 float32：x.float()、与之运算的 float32 常量或 buffer、"
        "torch.tensor(..., dtype=float32)，或者本来只该用于半精度的 .to(torch.float32)。"
        "本题要求 float64 就在 float64 里计算（题目里写明了）：只把 bfloat16 和 float16 "
        "升到 float32（x.float() if x.dtype in (torch.float16, torch.bfloat16) else x）。"
    ),
)
CALL_COUNT = Diagnosis(
    name="module_argument_calls",
    title="The given module is called the wrong number of times",
    explanation=(
        "The contract calls the module you were given (the sublayer) once per forward. Yours "
        "calls it a different number of times: a second call costs compute, and with a "
        "stochastic sublayer (dropout inside) it draws different random numbers. Compute its "
        "output once and reuse the tensor."
    ),
    title_zh="传入模块的调用次数不对",
    explanation_zh=(
        "按约定，每次 forward 只调用一次传入的模块（sublayer），你的实现调用的次数不同。多调用一次"
        "既浪费计算；子层自带随机性（内部有 dropout）时，还会抽到不同的随机数。请只计算一次子层"
        "输出，然后复用这个张量。"
    ),
)
REINITIALISED = Diagnosis(
    name="module_argument_reinitialised",
    title="The given module was re-initialised",
    explanation=(
        "Your constructor changed the parameters of the module it was given (for example with "
        "self.apply(init_fn) or nn.init on every Linear). The caller owns that module and its "
        "weights (they may be pretrained): store it as it is and initialise only your own "
        "parameters."
    ),
    title_zh="重新初始化了传入的模块",
    explanation_zh=(
        "你的构造函数修改了传入模块的参数（例如 self.apply(init_fn)，或对所有 Linear 调用 "
        "nn.init）。这个模块及其权重属于调用方（可能是预训练好的）：请原样保存，只初始化你自己的"
        "参数。"
    ),
)
FOREIGN_BACKWARD = Diagnosis(
    name="backward_not_used",
    title="Your backward is not the one autograd runs",
    explanation=(
        "The output of your Function's forward is not attached to your Function's backward "
        "(its grad_fn belongs to ordinary torch ops). Usually forward computed with autograd "
        "still tracking, or returned a tensor built outside apply(). Compute the result inside "
        "forward, return it, and call YourFunction.apply(...)."
    ),
    title_zh="autograd 运行的不是你写的 backward",
    explanation_zh=(
        "你的 Function 的 forward 输出没有连到你写的 backward（它的 grad_fn 属于普通的 torch "
        "运算）。通常是因为 forward 计算时 autograd 仍在跟踪，或者返回了在 apply() 之外构造的"
        "张量。请在 forward 中计算并返回结果，再通过 YourFunction.apply(...) 调用。"
    ),
)


OVER_BUDGET = Diagnosis(
    name="saved_bytes_over_budget",
    title="More memory kept for backward than the budget allows",
    explanation=(
        "Your outputs and gradients are right, but the forward keeps more bytes for backward "
        "than the exercise's budget: intermediate activations are stored (by autograd, which "
        "saves what each op needs for its backward, or on a Function's ctx) instead of "
        "recomputed. Keep only what recomputation starts from (the input; parameters are not "
        "counted), run the forward without recording a graph (torch.no_grad() inside a custom "
        "autograd.Function), and rebuild the activations in backward."
    ),
    title_zh="为 backward 保存的内存超出了预算",
    explanation_zh=(
        "你的输出和梯度都是对的，但 forward 为 backward 保存的字节数超出了本题的预算：中间激活被"
        "保存了下来（autograd 会为每个运算保存其 backward 需要的张量，或者存在 Function 的 ctx"
        " 上），"
        "而不是重新计算。只保留重计算的起点（输入；参数不计入），在不记录计算图的情况下做前向"
        "（在自定义 autograd.Function 里用 torch.no_grad()），在 backward 里重建这些激活。"
    ),
)


NOT_SAVED = Diagnosis(
    name="saved_on_ctx_attribute",
    title="Tensors kept on ctx attributes instead of ctx.save_for_backward",
    explanation=(
        "Your forward keeps the tensors backward needs as attributes of ctx (ctx.x = x) or "
        "saves nothing through ctx.save_for_backward. The values come out right, but autograd "
        "no longer manages them: it cannot check that they were not modified in place before "
        "backward, cannot free them with the graph (a reference cycle through ctx can keep "
        "them alive), and saved-tensor hooks (activation offloading, checkpointing) never see "
        "them. Keep tensors with ctx.save_for_backward(...) and read them back from "
        "ctx.saved_tensors; plain numbers (eps) may stay on ctx."
    ),
    title_zh="把张量存成了 ctx 的属性，而不是用 ctx.save_for_backward",
    explanation_zh=(
        "你的 forward 把 backward 要用的张量存成了 ctx 的属性（ctx.x = x），或者根本没有通过 "
        "ctx.save_for_backward 保存任何东西。数值是对的，但 autograd 不再管理这些张量：它没法检查"
        "它们在 backward 之前是否被原地修改过，没法随计算图一起释放它们（经由 ctx 的循环引用可能让"
        "它们一直占着内存），saved-tensor hooks（激活卸载、重计算）也看不到它们。请用 "
        "ctx.save_for_backward(...) 保存张量，再从 ctx.saved_tensors 取回；eps 这样的普通数字"
        "可以留在 ctx 上。"
    ),
)


def _tensors(j: Judged) -> Mapping[str, torch.Tensor]:
    return j.learner or {}


def known(m: KnownMistake, **extra: Any) -> Diagnosis:
    return Diagnosis(
        name=m.name,
        title=m.title,
        explanation=m.explanation,
        title_zh=m.title_zh,
        explanation_zh=m.explanation_zh,
        **extra,
    )


# --- matching a known mistake, check by check -----------------------------------------------


@dataclass
class CaseMatch:
    """How one case's checks compare with one mistake's run."""

    agreed: int = 0  # informative checks the learner agrees with
    informative: int = 0  # checks where the mistake differs from the reference
    skipped: int = 0  # disagreements only in non-finite values
    contradicted: int = 0  # checks the learner and the mistake disagree on
    # How far the mistake is from the reference, relative to the reference's magnitude: on
    # outputs (what a learner reads first), then on anything (gradients, buffers).
    output_strength: float = 0.0
    strength: float = 0.0
    half: bool = False  # a bfloat16 / float16 case
    distance: float = 0.0  # how far the learner is from the mistake, in tolerances

    @property
    def consistent(self) -> bool:
        return self.contradicted == 0

    @property
    def explains(self) -> bool:
        return self.contradicted == 0 and self.agreed > 0


def _ratio(cmp: Any) -> float:
    if not math.isfinite(cmp.max_abs):
        return 1e6
    return float(cmp.max_abs) / max(float(cmp.allowed), 1e-300)


def _relative(error: float, magnitude: float, floor: float) -> float:
    """An error relative to the reference's magnitude (``_magnitude``): comparable across dtypes
    (a float64 case's tolerance is tiny, so errors in tolerances would always favour float64
    cases)."""
    if not math.isfinite(error):
        return 1e6
    return error / max(magnitude, floor, 1e-12)


def _magnitude(ref: torch.Tensor) -> float:
    """The largest finite magnitude in a reference tensor."""
    return float(ref.detach().double().nan_to_num(nan=0.0, posinf=0.0, neginf=0.0).abs().max())


def _finite(t: torch.Tensor) -> bool:
    return bool(t.isfinite().all())


def _learner_finite(cache: Memo, case: str, key: str, actual: torch.Tensor) -> bool:
    memo = ("learner_finite", case, key)
    if memo not in cache:
        cache[memo] = _finite(actual)
    return bool(cache[memo])


def _learner_array(cache: Memo, case: str, key: str, actual: torch.Tensor) -> np.ndarray:
    """The learner's tensor widened once per case and tensor in a diagnosis, then held against
    every mistake tried."""
    memo = ("learner_array", case, key)
    if memo not in cache:
        cache[memo] = comparison.learner_array(actual)
    found: np.ndarray = cache[memo]
    return found


def _flag_size(_flag: bool) -> int:
    return 256


def _degenerate(actual: torch.Tensor, candidate: torch.Tensor, dtype: torch.dtype) -> bool:
    """The two differ only where one of them is NaN or inf (a constant row's gradient)."""
    a, c = actual.detach().double().reshape(-1), candidate.detach().double().reshape(-1)
    both = a.isfinite() & c.isfinite()
    if bool(both.all()):
        return False
    return comparison.compare(a[both], c[both], None, dtype).passed


def _run(spec: ExerciseSpec, mistake: KnownMistake, form: int, case: Case) -> Any:
    """The mistake's outcome on the case, None if it raised."""
    try:
        return comparison.expected_outcome(spec.factories(mistake.build)[form], case, spec)
    except Exception:
        return None


def _outcome_size(outcome: Any) -> int:
    return 0 if outcome is None else casesets.nbytes(outcome)


def _summary_size(_summary: comparison.Summary) -> int:
    """Three numbers, with the key and the slot that keep them: about half a KiB."""
    return 512


def _against_reference(
    candidates: Sequence[torch.Tensor],
    ref_truth: torch.Tensor,
    ref_native: torch.Tensor | None,
    dtype: torch.dtype,
    scale: float,
    floor: float,
) -> tuple[bool, float]:
    """Whether a mistake's outcome (either run) differs from the reference's, and by how much
    relative to the reference's size: what makes agreeing with it informative, and how strongly.
    Depends on the case set alone: shared by every verdict on it."""
    informative, strength = False, 0.0
    for c in candidates:
        vs_ref = comparison.compare(c, ref_truth, ref_native, dtype, scale, floor)
        if not vs_ref.passed:
            informative = True
            strength = max(strength, _relative(vs_ref.max_abs, _magnitude(ref_truth), floor))
    return informative, strength


def match_case(
    spec: ExerciseSpec,
    mistake: KnownMistake,
    case: Case,
    learner: Mapping[str, torch.Tensor],
    reference: Any,
    cache: Memo,
    form: int = 0,
) -> CaseMatch | None:
    """None when the mistake cannot run this case (it raised, or returned no output). ``form``
    picks one of ``spec.factories(mistake.build)``: a mistake in several functions is also
    made in some of them only."""
    key_ = (mistake.name, form, case.name)
    if key_ not in cache:
        # Each run of a mistake on a case is a reference-sized computation in the service's own
        # process: a verdict gets at most MAX_MISTAKE_RUNS of them (counted, not timed, so the
        # diagnosis is the same on a busy machine). The catalogue's worst variant needs 180.
        runs = cache.get(("runs",), 0)
        if runs >= MAX_MISTAKE_RUNS:
            return None
        cache[("runs",)] = runs + 1
        # Counted even when another verdict on these cases ran it already: a diagnosis does not
        # depend on which verdicts came before it.
        cache.lasting(key_, lambda: _run(spec, mistake, form, case), _outcome_size)
    expected = cache[key_]
    if expected is None:
        return None
    truth, native = expected.truth.tensors, expected.native.tensors
    ref_truth, ref_native = reference.truth.tensors, reference.native.tensors
    if not any(".output" in k for k in truth):
        return None
    dtype = case.dtype
    found = CaseMatch(half=dtype in (torch.bfloat16, torch.float16))
    for key, actual in learner.items():
        if found.contradicted:
            # Contradicted once, the case is inconsistent with the mistake, and no caller reads
            # more of an inconsistent case than that: the other checks are not compared (most
            # mistakes tried are not the learner's).
            break
        if key not in truth or truth[key].shape != actual.shape:
            found.contradicted += 1
            continue
        if not (actual.is_floating_point() and truth[key].is_floating_point()):
            # An integer buffer (num_batches_tracked) agrees only exactly, as its check compares.
            mine = truth[key]
            ref = ref_truth.get(key)
            informative = ref is not None and not (
                ref.dtype == mine.dtype and torch.equal(ref, mine)
            )
            found.informative += informative
            if actual.dtype == mine.dtype and torch.equal(actual, mine):
                found.agreed += informative
            else:
                found.contradicted += 1
            continue
        floor = reference.floor(case, key)
        scale = spec.tolerance(case.dtype)
        # A numerical mistake (E[x^2] - E[x]^2 in float32) shows only at the case's dtype:
        # agreeing with the mistake's run at that dtype counts as much as with its float64 run.
        # Against the float64 run, the mistake's own rounding at the case's dtype is allowed,
        # as the reference's is: two spellings of one mistake round differently.
        # The reductions on the mistake's side of each comparison depend on the case set
        # alone: made once and shared (a few numbers, where its arrays would fill the budget).
        sides = [("truth", truth[key], native.get(key))]
        if key in native:
            sides.append(("native", native[key], None))
        widened = _learner_array(cache, case.name, key, actual)
        cmps = []
        for which, side, allowance in sides:
            summary = cache.lasting(
                ("summary", mistake.name, form, case.name, key, which, scale),
                partial(comparison.summarise, side, allowance, dtype, scale, floor),
                _summary_size,
            )
            cmps.append(comparison.nearness(widened, side, allowance, dtype, scale, floor, summary))
        strength = 0.0
        informative = False
        candidates = [truth[key]] + ([native[key]] if key in native else [])
        if key in ref_truth:
            informative, strength = cache.lasting(
                ("vs_ref", mistake.name, form, case.name, key),
                partial(
                    _against_reference,
                    candidates,
                    ref_truth[key],
                    ref_native.get(key),
                    dtype,
                    scale,
                    floor,
                ),
            )
        agree = any(c.passed for c in cmps)
        nearest = min(c.max_abs for c in cmps)
        if not agree and informative and math.isfinite(nearest):
            # Beyond tolerance but a hundred times nearer the mistake than the reference: the
            # same mistake computed in another order (a wrong axis reduced in float32 two ways).
            # How far the learner is from the reference is the same whichever mistake is
            # tried: computed once per case and tensor in a diagnosis.
            learner_key = ("learner_vs_ref", case.name, key)
            if learner_key not in cache:
                cache[learner_key] = comparison.compare_array(
                    widened, reference.prepared(case, key, scale, allowance=False)
                ).max_abs
            agree = nearest <= NEARER * cache[learner_key]
        found.informative += informative
        if agree:
            if informative:
                found.agreed += 1
                found.strength = max(found.strength, strength)
                if ".output" in key:
                    found.output_strength = max(found.output_strength, strength)
            found.distance += min(_ratio(c) for c in cmps)
        elif any(
            _degenerate(actual, c, dtype)
            for i, c in enumerate(candidates)
            # Both finite everywhere: ``_degenerate``'s own first test says no, so it is not
            # asked (the learner's side known per diagnosis, the mistake's per case set).
            if not (
                _learner_finite(cache, case.name, key, actual)
                and cache.lasting(
                    ("finite", mistake.name, form, case.name, key, i),
                    partial(_finite, c),
                    _flag_size,
                )
            )
        ):
            found.skipped += 1
        else:
            found.contradicted += 1
    return found


@dataclass
class MistakeMatch:
    mistake: KnownMistake
    order: int  # the spec's order, the last tie-break
    cases: dict[str, CaseMatch]
    form: int = 0  # which of spec.factories(mistake.build)

    def total(self, names: Sequence[str]) -> CaseMatch:
        out = CaseMatch()
        for n in names:
            m = self.cases.get(n)
            if m is None:
                out.contradicted += 1
                continue
            out.agreed += m.agreed
            out.informative += m.informative
            out.skipped += m.skipped
            out.contradicted += m.contradicted
            out.distance += m.distance
            out.strength = max(out.strength, m.strength)
        return out

    def explained(self, names: Sequence[str]) -> list[str]:
        return [n for n in names if (m := self.cases.get(n)) is not None and m.explains]


def _evidence(total: CaseMatch) -> dict[str, Any]:
    informative = total.agreed + total.skipped
    en = (
        f"Your results agree with this mistake on {total.agreed} of {informative} checks where "
        "it differs from the reference"
    )
    zh = (
        f"按这个错误写的代码有 {informative} 项检查与参考实现不同，"
        f"其中 {total.agreed} 项你的结果与它一致"
    )
    if total.skipped:
        en += (
            f"; {total.skipped} check(s) were set aside because there one side is NaN or inf "
            "(a degenerate input, such as a constant row, on which two ways of writing the same "
            "mistake can legitimately differ)"
        )
        zh += (
            f"；这些检查中有 {total.skipped} 项未计入，因为有一方出现了 NaN 或 inf（输入退化，"
            "比如某一行是常数，同一个错误的不同写法在这种输入上本来就可能不同）"
        )
    return {
        "matched_checks": total.agreed,
        "informative_checks": informative,
        "skipped_checks": total.skipped,
        "evidence": en + ".",
        "evidence_zh": zh + "。",
    }


def _strongest(match: MistakeMatch, names: Sequence[str]) -> str | None:
    """The explained case on which the mistake stands out most from the reference; a
    half-precision case only when no other shows it (its rounding blurs what it shows)."""
    best = max(
        (n for n in names if (m := match.cases.get(n)) is not None and m.explains),
        key=lambda n: (
            not match.cases[n].half,
            match.cases[n].output_strength,
            match.cases[n].strength,
        ),
        default=None,
    )
    return best


# --- the entry point ---------------------------------------------------------------------------


def diagnose(
    spec: ExerciseSpec,
    judgements: Sequence[tuple[Case, Judged]],
    outcomes: MistakeOutcomes | None = None,
) -> Result:
    found = _diagnose_values(spec, judgements, outcomes)
    if found.diagnosis is None:
        # Construction cases ("an unknown placement raises ValueError") carry no tensors: a
        # mistake is named there by constructing as the learner's code did.
        found.diagnosis = _construction(spec, [(c, j) for c, j in judgements if not j.passed])
    if found.diagnosis is None:
        accepted = _accepted(judgements)
        if accepted is not None:
            found.findings.append(accepted)
    return found


def _accepted(judgements: Sequence[tuple[Case, Judged]]) -> Finding | None:
    """Constructor arguments the contract refuses, accepted without a word: a typo in a config
    then trains another model than the one asked for."""
    silent = [c for c, j in judgements if c.raises is not None and not j.passed and j.raised == []]
    if not silent:
        return None
    first = silent[0]
    given = ", ".join(
        f"{k}={v!r}" for k, v in first.init_kwargs.items() if isinstance(v, bool | str)
    )
    return Finding(
        kind="no_raise",
        case=first.name,
        cases=[c.name for c in silent],
        text=(
            f"Your constructor accepted {given or 'these arguments'} without raising "
            f"{first.raises} ({len(silent)} such case(s)). Check the value in __init__ and "
            f"raise {first.raises} there: a misspelt option must not quietly become the default."
        ),
        text_zh=(
            f"你的构造函数接受了 {given or '这些参数'}，却没有抛出 {first.raises}"
            f"（共 {len(silent)} 个这样的用例）。请在 __init__ 里检查取值并抛出 "
            f"{first.raises}：拼错的选项不能悄悄变成默认值。"
        ),
    )


def _construction(spec: ExerciseSpec, failing: Sequence[tuple[Case, Judged]]) -> Diagnosis | None:
    """A known mistake that constructs (or raises) exactly as the learner's did on every
    failing construction case, where the reference raises."""
    cases = [(c, j.raised) for c, j in failing if c.raises is not None and j.raised is not None]
    if not cases:
        return None
    for mistake in spec.mistakes:
        agrees = True
        for case, theirs in cases:
            try:
                subject = harness.instantiate(spec.factory(mistake.build), case, spec.kind)
            except Exception:
                agrees = False
                break
            mine = subject.raised or []
            if (mine[:1] != theirs[:1]) or (case.raises or "") in mine:
                agrees = False
                break
        if agrees:
            return known(mistake)
    return None


def _diagnose_values(
    spec: ExerciseSpec,
    judgements: Sequence[tuple[Case, Judged]],
    outcomes: MistakeOutcomes | None,
) -> Result:
    failing = [(c, j) for c, j in judgements if not j.passed]
    if not failing:
        return Result()
    generic = _generic(failing)
    if generic is not None:
        found = Result(generic)
        if generic is WRONG_DTYPE:
            found.findings = _dtype_findings(failing)
        return found
    structural = next(((c, j) for c, j in failing if j.parameters is not None), None)
    if structural is not None:
        case, j = structural
        assert j.parameters is not None
        shaped = _structural_match(spec, case, j.parameters)
        if shaped is None:
            return Result()
        return Result(_structural(shaped[0], shaped[1], j.parameters))
    comparable = [(c, j) for c, j in failing if j.learner and j.expected is not None]
    if not comparable:
        return Result()
    precision = _precision_only(judgements)
    cache = Memo(outcomes)
    window = comparable[:MAX_DIAGNOSIS_CASES]
    names = [c.name for c, _ in window]
    matches = [
        _match(spec, m, i, window, cache, form)
        for i, m in enumerate(spec.mistakes)
        for form in range(len(spec.factories(m.build)))
    ]
    full = [m for m in matches if _is_full(m, names)]
    rest = comparable[:MAX_SCOPE_CASES]
    if len(full) > 1:
        # Several mistakes explain the first failing cases alike (statistics rounded to half
        # and statistics computed in half agree until a square overflows): the most specific is
        # the one the further failing cases do not contradict, then the best on all of them.
        for m in full:
            _extend(spec, m, rest, cache)
        every = [c.name for c, _ in rest]
        held = [m for m in full if _is_full(m, every)]
        full = held or full
        names = every if held else names
    if full:
        best = _best(full, names)
        evidence = _evidence(best.total(names))
        # The message quotes the failing case where this mistake shows most, among all the
        # failing cases it explains, beyond the window too (up to a bound).
        _extend(spec, best, rest, cache)
        # A mistake that would have failed cases the learner passes holds only on some
        # inputs: say on which, rather than name it as if it held everywhere.
        passing = _passing(judgements)
        _extend(spec, best, passing, cache)
        against = [c.name for c, _ in passing if not best.cases[c.name].consistent]
        dtypes = {c.name: c.dtype for c, _ in passing}
        if precision is not None and any(dtypes[n] == torch.float32 for n in against):
            # Matched on rounding at one precision alone, and contradicted in float32, where a
            # formula's mistake would show: not this mistake; the rounding is what the cases
            # say. (Contradicted at another precision only, the rounding may be the mistake.)
            return Result(precision[1])
        if against:
            partial = _partial(spec, judgements, comparable, cache)
            # Scoping narrows this mistake; another mistake on a subset of cases would explain
            # less than this one, which explains every failing case.
            if partial.diagnosis is not None and partial.diagnosis.name == best.mistake.name:
                return partial
            evidence["evidence"] += (
                f" It does not hold everywhere: {len(against)} case(s) on which it differs "
                "from the reference pass."
            )
            evidence["evidence_zh"] += (
                f"不过并非处处吻合：有 {len(against)} 个用例按这个错误会出错，你的代码却通过了。"
            )
        return Result(
            known(best.mistake, **evidence),
            first_case=_strongest(best, [c.name for c, _ in rest]),
        )
    if precision is not None:
        return Result(precision[1])
    return _partial(spec, judgements, comparable, cache)


HALF = (torch.bfloat16, torch.float16)
FLOAT64 = (torch.float64,)


def _precision_only(
    judgements: Sequence[tuple[Case, Judged]],
) -> tuple[tuple[torch.dtype, ...], Diagnosis] | None:
    """Right at one precision, wrong at another: every failing case is half precision (or
    every one float64), and a float32 case passed. The dtypes and the diagnosis that says so."""
    failing = [c for c, j in judgements if not j.passed]
    passed32 = any(c.dtype == torch.float32 and c.raises is None for c, j in judgements if j.passed)
    if not failing or not passed32:
        return None
    if all(c.dtype in HALF for c in failing):
        return HALF, LOW_PRECISION
    if all(c.dtype in FLOAT64 for c in failing) and all(
        _at_float32_rounding(c, j) for c, j in judgements if not j.passed
    ):
        return FLOAT64, FLOAT32_INTERNALS
    return None


# A float32 detour errs by about 6e-8 of the largest value it rounds (the input, the output, a
# gradient flowing in), amplified a little by the computation; a wrong formula by far more.
FLOAT32_ROUNDING = 1e-5


def _at_float32_rounding(case: Case, j: Judged) -> bool:
    """Every tensor of ``j`` is within what float32 rounding of its step's values explains, and
    every failing check is about a value (not a shape, a dtype or an exception)."""
    bad = [c for c in j.checks if not c.passed]
    if not bad or any(c.max_abs_error is None for c in bad) or j.expected is None:
        return False
    truth = j.expected.truth.tensors
    for key, actual in _tensors(j).items():
        ref = truth.get(key)
        k = key.partition(".")[0]
        step = case.scenario[int(k)] if k.isdigit() and int(k) < len(case.scenario) else None
        if ref is None or ref.shape != actual.shape or not isinstance(step, Call):
            continue
        if not (actual.is_floating_point() and ref.is_floating_point()):
            continue
        sources = [ref, *step.inputs, *(step.grad_outputs or ())]
        scale = max(
            (
                float(s.detach().double().nan_to_num(0.0, 0.0, 0.0).abs().max())
                for s in sources
                if s.is_floating_point() and s.numel()
            ),
            default=0.0,
        )
        err = float((actual.detach().double() - ref.detach().double()).abs().max())
        if not (math.isfinite(err) and err <= FLOAT32_ROUNDING * scale):
            return False
    return True


def named_despite_errors(
    spec: ExerciseSpec,
    failing: Sequence[tuple[Case, Judged]],
    outcomes: MistakeOutcomes | None = None,
) -> KnownMistake | None:
    """A known mistake that raises on some shapes and is silently wrong on others (a max taken
    without keepdim raises a size mismatch, except on a square matrix): named from the cases
    where the learner's code returned a value, and only if it also raises, with the same
    exception, on the cases where the learner's code raised."""
    valued = [(c, j) for c, j in failing if j.error is None and j.learner and j.expected]
    if not valued:
        return None
    cache = Memo(outcomes)
    window = valued[:MAX_DIAGNOSIS_CASES]
    names = [c.name for c, _ in window]
    for i, mistake in enumerate(spec.mistakes):
        for form, factory in enumerate(spec.factories(mistake.build)):
            match = _match(spec, mistake, i, window, cache, form)
            if _is_full(match, names) and _raises_alike(spec, factory, failing):
                return mistake
    return None


def _raises_alike(spec: ExerciseSpec, factory: Any, failing: Sequence[tuple[Case, Judged]]) -> bool:
    for case, j in [(c, j) for c, j in failing if j.error is not None][:MAX_DIAGNOSIS_CASES]:
        try:
            comparison.expected_outcome(factory, case, spec)
        except Exception as exc:
            if j.error is not None and type(exc).__name__ == j.error.get("type"):
                continue
        return False
    return True


def _passing(judgements: Sequence[tuple[Case, Judged]]) -> list[tuple[Case, Judged]]:
    return [(c, j) for c, j in judgements if j.passed and j.learner and j.expected][
        :MAX_SCOPE_CASES
    ]


def _generic(failing: Sequence[tuple[Case, Judged]]) -> Diagnosis | None:
    if any(j.mutated for _, j in failing):
        return IN_PLACE
    if any(j.wrong_dtype for _, j in failing):
        return WRONG_DTYPE
    if any(j.wrong_grad_dtype for _, j in failing):
        return WRONG_GRAD_DTYPE
    if any(j.reinitialised for _, j in failing):
        return REINITIALISED
    if any(j.calls for _, j in failing):
        return CALL_COUNT
    if any(j.foreign_backward for _, j in failing):
        return FOREIGN_BACKWARD
    if any(j.not_saved for _, j in failing):
        return NOT_SAVED
    if any(j.over_budget for _, j in failing):
        return OVER_BUDGET
    return None


def _match(
    spec: ExerciseSpec,
    mistake: KnownMistake,
    order: int,
    cases: Sequence[tuple[Case, Judged]],
    cache: Memo,
    form: int = 0,
) -> MistakeMatch:
    found = MistakeMatch(mistake, order, {}, form)
    for case, j in cases:
        m = match_case(spec, mistake, case, _tensors(j), j.expected, cache, form)
        if m is None:
            break
        found.cases[case.name] = m
        if not m.consistent and len(found.cases) == 1:
            break  # contradicted on the first case: not this mistake, wherever it holds
    return found


def _extend(
    spec: ExerciseSpec,
    match: MistakeMatch,
    cases: Sequence[tuple[Case, Judged]],
    cache: Memo,
) -> None:
    for case, j in cases:
        if case.name in match.cases:
            continue
        m = match_case(spec, match.mistake, case, _tensors(j), j.expected, cache, match.form)
        if m is not None:
            match.cases[case.name] = m


def _is_full(match: MistakeMatch, names: Sequence[str]) -> bool:
    """Consistent on every case, and set aside fewer checks than it agrees on."""
    total = match.total(names)
    return (
        total.contradicted == 0 and total.agreed > total.skipped and len(match.cases) >= len(names)
    )


def _rank(match: MistakeMatch, names: Sequence[str]) -> tuple[int, int, float, int]:
    total = match.total(names)
    return (total.skipped, -total.agreed, total.distance, match.order)


# Agreed counts this close are a tie: one check more is within what rounding decides.
AGREED_TIE = 0.9


def _best(full: Sequence[MistakeMatch], names: Sequence[str]) -> MistakeMatch:
    """The mistake that explains the failing cases best: fewest checks set aside, then most
    checks agreed on; among those within ``AGREED_TIE`` of the most, the closest per check.

    A near-threshold check can agree with the vaguer of two mistakes by chance (statistics
    computed in half against statistics rounded to half: 11 checks to 10, at more than twice
    the distance per check), and which one it was changed with the seed."""
    top = min(full, key=lambda m: _rank(m, names))
    lead = top.total(names)
    rivals = [
        m
        for m in full
        if (t := m.total(names)).skipped == lead.skipped and t.agreed >= AGREED_TIE * lead.agreed
    ]

    def per_check(m: MistakeMatch) -> tuple[float, int, int]:
        t = m.total(names)
        return (t.distance / max(t.agreed, 1), -t.agreed, m.order)

    return min(rivals, key=per_check)


def _partial(
    spec: ExerciseSpec,
    judgements: Sequence[tuple[Case, Judged]],
    comparable: Sequence[tuple[Case, Judged]],
    cache: Memo,
) -> Result:
    """A mistake on a subset of cases, or the findings."""
    failing = list(comparable[:MAX_SCOPE_CASES])
    names = [c.name for c, _ in failing]
    passing = _passing(judgements)
    by_name = {c.name: c for c, _ in judgements}
    parts: list[tuple[MistakeMatch, list[str], Condition]] = []
    left = list(names)
    for _ in range(2):
        if not left:
            break
        part = _best_part(spec, failing, passing, left, names, by_name, cache)
        if part is None:
            break
        parts.append(part)
        left = [n for n in left if n not in part[1]]
    if not parts:
        return Result(findings=_findings(spec, judgements, failing))
    main, main_cases, main_cond = parts[0]
    scoped = [_scoped(m, cases, cond) for m, cases, cond in parts]
    text = " ".join(s.text for s in scoped)
    text_zh = "".join(s.text_zh for s in scoped)
    if len(parts) == 2 and parts[0][2].feature == parts[1][2].feature:
        feature = parts[0][2].feature
        text += (
            f" Each setting of {feature} gives a different wrong behaviour: look at how your "
            f"code reads {feature}."
        )
        text_zh += (
            f"{feature} 的每个取值都对应一种不同的错误行为：请检查你的代码是怎样使用 {feature} 的。"
        )
    if left:
        text += (
            f" The other {len(left)} failing case(s) are not explained by a known mistake "
            "(see the findings)."
        )
        text_zh += f"其余 {len(left)} 个失败用例不能用已知错误解释（见下面的发现）。"
    total = main.total(main_cases)
    diagnosis = Diagnosis(
        name=main.mistake.name,
        # The title quoted: it is a name, and its own colons must not run into the scope's.
        title=f"“{main.mistake.title}” (only {main_cond.text})",
        title_zh=f"“{main.mistake.title_zh}”（仅在{zh_pad(main_cond.text_zh)}时）",
        explanation=text,
        explanation_zh=text_zh,
        scope=scoped,
        **_evidence(total),
    )
    rest = [(c, j) for c, j in failing if c.name in left]
    return Result(
        diagnosis,
        findings=_findings(spec, judgements, rest) if rest else [],
        first_case=_strongest(main, main_cases),
    )


def _best_part(
    spec: ExerciseSpec,
    failing: Sequence[tuple[Case, Judged]],
    passing: Sequence[tuple[Case, Judged]],
    left: Sequence[str],
    names: Sequence[str],
    by_name: Mapping[str, Case],
    cache: Memo,
) -> tuple[MistakeMatch, list[str], Condition] | None:
    """The mistake that explains the most of ``left`` on cases one feature singles out."""
    candidates: list[tuple[int, int, MistakeMatch, list[str]]] = []
    for i, mistake in enumerate(spec.mistakes):
        for form in range(len(spec.factories(mistake.build))):
            match = MistakeMatch(mistake, i, {}, form)
            _extend(spec, match, failing, cache)
            explained = [n for n in match.explained(names) if n in left]
            # One case is no pattern: a scope needs at least two cases behind it.
            if len(explained) >= 2:
                candidates.append((-len(explained), i, match, explained))
    for _, _, match, explained in sorted(candidates, key=lambda t: (t[0], t[1])):
        _extend(spec, match, passing, cache)
        # Cases where the learner does not do what the mistake does: failing ones it does not
        # explain, passing ones where the mistake would have failed.
        against = [n for n in names if n not in explained] + [
            c.name for c, _ in passing if not match.cases.get(c.name, CaseMatch()).consistent
        ]
        cond = separate(spec, [by_name[n] for n in explained], [by_name[n] for n in against])
        if cond is not None:
            return match, explained, cond
    return None


def _scoped(match: MistakeMatch, cases: list[str], cond: Condition) -> ScopedMistake:
    m = match.mistake
    n = len(cases)
    return ScopedMistake(
        name=m.name,
        title=m.title,
        title_zh=m.title_zh,
        condition=cond.words,
        cases=cases,
        # The scope first, then the title as a quoted name in a clause of its own: a title is
        # a phrase ("norm_first ignored: always post-norm"), not a verb the sentence can use.
        text=f"On the {_failing_cases(n)} {cond.text}, your code behaves as the known mistake "
        f"“{m.title}” describes.",
        text_zh=f"在{zh_pad(cond.text_zh)}的 {n} 个失败用例上，你的代码与已知错误"
        f"“{m.title_zh}”的描述一致。",
    )


def _failing_cases(n: int) -> str:
    return "failing case" if n == 1 else f"{n} failing cases"


def _structural_match(
    spec: ExerciseSpec, case: Case, parameters: Mapping[str, Any]
) -> tuple[KnownMistake, bool] | None:
    """The mistake whose parameters are the learner's: by names and shapes, else (names are
    the learner's choice: ``beta`` for ``bias``) by shapes alone when one mistake alone fits.
    The flag says whether the names matched too."""
    by_shapes: list[KnownMistake] = []
    theirs = sorted(tuple(v) for v in parameters.values())
    for mistake in spec.mistakes:
        try:
            subject = harness.instantiate(spec.factory(mistake.build), case, spec.kind)
        except Exception:
            continue
        if subject.module is None:
            continue
        shapes = {k: list(p.shape) for k, p in subject.module.named_parameters()}
        if shapes == dict(parameters):
            return mistake, True
        if sorted(tuple(v) for v in shapes.values()) == theirs:
            by_shapes.append(mistake)
    return (by_shapes[0], False) if len(by_shapes) == 1 else None


def _structural(
    mistake: KnownMistake, names_match: bool, parameters: Mapping[str, Any]
) -> Diagnosis:
    if names_match:
        return known(
            mistake,
            evidence="Your parameters have exactly this mistake's names and shapes.",
            evidence_zh="你的参数名称和形状与这个错误完全一致。",
        )
    names = sorted(parameters)[:8]
    return known(
        mistake,
        evidence=f"Your parameters ({', '.join(names)}) have this mistake's shapes under other "
        "names; no other known mistake has them.",
        evidence_zh=f"你的参数（{'、'.join(names)}）换了名字，但形状与这个错误一致；"
        "其他已知错误都不是这些形状。",
    )


# --- findings ----------------------------------------------------------------------------------


def _dtype_findings(failing: Sequence[tuple[Case, Judged]]) -> list[Finding]:
    for case, j in failing:
        if j.expected is None:
            continue
        native = j.expected.native.tensors
        for key, t in _tensors(j).items():
            if ".output" in key and key in native and t.dtype != native[key].dtype:
                return [
                    findings.dtype_finding(
                        case.name, key.partition(".")[2], t.dtype, native[key].dtype
                    )
                ]
    return []


def _discrepancies(spec: ExerciseSpec, failing: Sequence[tuple[Case, Judged]]) -> list[Discrepancy]:
    found: list[Discrepancy] = []
    for case, j in failing:
        truth = j.expected.truth.tensors
        for key, actual in _tensors(j).items():
            if key not in truth or truth[key].shape != actual.shape:
                continue
            floor = j.expected.floor(case, key)
            dtype, scale = case.dtype, spec.tolerance(case.dtype)
            if comparison.compare_prepared(actual, j.expected.prepared(case, key, scale)).passed:
                continue
            k = int(key.partition(".")[0])
            step = case.scenario[k]
            x = step.inputs[0] if isinstance(step, Call) and step.inputs else None

            def fits(
                a: torch.Tensor,
                c: torch.Tensor,
                dtype: torch.dtype = dtype,
                floor: float = floor,
                scale: float = scale,
            ) -> bool:
                # Looser than a verdict's check: the candidate carries the reference's rounding.
                return comparison.compare(a, c, None, dtype, 4 * scale, floor).passed

            found.append(
                Discrepancy(
                    case=case.name,
                    description=case.description,
                    step=k,
                    target=key.partition(".")[2],
                    actual=actual,
                    truth=truth[key],
                    step_input=x,
                    is_output=".output" in key,
                    fits=fits,
                    along=_along(spec, case, step, x),
                    description_zh=case.description_zh,
                )
            )
            break  # the first failing tensor of a case is the news, as in its checks
    return found


def _along(
    spec: ExerciseSpec, case: Case, step: object, x: torch.Tensor | None
) -> Callable[[int], torch.Tensor] | None:
    """The spec's declared computation on this call's input, along a given axis, in float64
    (the reference's own precision in the truth run)."""
    reduction = spec.reduction
    if reduction is None or x is None or not isinstance(step, Call):
        return None
    function, wide = step.function, x.detach().double()
    # The loaded parameters hold before any update; after one, the reference along its own
    # axis no longer matches the truth and the finder says nothing.
    state = {k: v.detach().double() for k, v in (case.state or {}).items()} or None
    return lambda axis: reduction(function, wide, axis, state)


def _findings(
    spec: ExerciseSpec,
    judgements: Sequence[tuple[Case, Judged]],
    failing: Sequence[tuple[Case, Judged]],
) -> list[Finding]:
    discrepancies = _discrepancies(spec, failing)
    found = findings.shapes(discrepancies)
    wrong_axis = findings.axis(discrepancies)
    if wrong_axis is not None:
        found.insert(0, wrong_axis)
    scaled = _gradient_scaled(spec, failing)
    if scaled is not None:
        found.append(scaled)
    single = _batch_of_one(judgements)
    if single is not None:
        found.append(single)
    init = _default_init(spec, judgements, failing)
    if init is not None:
        found.append(init)
    elif not any(f.kind in ("nonfinite",) for f in found):
        scoped = _scope_finding(spec, judgements)
        # The batch-of-one finding already says "only a batch of one fails", with its cause.
        repeats = single is not None and scoped is not None and "batch" in (scoped.condition or {})
        if scoped is not None and not repeats:
            found.append(scoped)
    return found


def _batch_of_one(judgements: Sequence[tuple[Case, Judged]]) -> Finding | None:
    """Every failing case fails first on a call with a batch of one (a leading dimension of 1),
    and calls on larger batches pass: a shortcut for one sample ("if x.shape[0] == 1")."""
    failing = [(c, j) for c, j in judgements if not j.passed and j.error is None]
    if not failing or len(failing) != sum(not j.passed for _, j in judgements):
        return None
    names = []
    for case, j in failing:
        first = next((c for c in j.checks if not c.passed), None)
        step = case.scenario[first.step] if first is not None else None
        if not isinstance(step, Call) or not step.inputs:
            return None
        x = step.inputs[0]
        if x.dim() < 2 or x.shape[0] != 1:
            return None
        names.append(case.name)
    passed_larger = any(
        j.passed
        and any(
            isinstance(s, Call) and s.inputs and s.inputs[0].dim() >= 2 and s.inputs[0].shape[0] > 1
            for s in c.scenario
        )
        for c, j in judgements
    )
    if not passed_larger:
        return None
    return Finding(
        kind="batch_of_one",
        case=names[0],
        cases=names,
        text=(
            "Only calls on a batch of one (a leading dimension of 1) fail; larger batches pass. "
            "A shortcut for a single sample is the likeliest cause: a batch of one still holds "
            "many vectors (a sequence of tokens), each normalised on its own."
        ),
        text_zh=(
            "只有批大小为 1（第一维为 1）的调用出错，更大的批都通过了。最可能的原因是为单个样本写"
            "的捷径：批大小为 1 时张量里仍然有很多向量（一个序列的各个 token），每个都要单独处理。"
        ),
    )


def _scaling_tensors(case: Case, step: Call) -> dict[str, torch.Tensor]:
    """What a gradient is wrongly multiplied (or divided) by, by name: the parameters the case
    loads, and a function's tensor arguments after the first (a weight passed in)."""
    found = {k: v for k, v in (case.state or {}).items() if v.is_floating_point()}
    n = len(step.inputs)
    for i, t in enumerate(step.inputs[1:], start=1):
        if t.is_floating_point():
            found[f"input[{i}]" if n > 1 else "input"] = t
    return {k: v for k, v in found.items() if v.numel() > 1}


def _gradient_scaled(spec: ExerciseSpec, failing: Sequence[tuple[Case, Judged]]) -> Finding | None:
    """A gradient that is the reference's times (or over) a parameter: the chain rule applied
    once too often, or not at all (a weight gradient multiplied by the weight)."""
    for case, j in failing[:MAX_DIAGNOSIS_CASES]:
        if j.expected is None:
            continue
        truth = j.expected.truth.tensors
        for key, actual in _tensors(j).items():
            k, _, rest = key.partition(".")
            if not rest.startswith("grad.") or not k.isdigit() or key not in truth:
                continue
            step = case.scenario[int(k)]
            ref = truth[key]
            if not isinstance(step, Call) or ref.shape != actual.shape or not ref.numel():
                continue
            floor = j.expected.floor(case, key)
            scale = spec.tolerance(case.dtype)
            if comparison.compare(actual, ref, None, case.dtype, 4 * scale, floor).passed:
                continue
            for name, p in _scaling_tensors(case, step).items():
                if p.dim() > ref.dim() or tuple(ref.shape[ref.dim() - p.dim() :]) != tuple(p.shape):
                    continue
                wide, pw = ref.double(), p.double()
                for op, candidate in (("times", wide * pw), ("over", wide / pw)):
                    if not bool(candidate.isfinite().all()):
                        continue
                    if comparison.compare(
                        actual, candidate, None, case.dtype, 4 * scale, floor
                    ).passed:
                        return _scaled_finding(
                            case.name, int(k), rest.removeprefix("grad."), name, op
                        )
    return None


def _scaled_finding(case: str, step: int, target: str, by: str, op: str) -> Finding:
    if op == "times":
        en = (
            f"The gradient of {target} is the reference's multiplied by {by} (case {case!r}): "
            f"{by} enters the chain rule once too often. The gradient of a product w * u with "
            "respect to w is the upstream gradient times u, not times w * u."
        )
        zh = (
            f"{target} 的梯度等于参考梯度乘以 {by}（用例 {case!r}）：{by} 在链式法则里多乘了一次。"
            "乘积 w * u 对 w 的梯度是上游梯度乘以 u，而不是乘以 w * u。"
        )
    else:
        en = (
            f"The gradient of {target} is the reference's divided by {by} (case {case!r}): the "
            f"factor {by} that the forward multiplies by is missing from the chain rule."
        )
        zh = (
            f"{target} 的梯度等于参考梯度除以 {by}（用例 {case!r}）：前向里乘上的 {by} 这个因子，"
            "在链式法则里漏掉了。"
        )
    return Finding(
        kind="gradient_scaled",
        case=case,
        step=step,
        target=f"grad of {target}",
        text=en,
        text_zh=zh,
    )


def _scope_finding(spec: ExerciseSpec, judgements: Sequence[tuple[Case, Judged]]) -> Finding | None:
    bad = [c for c, j in judgements if not j.passed]
    good = [c for c, j in judgements if j.passed]
    # One failing case is no pattern: any feature unique to it would "separate" it.
    if len(bad) < 2 or not good:
        return None
    cond = separate(spec, bad, good)
    if cond is None:
        return None
    n = len(bad)
    return Finding(
        kind="scope",
        cases=[c.name for c in bad],
        condition=cond.words,
        text=f"Only cases {cond.text} fail ({n} of {n}); every other case passes, so look at "
        "what your code does differently there.",
        text_zh=f"只有{zh_pad(cond.text_zh)}的用例失败（共 {n} 个），其余用例全部通过："
        "请检查你的代码在这种情况下有什么不同的处理。",
    )


def _default_init(
    spec: ExerciseSpec,
    judgements: Sequence[tuple[Case, Judged]],
    failing: Sequence[tuple[Case, Judged]],
) -> Finding | None:
    """Only the cases that keep the module's own initialisation fail: the learner's initial
    parameters are not the contract's. Probe the likeliest cause (parameters left at zero)."""
    bad = [c for c, j in judgements if not j.passed]
    loaded = [c for c, _ in judgements if c.state is not None]
    if not bad or not loaded or any(c.state is not None for c in bad):
        return None
    if any(not j.passed for c, j in judgements if c.state is not None):
        return None
    names = [c.name for c in bad]
    zeros = all(_zero_init_explains(spec, c, j) for c, j in failing) and bool(failing)
    en = (
        f"Only the case(s) where the module keeps its own initial parameters fail ({len(bad)}); "
        "every case that loads given parameters passes: your constructor initialises the "
        "parameters differently from the contract."
    )
    zh = (
        f"只有模块使用自己初始参数的用例失败（{len(bad)} 个），加载给定参数的用例全部通过："
        "你的构造函数对参数的初始化与约定不同。"
    )
    constant = None if zeros else _constant_init(spec, failing)
    if zeros:
        en += " Your results are what the contract gives with its own parameters set to zero."
        zh += "你的结果正是把约定中模块自己的参数全部置零后得到的结果。"
    elif constant is not None:
        said = " and ".join(f"{n} initialised to {v:g}" for n, v in constant.items())
        said_zh = "、".join(f"{n} 初始化为 {v:g}" for n, v in constant.items())
        en += (
            f" Your results are what the contract gives with {said}: check those initial "
            "values against the contract's."
        )
        zh += f"你的结果正是把约定中的 {said_zh} 后得到的结果：请对照约定检查这些初始值。"
    return Finding(
        kind="default_init",
        cases=names,
        value=0.0 if zeros else None,
        target=", ".join(constant) if constant is not None else None,
        text=en,
        text_zh=zh,
    )


def _zero_init_explains(spec: ExerciseSpec, case: Case, j: Judged) -> bool:
    return _filled_explains(spec, case, j, None, 0.0)


def _filled_explains(
    spec: ExerciseSpec,
    case: Case,
    j: Judged,
    fills: Mapping[str, float] | None,
    value: float = 0.0,
) -> bool:
    """Does the contract, with each of its own parameters in ``fills`` filled with its value
    (``fills=None``: every one with ``value``), give the learner's outputs on this
    default-initialisation case?"""
    if spec.kind != "module" or case.state is not None:
        return False
    try:
        subject = harness.instantiate(spec.reference, case, spec.kind)
        module = subject.module
        assert module is not None
        given = tuple(f"{name}." for name in case.module_args)
        with torch.no_grad():
            for name, p in module.named_parameters():
                if name.startswith(given):
                    continue
                if fills is None:
                    p.fill_(value)
                elif name in fills:
                    p.fill_(fills[name])
        outcome = harness.run_case(subject, case)
    except Exception:
        return False
    learner = _tensors(j)
    outputs = [k for k in learner if ".output" in k]
    return bool(outputs) and all(
        k in outcome.tensors
        and outcome.tensors[k].shape == learner[k].shape
        and comparison.compare(
            learner[k],
            outcome.tensors[k],
            None,
            case.dtype,
            4 * spec.tolerance(case.dtype),
            comparison._floor_for(case, k),
        ).passed
        for k in outputs
    )


def _own_parameters(spec: ExerciseSpec, case: Case) -> list[str]:
    try:
        module = harness.instantiate(spec.reference, case, spec.kind).module
    except Exception:
        return []
    given = tuple(f"{name}." for name in case.module_args)
    if module is None:
        return []
    return [n for n, _ in module.named_parameters() if not n.startswith(given)][:8]


def _constant_init(
    spec: ExerciseSpec, failing: Sequence[tuple[Case, Judged]]
) -> dict[str, float] | None:
    """The module's own parameters (up to three) initialised to constants (0 or 1) the contract
    does not give them: the fewest such parameters that explain every failing case."""
    if not failing:
        return None
    names = _own_parameters(spec, failing[0][0])[:3]
    options: list[dict[str, float]] = []
    for choice in itertools.product((None, 0.0, 1.0), repeat=len(names)):
        fills = {n: v for n, v in zip(names, choice, strict=True) if v is not None}
        if fills:
            options.append(fills)
    options.sort(key=len)
    for fills in options:
        if all(_filled_explains(spec, c, j, fills) for c, j in failing):
            return fills
    return None
