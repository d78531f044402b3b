"""The stand-ins for banned machinery written in Python (``api.grading.stand_ins``): present
in this torch, in place while the guard is, and gone after it in the trusted process. The
routes themselves run through the armed sandbox in test_from_scratch_routes_over_http.py."""

from __future__ import annotations

import pytest
import torch
import torch.utils.checkpoint

from api.grading import stand_ins, tripwire


def test_every_replaced_attribute_exists_in_this_torch() -> None:
    assert stand_ins.missing() == []


def test_the_guard_refuses_and_records_then_restores() -> None:
    banned = ["torch.utils.checkpoint.checkpoint", "torch.autograd.graph.saved_tensors_hooks"]
    original = torch.utils.checkpoint.checkpoint
    push = torch._C._autograd._push_saved_tensors_default_hooks
    tripped: set[str] = set()
    guard = tripwire.guard(banned, tripped)
    for _ in range(2):  # the harness enters the same guard around the load and each case
        with guard:
            with pytest.raises(stand_ins.Refused, match=r"torch\.utils\.checkpoint\.checkpoint"):
                torch.utils.checkpoint.checkpoint(torch.sin, torch.ones(2), use_reentrant=False)
            # The original, found another way, meets the stand-in of the C entry underneath.
            with pytest.raises(stand_ins.Refused, match="saved_tensors_hooks"):
                original(torch.sin, torch.ones(2, requires_grad=True), use_reentrant=False)
        assert torch.utils.checkpoint.checkpoint is original
        assert torch._C._autograd._push_saved_tensors_default_hooks is push
    assert tripped == set(banned)
    # Restored: the machinery works again in the trusted process.
    x = torch.ones(3, requires_grad=True)
    torch.utils.checkpoint.checkpoint(torch.sin, x, use_reentrant=False).sum().backward()
    assert x.grad is not None


def test_a_list_without_such_names_replaces_nothing() -> None:
    assert stand_ins.covered(["torch.nn.functional.layer_norm", "aten.native_layer_norm"]) == []


def test_overlapping_guards_ending_out_of_order_restore_the_original() -> None:
    # The references' warm-up thread and a request can each hold a guard; the first to begin may
    # end first. Adam's step must come back, not the other guard's stand-in (which had refused
    # torch.optim.AdamW to the rest of the process).
    original = torch.optim.Adam.__dict__["step"]
    first = stand_ins.Replacement(["torch.optim.Adam"], set(), permanent=False)
    second = stand_ins.Replacement(["torch.optim.Adam"], set(), permanent=False)
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    with pytest.raises(stand_ins.Refused):
        torch.optim.AdamW([torch.nn.Parameter(torch.ones(2))]).step()
    second.__exit__(None, None, None)
    assert torch.optim.Adam.__dict__["step"] is original
    parameter = torch.nn.Parameter(torch.ones(2))
    parameter.grad = torch.ones(2)
    torch.optim.AdamW([parameter], lr=0.1).step()
    assert parameter.detach().lt(1).all()


def test_an_adamw_built_before_the_guard_is_refused_under_it() -> None:
    # Optimizer's profiler hook stores a wrapper of Adam's step on AdamW at its first build;
    # under the guard that wrapper must not reach the original.
    torch.optim.AdamW([torch.nn.Parameter(torch.ones(2))])
    tripped: set[str] = set()
    with stand_ins.Replacement(["torch.optim.Adam"], tripped, permanent=False):
        parameter = torch.nn.Parameter(torch.ones(2))
        parameter.grad = torch.ones(2)
        with pytest.raises(stand_ins.Refused):
            torch.optim.AdamW([parameter]).step()
    assert tripped == {"torch.optim.Adam"}
    parameter.grad = torch.ones(2)
    torch.optim.AdamW([parameter], lr=0.1).step()
    assert parameter.detach().lt(1).all()
