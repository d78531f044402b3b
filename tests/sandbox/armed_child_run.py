"""Run in a fresh interpreter by ``test_armed_child_admits_correct_code``: arm the tripwire as a
grading child is armed, then run the child's program (``harness.run_job``) on one exercise's
worked solution and every ``passed_*`` variant, and print what each run reported as JSON.

The kernels a child registers stay for the rest of its process, so one exercise per process,
as in the sandbox."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import torch

from api.content.catalog import load_catalog
from api.grading import coverage, grader, harness, tripwire, wire

REPO = Path(__file__).resolve().parents[2]


def main(slug: str) -> None:
    torch.set_num_threads(1)
    spec = load_catalog(REPO / "exercises")[slug].spec
    cases = coverage.cases(spec, torch.Generator().manual_seed(0))
    tripwire.arm()
    sources = {"solution": (REPO / "solutions" / f"{slug}.py").read_text()}
    for path in sorted((REPO / "exercises" / slug / "variants").glob("passed_*.py")):
        sources[path.stem] = path.read_text()
    report = {}
    out, err = sys.stdout, sys.stderr
    for name, code in sources.items():
        frame = grader.job_template(spec, cases).with_code(code)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                answer = harness.run_job(frame)
        finally:
            sys.stdout, sys.stderr = out, err
        header, _ = wire.split(answer)
        report[name] = {
            "refused": header.get("refused_ops", []) + header.get("banned_calls", []),
            "by_hand": header.get("by_hand", []),
            "errors": [c["error"] for c in header["cases"] if "error" in c][:2],
            "load_error": header.get("load_error"),
            "cases": len(header["cases"]),
        }
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1])
