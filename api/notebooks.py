"""Generate the paired notebooks in ``notebooks/`` from the exercise content.

One notebook per exercise (``exercises/<slug>/``: ``meta.yaml``, ``prompt.md``, ``prompt.zh.md``,
``starter.py``) plus one that walks through a topic's concept questions. Each is written twice,
as ``<name>.ipynb`` and as jupytext's ``py:percent`` ``<name>.py``, from the same in-memory
notebook, so the prompt, the contract and the starter have one source of truth and a test can
compare what is committed with what this module produces. Output is deterministic: fixed cell
ids, no execution counts, outputs, timestamps or tool versions.

``python -m api.notebooks build|check`` works standalone; ``addnorm notebooks build`` calls
:func:`build_notebooks`. jupytext and nbformat come from the ``notebooks`` extra and are imported
only when a notebook is actually built, so the service never needs them.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from addnorm_client.render import exercise_marker

QUESTIONS_TOPIC = "layer_norm"
QUESTIONS_NOTEBOOK = f"questions_{QUESTIONS_TOPIC}"

_METADATA: dict[str, Any] = {
    "jupytext": {
        "formats": "ipynb,py:percent",
        # The jupytext version would make every upgrade rewrite every committed notebook.
        "notebook_metadata_filter": "-jupytext.text_representation.jupytext_version",
    },
    # No language_info: the kernel fills it in, and jupytext's text format would drop it.
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
}

_HOW_TO = """\
## How this notebook works

1. The service must be running (`addnorm serve`, or `docker compose up`) and this kernel needs
   `ADDNORM_URL` (default `http://127.0.0.1:8000`) and `ADDNORM_TOKEN` (the token `POST /users`
   gave you). In a running kernel you can set them with `%env ADDNORM_TOKEN=...`.
2. Write your class in the exercise cell below and run it. Keep its first line,
   `{marker}`: the submit cell sends the last *executed* cell that starts with it.
3. Run the quick local check: a few public cases compared with PyTorch, in this kernel.
4. Run the submit cell: the server grades your code in its sandbox and shows the verdict, with
   a diagnosis when your output matches a known mistake.
"""

_LOCAL_CHECK_INTRO = """\
## Quick local check

A few public cases, forward pass only, compared with {reference} in this kernel (the reference
may use PyTorch's built-ins; your class may not). It is a sanity check and **does not replace
the server's verdict**, which runs many more shapes and dtypes, the backward pass and the
known-mistake diagnosis.
"""

_SUBMIT_INTRO = """\
## Submit to the grader

Sends the exercise cell to the server and shows the verdict: a table of checks with their
errors, and the diagnosis when one matches. If the server cannot be reached it says so and the
notebook carries on.
"""

# The local checks build their expected outputs from torch's own implementation (or, where torch
# has none, the contract's formula) on random parameters, so a forgotten weight or bias shows.
_CASE_HEADER = """\
import torch
import torch.nn.functional as F
from torch import nn

from addnorm_client.local import LocalCase, check

g = torch.Generator().manual_seed(0)
"""

_LOCAL_CHECKS: dict[str, tuple[str, str]] = {
    "layer_norm": (
        "`torch.nn.functional.layer_norm` (what `nn.LayerNorm` calls)",
        """\
def case(name, shape, eps=1e-5, offset=0.0):
    dim = shape[-1]
    x = torch.randn(shape, generator=g) + offset
    weight, bias = torch.randn(dim, generator=g), torch.randn(dim, generator=g)
    return LocalCase(
        name=name,
        x=x,
        build=lambda: LayerNorm(dim, eps=eps),
        state={"weight": weight, "bias": bias},
        expected=F.layer_norm(x, (dim,), weight, bias, eps),
    )


check([
    case("2-D, standard normal", (4, 8)),
    case("3-D, offset x + 10", (2, 3, 16), offset=10.0),
    case("eps=1e-3, small dim", (5, 3), eps=1e-3),
    case("4-D, dim 64", (2, 2, 3, 64)),
])
""",
    ),
    "rms_norm": (
        "`torch.nn.functional.rms_norm` (what `nn.RMSNorm` calls)",
        """\
def case(name, shape, eps=1e-6, scale=1.0):
    dim = shape[-1]
    x = torch.randn(shape, generator=g) * scale
    weight = torch.randn(dim, generator=g)
    return LocalCase(
        name=name,
        x=x,
        build=lambda: RMSNorm(dim, eps=eps),
        state={"weight": weight},
        expected=F.rms_norm(x, (dim,), weight, eps),
    )


check([
    case("2-D, standard normal", (4, 8)),
    case("3-D, non-zero mean stays", (2, 3, 16), scale=3.0),
    case("eps=1e-2, tiny inputs", (5, 4), eps=1e-2, scale=1e-2),
    case("4-D, dim 64", (2, 2, 3, 64)),
])
""",
    ),
    "swiglu_ffn": (
        "the formula `w2(silu(w1(x)) * w3(x))`",
        """\
def case(name, shape, hidden):
    dim = shape[-1]
    x = torch.randn(shape, generator=g)
    w1 = torch.randn(hidden, dim, generator=g) / dim**0.5
    w3 = torch.randn(hidden, dim, generator=g) / dim**0.5
    w2 = torch.randn(dim, hidden, generator=g) / hidden**0.5
    return LocalCase(
        name=name,
        x=x,
        build=lambda: SwiGLUFFN(dim, hidden),
        state={"w1.weight": w1, "w2.weight": w2, "w3.weight": w3},
        expected=F.linear(F.silu(F.linear(x, w1)) * F.linear(x, w3), w2),
    )


check([
    case("2-D, dim 8, hidden 16", (4, 8), 16),
    case("3-D, dim 16, hidden 40", (2, 3, 16), 40),
    case("hidden smaller than dim", (3, 12), 5),
])
""",
    ),
    "residual_block": (
        "the formulas `x + sublayer(norm(x))` (pre-norm) and `norm(x + sublayer(x))` (post-norm)",
        """\
def case(name, shape, norm_first):
    dim = shape[-1]
    x = torch.randn(shape, generator=g)
    state = {
        "norm.weight": torch.randn(dim, generator=g),
        "norm.bias": torch.randn(dim, generator=g),
        "sublayer.weight": torch.randn(dim, dim, generator=g) / dim**0.5,
        "sublayer.bias": torch.randn(dim, generator=g),
    }

    def norm(t):
        return F.layer_norm(t, (dim,), state["norm.weight"], state["norm.bias"])

    def sublayer(t):
        return F.linear(t, state["sublayer.weight"], state["sublayer.bias"])

    expected = x + sublayer(norm(x)) if norm_first else norm(x + sublayer(x))
    return LocalCase(
        name=name,
        x=x,
        build=lambda: ResidualBlock(dim, nn.Linear(dim, dim), norm_first=norm_first),
        state=state,
        expected=expected,
    )


check([
    case("pre-norm, 2-D", (4, 8), norm_first=True),
    case("pre-norm, 3-D", (2, 3, 16), norm_first=True),
    case("post-norm, 2-D", (4, 8), norm_first=False),
    case("post-norm, 3-D", (2, 3, 16), norm_first=False),
])
""",
    ),
}

_QUESTIONS_MD = """\
# Concept questions: {topic}

The questions the interviewer asks once your code runs: why the variance is biased, where eps
goes, what the normalisation does to each token. They are served by the addnorm server
(`GET /questions?topic={topic}`) and graded by it (`POST /questions/{{id}}/answers`), which
explains the answer and cites the article it comes from.

Set `ADDNORM_URL` and `ADDNORM_TOKEN` as in the exercise notebooks. Run the next cell to fetch
the questions; pass `lang="zh"` for 中文.
"""

_QUESTIONS_HOW = """\
## Your answers

Fill in `my_answers` with one entry per question number, in the shape each question asks for:
a choice index (`2`), a list of indices for multiple-select (`[0, 2]`), `True`/`False`, or a
number. Then run the cell: each answer is graded and explained. Change an answer and run the
cell again as often as you like.
"""


@dataclass(frozen=True)
class _Cell:
    id: str
    kind: str  # "markdown" | "code"
    source: str


def exercise_slugs(repo_root: Path) -> list[str]:
    """Folders of ``exercises/`` that hold a coding exercise (the question bank does not)."""
    root = repo_root / "exercises"
    if not root.is_dir():
        return []
    return sorted(
        p.name
        for p in root.iterdir()
        if (p / "meta.yaml").is_file() and (p / "starter.py").is_file()
    )


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8").strip()


_FUTURE = re.compile(r"^from __future__ import annotations\n+", re.MULTILINE)


def exercise_cell_source(slug: str, code: str) -> str:
    """The notebook's exercise cell for ``code``: the marker line, then the code.

    ``from __future__ import annotations`` is dropped: Python 3.11 needs it for none of the
    exercises' annotations, and in the ``.py`` twin the cell sits mid-file, where a future
    import is a SyntaxError (so the script could not run).
    """
    return f"{exercise_marker(slug)}\n{_FUTURE.sub('', code.strip())}"


def _exercise_cells(slug: str, folder: Path) -> list[_Cell]:
    meta = yaml.safe_load((folder / "meta.yaml").read_text(encoding="utf-8")) or {}
    if not isinstance(meta, Mapping):
        raise ValueError(f"{folder / 'meta.yaml'}: expected a mapping")
    title = str(meta.get("title", slug))
    facts = [f"**{k}:** {meta[k]}" for k in ("topic", "difficulty") if meta.get(k) is not None]
    prompt = _read(folder / "prompt.md") if (folder / "prompt.md").is_file() else ""
    # A prompt that carries its own heading keeps it; otherwise the meta title heads the page.
    heading, _, body = prompt.partition("\n")
    if not heading.startswith("# "):
        heading, body = f"# {title}", prompt
    intro = [heading, " · ".join(facts), body.strip()]
    cells = [_Cell(f"{slug}-prompt", "markdown", "\n\n".join(part for part in intro if part))]
    zh = folder / "prompt.zh.md"
    if zh.is_file():
        cells.append(
            _Cell(
                f"{slug}-prompt-zh",
                "markdown",
                f"<details><summary>中文说明</summary>\n\n{_read(zh)}\n\n</details>",
            )
        )
    marker = exercise_marker(slug)
    cells += [
        _Cell(f"{slug}-how-to", "markdown", _HOW_TO.format(marker=marker).strip()),
        _Cell(f"{slug}-exercise-intro", "markdown", "## Your implementation"),
        _Cell(f"{slug}-exercise", "code", exercise_cell_source(slug, _read(folder / "starter.py"))),
    ]
    if slug in _LOCAL_CHECKS:
        reference, body = _LOCAL_CHECKS[slug]
        cells += [
            _Cell(
                f"{slug}-local-check-intro",
                "markdown",
                _LOCAL_CHECK_INTRO.format(reference=reference).strip(),
            ),
            _Cell(f"{slug}-local-check", "code", f"{_CASE_HEADER}\n\n{body}".strip()),
        ]
    cells += [
        _Cell(f"{slug}-submit-intro", "markdown", _SUBMIT_INTRO.strip()),
        _Cell(
            f"{slug}-submit",
            "code",
            f'from addnorm_client.render import submit_cell\n\nsubmit_cell("{slug}")',
        ),
    ]
    return cells


def _questions_cells(topic: str) -> list[_Cell]:
    # Fetched at run time rather than baked in: the bank changes without regenerating notebooks,
    # and the answer key never sits in a file a learner opens.
    name = f"questions-{topic}"
    return [
        _Cell(f"{name}-intro", "markdown", _QUESTIONS_MD.format(topic=topic).strip()),
        _Cell(
            f"{name}-fetch",
            "code",
            "from addnorm_client.questions import QuestionWalk\n\n"
            f'walk = QuestionWalk(topic="{topic}", lang="en")\nwalk.show()',
        ),
        _Cell(f"{name}-how", "markdown", _QUESTIONS_HOW.strip()),
        _Cell(
            f"{name}-answers",
            "code",
            "my_answers = {\n    # question number: answer, e.g.  1: 2,\n}\n\n"
            "walk.answer_all(my_answers)",
        ),
    ]


def _notebook_texts(cells: Sequence[_Cell]) -> tuple[str, str]:
    """The ``.ipynb`` and ``.py`` texts of one notebook, both from the same nbformat object."""
    try:
        import jupytext
        from nbformat import v4
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise SystemExit(
            "building notebooks needs jupytext and nbformat: pip install 'addnorm[notebooks]'"
        ) from exc
    # nbformat's constructors carry no annotations.
    nb = v4.new_notebook(metadata=_METADATA)  # type: ignore[no-untyped-call]
    for cell in cells:
        make = v4.new_code_cell if cell.kind == "code" else v4.new_markdown_cell
        nb.cells.append(make(cell.source, id=cell.id))  # type: ignore[no-untyped-call]
    ipynb = jupytext.writes(nb, fmt="ipynb")
    py = jupytext.writes(nb, fmt="py:percent")
    return _newline(ipynb), _newline(py)


def _newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def render_notebooks(repo_root: Path) -> dict[str, str]:
    """Every generated file's name (relative to the notebooks folder) and its text."""
    files: dict[str, str] = {}
    named: list[tuple[str, list[_Cell]]] = [
        (slug, _exercise_cells(slug, repo_root / "exercises" / slug))
        for slug in exercise_slugs(repo_root)
    ]
    named.append((QUESTIONS_NOTEBOOK, _questions_cells(QUESTIONS_TOPIC)))
    for name, cells in named:
        files[f"{name}.ipynb"], files[f"{name}.py"] = _notebook_texts(cells)
    return files


def build_notebooks(repo_root: Path, out_dir: Path) -> list[Path]:
    """Write every notebook pair into ``out_dir``; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_notebooks(repo_root).items():
        path = out_dir / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def check_notebooks(repo_root: Path, notebooks_dir: Path | None = None) -> list[str]:
    """What differs between ``notebooks_dir`` (default ``repo_root/notebooks``) and the generator.

    An empty list means the committed notebooks are exactly what ``build_notebooks`` writes.
    """
    folder = notebooks_dir if notebooks_dir is not None else repo_root / "notebooks"
    expected = render_notebooks(repo_root)
    problems = []
    for name, text in expected.items():
        path = folder / name
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"{path}: differs from the generator's output")
    stale = {p.name for p in folder.glob("*.py")} | {p.name for p in folder.glob("*.ipynb")}
    problems += [
        f"{folder / name}: not produced by the generator" for name in sorted(stale - set(expected))
    ]
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m api.notebooks", description=__doc__)
    parser.add_argument("command", choices=["build", "check"])
    parser.add_argument("--repo-root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--out", type=Path, default=None, help="default: <repo-root>/notebooks")
    args = parser.parse_args(argv)
    root: Path = args.repo_root
    out: Path = args.out if args.out is not None else root / "notebooks"
    if args.command == "build":
        for path in build_notebooks(root, out):
            print(path)
        return 0
    problems = check_notebooks(root, out)
    for problem in problems:
        print(problem)
    if problems:
        print("run `addnorm notebooks build` (or `python -m api.notebooks build`) to regenerate")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
