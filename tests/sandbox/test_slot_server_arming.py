"""A slot server arms itself once for the exercise of its last job, and the children it forks
inherit the blocked kernels instead of registering them each (``tripwire.arm_slot_server``,
``zygote._serve_slot``).

Two things must hold: a child forked from an armed slot server is armed for good (learner code
cannot find the registration and drop it), and no child ever carries another exercise's blocks
(a correct solution that uses an operator one exercise blocks and another admits still passes
right after the first exercise's jobs). The first is checked on the mechanism in forked
processes, the second with the real pool, zygote and sandbox, one slot, exercises alternated.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable

import pytest
import torch

from api.content.catalog import load_catalog
from api.grading import allowlist, tripwire
from tests.grading.scratch_attacks import EVERY_ATTACK
from tests.support import REPO, in_process_grader

CATALOG = load_catalog(REPO / "exercises")


def _backstop(slug: str) -> list[str]:
    spec = CATALOG[slug].spec
    return allowlist.spec_backstop(spec.banned, spec.allowed, spec.kind)


def _in_fork(body: Callable[[], None]) -> None:
    """Run ``body`` in a forked process; fail here with what failed there. The parent's
    dispatcher is never touched."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        message = b""
        try:
            body()
        except BaseException as exc:  # reported to the parent
            message = f"{type(exc).__name__}: {exc}".encode()[:4000] or b"failed"
        os.write(write, message)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        said = answer.read()
    os.waitpid(pid, 0)
    assert said == b"", said.decode()


def _raises(call: Callable[[], object]) -> bool:
    try:
        call()
    except RuntimeError as exc:
        return "aten::" in str(exc)
    return False


def _layer_norm() -> object:
    return torch.nn.functional.layer_norm(torch.randn(2, 8), (8,))


def _softmax() -> object:
    return torch.softmax(torch.randn(2, 8), dim=-1)


def test_a_child_of_an_armed_slot_server_is_armed_for_good() -> None:
    def slot_server() -> None:
        tripwire.arm_slot_server(0, _backstop("layer_norm"))
        assert _raises(_layer_norm), "the slot server's registration blocks nothing"

        def child() -> None:
            tripwire.seal_inherited()
            assert tripwire._slot_library is None
            # Nothing Python can walk to reaches the handle: the collector does not track it,
            # and no module attribute holds it any more.
            assert not any(type(o) is torch._C._DispatchModule for o in gc.get_objects())
            gc.collect()
            assert _raises(_layer_norm)
            # The guard finds the kernels blocked and registers nothing more.
            before = set(tripwire._blocked)
            tripwire.arm()
            with tripwire.guard(_backstop("layer_norm"), set()):
                pass
            assert tripwire._blocked == before

        _in_fork(child)

    _in_fork(slot_server)


def test_re_arming_restores_what_the_first_exercise_blocked() -> None:
    def slot_server() -> None:
        # layer_norm blocks softmax as a whole job; scaled_dot_product_attention admits it.
        tripwire.arm_slot_server(0, _backstop("layer_norm"))
        assert _raises(_softmax)
        tripwire.arm_slot_server(1, _backstop("scaled_dot_product_attention"))
        assert not _raises(_softmax), "softmax still blocked after re-arming"
        assert _raises(_layer_norm)
        assert tripwire.slot_server_armed() == 1
        tripwire.arm_slot_server(None, ())
        assert not _raises(_layer_norm) and not _raises(_softmax)
        assert tripwire._blocked == set()

        def child() -> None:
            tripwire.seal_inherited()
            assert not _raises(_layer_norm), "a disarmed slot server's child inherited a block"

        _in_fork(child)

    _in_fork(slot_server)


def _solution(slug: str) -> str:
    return (REPO / "solutions" / f"{slug}.py").read_text()


@pytest.mark.slow
def test_one_slot_serves_exercises_in_turn_with_the_right_blocks() -> None:
    """One slot, so every job after the first meets a slot server armed for the exercise before
    it. ``pre_post_ln_gradients`` (nn.LayerNorm) and ``scaled_dot_product_attention``
    (torch.softmax) use operators ``layer_norm`` blocks; a route past every Python layer to
    ``layer_norm``'s own kernel is refused when its child was forked already armed."""
    (attack,) = [a for a in EVERY_ATTACK if a.name == "every_python_layer_off"]
    order = [
        ("layer_norm", _solution("layer_norm"), "passed"),
        ("layer_norm", attack.code, "rejected"),  # forked armed by the job before
        ("pre_post_ln_gradients", _solution("pre_post_ln_gradients"), "passed"),
        ("layer_norm", _solution("layer_norm"), "passed"),
        ("scaled_dot_product_attention", _solution("scaled_dot_product_attention"), "passed"),
        ("scaled_dot_product_attention", _solution("scaled_dot_product_attention"), "passed"),
        ("layer_norm", attack.code, "rejected"),
        ("layer_norm", attack.code, "rejected"),
    ]
    with in_process_grader(slots=1, catalog=True) as grader:
        got = []
        for slug, code, _ in order:
            verdict = grader.grade(code, CATALOG[slug].spec, seed=0)
            got.append((slug, verdict.status, verdict.message[:200]))
    assert [(slug, status) for slug, status, _ in got] == [(s, want) for s, _, want in order], got
    for _, status, message in got:
        if status == "rejected":
            assert "native_layer_norm" in message, message
