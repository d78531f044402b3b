"""``scripts/child_cost.py`` runs on a real zygote, slot server and locked-down children and
prints every figure it promises: a measuring tool that rots silently misleads whoever reads it."""

from __future__ import annotations

import re

from tests.support import run_script

NUMBER = r"(-?\d+(?:\.\d+)?)"
MS = r"-?\d+(?:\.\d+)? ms"  # a stage's CPU, when its faults are the figure read


def _figure(text: str, pattern: str) -> float:
    found = re.search(pattern, text)
    assert found is not None, f"no line matching {pattern!r} in:\n{text}"
    return float(found.group(1))


def test_child_cost_measures_every_stage_of_a_real_child() -> None:
    out = run_script("child_cost.py", "--runs", "2")
    worked, _, empty = out.partition("empty job (no cases)")
    assert empty, out
    # The worked solution's run touches the zygote's pages; running it again touches far fewer.
    first_faults = _figure(worked, rf"run the job\s+{MS}\s+{NUMBER} faults")
    again_faults = _figure(worked, rf"run it again\s+{MS}\s+{NUMBER} faults")
    assert first_faults > again_faults >= 0
    child = _figure(worked, rf"child, the job run once\s+{NUMBER} ms")
    production = _figure(worked, rf"production child: {NUMBER} ms")
    empty_child = _figure(empty, rf"child, the job run once\s+{NUMBER} ms")
    assert child > empty_child > 0 and production > 0
    assert _figure(out, rf"slot server, per child: {NUMBER} ms") > 0
    assert _figure(out, rf"both modes\s+{NUMBER} ms") > _figure(out, rf"neither\s+{NUMBER} ms")
    assert re.search(r"huge pages: zygote \d+ MiB", out)
    assert re.search(r"machine: sum\(range\(10000\)\) takes \d+ µs", out)
