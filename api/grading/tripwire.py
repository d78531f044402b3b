"""The run-time tripwire: records every call of a banned built-in in the child, however the
submission reached it (an alias, ``getattr``, ``torch.ops.aten``), and, in an armed child,
removes the banned kernels from the dispatcher altogether.

Two layers, because the first lives within the learner's reach:

1. A ``TorchFunctionMode`` records each banned call; the parent turns the record into a
   ``rejected`` verdict that names it. Code can switch it off (``torch._C.DisableTorchFunction``)
   or empty its record (found through ``gc``): the mode is Python, in the learner's process.
2. In a grading child (``arm()``, called by the zygote after lock-down), the first ``guard``
   replaces the banned ATen operators' CPU and autograd kernels with one that raises, before any
   learner code runs. The registration handle is a C++ object the garbage collector does not
   track, kept alive by a leaked reference and held by nothing Python can reach, so it cannot be
   undone; torch-function switches do not reach the dispatcher. A bypass of layer 1 therefore
   ends in an exception (an ``error`` verdict), never in the banned computation's result.

Never armed in the zygote (its warm-up runs the guard) or in the trusted parent.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from api.grading import stand_ins

# Every key a CPU call of the operator can reach: the backend kernel, its autograd wrapper
# (inference_mode skips that one) and the decomposition of composite operators.
_BLOCKED_KEYS = ("CPU", "AutogradCPU", "CompositeImplicitAutograd")
_armed = False
_blocked: set[str] = set()


class _Tripwire(TorchFunctionMode):
    """Records every call of a banned callable, however the submission reached it."""

    def __init__(self, banned: Mapping[int, str], ops: frozenset[str], tripped: set[str]) -> None:
        super().__init__()
        self.banned = banned
        self.ops = ops
        self.tripped = tripped

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = self.banned.get(id(func))
        if name is None:
            # torch.ops.aten.rms_norm(.default): a composite op decomposes before the dispatch
            # tripwire sees it, so catch the packet or overload here, by its operator name.
            packet = getattr(func, "_overloadpacket", func)
            qualified = getattr(packet, "_qualified_op_name", None)
            if isinstance(qualified, str) and qualified.replace("::", ".") in self.ops:
                name = qualified.replace("::", ".")
        if name is not None:
            self.tripped.add(name)
        return func(*args, **(kwargs or {}))


def resolve(qualname: str) -> Any:
    """``torch.nn.functional.layer_norm`` -> the object, or None where this torch lacks it."""
    parts = qualname.split(".")
    obj: Any = sys.modules.get(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def banned_callables(banned: Iterable[str]) -> dict[int, str]:
    found: dict[int, str] = {}
    for qualname in banned:
        # aten.native_layer_norm is also torch.native_layer_norm, the very object that
        # torch._C._VariableFunctions.native_layer_norm is: a function mode sees it by identity.
        target = f"torch.{qualname[len('aten.') :]}" if qualname.startswith("aten.") else qualname
        obj = resolve(target)
        if obj is not None:
            found[id(obj)] = qualname
            forward = getattr(obj, "forward", None)
            if isinstance(obj, type) and forward is not None:
                found[id(forward)] = qualname
    return found


def enforced_below_python() -> bool:
    """This child is armed: ``guard`` registers (or found inherited) the refusing kernels of
    every operator outside the exercise's allow-list, which no Python switch undoes."""
    return _armed


def arm() -> None:
    """Make later ``guard`` calls in this process block banned kernels for good: for a
    single-use grading child only."""
    global _armed
    _armed = True


def aten_names(banned: Iterable[str]) -> list[str]:
    """The ATen operators behind banned names: ``aten.X``, and ``torch.X`` or
    ``torch.nn.functional.X`` where ``aten::X`` exists (a module class such as ``nn.LayerNorm``
    reaches its functional form)."""
    found = []
    for qualname in banned:
        name = qualname.rsplit(".", 1)[-1]
        if not qualname.startswith(("aten.", "torch.")) or name[:1].isupper():
            continue
        nested = qualname.startswith("torch.") and qualname.count(".") > 1
        if nested and not qualname.startswith("torch.nn.functional."):
            continue
        try:
            getattr(torch.ops.aten, name)
        except (AttributeError, RuntimeError):
            continue
        if name not in found:
            found.append(name)
    return found


# The operators whose raising kernel ran in this child, for its report (``refused_ops``): a
# forged entry could only get the child's own submission refused.
refused: list[str] = []


def _banned_kernel(name: str) -> Any:
    from api.grading.allowlist import MAX_REPORTED, refusal

    def kernel(*args: Any, **kwargs: Any) -> Any:
        if f"aten::{name}" not in refused and len(refused) < MAX_REPORTED:
            refused.append(f"aten::{name}")
        raise RuntimeError(refusal(f"aten::{name}"))

    return kernel


# What serves a CPU or AutogradCPU call of an operator before its CompositeImplicitAutograd
# kernel: a kernel of its own for those keys, a CompositeExplicitAutograd one, a kernel for
# another functionality of the CPU backend (whose autograd key then takes the Autograd kernel),
# or an Autograd one. An operator with none of them reaches its CompositeImplicitAutograd kernel
# for both keys, so replacing that one kernel blocks them too.
_RIVALS_OF_COMPOSITE = (
    "CPU",
    "AutogradCPU",
    "Autograd",
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "SparseCPU",
    "SparseCsrCPU",
    "QuantizedCPU",
    "NestedTensorCPU",
    "MkldnnCPU",
    "AutogradNestedTensor",
)


def _keys_to_block(qualified: str) -> tuple[str, ...]:
    """The keys to register the raising kernel under for ``aten::<overload>``: all of
    ``_BLOCKED_KEYS``, or only CompositeImplicitAutograd where that kernel serves CPU and
    AutogradCPU calls anyway. The dispatcher then sends every key exactly where it would after
    all three registrations (``tests/sandbox/test_tripwire_plan.py`` compares the tables); each
    registration saved is ~0.1 ms of every child's start."""
    try:
        has = torch._C._dispatch_has_kernel_for_dispatch_key
        # Every other key with a kernel that computes: an alias key's kernel can be called by
        # its key (``OpOverload._op_dk``), which no runtime key's registration replaces.
        more = callable_keys(qualified)
        if has(qualified, "CompositeImplicitAutograd") and not any(
            has(qualified, key) for key in _RIVALS_OF_COMPOSITE
        ):
            return ("CompositeImplicitAutograd", *more)
    except RuntimeError:  # an operator the dispatcher does not know under this name
        return _BLOCKED_KEYS
    return _BLOCKED_KEYS + more


def callable_keys(qualified: str) -> tuple[str, ...]:
    """The keys of ``_CALLABLE_BY_KEY`` under which ``aten::<qualified>`` has a kernel."""
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    try:
        return tuple(k for k in _CALLABLE_BY_KEY if has(qualified, k))
    except RuntimeError:  # an operator the dispatcher does not know under this name
        return ()


# Keys whose own kernel computes (not a wrapper that redispatches below it), beyond
# ``_BLOCKED_KEYS``: reachable by calling an operator's kernel for a named key.
_CALLABLE_BY_KEY = (
    "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
    "CompositeImplicitAutogradNestedTensor",
    "FuncTorchBatchedDecomposition",
    "SparseCPU",
    "SparseCsrCPU",
    "QuantizedCPU",
    "NestedTensorCPU",
    "NestedTensorHPU",
)


Plan = tuple[tuple[str, str, tuple[str, ...]], ...]


def plan(names: Iterable[str]) -> Plan:
    """What ``block_kernels`` registers: (operator, overload, keys) for every overload."""
    steps = []
    for name in names:
        for overload in getattr(torch.ops.aten, name).overloads():
            full = name if overload == "default" else f"{name}.{overload}"
            steps.append((name, full, _keys_to_block(f"aten::{full}")))
    return tuple(steps)


def block_kernels(names: Iterable[str], steps: Plan | None = None) -> None:
    """Replace the CPU kernels of ``aten::<name>`` (every overload) by one that raises, for the
    rest of this process. ``steps``: ``plan(names)``, made earlier (in the zygote)."""
    library = _register(names, steps)
    if library is None:
        return
    # Never released: the handle's destructor would restore the kernels. Untracked by gc and
    # referenced by no Python object once this frame ends.
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(library))
    del library


def _register(names: Iterable[str], steps: Plan | None) -> Any:
    """Register the raising kernels of ``names`` not blocked yet; their registration handle
    (None when there was nothing to register). Dropping the handle restores the kernels."""
    names = [n for n in names if n not in _blocked]
    if not names:
        return None
    wanted = set(names)
    steps = tuple(s for s in (steps if steps is not None else plan(names)) if s[0] in wanted)
    library = torch._C._dispatch_library("IMPL", "aten", "", "<tripwire>", 0)
    kernels = {name: _banned_kernel(name) for name in names}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "overriding a previously registered kernel"
        for name, full, keys in steps:
            for key in keys:
                library.impl(full, key, kernels[name])
    _blocked.update(names)
    return library


# The slot server's registration for the exercise it is armed for (``arm_slot_server``), and
# that exercise's index in the zygote's configuration.
_slot_library: Any = None
_slot_index: int | None = None


def arm_slot_server(index: int | None, banned: Iterable[str]) -> None:
    """For a slot server (trusted: it runs no learner code and no torch operation): block one
    exercise's kernels here, once, so that every child it forks inherits the registrations
    instead of making them (``guard`` then finds them ``_blocked``; ~6 ms per child for an
    allow-list exercise). ``index`` None, or another exercise than the one armed: the earlier
    registration is dropped first (the dispatcher restores the kernels), so a child forked
    afterwards carries exactly the blocks of the exercise it is forked for."""
    global _slot_library, _slot_index
    if index == _slot_index:
        return
    _slot_library = None  # the handle's destructor unregisters every kernel it registered
    _blocked.clear()
    _slot_index = None
    if index is None:
        return
    key = tuple(banned)
    ready = _prepared.get(key)
    names = ready.aten if ready is not None else aten_names(key)
    _slot_library = _register(names, ready.steps if ready is not None else None)
    _slot_index = index


def slot_server_armed() -> int | None:
    """The index of the exercise this slot server's children are armed for, or None."""
    return _slot_index


def seal_inherited() -> None:
    """In a freshly forked child, before anything else: keep the registrations inherited from
    the slot server for good. The child's copy of the handle is leaked (never destroyed, so
    the kernels stay blocked) and no Python name refers to it any more, as in
    ``block_kernels``: learner code cannot reach it to undo the blocks."""
    global _slot_library
    if _slot_library is not None:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(_slot_library))
        _slot_library = None


@dataclass(frozen=True)
class _Prepared:
    aten: list[str]
    steps: Plan
    callables: dict[int, str]


# Per banned list, worked out in the zygote before it forks (``prepare``): a child that finds
# its list here starts its guard without resolving operators (~2 ms of lazy lookups per child).
_prepared: dict[tuple[str, ...], _Prepared] = {}


def prepare(banned_lists: Iterable[Iterable[str]]) -> int:
    """For the zygote: resolve each banned list's callables, ATen operators and registration
    plan once, so that every child forked after it inherits them. Registers nothing (the zygote
    is never armed). Returns how many lists. A list that cannot be resolved here is left to the
    children, as before: a speed-up must not stop the service from starting."""
    for banned in banned_lists:
        key = tuple(banned)
        if key in _prepared:
            continue
        try:
            aten = aten_names(key)
            _prepared[key] = _Prepared(aten, plan(aten), banned_callables(key))
        except Exception:  # whatever went wrong, the child does it itself, as before
            continue
    return len(_prepared)


def guard(banned: Iterable[str], tripped: set[str]) -> contextlib.AbstractContextManager[Any]:
    """A context that adds to ``tripped`` the banned names called inside it (and, once armed,
    makes the banned kernels raise for good)."""
    banned = list(banned)
    ready = _prepared.get(tuple(banned))
    if _armed:
        if ready is not None:
            block_kernels(ready.aten, ready.steps)
        else:
            block_kernels(aten_names(banned))
        _refuse_banned_functions(banned)
    if not banned:
        # Exercises with nothing banned skip the mode: it costs a Python call per tensor op.
        return contextlib.nullcontext()
    # ATen names, and the ONNX operators torch ships as custom ops (onnx::RotaryEmbedding).
    aten_ops = frozenset(b for b in banned if b.startswith(("aten.", "onnx.")))
    callables = dict(ready.callables) if ready is not None else banned_callables(banned)
    mode = _Tripwire(callables, aten_ops, tripped)
    if not stand_ins.covered(banned):
        return mode
    # Banned machinery in Python (torch.utils.checkpoint): replaced before any learner code
    # runs, for good in a grading child.
    replacement = stand_ins.Replacement(banned, tripped, permanent=_armed)
    if _armed:
        replacement.__enter__()
    return _Together(replacement, mode)


# Where a banned name is a function written in Python, its code is replaced in an armed child
# (``_refuse_banned_functions``): torch.nn.functional's whole blocks compose operators the list
# may admit (``multi_head_attention_forward``'s weights path is bmm and softmax), and the
# function-mode tripwire that names them can be switched off.
_FUNCTION_PACKAGES = ("torch.nn.functional",)


def _refusing_code(name: str, free: int) -> Any:
    """A code object that records ``name`` as refused and raises, with ``free`` free variables
    (a function's code must keep as many as its closure has cells)."""
    cells = [f"_cell{i}" for i in range(free)]
    source = "def _outer():\n" + "".join(f"    {c} = None\n" for c in cells)
    source += "    def _refused(*args, **kwargs):\n"
    if cells:
        source += f"        ({', '.join(cells)},)\n"
    source += "        import api.grading.tripwire as _t\n"
    source += f"        _t._note_refused({name!r})\n"
    source += "    return _refused\n"
    scope: dict[str, Any] = {}
    exec(compile(source, "<tripwire>", "exec"), scope)
    return scope["_outer"]().__code__


def _note_refused(name: str) -> None:
    from api.grading.allowlist import MAX_REPORTED, refusal

    if name not in refused and len(refused) < MAX_REPORTED:
        refused.append(name)
    raise RuntimeError(refusal(name))


_refused_functions: set[str] = set()


def _refuse_banned_functions(banned: Iterable[str]) -> None:
    """In an armed child: every banned name that is a Python function of
    ``_FUNCTION_PACKAGES`` raises from now on, however it is reached (the code object itself
    is replaced, so aliases and references held elsewhere reach the stub too)."""
    import types

    for qualname in banned:
        if qualname in _refused_functions or not qualname.startswith(_FUNCTION_PACKAGES):
            continue
        obj = resolve(qualname)
        if type(obj) is not types.FunctionType:
            continue
        code = obj.__code__
        stub = _refusing_code(qualname.replace("torch.nn.functional.", "F."), len(code.co_freevars))
        obj.__code__ = stub.replace(
            co_freevars=code.co_freevars, co_name=code.co_name, co_qualname=code.co_qualname
        )
        _refused_functions.add(qualname)


class _Together:
    """Contexts entered in order and left in reverse, as often as the harness enters them."""

    def __init__(self, *parts: contextlib.AbstractContextManager[Any]) -> None:
        self.parts = parts

    def __enter__(self) -> _Together:
        for part in self.parts:
            part.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        for part in reversed(self.parts):
            part.__exit__(*exc)


# torch's private packages of whole operators written in Python from primitive ops (see
# static.PRIVATE_IMPLEMENTATIONS). Eager CPU execution never calls into them: they serve
# torch.compile, meta tensors and the prims library. Their functions are reachable in ways no
# name check follows (gc, closures, decomposition tables), so the zygote disables them in place.
_PRIVATE_PACKAGES = ("torch._refs", "torch._decomp", "torch._prims", "torch.ao.nn.quantizable")
# Imported before they are disabled, so that a child finds them disabled rather than loads them.
_IMPORTED_FIRST = ("torch.ao.nn.quantizable",)
_DISABLED_MESSAGE = (
    "torch's private operator implementations (torch._refs, torch._decomp, torch._prims, "
    "torch.ao.nn.quantizable) are "
    "not available in the grader. Implement it from tensor ops."
)
_stub_codes: dict[int, Any] = {}


def _stub_code(free: int) -> Any:
    """A code object that raises, with ``free`` free variables, so it can replace the code of a
    closure (a function's code must have as many free variables as its closure has cells)."""
    if free not in _stub_codes:
        names = [f"_cell{i}" for i in range(free)]
        source = "def _outer():\n"
        source += "".join(f"    {n} = None\n" for n in names)
        source += "    def _disabled(*args, **kwargs):\n"
        if names:
            source += f"        ({', '.join(names)},)\n"
        # Recorded as a refused operation too, so that the verdict names it (``rejected``).
        source += "        import api.grading.tripwire as _t\n"
        source += "        _t.refused.append('torch._private_implementation')\n"
        source += f"        raise RuntimeError({_DISABLED_MESSAGE!r})\n"
        source += "    return _disabled\n"
        scope: dict[str, Any] = {}
        exec(compile(source, "<tripwire>", "exec"), scope)
        _stub_codes[free] = scope["_outer"]().__code__
    return _stub_codes[free]


def _in_private_package(module: object) -> bool:
    return isinstance(module, str) and any(
        module == p or module.startswith(p + ".") for p in _PRIVATE_PACKAGES
    )


def disable_private_implementations() -> int:
    """Replace, in place, the code of every Python function defined in torch's private operator
    packages by code that raises: every reference to them (module attributes, decomposition
    tables, wrappers' ``__wrapped__``, closures) then reaches the stub. For the zygote, once,
    after warm-up and before it forks; never in the trusted parent. Returns how many."""
    import gc
    import importlib
    import types

    for name in _IMPORTED_FIRST:
        importlib.import_module(name)
    disabled = 0
    for obj in gc.get_objects():
        # type(), not isinstance(): isinstance reads ``obj.__class__`` through the object's own
        # __getattribute__, and torch.distributed.reduce_op's warns (a FutureWarning on every
        # start). FunctionType cannot be subclassed, so the two tests agree.
        if type(obj) is not types.FunctionType or not _in_private_package(obj.__module__):
            continue
        code = obj.__code__
        stub = _stub_code(len(code.co_freevars))
        obj.__code__ = stub.replace(
            co_freevars=code.co_freevars, co_name=code.co_name, co_qualname=code.co_qualname
        )
        disabled += 1
    return disabled
