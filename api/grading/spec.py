"""The contract between an exercise's content (``exercises/<slug>/spec.py``) and the grader.

Everything here runs in the trusted parent: specs build the reference, draw the cases and
describe the known mistakes. The untrusted child only ever sees a ``Case`` as plain data (see
``harness.encode_job``), never a spec object.

A case is a short *scenario* run in one child: build the module (its own default init, or the
state the parent sends), then a sequence of steps: calls in train or eval mode (with or without
backward, on contiguous or non-contiguous inputs) and optimiser-like parameter updates. The
parent compares outputs, gradients, buffers and the calls made to module arguments at every
call step.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

# Constructor (or function keyword) arguments: plain JSON values, strings included
# (``approximate="tanh"``), so they cross to the child as data.
InitValue = int | float | bool | str

# What the learner writes: an ``nn.Module`` subclass, a plain function, a
# ``torch.autograd.Function`` subclass whose hand-written backward is what gets graded,
# or a class built on parameters it updates in place (an optimiser: ``Parameters``).
Kind = Literal["module", "function", "autograd_function", "optimizer"]
KINDS: tuple[Kind, ...] = ("module", "function", "autograd_function", "optimizer")

# How a call's input tensor is laid out in memory. The values are the same; the strides are
# not: code that calls ``.view`` on its input, or assumes ``stride(-1) == 1``, shows here.
Layout = Literal["contiguous", "transposed", "strided"]
LAYOUTS: tuple[Layout, ...] = ("contiguous", "transposed", "strided")


# The float64 tolerance (``verdict.TOLERANCES``) admits a float32 computation: relative 1e-5,
# where float32 rounds at 6e-8 and float64 at 1e-16. Times this, it is float64's own: a
# relative 1e-9 still leaves a correct float64 solution five orders of magnitude (another
# summation order, Welford, a hand-written backward, inputs around 1e4), and float32
# internals fail by about a hundred times.
FLOAT64_OWN = 1e-4


@dataclass(frozen=True)
class ModuleArg:
    """A module handed to the constructor (``sublayer``), built from ``modargs.REGISTRY`` by
    name in both processes. It is built under ``torch.manual_seed(init_seed)``, so a case that
    sends no state still gives both sides the same default parameters: re-initialising what the
    learner was given shows."""

    kind: str
    dims: tuple[int, ...]
    init_seed: int = 0


# --- contracts that update parameters in place: an optimiser's step, gradient clipping ------


@dataclass(frozen=True)
class ParamGroup:
    """One parameter group of a ``Parameters`` call handed as ``"groups"``: the indices of its
    parameters (into the call's inputs) and the group's own options (``lr``, ``weight_decay``,
    ``betas``; JSON values), as ``torch.optim`` takes a list of dicts."""

    params: tuple[int, ...]
    options: tuple[tuple[str, Any], ...] = ()


# How the parameters reach the learner: a list, the one tensor itself, a one-shot generator
# (what ``model.parameters()`` is), or parameter groups (a list of dicts).
HandedAs = Literal["list", "tensor", "generator", "groups"]
HANDED_AS: tuple[HandedAs, ...] = ("list", "tensor", "generator", "groups")


@dataclass(frozen=True)
class Parameters:
    """A call whose contract mutates the parameters it is given (``clip_grad_norm_`` scales
    their ``.grad``, an optimiser's ``step`` moves their values): those changes are what is
    graded, not an ``in_place_mutation``.

    The call's ``inputs`` become parameters (``nn.Parameter``; the first laid out as the call
    says), named ``names`` in the verdict, and its ``grad_outputs`` their ``.grad``, written
    before the call (``no_grad``: the indices set to None; ``grad_outputs`` None: every
    ``.grad`` left as it is). They reach the learner as ``form`` says. Nothing runs backward;
    the call runs with autograd on, as in a training loop. After the call the parent compares,
    like outputs, the return value (where the reference returns a tensor) and every
    parameter's values and ``.grad`` (keys ``k.output.<name>`` and ``k.output.<name>.grad``;
    a ``.grad`` of None is compared as zeros, so a ``zero_grad`` may set None or fill zeros).
    The inputs themselves are never handed over, so no input-unchanged check applies.

    A ``"function"`` exercise gets fresh parameters at every call:
    ``fn(parameters, *args, **init_kwargs)``. An ``"optimizer"`` exercise builds its
    parameters and ``Cls(parameters, **init_kwargs)`` at the case's first call; later calls
    keep them (their inputs are not read) and call the method ``Call.function`` names
    (``"step"`` when empty) with ``*args``, after writing their ``grad_outputs``."""

    names: tuple[str, ...]
    form: HandedAs = "list"
    no_grad: tuple[int, ...] = ()
    groups: tuple[ParamGroup, ...] = ()


@dataclass(frozen=True)
class Call:
    """Call the module (function) on ``inputs``; with ``grad_outputs``, run backward too.

    ``train`` sets ``module.train(train)`` first. ``seed`` seeds torch's CPU generator right
    before the call, so a stochastic module (dropout) draws the same numbers on both sides.
    ``args`` are extra positional values after the tensors (an ``autograd.Function``'s eps).
    Gradients are per call: they are cleared before each call.
    """

    inputs: tuple[torch.Tensor, ...]
    grad_outputs: tuple[torch.Tensor, ...] | None = None
    train: bool = False
    seed: int = 0
    layout: Layout = "contiguous"
    args: tuple[InitValue, ...] = ()
    note: str = ""  # in words, for the verdict ("again, after a parameter update")
    # The note in Chinese; None: ``verdict_zh`` derives it from ``note``. A call's note may be
    # "" in Chinese where it only repeats the call's mode (said already).
    note_zh: str | None = None
    # In a function exercise with several functions (``softmax`` and ``log_softmax``): the one
    # this call calls. Empty for every other exercise, whose single entry point is called.
    function: str = ""
    # A call on parameters whose contract updates them in place (``Parameters``); None
    # for every other call.
    parameters: Parameters | None = None
    # Autograd on for the call although the grader runs no backward: a lab's experiment builds
    # its own model and runs its own backward inside the call (``LabChart``).
    autograd: bool = False
    # With ``grad_outputs``: the forward runs now, its backward is held until the next call
    # with backward, which runs both at once (two micro-batches, a module used twice before one
    # backward). Its input's gradient is recorded under this step, the parameters' gradients
    # (the sum of both calls') under the later one. A module that keeps one mask or saved
    # tensor and overwrites it on the second call gives the first call a wrong gradient.
    defer: bool = False

    @property
    def backward(self) -> bool:
        return self.grad_outputs is not None


@dataclass(frozen=True)
class Update:
    """An optimiser-like step: ``p += delta`` in place, under ``no_grad``, for each named
    parameter (or buffer). Deltas are drawn by the parent, so a wrong gradient earlier does not
    cascade: what is tested is that the module *uses its current parameters* afterwards."""

    deltas: Mapping[str, torch.Tensor]
    note: str = "an optimiser-like update of the parameters"
    # The note in Chinese; None: ``verdict_zh`` derives it from ``note``. A call's note may be
    # "" in Chinese where it only repeats the call's mode (said already).
    note_zh: str | None = None


Step = Call | Update


@dataclass(frozen=True)
class Case:
    """One scenario: build, load ``state``, run ``steps`` in one child.

    ``state`` holds parameters (all of them, by name) and optionally buffers; ``None`` keeps the
    module's own initialisation (which must then match the reference's). Without ``steps`` the
    case is the classic single call: ``Call((x,), (grad_output,), train, seed)``, or a forward
    alone under ``torch.no_grad`` when ``grad_output`` is None (the in-place mutation check).

    ``x`` is the first input of the first call: its dtype is the case's dtype. Dtype policy: a
    float32 case meets the module as the learner built it (float64 parameters show in the
    output's dtype); float64 and half-precision cases meet it cast with ``.to(dtype)``.
    ``stochastic`` marks a case whose calls draw random numbers (dropout in train mode): it is
    compared as drawn at its dtype, not against a float64 rerun.

    ``cast_module=False`` leaves the module as built whatever the input's dtype: float32
    master weights next to half-precision activations, where what the module does with the
    dtypes is the point (the state is loaded in the parameters' own dtype, and the output's
    dtype is compared as always).

    ``raises`` names the exception the *constructor* must raise on ``init_kwargs`` (an
    unknown ``placement``: ``"ValueError"``); such a case runs no steps, and ``x`` is only a
    placeholder. Build it with ``draw.raises``.
    """

    name: str
    description: str
    x: torch.Tensor
    init_kwargs: Mapping[str, InitValue] = field(default_factory=dict)
    state: Mapping[str, torch.Tensor] | None = None
    grad_output: torch.Tensor | None = None
    train: bool = False
    seed: int = 0
    steps: tuple[Step, ...] = ()
    module_args: Mapping[str, ModuleArg] = field(default_factory=dict)
    stochastic: bool = False
    # The description in Chinese for a learner reading verdicts in Chinese; empty: derived from
    # ``description`` by ``verdict_zh.description`` (``draw.scenario`` fills it in).
    description_zh: str = ""
    cast_module: bool = True
    raises: str | None = None

    @property
    def scenario(self) -> tuple[Step, ...]:
        if self.steps:
            return self.steps
        grads = None if self.grad_output is None else (self.grad_output,)
        return (Call((self.x,), grads, train=self.train, seed=self.seed),)

    @property
    def dtype(self) -> torch.dtype:
        return self.x.dtype


# Called as factory(**init_kwargs, **module_args) for modules; for the function kinds the
# factory *is* the function (or the autograd.Function subclass).
ModuleFactory = Callable[..., Any]
# A function exercise with several functions: each one by the name the learner must define.
# A known mistake's mapping may name only the functions it gets wrong; the others are the
# reference's (``ExerciseSpec.factory``).
Functions = Mapping[str, Callable[..., Any]]
Factory = ModuleFactory | Functions


@dataclass(frozen=True)
class Advice:
    """A fix suggestion shown only when the submission's source holds one of the evidence
    tokens in ``when`` (see ``api/grading/advice.py``: ``calls:<qualified name>``,
    ``unregistered:<qualified name>``)."""

    when: tuple[str, ...]
    text: str
    text_zh: str


@dataclass(frozen=True)
class KnownMistake:
    """A wrong implementation learners often write, run on the same inputs to name their error.

    ``build`` has the exercise's contract (constructor, or function signature). A mistake
    whose parameters differ from the contract (an extra bias, say) is matched on the names and
    shapes of its parameters; all others are matched on outputs, gradients and buffers.
    """

    name: str
    title: str
    explanation: str
    title_zh: str
    explanation_zh: str
    build: Factory
    # Fixes that depend on how the code was written; the explanation then says only what the
    # code did, and each advice is appended when the source shows it fits.
    advice: Sequence[Advice] = ()
    # Other spellings of the same mistake that ``build`` cannot reproduce because they differ
    # from it on some checks (BatchNorm's running statistics moved in eval before the output
    # is computed from them, or after): the learner's code is matched against each of them
    # too (``ExerciseSpec.factories``).
    forms: Sequence[Factory] = ()


@dataclass(frozen=True)
class LawCheck:
    """One check of a case graded by its law (``Law``): what was checked at which step, and
    whether it held. ``sign`` names what a failure looks like (``"unscaled"``, ``"eval_dropped"``),
    a word the spec's ``Law.name`` reads to name a known mistake."""

    step: int
    target: str
    target_zh: str
    passed: bool
    message: str
    message_zh: str
    sign: str = ""


def _no_name(signs: Sequence[str]) -> str | None:
    del signs
    return None


@dataclass(frozen=True)
class Law:
    """A random block graded by what makes it correct, not by one random stream.

    The grader first compares a stochastic case as drawn (the reference's stream replayed: a
    fast path, right for code that draws as the reference does). Where that fails, the case is
    judged by ``judge(case, got, scale)`` instead, in the parent: ``got`` holds the learner's
    tensors of the case by key (``k.output``, ``k.grad.input``, ...), ``scale`` the spec's
    tolerance scale at the case's dtype; it returns the checks of every call step, which
    replace the replayed value checks of outputs and gradients (the others stay). Any correct
    draw passes. ``name(signs)``: the known mistake the failing checks' signs point to, asked
    when replaying the known mistakes names none."""

    judge: Callable[[Case, Mapping[str, torch.Tensor], float], list[LawCheck]]
    name: Callable[[Sequence[str]], str | None] = _no_name


@dataclass(frozen=True)
class LabChart:
    """A lab's figure: the case whose output is drawn, learner's beside the reference's. The
    output (or its ``plane``) is a (len(series), points) tensor: row i is the curve
    ``series[i]`` over x = 1..points.
    The parent reads both sides (the learner's only if finite, of the reference's shape) into
    the verdict as plain numbers (``api/grading/labs.py``); the page draws them."""

    case: str
    series: tuple[str, ...]
    series_zh: tuple[str, ...]
    x_label: str
    x_label_zh: str
    y_label: str
    y_label_zh: str
    title: str
    title_zh: str
    # A lab whose answer has more than one plane of numbers (``training_monitor``'s ratios,
    # stds and alarms, (3, layers, steps)): the plane drawn. None: the answer is the figure.
    plane: int | None = None


@dataclass(frozen=True)
class ExerciseSpec:
    slug: str
    class_name: str  # the name the submission must define (a class or a function)
    reference: Factory
    make_cases: Callable[[torch.Generator], list[Case]]
    mistakes: Sequence[KnownMistake] = ()
    # Qualified names of callables the submission may not reach, by any name: the grader trips
    # on them at run time in the child and looks for them in the source in the parent.
    banned: Sequence[str] = ()
    # What a solution is made of (``allowlist.FAMILIES`` names, or ATen base names the contract
    # adds): every other operation the learner's code dispatches is refused, whatever route
    # reached it (``api/grading/allowlist.py``). None: no list, for an exercise whose contract
    # composes nn modules and built-ins (an FFN's nn.Linear, a block's nn.LayerNorm).
    allowed: Sequence[str] | None = None
    # Extra slack on top of the dtype's tolerance, for exercises whose outputs pass through more
    # rounding steps (a FFN's three matmuls) than a norm's.
    tolerance_scale: float = 1.0
    # May a float64 input be computed in float32 inside (Llama's RMSNorm does, ``x.float()``)?
    # True: float64 cases get the tolerance of a float32 computation. False: float64's own
    # (``FLOAT64_OWN``), so a float32 detour fails. The prompt says which; a test holds every
    # prompt to its spec.
    float32_internals: bool = False
    # The computation reduces along the last dim (a norm's statistics, softmax's sum): where
    # it takes bfloat16, the platform adds rows that show a sum rounded to bfloat16
    # (``coverage``).
    reduces_rows: bool = False
    kind: Kind = "module"
    # The axis that holds the features (-1 for norms over the last dim, 1 for BatchNorm's
    # channels): the case drawers size and describe inputs by it.
    feature_axis: int = -1
    # autograd_function only: the contract asks the forward to keep what backward needs with
    # ``ctx.save_for_backward`` (the prompt says so). The child counts what goes through it and
    # looks for tensors kept on ctx attributes; either failing is ``saved_on_ctx_attribute``.
    save_for_backward: bool = False
    # Optional: a memory budget. ``saved_bytes_budget(case, call)`` is the most the forward of a
    # call with backward may keep for backward, in bytes: every tensor the output's autograd
    # graph saved (custom Functions' saved_tensors and ctx attributes included), once per
    # storage, the module's own parameters excluded. The child reads it from the graph after
    # the forward; over the budget is ``saved_bytes_over_budget``. None: memory is not graded.
    saved_bytes_budget: Callable[[Case, Call], int] | None = None
    # Optional: the computation with its reduction along ``axis`` and the parameters the case
    # loads (``reduction(function, x, axis, state)``; ``function`` is the call's
    # ``Call.function``, ``state`` the case's, None for default parameters). With it, a failure
    # that the same computation along another axis explains gets the ``axis`` finding; an
    # exercise that declares nothing gets none.
    reduction: (
        Callable[[str, torch.Tensor, int, Mapping[str, torch.Tensor] | None], torch.Tensor] | None
    ) = None

    # A function exercise graded on several functions (``softmax`` and ``log_softmax``): every
    # name the submission must define, ``class_name`` among them. ``reference`` is then a mapping
    # from these names to the reference functions, each call names the function it calls
    # (``Call.function``), and a mistake's ``build`` maps the names it replaces.
    functions: tuple[str, ...] = ()
    # A lab (an exercise whose answer is a measurement): the figure its page draws.
    chart: LabChart | None = None
    # A random block's law (``Law``): its stochastic cases pass on any correct draw.
    law: Law | None = None

    def tolerance(self, dtype: torch.dtype) -> float:
        """The scale of the tolerance a case of ``dtype`` is judged at (``verdict.compare``)."""
        if dtype == torch.float64 and not self.float32_internals:
            return self.tolerance_scale * FLOAT64_OWN
        return self.tolerance_scale

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the submission must define."""
        return self.functions or (self.class_name,)

    def factory(self, build: Factory) -> Factory:
        """What runs for ``build`` (a mistake's): the functions it does not replace are the
        reference's."""
        if isinstance(build, Mapping) and isinstance(self.reference, Mapping):
            return {**self.reference, **build}
        return build

    def factories(self, build: Factory) -> list[Factory]:
        """Every way a learner can make the mistake ``build`` describes. A mistake in several
        functions (no max subtracted, in softmax and in log_softmax) is also made in any one of
        them alone: each non-empty subset of its functions, the rest the reference's, all of
        them first. A mistake's own ``forms`` follow its ``build``."""
        if not (isinstance(build, Mapping) and isinstance(self.reference, Mapping)):
            forms = next((m.forms for m in self.mistakes if m.build is build), ())
            return [build, *forms]
        names = list(build)
        subsets = [
            [n for i, n in enumerate(names) if mask >> i & 1] for mask in range(1, 1 << len(names))
        ]
        subsets.sort(key=len, reverse=True)
        return [{**self.reference, **{n: build[n] for n in subset}} for subset in subsets]

    # The ranks of input the contract accepts, all of which the cases must exercise
    # (BatchNorm1d takes (N, C) and (N, C, L) only).
    ranks: tuple[int, ...] = (1, 2, 3, 4)
    # The contract has a train mode and parameters an optimiser moves: the cases must call in
    # train mode and update between calls (False where neither can fail, e.g. a plain function).
    trains: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.slug}: kind must be one of {KINDS}, not {self.kind!r}")
        if self.save_for_backward and self.kind != "autograd_function":
            raise ValueError(f"{self.slug}: save_for_backward is for autograd_function exercises")
        if not self.functions:
            if isinstance(self.reference, Mapping) or any(
                isinstance(m.build, Mapping) for m in self.mistakes
            ):
                raise ValueError(f"{self.slug}: a mapping of functions needs `functions`")
            return
        names = set(self.functions)
        if self.kind != "function" or self.class_name not in names:
            raise ValueError(f"{self.slug}: `functions` is for the function kind, class_name in it")
        if not isinstance(self.reference, Mapping) or set(self.reference) != names:
            raise ValueError(f"{self.slug}: the reference maps every name of {self.functions}")
        for m in self.mistakes:
            if not isinstance(m.build, Mapping) or not m.build or not set(m.build) <= names:
                raise ValueError(f"{self.slug}: mistake {m.name} maps some of {self.functions}")
            if m.forms:  # a mapping's forms are its subsets of functions (``factories``)
                raise ValueError(f"{self.slug}: mistake {m.name}: forms are for one entry point")
