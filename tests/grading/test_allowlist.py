"""The allow-list guard in-process: its families name real operators of this torch, every
exercise's list resolves, and the guard refuses an operation reached through each route while
it admits correct code. (Through the sandbox, with the dispatcher-level backstop armed:
``test_from_scratch_over_http.py``.)"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

from api.content.catalog import load_catalog
from api.grading import allowlist, harness
from tests.support import REPO

CATALOG = load_catalog(REPO / "exercises")
ELEMENTARY = allowlist.resolve(allowlist.ELEMENTARY)


def test_every_family_names_operators_of_this_torch() -> None:
    assert allowlist.names_unknown(list(allowlist.FAMILIES)) == []


@pytest.mark.parametrize("slug", list(CATALOG))
def test_each_exercise_list_resolves(slug: str) -> None:
    spec = CATALOG[slug].spec
    if spec.allowed is None:
        # No list: the contract composes built-ins (nn.Linear, nn.LayerNorm) and bans nothing,
        # or it bans whole blocks written in Python (an optimiser's step, a clipping helper)
        # that no list of operators can express: those are refused by name (tripwire and
        # stand-ins), and the operators they would call stay allowed for the learner's own.
        python_blocks = [n for n in spec.banned if n.startswith(("torch.optim", "torch.nn.utils"))]
        assert not spec.banned or python_blocks, (
            f"{slug} bans names but lists no allowed operations"
        )
        return
    assert allowlist.names_unknown(list(spec.allowed)) == []


def test_base_name_strips_in_place_only() -> None:
    assert allowlist.base_name("add_") == "add"
    assert allowlist.base_name("_to_copy") == "_to_copy"
    assert allowlist.base_name("__and__") == "__and__"


def test_backstop_takes_every_variant_of_a_whole_job_and_no_elementary_op() -> None:
    denied = set(allowlist.denied_ops(ELEMENTARY))
    for op in (
        "native_layer_norm",
        "native_group_norm",
        "_native_batch_norm_legit",
        "_batch_norm_with_update",
        "_fused_rms_norm",
        "_softmax",
        "_safe_softmax",
        "_sparse_log_softmax",
        "gelu_",
        "silu_backward",
        "_scaled_dot_product_flash_attention_for_cpu",
        "_transformer_encoder_layer_fwd",
        "_addmm_activation",
    ):
        assert op in denied, op
    assert not denied & ELEMENTARY
    # Random draws called normal, and the vector norms a correct RMSNorm may use, stay.
    for op in ("normal_functional", "linalg_vector_norm", "linalg_norm"):
        assert op not in denied, op


def _run(fn: Callable[[], Any], allowed: frozenset[str] | None = ELEMENTARY) -> allowlist.Guard:
    guard = allowlist.Guard(allowed)
    # The refusal raises in the learner's code; the record is what counts.
    with harness.guarding(guard), contextlib.suppress(RuntimeError):
        fn()
    return guard


X = torch.randn(3, 8)


def _scripted() -> Any:
    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.layer_norm(x, [8])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # deprecated, still a route
        scripted = torch.jit.script(f)
    return scripted(X)


ROUTES: dict[str, tuple[Callable[[], Any], str]] = {
    "functional": (
        lambda: torch.nn.functional.group_norm(X.reshape(3, 1, 8), 1),
        "native_group_norm",
    ),
    "torch.ops": (
        lambda: torch.ops.aten.native_layer_norm(X, [8], None, None, 1e-5),
        "native_layer_norm",
    ),
    "torch._C": (
        lambda: torch._C._VariableFunctions.native_batch_norm(
            X, None, None, None, None, True, 0.1, 1e-5
        ),
        "native_batch_norm",
    ),
    "in-place": (lambda: torch.ops.aten.gelu_(X.clone()), "gelu_"),
    "out=": (
        lambda: torch.ops.aten._softmax.out(X, -1, False, out=torch.empty_like(X)),
        "_softmax",
    ),
    "private entry point": (lambda: torch.ops.aten._safe_softmax(X, -1), "_safe_softmax"),
    "fused bigger op": (
        lambda: torch._addmm_activation(torch.zeros(8), X, torch.eye(8), use_gelu=True),
        "_addmm_activation",
    ),
    "another backend": (lambda: X.to_mkldnn(), "to_mkldnn"),
    "sparse tensor": (lambda: torch.sparse.softmax(X.to_sparse(), -1), "_to_sparse"),
    "scripting": (_scripted, "native_layer_norm"),
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_guard_refuses_each_route(route: str) -> None:
    fn, op = ROUTES[route]
    guard = _run(fn)
    assert any(r.endswith(f"::{op}") for r in guard.refused), guard.refused


def test_guard_refuses_a_custom_op_and_a_subclass() -> None:
    lib = torch.library.Library("allowlist_test", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CompositeExplicitAutograd")
    guard = _run(lambda: torch.ops.allowlist_test.twice(X))
    assert guard.refused == ["allowlist_test::twice"]

    class Wrapped(torch.Tensor):
        @staticmethod
        def __new__(cls, elem: torch.Tensor) -> Any:
            return torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)

        @classmethod
        def __torch_dispatch__(
            cls, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            return torch.zeros(3, 8)

    guard = _run(lambda: Wrapped(X) + 1)
    assert guard.refused == ["subclass::Wrapped"]


def test_guard_admits_the_worked_solutions_operations() -> None:
    def layer_norm() -> None:
        w = torch.nn.Parameter(torch.ones(8))
        x = X.clone().requires_grad_()
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        y = (x - mean) * torch.rsqrt(var + 1e-5) * w
        torch.einsum("...d,...d->...", y, y).sum().backward()

    guard = _run(layer_norm)
    assert guard.refused == [] and not guard.tampered


def test_guard_off_the_stack_is_noticed() -> None:
    from torch.utils._python_dispatch import _pop_mode

    guard = _run(lambda: _pop_mode())
    assert guard.tampered


def test_hand_written_backward_checked_structurally() -> None:
    def engine() -> None:
        with torch.enable_grad():
            x = torch.randn(3, requires_grad=True)
            torch.autograd.grad((x * x).sum(), x)

    guard = allowlist.Guard(None)
    with harness.guarding(guard), guard.by_hand():
        engine()
    assert guard.structural == ["grad_mode", "engine"]

    guard = allowlist.Guard(None)
    with harness.guarding(guard), torch.no_grad(), guard.by_hand():
        (X * 2).sum()  # grad mode off, no engine: nothing to report
    with harness.guarding(guard):
        engine()  # outside the learner's Function: not by hand
    assert guard.structural == []


@pytest.mark.parametrize("slug", [s for s in CATALOG if CATALOG[s].spec.allowed is not None])
def test_prompt_states_the_policy_in_the_verdicts_words(slug: str) -> None:
    spec = CATALOG[slug].spec
    assert spec.allowed is not None
    for lang, name in (("en", "prompt.md"), ("zh", "prompt.zh.md")):
        text = (REPO / "exercises" / slug / name).read_text()
        assert allowlist.policy(list(spec.allowed), spec.kind, lang) in text, (slug, lang)


def test_only_a_backward_exercise_blocks_the_backward_kernels() -> None:
    forward = allowlist.backstop([], ELEMENTARY, backward_job=False)
    backward = allowlist.backstop([], ELEMENTARY, backward_job=True)
    for op in ("aten.native_layer_norm_backward", "aten._softmax_backward_data"):
        assert op in backward and op not in forward, op
    # Every forward whole job stays blocked in both, and so do the backward kernels of the
    # elementwise activations (their input alone gives the activation back).
    assert set(forward) == {o for o in backward if not allowlist.is_backward_kernel(o[5:])}
    assert "aten.gelu_backward" in forward and "aten.silu_backward" in forward
    assert "aten.native_layer_norm" in forward and "aten._softmax" in forward
    # The specs name their kind: the four hand-written backwards keep the kernels blocked.
    kept = allowlist.spec_backstop((), ("arithmetic",), "autograd_function")
    assert "aten.native_layer_norm_backward" in kept
    assert "aten.native_layer_norm_backward" not in allowlist.spec_backstop(
        (), ("arithmetic",), "module"
    )
