"""What runs a module on a case: shared by the child (on the submission) and the parent (on the
reference and the known mistakes), so both sides follow exactly the same procedure.

``run_job`` is the child's whole program once the sandbox is locked down: exec the learner's
code in a fresh namespace, build the module per case, load the parameters the parent sent, run
forward and backward, and answer with raw tensors in a ``wire`` frame. It decides nothing; the
parent compares.
"""

from __future__ import annotations

import builtins
import io
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from api.grading import tripwire, wire
from api.grading.spec import Case, InitValue, Sublayer

SUBMISSION_FILENAME = "<submission>"
MAX_CAPTURE = 8 * 1024
MAX_ERROR_CASES = 3


def build_sublayer(desc: Sublayer) -> nn.Module:
    """The sublayer ``residual_block`` wraps; its parameters arrive in the state dict."""
    if desc.kind == "linear":
        return nn.Linear(desc.dim, desc.dim)
    if desc.kind == "mlp":
        return nn.Sequential(
            nn.Linear(desc.dim, desc.hidden), nn.GELU(), nn.Linear(desc.hidden, desc.dim)
        )
    if desc.kind == "zero":
        # F(x) = 0: the residual block must then reduce to the identity (pre-norm) or norm(x).
        lin = nn.Linear(desc.dim, desc.dim)
        nn.init.zeros_(lin.weight)
        nn.init.zeros_(lin.bias)
        return lin
    raise ValueError(f"unknown sublayer kind {desc.kind!r}")


@dataclass
class Outcome:
    """What one case produced: the output, the input after the call, and gradients by name."""

    output: torch.Tensor | None = None
    input_after: torch.Tensor | None = None
    grads: dict[str, torch.Tensor | None] = field(default_factory=dict)
    parameters: dict[str, list[int]] = field(default_factory=dict)


def instantiate(factory: Callable[..., nn.Module], case: Case) -> nn.Module:
    kwargs: dict[str, Any] = dict(case.init_kwargs)
    if case.sublayer is not None:
        kwargs["sublayer"] = build_sublayer(case.sublayer)
    module = factory(**kwargs)
    if not isinstance(module, nn.Module):
        raise TypeError(f"the constructor returned {type(module).__name__}, not an nn.Module")
    return module


def _seed(seed: int) -> None:
    # The CPU generator is the one dropout draws from. torch.manual_seed would also seed the
    # lazily initialised accelerator generators, formatting a stack trace each time (~0.3 ms).
    torch.default_generator.manual_seed(seed)


def run_case(module: nn.Module, case: Case) -> Outcome:
    """Load ``case.state``, run forward (and backward), and collect what the parent compares."""
    outcome = Outcome()
    params = dict(module.named_parameters())
    outcome.parameters = {k: list(p.shape) for k, p in params.items()}
    module.to(case.x.dtype)
    if case.state is not None:
        if set(params) != set(case.state):
            return outcome  # the parent reports the structural mismatch from `parameters`
        for name, value in case.state.items():
            if tuple(params[name].shape) != tuple(value.shape):
                return outcome
        # Parameters only (a learner's extra buffer is their own business), copied in place:
        # what load_state_dict does for parameters, without its per-call hook machinery.
        with torch.no_grad():
            for name, value in case.state.items():
                params[name].copy_(value)
    module.train(case.train)
    x = case.x.clone()
    if case.grad_output is None:
        with torch.no_grad():
            _seed(case.seed)
            outcome.output = module(x)
        outcome.input_after = x
        return outcome
    x.requires_grad_(True)
    _seed(case.seed)
    out = module(x)
    outcome.output = out
    if isinstance(out, torch.Tensor) and out.shape == case.grad_output.shape and out.requires_grad:
        torch.autograd.backward(out, case.grad_output.to(out.dtype))
        outcome.grads["input"] = x.grad
        for name, p in module.named_parameters():
            outcome.grads[name] = p.grad
    outcome.input_after = x.detach()
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


def encode_job(
    *, code: str, class_name: str, banned: Iterable[str], cases: Iterable[Case]
) -> bytes:
    tensors: dict[str, torch.Tensor] = {}
    described = []
    for i, case in enumerate(cases):
        tensors[f"{i}.x"] = case.x
        if case.grad_output is not None:
            tensors[f"{i}.grad_output"] = case.grad_output
        for k, v in (case.state or {}).items():
            tensors[f"{i}.state.{k}"] = v
        described.append(
            {
                "name": case.name,
                "init_kwargs": dict(case.init_kwargs),
                "has_state": case.state is not None,
                "train": case.train,
                "seed": case.seed,
                "sublayer": None
                if case.sublayer is None
                else [case.sublayer.kind, case.sublayer.dim, case.sublayer.hidden],
            }
        )
    header = {"code": code, "class_name": class_name, "banned": list(banned), "cases": described}
    return wire.encode(header, tensors)


def decode_job(frame: bytes | bytearray) -> tuple[dict[str, Any], list[Case]]:
    header, blob = wire.split(frame)
    tensors = wire.decode_tensors(header, blob)
    cases = []
    for i, d in enumerate(header["cases"]):
        prefix = f"{i}.state."
        state = {k[len(prefix) :]: v for k, v in tensors.items() if k.startswith(prefix)}
        init_kwargs: dict[str, InitValue] = d["init_kwargs"]
        sub = d["sublayer"]
        cases.append(
            Case(
                name=d["name"],
                description="",
                x=tensors[f"{i}.x"],
                init_kwargs=init_kwargs,
                state=state if d["has_state"] else None,
                grad_output=tensors.get(f"{i}.grad_output"),
                train=d["train"],
                seed=d["seed"],
                sublayer=None if sub is None else Sublayer(sub[0], sub[1], sub[2]),
            )
        )
    return header, cases


def _plain(t: Any) -> torch.Tensor | None:
    """A plain tensor of what the submission returned, or None if it is not a tensor at all."""
    if not isinstance(t, torch.Tensor):
        return None
    plain = t.detach()
    if type(plain) is not torch.Tensor:
        plain = torch.Tensor._make_subclass(torch.Tensor, plain)
    return plain


def run_job(frame: bytes | bytearray) -> bytes:
    """The child's program: grade nothing, just run the submission and report raw results."""
    header, cases = decode_job(frame)
    stdout, stderr = _CappedText(MAX_CAPTURE), _CappedText(MAX_CAPTURE)
    sys.stdout, sys.stderr = stdout, stderr
    result: dict[str, Any] = {"cases": []}
    tensors: dict[str, torch.Tensor] = {}
    tripped: set[str] = set()
    banned: list[str] = header["banned"]
    tripwires = tripwire.guard(banned, tripped)
    namespace: dict[str, Any] = {"__name__": "submission", "__builtins__": builtins}
    try:
        compiled = compile(header["code"], SUBMISSION_FILENAME, "exec")
        with tripwires:
            exec(compiled, namespace)
    except BaseException as exc:
        result["load_error"] = describe_exception(exc)
    cls = namespace.get(header["class_name"])
    if "load_error" not in result:
        if cls is None:
            result["missing_class"] = True
        elif not (isinstance(cls, type) and issubclass(cls, nn.Module)):
            result["not_a_module"] = type(cls).__name__
    errors = 0
    factory: type[nn.Module] | None = None
    if (
        "load_error" not in result
        and "missing_class" not in result
        and "not_a_module" not in result
    ):
        factory = cls
    if factory is not None:
        for i, case in enumerate(cases):
            entry: dict[str, Any] = {"name": case.name}
            try:
                with tripwires:
                    outcome = run_case(instantiate(factory, case), case)
            except BaseException as exc:
                entry["error"] = describe_exception(exc)
                result["cases"].append(entry)
                errors += 1
                if errors >= MAX_ERROR_CASES:
                    break
                continue
            entry["parameters"] = outcome.parameters
            output = _plain(outcome.output)
            if outcome.output is not None and output is None:
                entry["output_type"] = type(outcome.output).__name__
            for key, value in (("output", output), ("input_after", outcome.input_after)):
                if value is not None:
                    tensors[f"{i}.{key}"] = value
            entry["missing_grads"] = [k for k, g in outcome.grads.items() if g is None]
            for k, g in outcome.grads.items():
                if g is not None:
                    tensors[f"{i}.grad.{k}"] = g
            result["cases"].append(entry)
    result["banned_calls"] = sorted(tripped)
    result["stdout"] = stdout.text()
    result["stderr"] = stderr.text()
    try:
        return wire.encode(result, tensors)
    except wire.WireError as exc:
        return wire.encode({**result, "cases": [], "encode_error": str(exc)}, {})
