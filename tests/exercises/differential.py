"""Differential verdicts: every variant of every exercise graded as ``golden`` grades it (same
seed), the FULL verdict dumped, numbers and all, so that two builds can be compared byte for
byte. The goldens mask numbers (they drift with a reduction's last bits across machines); a
change that only makes grading cheaper must not move a single bit on the same machine.

Each variant is graded twice: alone (no shared state, as ``golden`` does), and on a case set
shared by all the exercise's variants in turn (the reference's outcome and the known mistakes'
outcomes kept across verdicts, as the grader's ``casesets`` keep them), so that what a verdict
reads from an earlier one is covered too.

    .venv/bin/python -m tests.exercises.differential --out /tmp/new.jsonl
    PYTHONPATH=/path/to/base .venv/bin/python -m tests.exercises.differential --out /tmp/old.jsonl
    .venv/bin/python -m tests.exercises.differential --compare /tmp/old.jsonl /tmp/new.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

import torch

import api
from api.content.catalog import load_catalog
from api.grading import advice, casesets, coverage, harness, verdict
from api.grading.spec import ExerciseSpec
from tests.exercises import golden


def grade(
    source: str,
    spec: ExerciseSpec,
    *,
    expected: Sequence[verdict.Expected] | None = None,
    outcomes: casesets.MistakeOutcomes | None = None,
) -> verdict.Verdict:
    """``golden.grade``, optionally on a shared reference and outcome store. A copy, not a
    call: this module must run unchanged against an older checkout (PYTHONPATH) whose
    ``golden.grade`` takes neither."""
    cases = coverage.cases(spec, torch.Generator().manual_seed(golden.SEED))
    frame = harness.encode_job(
        code=source,
        class_name=spec.class_name,
        banned=spec.banned,
        cases=cases,
        kind=spec.kind,
        functions=spec.functions,
        allowed=spec.allowed,
        measure_saved=spec.saved_bytes_budget is not None,
    )
    out, err = sys.stdout, sys.stderr
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a learner's code may warn
            answer = harness.run_job(frame)
    finally:  # run_job redirects them for good
        sys.stdout, sys.stderr = out, err
    decided = verdict.decide(
        spec,
        cases,
        body=answer,
        timed_out=False,
        truncated=False,
        signal=None,
        time_limit=5.0,
        expected=expected,
        outcomes=outcomes,
    )
    decided.diagnosis = advice.advise(decided.diagnosis, spec, source)
    return decided


def dump(out: Path, only: set[str] | None = None) -> int:
    """Writes one JSON line per verdict; returns how many."""
    torch.set_num_threads(1)  # as golden: reductions in one order
    written = 0
    with out.open("w") as f:
        for slug, exercise in load_catalog(golden.ROOT / "exercises").items():
            if only and slug not in only:
                continue
            spec = exercise.spec
            variants = sorted((golden.ROOT / "exercises" / slug / "variants").glob("*.py"))
            cases = coverage.cases(spec, torch.Generator().manual_seed(golden.SEED))
            expected = [verdict.expected_outcome(spec.reference, c, spec) for c in cases]
            shared = casesets.CaseSets().take(spec)  # only its outcome store is used
            for path in variants:
                source = path.read_text()
                for mode in ("alone", "shared"):
                    if mode == "alone":
                        v = grade(source, spec)
                    else:
                        v = grade(source, spec, expected=expected, outcomes=shared.outcomes)
                    line = {"exercise": slug, "variant": path.stem, "mode": mode}
                    line["verdict"] = v.model_dump(mode="json")
                    f.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
                    written += 1
    return written


def compare(old: Path, new: Path) -> int:
    """Prints each verdict that differs; returns how many differ (a missing one counts)."""
    a, b = old.read_text().splitlines(), new.read_text().splitlines()

    def key(line: str) -> tuple[str, str, str]:
        d = json.loads(line)
        return d["exercise"], d["variant"], d["mode"]

    left, right = {key(x): x for x in a}, {key(x): x for x in b}
    differ = 0
    for k in sorted(set(left) | set(right)):
        if left.get(k) != right.get(k):
            differ += 1
            print(f"differs: {'/'.join(k)}")
    print(f"{len(set(left) | set(right))} verdicts compared, {differ} differ")
    return differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, help="dump every verdict here (JSON lines)")
    parser.add_argument("--only", nargs="*", help="these exercises only")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("OLD", "NEW"))
    args = parser.parse_args()
    if args.compare:
        sys.exit(1 if compare(*args.compare) else 0)
    if args.out is None:
        parser.error("--out or --compare")
    n = dump(args.out, set(args.only) if args.only else None)
    # Which checkout graded them: PYTHONPATH decides, and a wrong one would compare a build
    # with itself.
    print(f"{n} verdicts written to {args.out} by {Path(api.__file__).parent.parent}")


if __name__ == "__main__":
    main()
