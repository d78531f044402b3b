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
