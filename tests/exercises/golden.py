"""Golden verdicts: every variant of every exercise graded in-process with a fixed seed, the
verdict reduced to what must not drift (status, message with its numbers masked, diagnosis,
failing case/step/target), compared with ``tests/exercises/golden/<slug>.json``.

Regenerate after a deliberate change, then review the diff:

    .venv/bin/python -m tests.exercises.golden --write
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import torch

from api.content.catalog import load_catalog
from api.grading import advice, coverage, grader, harness, verdict
from api.grading.spec import ExerciseSpec

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
SEED = 20261130
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?%?")


def _mask(text: str) -> str:
    """Numbers vary with the last bits of a reduction; the words and the structure must not."""
    return _NUMBER.sub("#", text)


def grade(source: str, spec: ExerciseSpec, seed: int = SEED) -> verdict.Verdict:
    cases = coverage.cases(spec, torch.Generator().manual_seed(seed))
    frame = grader.job_template(spec, cases).with_code(source)
    out, err = sys.stdout, sys.stderr
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a learner's code may warn
            answer = harness.run_job(frame)
    finally:  # run_job redirects them for good: it owns the child process, not this one
        sys.stdout, sys.stderr = out, err
    decided = verdict.decide(
        spec, cases, body=answer, timed_out=False, truncated=False, signal=None, time_limit=5.0
    )
    decided.diagnosis = advice.advise(decided.diagnosis, spec, source)  # as grader.py does
    return decided


def summary(v: verdict.Verdict) -> dict[str, Any]:
    failing = [c for c in v.checks if not c.passed]
    return {
        "status": v.status,
        "message": _mask(v.message),
        "message_zh": _mask(v.message_zh),
        "diagnosis": None if v.diagnosis is None else v.diagnosis.name,
        "cases_total": v.cases_total,
        "cases_passed": v.cases_passed,
        "failing": [[c.case, c.step, c.target] for c in failing],
        "error": None if v.error is None else {k: v.error.get(k) for k in ("type", "line")},
    }


def graded(slug: str, spec: ExerciseSpec) -> dict[str, verdict.Verdict]:
    """Every variant of the exercise graded with the golden seed, by variant name."""
    torch.set_num_threads(1)  # reductions in one order: the same last bits every run
    return {
        path.stem: grade(path.read_text(), spec)
        for path in sorted((ROOT / "exercises" / slug / "variants").glob("*.py"))
    }


def goldens(slug: str, spec: ExerciseSpec) -> dict[str, Any]:
    return golden_file(graded(slug, spec))


def golden_file(verdicts: dict[str, verdict.Verdict]) -> dict[str, Any]:
    return {"seed": SEED, "variants": {name: summary(v) for name, v in verdicts.items()}}


def path_for(slug: str) -> Path:
    return GOLDEN / f"{slug}.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="rewrite the golden files")
    parser.add_argument("slugs", nargs="*", help="only these exercises (default: every one)")
    args = parser.parse_args()
    GOLDEN.mkdir(exist_ok=True)
    changed = 0
    for slug, exercise in load_catalog(ROOT / "exercises").items():
        if args.slugs and slug not in args.slugs:
            continue
        text = json.dumps(goldens(slug, exercise.spec), indent=1, ensure_ascii=False) + "\n"
        path = path_for(slug)
        if not path.is_file() or path.read_text() != text:
            changed += 1
            print(f"{'writing' if args.write else 'differs'}: {path.relative_to(ROOT)}")
            if args.write:
                path.write_text(text)
    print(f"{changed} golden file(s) {'written' if args.write else 'differ'}")


if __name__ == "__main__":
    main()
