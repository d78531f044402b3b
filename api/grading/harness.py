"""What runs an exercise's scenario: shared by the child (on the submission) and the parent (on
the reference and the known mistakes), so both sides follow exactly the same procedure.

``run_job`` is the child's whole program once the sandbox is locked down: exec the learner's
code in a fresh namespace, then per case build the module (or take the function), load the
state the parent sent, and run the case's steps (calls in train or eval mode, backward,
parameter updates), answering with raw tensors in a ``wire`` frame. It decides nothing; the
parent compares.

Keys of what a case produced, per step ``k`` (the parent reads exactly these):
``k.output`` (or ``k.output[i]`` for a tuple), ``k.input_after`` (``k.input_after[i]``),
``k.grad.input`` (``k.grad.input[i]``), ``k.grad.<parameter>``, ``k.buffer.<buffer>``.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import linecache
import re
import sys
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import FrameType
from typing import Any

import torch
from torch import nn

from api.grading import allowlist, modargs, tripwire, wire
from api.grading.spec import (
    Call,
    Case,
    Factory,
    InitValue,
    Kind,
    Layout,
    ModuleArg,
    Parameters,
    ParamGroup,
    Update,
)

SUBMISSION_FILENAME = "<submission>"
MAX_CAPTURE = 8 * 1024
MAX_ERROR_CASES = 3
MAX_OUTPUTS = 8  # a tuple returned by forward: at most this many tensors are looked at


@dataclass
class Outcome:
    """What one case produced: tensors by key (see the module docstring), gradients that never
    arrived, calls each module argument received per step, and per-step notes."""

    parameters: dict[str, list[int]] = field(default_factory=dict)
    buffers: dict[str, list[int]] = field(default_factory=dict)
    tensors: dict[str, torch.Tensor] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    step: int = 0  # the step running (or that raised)
    loaded: bool = True  # False: the state did not fit the module, nothing ran
    # For a case whose constructor must raise (``Case.raises``): the class names of what it
    # raised, most derived first ([] when it raised nothing). None for every other case.
    raised: list[str] | None = None

    # The first step's results, for code that grades single calls.
    @property
    def output(self) -> torch.Tensor | None:
        return self.tensors.get("0.output")

    @property
    def input_after(self) -> torch.Tensor | None:
        return self.tensors.get("0.input_after")

    @property
    def grads(self) -> dict[str, torch.Tensor | None]:
        found: dict[str, torch.Tensor | None] = {}
        for key, t in self.tensors.items():
            if key.startswith("0.grad."):
                found[key.removeprefix("0.grad.")] = t
        for key in self.missing:
            if key.startswith("0.grad."):
                found[key.removeprefix("0.grad.")] = None
        return found


@dataclass
class _Held:
    """A call whose forward ran and whose backward waits (``Call.defer``)."""

    k: int
    step: Call
    inputs: list[torch.Tensor]
    outputs: list[torch.Tensor]
    own: bool  # the learner's own Function node is the output's grad_fn (autograd_function)


@dataclass
class Subject:
    """What a case runs: a built module (with its module arguments' call counters), or the
    learner's function / ``autograd.Function`` as is (several functions: a mapping by name)."""

    kind: Kind
    target: Any
    counts: dict[str, int] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)  # module arguments the constructor altered
    raised: list[str] | None = None  # what the constructor raised, for a ``Case.raises`` case
    # Calls whose backward is held (``Call.defer``) until the next call with backward.
    pending: list[_Held] = field(default_factory=list)

    @property
    def module(self) -> nn.Module | None:
        return self.target if self.kind == "module" and self.raised is None else None


def _counter(counts: dict[str, int], name: str) -> Callable[..., None]:
    def count(_module: nn.Module, _args: Any) -> None:
        counts[name] += 1

    return count


def instantiate(factory: Factory, case: Case, kind: Kind = "module") -> Subject:
    """Build the module with the case's constructor arguments and module arguments."""
    if kind == "optimizer":
        return Subject(kind, _Optimiser(factory))
    if kind != "module":
        return Subject(kind, factory)
    if isinstance(factory, Mapping):
        raise TypeError("a module exercise is built by one constructor, not a mapping")
    kwargs: dict[str, Any] = dict(case.init_kwargs)
    counts: dict[str, int] = {}
    given: dict[str, dict[str, torch.Tensor]] = {}
    for name, desc in case.module_args.items():
        arg = modargs.build(desc)
        counts[name] = 0
        arg.register_forward_pre_hook(_counter(counts, name))
        kwargs[name] = arg
        given[name] = {k: p.detach().clone() for k, p in arg.named_parameters()}
    if case.raises is not None:
        return _construct_expecting_error(factory, kwargs, counts)
    module = factory(**kwargs)
    if not isinstance(module, nn.Module):
        raise TypeError(f"the constructor returned {type(module).__name__}, not an nn.Module")
    subject = Subject(kind, module, counts)
    for name, before in given.items():
        arg = kwargs[name]
        now = dict(arg.named_parameters())
        if now.keys() != before.keys() or any(
            not torch.equal(now[k].detach(), v) for k, v in before.items()
        ):
            subject.changed.append(name)
    return subject


MAX_RAISED_NAMES = 16


def exception_names(exc: BaseException) -> list[str]:
    """The exception's class and its bases, most derived first: a learner's own subclass of
    ValueError still says ValueError."""
    return [c.__name__[:100] for c in type(exc).__mro__][:MAX_RAISED_NAMES]


def _construct_expecting_error(
    factory: Callable[..., Any], kwargs: dict[str, Any], counts: dict[str, int]
) -> Subject:
    """Build for a case whose contract says the constructor raises: what it raised is the
    result (an ``Exception``; anything harsher still ends the case as an error)."""
    try:
        built = factory(**kwargs)
    except Exception as exc:
        return Subject("module", None, counts, raised=exception_names(exc))
    return Subject("module", built, counts, raised=[])


def _seed(seed: int) -> None:
    # The CPU generator is the one dropout draws from. torch.manual_seed would also seed the
    # lazily initialised accelerator generators, formatting a stack trace each time (~0.3 ms).
    torch.default_generator.manual_seed(seed)


def laid_out(t: torch.Tensor, layout: Layout) -> torch.Tensor:
    """``t``'s values in the given memory layout, as a fresh leaf tensor."""
    if layout == "transposed" and t.dim() >= 2:
        return t.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "strided" and t.dim() >= 1:
        wide = t.new_zeros((*t.shape[:-1], 2 * t.shape[-1]))
        wide[..., ::2] = t
        return wide[..., ::2]
    return t.clone()


def _input_name(i: int, n: int) -> str:
    return "input" if n == 1 else f"input[{i}]"


def _outputs(out: Any) -> dict[str, Any] | None:
    """The call's result by key: one tensor, or a tuple of tensors; None for anything else."""
    if isinstance(out, torch.Tensor):
        return {"output": out}
    if (
        isinstance(out, (tuple, list))
        and 0 < len(out) <= MAX_OUTPUTS
        and all(isinstance(o, torch.Tensor) for o in out)
    ):
        return {f"output[{i}]": o for i, o in enumerate(out)}
    return None


def _detached(t: torch.Tensor) -> torch.Tensor:
    plain = t.detach()
    if type(plain) is not torch.Tensor:
        plain = torch.Tensor._make_subclass(torch.Tensor, plain)
    return plain


def _load(module: nn.Module, case: Case, outcome: Outcome) -> bool:
    params = dict(module.named_parameters())
    buffers = dict(module.named_buffers())
    outcome.parameters = {k: list(p.shape) for k, p in params.items()}
    outcome.buffers = {k: list(b.shape) for k, b in buffers.items()}
    # A float32 case meets the module as the learner built it: float64 parameters must show;
    # so does a case that keeps the learner's dtypes on purpose (float32 master weights).
    if case.dtype != torch.float32 and case.cast_module:
        module.to(case.dtype)
        params = dict(module.named_parameters())
        buffers = dict(module.named_buffers())
    if case.state is None:
        return True
    named = {**buffers, **params}
    if not set(params) <= set(case.state) or not set(case.state) <= set(named):
        return False  # the parent reports the structural mismatch from `parameters`
    for name, value in case.state.items():
        if tuple(named[name].shape) != tuple(value.shape):
            return False
    # Copied in place: what load_state_dict does, without its per-call hook machinery.
    with torch.no_grad():
        for name, value in case.state.items():
            named[name].copy_(value)
    return True


def _update(module: nn.Module | None, step: Update) -> None:
    if module is None:
        return
    named = {**dict(module.named_buffers()), **dict(module.named_parameters())}
    with torch.no_grad():
        for name, delta in step.deltas.items():
            target = named.get(name)
            # A learner without this parameter already fails on `parameters`.
            if target is not None and target.shape == delta.shape:
                target.add_(delta.to(target.dtype))


# The child's allow-list guard while ``run_job`` (or an in-process check) runs; None otherwise.
_guard: allowlist.Guard | None = None


@contextlib.contextmanager
def guarding(guard: allowlist.Guard | None) -> Iterator[None]:
    """Run the block with ``guard`` on the dispatch-mode stack and known to the harness, and
    note on it whether it was still there, switched on, when the block ended (``tampered``).
    Modes the learner's code left on the stack above it are dropped."""
    global _guard
    if guard is None:
        yield
        return
    from torch.utils._python_dispatch import (
        _get_current_dispatch_mode_stack,
        _pop_mode,
        _push_mode,
    )

    depth = len(_get_current_dispatch_mode_stack())
    previous, _guard = _guard, guard
    _push_mode(guard)
    try:
        yield
    finally:
        if not guard.installed():
            guard.tampered = True
        guard.active = True
        while len(_get_current_dispatch_mode_stack()) > depth:
            _pop_mode()
        _guard = previous


def _exempt() -> contextlib.AbstractContextManager[None]:
    return _guard.exempt() if _guard is not None else contextlib.nullcontext()


def _by_hand() -> contextlib.AbstractContextManager[None]:
    return _guard.by_hand() if _guard is not None else contextlib.nullcontext()


_MISSING = object()

# The autograd node counter, in C: every node autograd records takes the next number. The
# learner's Function runs forward and backward with grad mode off, so the counter moves there
# only if the learner's code switched grad mode on and recorded a graph (to have the engine do
# the backward). Read by the harness after the learner's code returned, it is out of reach of
# every switch of Python dispatch or of the modes. A torch without it stops the zygote here.
_sequence_nr = torch._C._autograd._get_sequence_nr


def _recorded(guard: allowlist.Guard, before: int, what: str) -> None:
    """Note ``what`` on the guard if autograd recorded nodes since ``before``."""
    if _sequence_nr() != before:
        guard._note(guard.structural, what)


@contextlib.contextmanager
def _forward_by_hand(function_cls: Any) -> Iterator[None]:
    """While the learner's ``Function.forward`` itself runs (inside ``apply``), the guard
    checks it by hand: its class's ``forward`` is wrapped for the call. Scoped to ``forward``
    and not to ``apply``: an ``apply`` overridden to skip the Function runs with grad mode on,
    which is the ``backward_not_used`` mistake, not grad mode switched on by the learner."""
    guard = _guard
    forward = getattr(function_cls, "forward", None)
    if guard is None or not callable(forward):
        yield
        return
    own = function_cls.__dict__.get("forward", _MISSING)

    def by_hand(*args: Any, **kwargs: Any) -> Any:
        if torch.is_grad_enabled():
            # autograd's apply always calls forward with grad mode off: this call came from an
            # ``apply`` of the learner's that skips the Function (``backward_not_used``).
            return forward(*args, **kwargs)
        with guard.by_hand():
            before = _sequence_nr()
            try:
                return forward(*args, **kwargs)
            finally:
                _recorded(guard, before, "grad_mode")

    # The graph check (``Guard.in_apply``): what the learner's code records around the
    # Function, in this window, with grad mode on.
    was, guard.in_apply = guard.in_apply, guard.by_hand_only
    try:
        function_cls.forward = staticmethod(by_hand)
    except (AttributeError, TypeError):  # a class that refuses: checked as a whole instead
        try:
            with guard.by_hand():
                yield
        finally:
            guard.in_apply = was
        return
    try:
        yield
    finally:
        guard.in_apply = was
        if own is _MISSING:
            with contextlib.suppress(AttributeError, TypeError):
                delattr(function_cls, "forward")
        else:
            with contextlib.suppress(AttributeError, TypeError):
                function_cls.forward = own


# --- calls on parameters the contract updates in place (``spec.Parameters``) ----------------


@dataclass
class _Optimiser:
    """An ``"optimizer"`` exercise's class, built at the case's first call on its parameters,
    which it keeps for the case's later calls."""

    cls: Any
    built: Any = None
    params: list[nn.Parameter] = field(default_factory=list)


def _handed(params: list[nn.Parameter], how: Parameters) -> Any:
    """The parameters as the learner receives them (``Parameters.form``)."""
    if how.form == "tensor":
        return params[0]
    if how.form == "generator":
        return (p for p in params)
    if how.form == "groups":
        return [{"params": [params[i] for i in g.params], **dict(g.options)} for g in how.groups]
    return list(params)


def _call_on_parameters(subject: Subject, step: Call, k: int, case: Case, outcome: Outcome) -> None:
    how = step.parameters
    assert how is not None
    target = subject.target
    optimiser = target if isinstance(target, _Optimiser) else None
    if optimiser is not None and optimiser.built is not None:
        params = optimiser.params
    else:
        params = [
            # Copies: ``laid_out`` may return a view of the case's own tensor (a size-1 dim).
            nn.Parameter(laid_out(t.clone(), step.layout if i == 0 else "contiguous"))
            for i, t in enumerate(step.inputs)
        ]
    for i, p in enumerate(params):
        if i in how.no_grad:
            p.grad = None
        elif step.grad_outputs is not None and i < len(step.grad_outputs):
            grad = laid_out(step.grad_outputs[i].clone(), step.layout if i == 0 else "contiguous")
            p.grad = grad.to(p.dtype)
    _seed(step.seed)
    with torch.enable_grad():
        if optimiser is None:
            out = _function(target, step.function)(
                _handed(params, how), *step.args, **case.init_kwargs
            )
        else:
            if optimiser.built is None:
                optimiser.params = params
                optimiser.built = optimiser.cls(_handed(params, how), **case.init_kwargs)
            out = getattr(optimiser.built, step.function or "step")(*step.args)
    outs = _outputs(out)
    if outs is None:
        outcome.notes[f"{k}.output_type"] = type(out).__name__[:100]
    for key, o in (outs or {}).items():
        outcome.tensors[f"{k}.{key}"] = _detached(o).clone()
    for name, p in zip(how.names, params, strict=False):
        value = _detached(p)
        outcome.tensors[f"{k}.output.{name}"] = value.clone()
        held = p.grad
        outcome.tensors[f"{k}.output.{name}.grad"] = (
            torch.zeros_like(value) if held is None else _detached(held).clone()
        )


def _parameters_data(how: Parameters) -> dict[str, Any]:
    """``Parameters`` as the job's JSON."""
    return {
        "names": list(how.names),
        "form": how.form,
        "no_grad": list(how.no_grad),
        "groups": [[list(g.params), [[key, v] for key, v in g.options]] for g in how.groups],
    }


def _parameters_from(raw: Any) -> Parameters:
    """The job's JSON back into ``Parameters`` (the parent's own data)."""
    return Parameters(
        names=tuple(str(n) for n in raw["names"]),
        form=raw["form"],
        no_grad=tuple(int(i) for i in raw["no_grad"]),
        groups=tuple(
            ParamGroup(tuple(int(i) for i in ids), tuple((str(key), v) for key, v in options))
            for ids, options in raw["groups"]
        ),
    )


def _function(target: Any, name: str) -> Any:
    """The function a call calls: the only one, or the one it names among several."""
    if isinstance(target, Mapping):
        return target[name]
    return target


def _call(
    subject: Subject, step: Call, k: int, case: Case, outcome: Outcome, measure: bool = False
) -> None:
    if step.parameters is not None:
        _call_on_parameters(subject, step, k, case, outcome)
        return
    module = subject.module
    if module is not None:
        module.zero_grad(set_to_none=True)
        module.train(step.train)
    n = len(step.inputs)
    inputs = [
        laid_out(t, step.layout if i == 0 else "contiguous") for i, t in enumerate(step.inputs)
    ]
    if step.backward:
        for t in inputs:
            if t.is_floating_point():
                t.requires_grad_(True)
    for name in subject.counts:
        subject.counts[name] = 0
    _seed(step.seed)
    saved: list[int] = []
    autograd = step.backward or step.autograd
    with torch.set_grad_enabled(autograd), _counting_saves(subject.kind, saved):
        if subject.kind == "module":
            out = subject.target(*inputs, *step.args)
        elif subject.kind == "function":
            fn = _function(subject.target, step.function)
            out = fn(*inputs, *step.args, **case.init_kwargs)
        else:
            with _forward_by_hand(subject.target):
                before = _sequence_nr()
                out = subject.target.apply(*inputs, *step.args, *case.init_kwargs.values())
                # More autograd nodes than the Function's own: a graph recorded around it.
                if _guard is not None and _guard.by_hand_only and _sequence_nr() - before > 1:
                    _guard.graph_outside = True
    for name, count in subject.counts.items():
        outcome.calls[f"{k}.{name}"] = count
    outs = _outputs(out)
    if outs is None:
        outcome.notes[f"{k}.output_type"] = type(out).__name__[:100]
        return
    if measure and step.backward:
        excluded = {_storage(p) for p in module.parameters()} if module is not None else set()
        kept = _graph_saved_bytes([o.grad_fn for o in outs.values()], excluded)
        outcome.notes[f"{k}.saved_bytes"] = str(kept)
    for key, o in outs.items():
        outcome.tensors[f"{k}.{key}"] = _detached(o)
    own = False
    if subject.kind == "autograd_function":
        # The learner's backward is graded only if it is the one autograd will run.
        first = next(iter(outs.values()))
        own = getattr(first.grad_fn, "_forward_cls", None) is subject.target
        if step.backward and not own:
            grad_fn = type(first.grad_fn).__name__ if first.grad_fn is not None else "None"
            outcome.notes[f"{k}.backward"] = grad_fn[:100]
        if step.backward and own:
            outcome.notes[f"{k}.saved"] = str(saved[0] if saved else 0)
            outcome.notes[f"{k}.ctx_tensors"] = ",".join(_ctx_tensors(first.grad_fn))[:100]
    if step.backward and step.grad_outputs is not None and step.defer:
        subject.pending.append(_Held(k, step, inputs, list(outs.values()), own))
    elif step.backward and step.grad_outputs is not None:
        held, subject.pending = subject.pending, []
        for h in held:  # a hand-written backward runs per call, the earlier first
            if h.own:
                _raw_backward(h.outputs[0], h.outputs, h.inputs, h.step, h.k, outcome)
        if own:
            _raw_backward(next(iter(outs.values())), list(outs.values()), inputs, step, k, outcome)
        engine = [h for h in held if not h.own]
        if not own:
            engine.append(_Held(k, step, inputs, list(outs.values()), own))
        tensors = [o for h in engine for o in h.outputs]
        grads = [g for h in engine for g in h.step.grad_outputs or ()]
        # An output that does not require grad (an auxiliary loss built from detached values)
        # has a zero derivative: it adds nothing to the backward of the others. None of them
        # requiring grad leaves every gradient missing, as before.
        live = [(o, g.to(o.dtype)) for o, g in zip(tensors, grads, strict=False) if o.requires_grad]
        if (
            engine
            and live
            and len(tensors) == len(grads)
            and all(o.shape == g.shape for o, g in zip(tensors, grads, strict=True))
        ):
            # Autograd's own backward of the learner's forward: the grader's work, not theirs.
            # Held calls go with this one, in one backward of the sum.
            with _exempt():
                _engine_backward([o for o, _ in live], [g for _, g in live])
            for h in engine:
                for i, t in enumerate(h.inputs):
                    if t.is_floating_point():
                        _record_grad(outcome, f"{h.k}.grad.{_input_name(i, len(h.inputs))}", t.grad)
            if module is not None:
                for name, p in module.named_parameters():
                    _record_grad(outcome, f"{k}.grad.{name}", p.grad)
    for i, t in enumerate(inputs):
        outcome.tensors[f"{k}.input_after" + ("" if n == 1 else f"[{i}]")] = t.detach()
    if module is not None:
        for name, b in module.named_buffers():
            outcome.tensors[f"{k}.buffer.{name}"] = b.detach().clone()


def _storage(t: torch.Tensor) -> int:
    """The address of the memory ``t`` lives in (views of one tensor share it)."""
    return int(t.untyped_storage().data_ptr())


MAX_GRAPH_NODES = 10_000
MAX_SAVED_ITEMS = 10_000  # containers and items one node's fields are searched through


def _graph_saved_bytes(roots: list[Any], excluded: set[int]) -> int:
    """The bytes the autograd graph behind ``roots`` keeps for backward: every tensor a node
    saved (its ``_saved_*`` fields, a custom Function's ``saved_tensors``) and every tensor
    left on a custom Function's ctx, once per storage, storages in ``excluded`` (the module's
    parameters) aside. Read from the graph itself, so saved-tensor hooks the submission might
    push cannot hide what is kept: reading a field unpacks it."""
    sizes: dict[int, int] = {}
    # Reading a saved field can make a new tensor (a checkpoint's unpack hook recomputes it);
    # unheld, its storage is freed at once and the next one may reuse its address, counted
    # then as the same storage: the total moved between runs (7680 or 13824 bytes on one
    # checkpointed FFN). Holding each until the walk ends keeps one address per storage.
    held: list[Any] = []

    def record(value: Any) -> None:
        # Every tensor reachable from ``value`` through tuples, lists, sets and dicts (keys and
        # values), however deeply nested: activations kept one container deeper are kept all
        # the same. Bounded (``MAX_SAVED_ITEMS`` containers and items looked at) and safe on
        # cycles (a container is opened once).
        pending = [value]
        opened: set[int] = set()
        looked = 0
        while pending and looked < MAX_SAVED_ITEMS:
            item = pending.pop()
            looked += 1
            if isinstance(item, torch.Tensor):
                held.append(item)
                key = _storage(item)
                if key not in excluded:
                    sizes[key] = max(sizes.get(key, 0), int(item.untyped_storage().nbytes()))
            elif isinstance(item, (tuple, list, set, frozenset, dict)) and id(item) not in opened:
                opened.add(id(item))
                held.append(item)  # its id stays its own while the walk runs
                if isinstance(item, dict):
                    pending.extend(list(item.values())[:MAX_SAVED_ITEMS])
                    pending.extend(list(item.keys())[:MAX_SAVED_ITEMS])
                else:
                    pending.extend(list(item)[:MAX_SAVED_ITEMS])

    seen: set[int] = set()
    stack = [r for r in roots if r is not None]
    while stack and len(seen) < MAX_GRAPH_NODES:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for name in dir(node):
            if name.startswith("_saved_") or name == "saved_tensors":
                with contextlib.suppress(Exception):
                    record(getattr(node, name))
        attrs = getattr(node, "__dict__", None)
        if isinstance(attrs, dict):  # a custom Function's ctx: ctx.h = h
            record(list(attrs.values())[:MAX_SAVED_ITEMS])
        stack.extend(n for n, _ in getattr(node, "next_functions", ()) if n is not None)
    return sum(sizes.values())


@contextlib.contextmanager
def _counting_saves(kind: Kind, saved: list[int]) -> Iterator[None]:
    """For a custom Function, count the tensors its forward hands to ``ctx.save_for_backward``
    (saved-tensor hooks see exactly those: autograd does not record inside forward)."""
    if kind != "autograd_function":
        yield
        return
    saved.append(0)

    def pack(t: torch.Tensor) -> torch.Tensor:
        saved[0] += 1
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, _unpack):
        yield


def _unpack(t: torch.Tensor) -> torch.Tensor:
    return t


def _ctx_tensors(ctx: Any) -> list[str]:
    """Attributes of the Function's ctx that hold tensors (``ctx.x = x``), looked at one level
    into tuples, lists and dicts: what ``save_for_backward`` exists to replace."""
    found: list[str] = []
    attrs = getattr(ctx, "__dict__", {})
    for name, value in list(attrs.items())[:100]:
        items = value.values() if isinstance(value, dict) else value
        if isinstance(value, torch.Tensor) or (
            isinstance(value, (tuple, list, dict))
            and any(isinstance(v, torch.Tensor) for v in list(items)[:100])
        ):
            found.append(str(name)[:40])
    return found


def _raw_backward(
    first: torch.Tensor,
    outputs: list[torch.Tensor],
    inputs: list[torch.Tensor],
    step: Call,
    k: int,
    outcome: Outcome,
) -> None:
    """Run the learner's backward node directly and record its gradients exactly as returned,
    before autograd would validate them (it sums a broadcastable gradient down to its input's
    shape, hiding "weight gradient not summed over the leading dims"). Called from Python, the
    learner's backward runs inside the tripwire's mode, which the autograd engine's own thread
    state does not carry; and the harness itself calls no autograd entry point here."""
    grads = step.grad_outputs or ()
    if len(outputs) != len(grads) or any(
        o.shape != g.shape for o, g in zip(outputs, grads, strict=True)
    ):
        return
    n = len(inputs)
    node: Any = first.grad_fn  # the learner's BackwardCFunction: apply(*grads) runs backward
    # As the engine runs a backward that is not double-differentiable; by hand, so grad mode
    # switched on or the engine entered inside it is recorded (``allowlist.Guard``).
    if _guard is not None:
        _guard.ran_by_hand = True  # the learner's own backward: a graph walked here counts
    before = _sequence_nr()
    with torch.no_grad(), _by_hand():
        # Copies: a backward that writes into its grad_output must not change the case's data.
        raw = node.apply(*(g.to(o.dtype, copy=True) for o, g in zip(outputs, grads, strict=True)))
    if _guard is not None:
        _recorded(_guard, before, "grad_mode")
    returned = raw if isinstance(raw, tuple) else (raw,)
    expected = n + len(step.args)
    if len(returned) < n:
        raise TypeError(
            f"backward returned {len(returned)} gradient(s); forward took {expected} "
            "inputs, so it must return one per input (None for the non-tensor ones)"
        )
    for i, t in enumerate(inputs):
        if not t.is_floating_point():
            continue
        grad = returned[i]
        if grad is not None and not isinstance(grad, torch.Tensor):
            raise TypeError(
                f"backward returned {type(grad).__name__} as gradient {i}, not a tensor or None"
            )
        _record_grad(
            outcome, f"{k}.grad.{_input_name(i, n)}", None if grad is None else _detached(grad)
        )


def _engine_backward(outputs: list[torch.Tensor], grads: list[torch.Tensor]) -> None:
    """``torch.autograd.backward(outputs, grads)`` without its torch-function dispatch: the
    grader's own backward call must not trip the tripwire, so an exercise can ban
    ``torch.autograd.backward`` for the learner (inside a hand-written backward) without an
    exemption the learner's code could also reach. Shapes and dtypes already match."""
    torch.autograd.graph._engine_run_backward(
        tuple(outputs),
        tuple(grads),
        False,
        False,
        (),
        allow_unreachable=True,
        accumulate_grad=True,
    )


def _record_grad(outcome: Outcome, key: str, grad: torch.Tensor | None) -> None:
    if grad is None:
        outcome.missing.append(key)
    else:
        outcome.tensors[key] = grad


def run_case(
    subject: Subject, case: Case, outcome: Outcome | None = None, *, measure: bool = False
) -> Outcome:
    """Load ``case.state`` and run the case's steps, collecting what the parent compares.
    ``measure``: record the bytes each call's forward keeps for backward (``saved_bytes``)."""
    outcome = Outcome() if outcome is None else outcome
    if case.raises is not None:
        outcome.raised = list(subject.raised or [])
        return outcome
    module = subject.module
    for name in subject.changed:
        outcome.notes[f"init.{name}"] = "changed"
    if module is not None and not _load(module, case, outcome):
        outcome.loaded = False
        return outcome
    for k, step in enumerate(case.scenario):
        outcome.step = k
        if isinstance(step, Update):
            _update(module, step)
        else:
            _call(subject, step, k, case, outcome, measure)
    return outcome


# --- the child --------------------------------------------------------------------------------


class _CappedText(io.TextIOBase):
    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.size = 0
        self.truncated = False

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError("write() argument must be str")
        room = self.cap - self.size
        if room > 0:
            self.parts.append(s[:room])
            self.size += min(len(s), room)
        if len(s) > room:
            self.truncated = True
        return len(s)

    def text(self) -> str:
        return "".join(self.parts) + ("\n[... output truncated]" if self.truncated else "")


# torch's C++ warnings end with where in torch's own build tree they fired; server paths in a
# message are cut down to the file's name. A learner needs neither.
_INTERNAL_NOTE = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?")
_ABSOLUTE_PATH = re.compile(r"(?:/[^\s/:'\"()]+)+/([^\s/:'\"()]+)")


def _innermost_learner_line() -> int | None:
    """The line of the learner's code running now (the innermost frame of it), if any."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == SUBMISSION_FILENAME:
            return frame.f_lineno
        frame = frame.f_back
    return None


def show_learner_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning`` for the child: a warning is put at the learner's line
    (``<submission>:12: UserWarning: ...``), never at the grader's file or a server path.

    Python attributes a warning from C++ (``x.var()`` over one element) to the innermost Python
    frame, which is the grader's tripwire or the harness's backward call, not the learner's."""
    del line
    at = lineno if filename == SUBMISSION_FILENAME else _innermost_learner_line()
    where = SUBMISSION_FILENAME + (f":{at}" if at is not None else "")
    text = _ABSOLUTE_PATH.sub(r"\1", _INTERNAL_NOTE.sub("", str(message)))
    out = f"{where}: {category.__name__}: {text}\n"
    source = linecache.getline(SUBMISSION_FILENAME, at).strip() if at is not None else ""
    if source:
        out += f"  {source}\n"
    # As warnings does: a broken stream loses the warning, not the run.
    with contextlib.suppress(Exception):
        (file if file is not None else sys.stderr).write(out)


def describe_exception(exc: BaseException) -> dict[str, Any]:
    """Type, message and the innermost line of the learner's code, without our paths."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == SUBMISSION_FILENAME:
            line = frame.lineno
    if isinstance(exc, SyntaxError) and exc.filename == SUBMISSION_FILENAME:
        line = exc.lineno
    try:
        message = str(exc)
    except Exception:  # a learner's exception whose __str__ raises
        message = "<unprintable>"
    return {"type": type(exc).__name__[:100], "message": message[:2000], "line": line}


@dataclass(frozen=True)
class JobTemplate:
    """A job but for the code: the cases' descriptions and tensor bytes, the same for every
    submission graded on one case set (``casesets.CaseSet.job_template``), so each of them
    only adds its code (``with_code``) instead of encoding the cases again."""

    frame: wire.Partial

    def with_code(self, code: str) -> bytes:
        return self.frame.fill(code)


def encode_job(
    *,
    code: str,
    class_name: str,
    banned: Iterable[str],
    cases: Iterable[Case],
    kind: Kind = "module",
    functions: Sequence[str] = (),
    allowed: Sequence[str] | None = None,
    measure_saved: bool = False,
) -> bytes:
    """The child's job. ``functions``: every name a function exercise with several functions
    asks for (``ExerciseSpec.functions``); empty for one entry point, ``class_name``.
    ``allowed``: the spec's allow-list entries (``ExerciseSpec.allowed``), None for none.
    ``measure_saved``: the spec has a saved-bytes budget, the child measures what is saved."""
    template = job_template(
        class_name=class_name,
        banned=banned,
        cases=cases,
        kind=kind,
        functions=functions,
        allowed=allowed,
        measure_saved=measure_saved,
    )
    return template.with_code(code)


def job_template(
    *,
    class_name: str,
    banned: Iterable[str],
    cases: Iterable[Case],
    kind: Kind = "module",
    functions: Sequence[str] = (),
    allowed: Sequence[str] | None = None,
    measure_saved: bool = False,
) -> JobTemplate:
    """Everything of ``encode_job`` but the code."""
    resolved = None if allowed is None else allowlist.resolve(allowed)
    tensors: dict[str, torch.Tensor] = {}
    described = []
    for i, case in enumerate(cases):
        for k, v in (case.state or {}).items():
            tensors[f"{i}.state.{k}"] = v
        steps: list[dict[str, Any]] = []
        for s, step in enumerate(case.scenario):
            if isinstance(step, Update):
                for name, delta in step.deltas.items():
                    tensors[f"{i}.{s}.delta.{name}"] = delta
                steps.append({"update": list(step.deltas)})
                continue
            for j, t in enumerate(step.inputs):
                tensors[f"{i}.{s}.in.{j}"] = t
            for j, g in enumerate(step.grad_outputs or ()):
                tensors[f"{i}.{s}.go.{j}"] = g
            steps.append(
                {
                    "call": {
                        "inputs": len(step.inputs),
                        "grads": None if step.grad_outputs is None else len(step.grad_outputs),
                        "train": step.train,
                        "seed": step.seed,
                        "layout": step.layout,
                        "args": list(step.args),
                        "function": step.function,
                        "autograd": step.autograd,
                        "defer": step.defer,
                    }
                }
            )
            if step.parameters is not None:
                steps[-1]["call"]["parameters"] = _parameters_data(step.parameters)
        described.append(
            {
                "name": case.name,
                "init_kwargs": dict(case.init_kwargs),
                "has_state": case.state is not None,
                "cast_module": case.cast_module,
                "raises": case.raises,
                "module_args": {
                    n: [a.kind, list(a.dims), a.init_seed] for n, a in case.module_args.items()
                },
                "steps": steps,
            }
        )
    fields = {
        "class_name": class_name,
        "kind": kind,
        "functions": list(functions),
        # With an allow-list the child's dispatcher-level tripwire also removes every whole-job
        # operator outside it (``allowlist.backstop``): the same list the zygote prepared.
        "banned": allowlist.backstop(
            list(banned), resolved, backward_job=kind == "autograd_function"
        ),
        # Resolved here, in the trusted parent: the child is told ATen names, not families.
        "allowed": None if resolved is None else sorted(resolved),
        "measure_saved": bool(measure_saved),
        "cases": described,
    }
    # The code first, as the job has always been written: the same bytes either way.
    return JobTemplate(wire.partial("code", fields, tensors))


def decode_job(frame: bytes | bytearray) -> tuple[dict[str, Any], list[Case]]:
    """The parent's job (trusted data): the cases, rebuilt without descriptions."""
    header, blob = wire.split(frame, trusted=True)
    tensors = wire.decode_tensors(header, blob)
    cases = []
    for i, d in enumerate(header["cases"]):
        prefix = f"{i}.state."
        state = {k[len(prefix) :]: v for k, v in tensors.items() if k.startswith(prefix)}
        steps: list[Call | Update] = []
        for s, raw in enumerate(d["steps"]):
            if "update" in raw:
                steps.append(Update({n: tensors[f"{i}.{s}.delta.{n}"] for n in raw["update"]}))
                continue
            c = raw["call"]
            grads = c["grads"]
            steps.append(
                Call(
                    inputs=tuple(tensors[f"{i}.{s}.in.{j}"] for j in range(c["inputs"])),
                    grad_outputs=None
                    if grads is None
                    else tuple(tensors[f"{i}.{s}.go.{j}"] for j in range(grads)),
                    train=c["train"],
                    seed=c["seed"],
                    layout=c["layout"],
                    args=tuple(c["args"]),
                    function=c.get("function", ""),
                    autograd=c.get("autograd") is True,
                    defer=c.get("defer") is True,
                )
            )
            last = steps[-1]
            if "parameters" in c and isinstance(last, Call):
                steps[-1] = replace(last, parameters=_parameters_from(c["parameters"]))
        init_kwargs: dict[str, InitValue] = d["init_kwargs"]
        first = next((s for s in steps if isinstance(s, Call)), None)
        cases.append(
            Case(
                name=d["name"],
                description="",
                x=first.inputs[0] if first is not None else torch.empty(0),
                init_kwargs=init_kwargs,
                state=state if d["has_state"] else None,
                steps=tuple(steps),
                module_args={
                    n: ModuleArg(a[0], tuple(a[1]), a[2]) for n, a in d["module_args"].items()
                },
                cast_module=d["cast_module"],
                raises=d["raises"],
            )
        )
    return header, cases


def _entry_problem(entry: Any, kind: str) -> str | None:
    """Why the name the learner defined is not what the contract asks for, if it is not."""
    if kind == "module":
        ok = isinstance(entry, type) and issubclass(entry, nn.Module)
    elif kind == "autograd_function":
        ok = isinstance(entry, type) and issubclass(entry, torch.autograd.Function)
    elif kind == "optimizer":
        ok = isinstance(entry, type)
    else:
        ok = callable(entry) and not isinstance(entry, type)
    return None if ok else type(entry).__name__[:100]


def python_guard_needed(kind: str, allowed: object) -> bool:
    """Whether the child runs the allow-list's dispatch mode (``allowlist.Guard``, a Python call
    per operation). In an armed child the allow-list is enforced below Python (every operator
    outside it raises at the dispatcher, ``tripwire``), and the mode would only repeat it; a
    hand-written backward keeps it for its structural check. Unarmed (in-process grading) the
    mode is the enforcement."""
    if kind == "autograd_function":
        return True
    return isinstance(allowed, list) and not tripwire.enforced_below_python()


def run_job(frame: bytes | bytearray) -> bytes:
    """The child's program: grade nothing, just run the submission and report raw results."""
    header, cases = decode_job(frame)
    kind: Kind = header.get("kind", "module")
    stdout, stderr = _CappedText(MAX_CAPTURE), _CappedText(MAX_CAPTURE)
    sys.stdout, sys.stderr = stdout, stderr
    # Warnings point at the learner's lines, which linecache can then quote.
    code: str = header["code"]
    linecache.cache[SUBMISSION_FILENAME] = (
        len(code),
        None,
        code.splitlines(keepends=True),
        SUBMISSION_FILENAME,
    )
    warnings.showwarning = show_learner_warning
    result: dict[str, Any] = {"cases": []}
    tensors: dict[str, torch.Tensor] = {}
    tripped: set[str] = set()
    banned: list[str] = header["banned"]
    tripwires = tripwire.guard(banned, tripped)
    allowed = header.get("allowed")
    # A hand-written backward is checked structurally even where nothing else is listed.
    guard = (
        allowlist.Guard(
            frozenset(allowed) if isinstance(allowed, list) else None,
            by_hand_only=kind == "autograd_function",
        )
        if python_guard_needed(kind, allowed)
        else None
    )
    namespace: dict[str, Any] = {"__name__": "submission", "__builtins__": builtins}
    try:
        compiled = compile(header["code"], SUBMISSION_FILENAME, "exec")
        with tripwires, guarding(guard):
            exec(compiled, namespace)
    except BaseException as exc:
        result["load_error"] = describe_exception(exc)
    names: list[str] = header.get("functions") or [header["class_name"]]
    found = {name: namespace.get(name) for name in names}
    # One entry point as it is; several functions as a mapping by name (``_function``).
    entry: Any = found if header.get("functions") else found[names[0]]
    if "load_error" not in result:
        if any(v is None for v in found.values()):
            result["missing_class"] = True
        else:
            for value in found.values():
                if (problem := _entry_problem(value, kind)) is not None:
                    result["not_a_module"] = problem
                    break
    errors = 0
    measure = bool(header.get("measure_saved", False))
    if not {"load_error", "missing_class", "not_a_module"} & set(result):
        for i, case in enumerate(cases):
            record: dict[str, Any] = {"name": case.name}
            outcome = Outcome()
            try:
                with tripwires, guarding(guard):
                    run_case(instantiate(entry, case, kind), case, outcome, measure=measure)
            except BaseException as exc:
                record["error"] = describe_exception(exc)
                record["step"] = outcome.step
                result["cases"].append(record)
                errors += 1
                if errors >= MAX_ERROR_CASES:
                    break
                continue
            record.update(
                parameters=outcome.parameters,
                buffers=outcome.buffers,
                loaded=outcome.loaded,
                missing=outcome.missing,
                calls=outcome.calls,
                notes=outcome.notes,
                raised=outcome.raised,
            )
            for key, t in outcome.tensors.items():
                tensors[f"{i}.{key}"] = t
            result["cases"].append(record)
    result["banned_calls"] = sorted(tripped)
    if guard is not None:
        result["refused_ops"] = (
            guard.refused + [r for r in tripwire.refused if r not in guard.refused]
        )[: allowlist.MAX_REPORTED]
        result["by_hand"] = guard.findings()
        result["guard_off"] = guard.tampered
    elif tripwire.refused:
        result["refused_ops"] = tripwire.refused[: allowlist.MAX_REPORTED]
    result["stdout"] = stdout.text()
    result["stderr"] = stderr.text()
    try:
        return wire.encode(result, tensors)
    except wire.WireError as exc:
        return wire.encode({**result, "cases": [], "encode_error": str(exc)}, {})
