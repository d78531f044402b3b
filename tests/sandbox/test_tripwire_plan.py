"""The tripwire's registration plan blocks exactly what registering every key would.

``tripwire.plan`` skips the CPU and AutogradCPU registrations of an operator whose
CompositeImplicitAutograd kernel serves those keys anyway. Whether it does is the dispatcher's
rule, which a torch release may change: so these tests compare, key by key, which dispatch keys
of every overload end in the tripwire's kernel after the plan and after all three registrations,
for every banned operator of the catalogue and for every ATen operator that ``torch`` or
``torch.nn.functional`` exposes under its own name. Registrations last for the life of a
process, so each side runs in a forked child.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pytest
import torch

from api.content.catalog import load_catalog
from api.grading import tripwire

REPO = Path(__file__).resolve().parents[2]


def _catalogue_operators() -> list[str]:
    names: set[str] = set()
    for exercise in load_catalog(REPO / "exercises").values():
        names.update(tripwire.aten_names(exercise.spec.banned))
    return sorted(names)


def _exposed_operators() -> list[str]:
    names: set[str] = set()
    for module in (torch, torch.nn.functional):
        for name in dir(module):
            if name.startswith("__"):
                continue
            try:
                getattr(torch.ops.aten, name)
            except (AttributeError, RuntimeError):
                continue
            names.add(name)
    return sorted(names)


def _tripwire_keys(qualified: str) -> list[str]:
    """The dispatch keys of ``qualified`` whose kernel is the tripwire's."""
    try:
        table = torch._C._dispatch_dump_table(qualified)
    except RuntimeError as exc:  # an operator the dispatcher does not know under this name
        return [f"unknown: {str(exc)[:80]}"]
    keys = []
    for line in table.splitlines():
        key, _, source = line.partition(":")
        if "<tripwire>" in source:
            keys.append(key)
    return keys


def _in_child(names: list[str], *, every_key: bool) -> dict[str, object]:
    """Block ``names`` in a forked child, by the plan or under every key; what each overload's
    table then says, and how many registrations it took."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        code = 1
        try:
            steps = tripwire.plan(names)
            if every_key:
                # The three keys, and every key whose kernel can be called by its key.
                steps = tuple(
                    (name, full, tripwire._BLOCKED_KEYS + tripwire.callable_keys(f"aten::{full}"))
                    for name, full, _ in steps
                )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tripwire.block_kernels(names, steps)
            report = {
                "registrations": sum(len(keys) for _, _, keys in steps),
                "tables": {full: _tripwire_keys(f"aten::{full}") for _, full, _ in steps},
            }
            data = json.dumps(report).encode()
            while data:
                data = data[os.write(write, data) :]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 20):
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the child failed to block the operators"
    return json.loads(b"".join(chunks))


@pytest.mark.parametrize("operators", ["catalogue", "exposed"])
def test_the_plan_blocks_what_every_key_would(operators: str) -> None:
    names = _catalogue_operators() if operators == "catalogue" else _exposed_operators()
    assert len(names) > (20 if operators == "catalogue" else 500)
    planned = _in_child(names, every_key=False)
    full = _in_child(names, every_key=True)
    assert planned["tables"] == full["tables"]
    # Not vacuous: every overload is blocked somewhere, the CPU keys included, and the plan
    # registers fewer kernels than the three keys each.
    tables = planned["tables"]
    assert isinstance(tables, dict)
    assert all("CPU" in keys and "AutogradCPU" in keys for keys in tables.values())
    assert planned["registrations"] < full["registrations"]  # type: ignore[operator]


def test_prepared_lists_give_the_guard_the_same_names_and_callables() -> None:
    banned = next(iter(load_catalog(REPO / "exercises").values())).spec.banned
    banned = banned or ("torch.nn.functional.layer_norm", "aten.native_layer_norm")
    assert tripwire.prepare([banned]) >= 1
    ready = tripwire._prepared[tuple(banned)]
    assert ready.aten == tripwire.aten_names(banned)
    assert ready.callables == tripwire.banned_callables(banned)
    assert ready.steps == tripwire.plan(ready.aten)


def test_a_list_that_cannot_be_resolved_is_left_to_the_children(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``prepare`` runs in the zygote at start-up: a failure there must not stop the service."""

    def broken(names: object) -> tripwire.Plan:
        raise RuntimeError("the dispatcher said no")

    monkeypatch.setattr(tripwire, "plan", broken)
    banned = ("torch.nn.functional.gelu", "aten.gelu", "a name only this test uses")
    tripwire.prepare([banned])
    assert banned not in tripwire._prepared
    # The guard then resolves the list itself, as every child did before.
    tripped: set[str] = set()
    with tripwire.guard(banned, tripped):
        torch.nn.functional.gelu(torch.ones(2))
    assert tripped == {"torch.nn.functional.gelu"}
