"""The run-time tripwire: records every call of a banned built-in in the child, however the
submission reached it (an alias, ``getattr``, ``torch.ops.aten``).

The child runs it around the learner's code; the parent turns what it recorded into a
``rejected`` verdict. Kept apart from the harness so the guard can be hardened on its own.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from torch.overrides import TorchFunctionMode


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


def guard(banned: Iterable[str], tripped: set[str]) -> contextlib.AbstractContextManager[Any]:
    """A context that adds to ``tripped`` the banned names called inside it."""
    banned = list(banned)
    if not banned:
        # Exercises with nothing banned skip the mode: it costs a Python call per tensor op.
        return contextlib.nullcontext()
    aten_ops = frozenset(b for b in banned if b.startswith("aten."))
    return _Tripwire(banned_callables(banned), aten_ops, tripped)
