"""Banned machinery written in Python, which no lower layer sees: replaced in the child.

The function-mode tripwire sees torch functions and the dispatcher block sees ATen kernels.
``torch.utils.checkpoint`` and the saved-tensor hooks are neither: plain Python over autograd's
C entry points. Code that reaches them by a name built at run time (``importlib``,
``sys.modules``) passes the static check, and they would do the whole job of the checkpointed
FFN. So where a spec bans them, each is replaced on its module by a stand-in that records its
name (a ``rejected`` verdict that names it) and raises. The C entry points underneath are
replaced too: the original Python functions stay reachable (``gc``, another module's global),
but whatever route reaches them ends in a stand-in, because the hooks cannot be pushed.

A grading child makes the replacement for good and keeps no original (``permanent``); the
trusted process and in-process tests restore them when the guard exits.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from typing import Any

# Banned name -> the attributes replaced for it, each (module, attribute). A class's ``forward``
# is replaced on the class: ``Function.apply`` looks it up there, however the class was found.
_REPLACED: dict[str, tuple[tuple[str, str], ...]] = {
    "torch.utils.checkpoint.checkpoint": (("torch.utils.checkpoint", "checkpoint"),),
    "torch.utils.checkpoint.checkpoint_sequential": (
        ("torch.utils.checkpoint", "checkpoint_sequential"),
    ),
    "torch.utils.checkpoint.CheckpointFunction": (
        ("torch.utils.checkpoint.CheckpointFunction", "forward"),
    ),
    # Every saved-tensor hook (save_on_cpu, a non-reentrant checkpoint's) is pushed here.
    "torch.autograd.graph.saved_tensors_hooks": (
        ("torch.autograd.graph", "saved_tensors_hooks"),
        ("torch._C._autograd", "_push_saved_tensors_default_hooks"),
    ),
    "torch.autograd.graph.save_on_cpu": (("torch.autograd.graph", "save_on_cpu"),),
    # Attention written in Python from matmuls and a softmax, each of them allowed: only its
    # class tells it apart (the exercises that ask for attention ban it).
    "torch.ao.nn.quantizable.MultiheadAttention": (
        ("torch.ao.nn.quantizable.modules.activation.MultiheadAttention", "forward"),
        ("torch.ao.nn.quantizable.modules.activation.MultiheadAttention", "_forward_impl"),
    ),
    "torch.autograd.graph.disable_saved_tensors_hooks": (
        ("torch.autograd.graph", "disable_saved_tensors_hooks"),
        ("torch._C._autograd", "_saved_tensors_hooks_disable"),
    ),
    # Gradient clipping and Adam are plain Python over elementwise ops and norms that
    # every solution uses too: only the functions themselves tell them apart
    # (``clip_grad_norm`` and ``adamw_step`` ban them). AdamW inherits Adam's step.
    "torch.nn.utils.clip_grad_norm_": (
        ("torch.nn.utils", "clip_grad_norm_"),
        ("torch.nn.utils.clip_grad", "clip_grad_norm_"),
    ),
    "torch.nn.utils.clip_grad_norm": (
        ("torch.nn.utils", "clip_grad_norm"),
        ("torch.nn.utils.clip_grad", "clip_grad_norm"),
    ),
    "torch.nn.utils.get_total_norm": (
        ("torch.nn.utils", "get_total_norm"),
        ("torch.nn.utils.clip_grad", "_get_total_norm"),
    ),
    "torch.nn.utils.clip_grads_with_norm_": (
        ("torch.nn.utils", "clip_grads_with_norm_"),
        ("torch.nn.utils.clip_grad", "_clip_grads_with_norm_"),
    ),
    "torch.nn.utils.clip_grad_value_": (
        ("torch.nn.utils", "clip_grad_value_"),
        ("torch.nn.utils.clip_grad", "clip_grad_value_"),
    ),
    "torch.optim.Adam": (("torch.optim.adam.Adam", "step"),),
    "torch.optim.adam.adam": (
        ("torch.optim.adam", "adam"),
        ("torch.optim.adamw", "adam"),
        ("torch.optim._functional", "adam"),
        ("torch.optim.adam", "_single_tensor_adam"),
        ("torch.optim.adam", "_multi_tensor_adam"),
        ("torch.optim.adam", "_fused_adam"),
    ),
    "torch.optim.adamw.adamw": (
        ("torch.optim.adamw", "adamw"),
        ("torch.optim._functional", "adamw"),
    ),
}


class Refused(RuntimeError):
    pass


def missing() -> list[str]:
    """The attributes this torch lacks (a test keeps it empty; a child refuses to run)."""
    return [
        f"{path}.{attr}"
        for places in _REPLACED.values()
        for path, attr in places
        if (owner := _owner(path)) is None or not hasattr(owner, attr)
    ]


def covered(banned: Iterable[str]) -> list[str]:
    """The banned names this layer replaces."""
    return [name for name in banned if name in _REPLACED]


def _owner(path: str) -> Any:
    """The module, or the class in a module, that ``path`` names; None where torch has none."""
    try:
        return importlib.import_module(path)
    except ImportError:
        module, _, name = path.rpartition(".")
        try:
            return getattr(importlib.import_module(module), name, None)
        except ImportError:
            return None


def _stand_in(name: str, tripped: set[str]) -> Any:
    def refused(*args: Any, **kwargs: Any) -> Any:
        tripped.add(name)
        raise Refused(
            f"{name} is not allowed in this exercise: it does the job the exercise asks you to "
            "write (see the prompt)."
        )

    refused.__name__ = name.rsplit(".", 1)[-1]
    return refused


# Every attribute a non-permanent replacement holds, with the original it put aside and how many
# replacements hold it now. Guards can overlap in the trusted process (the references' warm-up
# runs on a thread beside a request, tests beside both), and they need not end in the order they
# began: a replacement that saved whatever it found would save another's stand-in as the
# "original" and put it back for good, refusing torch.optim.Adam to the rest of the process.
# The original is taken once, by the first holder, and restored when the last one lets go.
_held: dict[tuple[int, str], list[Any]] = {}
_held_lock = threading.Lock()


def _subclasses(owner: Any, attr: str) -> list[tuple[type, Any]]:
    """Each subclass of a replaced class with what its own ``attr`` is now (None: inherited).
    torch.optim.Optimizer wraps ``type(self).step`` for its profiler on a subclass's first
    construction and stores the wrapper on that subclass: an AdamW built under the guard keeps
    a wrapped stand-in for good unless each subclass's own attribute is put back too."""
    if not isinstance(owner, type):
        return []
    found: list[tuple[type, Any]] = []
    todo: list[type] = list(owner.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append((cls, cls.__dict__.get(attr)))
        todo.extend(cls.__subclasses__())
    return found


def _put_back(subclasses: list[tuple[type, Any]], attr: str) -> None:
    for cls, own in subclasses:
        if own is not None:
            setattr(cls, attr, own)
        elif attr in cls.__dict__:
            delattr(cls, attr)


class Replacement:
    """A context that puts the stand-ins in place on entry and, unless ``permanent``, puts the
    originals back on exit (when no other replacement still holds them). Reusable: the harness
    enters it around the load and each case."""

    def __init__(self, banned: Iterable[str], tripped: set[str], *, permanent: bool) -> None:
        self.plan = [
            (name, owner, attr) for name in covered(banned) for owner, attr in _REPLACED[name]
        ]
        self.tripped = tripped
        self.permanent = permanent
        self.saved: list[tuple[Any, str]] = []
        self.done = False

    def __enter__(self) -> Replacement:
        if self.done:
            return self
        with _held_lock:
            for name, path, attr in self.plan:
                owner = _owner(path)
                if owner is None or not hasattr(owner, attr):
                    # This torch moved the machinery: refuse to run rather than leave it open.
                    raise RuntimeError(f"cannot replace {path}.{attr} (banned: {name})")
                stand_in: Any = _stand_in(name, self.tripped)
                if isinstance(owner, type):
                    stand_in = staticmethod(stand_in)
                if not self.permanent:
                    key = (id(owner), attr)
                    if key not in _held:
                        found = owner.__dict__.get(attr) if isinstance(owner, type) else None
                        _held[key] = [
                            owner,
                            found or getattr(owner, attr),
                            0,
                            _subclasses(owner, attr),
                        ]
                    _held[key][2] += 1
                    self.saved.append((owner, attr))
                setattr(owner, attr, stand_in)
                # A subclass holding its own wrapper of the original (Optimizer's profiler hook,
                # stored on AdamW once one was built) would bypass the stand-in.
                for cls, own in _subclasses(owner, attr):
                    if own is not None:
                        setattr(cls, attr, stand_in)
        self.done = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self.permanent:
            return
        with _held_lock:
            for owner, attr in reversed(self.saved):
                entry = _held[(id(owner), attr)]
                entry[2] -= 1
                if entry[2] == 0:
                    setattr(owner, attr, entry[1])
                    _put_back(entry[3], attr)
                    del _held[(id(owner), attr)]
        self.saved.clear()
        self.done = False
