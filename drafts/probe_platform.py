"""Run a drafted platform-format spec through the platform's own child program and verdict,
in-process (no sandbox): ``.venv/bin/python drafts/probe_platform.py layer_norm_backward``.

Prints the verdict (status, named mistake, message head) for the worked solution, the starter,
every known mistake's own code and every variant; exits non-zero when one is not what it should
be (solution and correct alternatives pass; starter, mistakes and wrong variants do not; each
mistake is named as itself).
"""

from __future__ import annotations

import importlib
import inspect
import sys
import textwrap
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from api.grading import harness, verdict  # noqa: E402


def grade(source: str, spec: object, seed: int) -> verdict.Verdict:
    cases = spec.make_cases(torch.Generator().manual_seed(seed))  # type: ignore[attr-defined]
    frame = harness.encode_job(
        code=source,
        class_name=spec.class_name,  # type: ignore[attr-defined]
        banned=spec.banned,  # type: ignore[attr-defined]
        cases=cases,
        kind=spec.kind,  # type: ignore[attr-defined]
    )
    out, err = sys.stdout, sys.stderr
    try:
        answer = harness.run_job(frame)
    finally:
        sys.stdout, sys.stderr = out, err
    return verdict.decide(
        spec,  # type: ignore[arg-type]
        cases,
        body=answer,
        timed_out=False,
        truncated=False,
        signal=None,
        time_limit=5.0,
    )


def mistake_source(build: type, class_name: str) -> str:
    """The mistake's class and its bases as a submission defining ``class_name``."""
    chain = [c for c in reversed(build.__mro__) if c.__module__ == build.__module__]
    body = "\n\n".join(textwrap.dedent(inspect.getsource(c)) for c in chain)
    module = sys.modules[build.__module__]
    helpers = "\n\n".join(
        textwrap.dedent(inspect.getsource(f))
        for name, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == build.__module__ and name.startswith("_")
    )
    head = "from __future__ import annotations\nfrom typing import Any\nimport torch\n"
    head += "from torch import nn\nGrads = Any\n"
    return f"{head}\n{helpers}\n\n{body}\n\n{class_name} = {build.__name__}\n"


def main(slug: str, seeds: tuple[int, ...] = (0, 3, 7)) -> int:
    spec = importlib.import_module(f"drafts.{slug}.spec").SPEC
    folder = ROOT / slug
    bad = 0
    subjects: list[tuple[str, str, set[str], str | None]] = [
        ("solution", (folder / "solution.py").read_text(), {"passed"}, None),
        ("starter", (folder / "starter.py").read_text(), {"failed", "error"}, None),
    ]
    for m in spec.mistakes:
        src = mistake_source(m.build, spec.class_name)
        subjects.append((f"mistake {m.name}", src, {"failed"}, m.name))
    for path in sorted((folder / "variants").glob("*.py")):
        want = {"passed"} if path.name.startswith("correct_") else {"failed", "error"}
        subjects.append((path.name, path.read_text(), want, None))
    for seed in seeds:
        for name, source, want, mistake in subjects:
            v = grade(source, spec, seed)
            named = v.diagnosis.name if v.diagnosis is not None else None
            ok = v.status in want and (mistake is None or named == mistake)
            bad += not ok
            if seed == seeds[0] or not ok:
                flag = "ok " if ok else "BAD"
                print(f"{flag} seed {seed} {name}: {v.status}, named {named}: {v.message[:110]}")
    print(f"{slug}: {len(subjects)} submissions x {len(seeds)} seeds, {bad} not as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
