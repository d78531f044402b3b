"""Generate the paired notebooks in ``notebooks/`` from the exercise content.

One notebook per exercise folder (``exercises/<slug>/``: ``meta.yaml``, ``prompt.md``,
``prompt.zh.md``, ``starter.py``, and when present ``local_check.py`` for the quick local check
and ``followups.yaml`` for the interviewer's follow-ups), plus one per question-bank topic that
walks through its concept questions. Nothing here lists exercises or topics: both are discovered
from the content, so a new folder or topic gets its notebook from ``addnorm notebooks build``.

Each notebook is written twice, as ``<name>.ipynb`` and as jupytext's ``py:percent``
``<name>.py``, from the same in-memory notebook, so the content has one source of truth and a
test can compare what is committed with what this module produces. Output is deterministic:
fixed cell ids, no execution counts, outputs, timestamps or tool versions.

``python -m api.content.notebooks build|check`` works standalone; ``addnorm notebooks build`` calls
:func:`build_notebooks`. jupytext and nbformat come from the ``notebooks`` extra and are imported
only when a notebook is actually built, so the service never needs them.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from addnorm_client.render import exercise_marker
from api.content.followups import load_follow_ups

_METADATA: dict[str, Any] = {
    "jupytext": {
        "formats": "ipynb,py:percent",
        # The jupytext version would make every upgrade rewrite every committed notebook.
        "notebook_metadata_filter": "-jupytext.text_representation.jupytext_version",
    },
    # No language_info: the kernel fills it in, and jupytext's text format would drop it.
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
}

# One code cell creates a learner and sets the token in the running kernel: nothing to copy.
_TOKEN_ONE_LINER = (
    'import os; from addnorm_client import Client; os.environ["ADDNORM_TOKEN"] = '
    'Client().create_user("me")["token"]'
)

_HOW_TO = """\
## How this notebook works

1. The service must be running (`addnorm serve`, or `docker compose up`). This kernel finds it
   through `ADDNORM_URL` (default `http://127.0.0.1:8000`) and needs your learner token in
   `ADDNORM_TOKEN`. No token yet? Run this once in a cell: it creates a learner and sets the
   token in this kernel (keep the token if you want to come back to your progress):

   ```python
   {token}
   ```

   With a token already, `%env ADDNORM_TOKEN=...` sets it.
2. Write your class in the exercise cell below and run it. Keep its first line,
   `{marker}`: the submit cell sends the last *executed* cell that starts with it.
3. Run the quick local check: it runs your exercise cell again **on its own**, in a fresh
   namespace, exactly as the server will (so a missing import fails here too), and compares a
   few public cases with PyTorch.
4. Run the submit cell: the server grades your code in its sandbox and shows the verdict, with
   a diagnosis when your output matches a known mistake.
5. Then the interviewer's follow-ups: the questions asked once the code runs.
"""

_HOW_TO_ZH = """\
## 这个 notebook 怎么用

1. 先把服务跑起来（`addnorm serve` 或 `docker compose up`）。kernel 通过 `ADDNORM_URL`
   找到服务（默认 `http://127.0.0.1:8000`），并从 `ADDNORM_TOKEN` 读取你的学习者 token。
   还没有 token？在任意单元格里运行一次下面这行：它会新建一个学习者，并把 token 设置到当前
   kernel 中（想以后接着看自己的进度，就把 token 记下来）：

   ```python
   {token}
   ```

   已经有 token 的话，用 `%env ADDNORM_TOKEN=...` 设置即可。
2. 在下面的练习单元格里写好你的类并运行。第一行 `{marker}` 不要删：提交单元格发送的是
   最近一次*运行过*、以这一行开头的单元格。
3. 运行本地快速检查：它会把练习单元格的代码**单独**放进一个全新的命名空间再执行一遍，
   和服务器的做法完全一样（漏写的 import 在这里就会暴露），然后在几个公开用例上与 PyTorch
   对比。
4. 运行提交单元格：服务器在沙箱中评测你的代码并给出结论；如果你的输出与某个已知错误吻合，
   还会指出是哪一个。
5. 最后是面试官的追问：代码跑通之后面试官通常会接着问的问题。
"""

_LOCAL_CHECK_INTRO = """\
## Quick local check

Runs your exercise cell again on its own, in a fresh namespace, as the server does, then
compares a few public cases, forward pass only, with a reference in this kernel. It is a sanity
check and **does not replace the server's verdict**, which runs many more shapes and dtypes,
the backward pass and the known-mistake diagnosis.

Reference: {reference}.
"""

_CHART_INTRO = """\
## The figure

Your measurement beside the reference experiment's, on the local check's last case: one curve
per row of your answer, yours solid, the reference dashed (matplotlib, from the `notebooks`
extra; without it, the numbers).
"""

_CHART_INTRO_ZH = """\
## 图

在本地检查的最后一个用例上，把你的测量结果与参考实验的画在一起：答案的每一行一条曲线，你的是实线，
参考的是虚线（用 `notebooks` 附加依赖中的 matplotlib；没有它时打印数值）。
"""

_LOCAL_CHECK_INTRO_ZH = """\
## 本地快速检查

和服务器一样，把你的练习单元格单独放进全新的命名空间重新执行，再用几个公开用例（只做前向）
在当前 kernel 里与参考实现对比。这只是一次自检，**不能代替服务器的评测**：服务器会覆盖多得多的
形状和 dtype，还会检查反向传播并诊断已知错误。

参考实现：{reference}。
"""

_SUBMIT_INTRO = """\
## Submit to the grader

Sends the exercise cell to the server and shows the verdict: a table of checks with their
errors, and the diagnosis when one matches. If the server cannot be reached it says so and the
notebook carries on.

<details><summary>中文</summary>

把练习单元格发给服务器并显示评测结论：逐项检查及其误差；如果与某个已知错误吻合，还会给出
诊断。连不上服务器时会提示原因，notebook 照常往下运行。

</details>
"""

_FOLLOW_UPS_INTRO = """\
## Interviewer follow-ups

Once the code runs, an interviewer keeps going. Answer out loud first, then check yourself: each
question links to an item of the question bank, served and graded by the server
(`GET /questions/<id>`) and collected by topic in the `questions_<topic>` notebooks.
"""

_FOLLOW_UPS_INTRO_ZH = """\
## 面试官的追问

代码跑通之后，面试官还会接着问。先试着口头回答，再去核对：每个问题都对应题库中的一道题，
由服务器提供并判分（`GET /questions/<id>`），也按主题收录在 `questions_<topic>` notebook 里。
"""

_QUESTIONS_MD = """\
# Concept questions: {title}

The questions an interviewer asks about {title} once your code runs. They are served by the
addnorm server (`GET /questions?topic={topic}`) and graded by it (`POST /questions/{{id}}/answers`),
which explains each answer and cites the article it comes from.

Set `ADDNORM_URL` and `ADDNORM_TOKEN` as in the exercise notebooks. No token yet? Run this once
in a cell: it creates a learner and sets the token in this kernel.

```python
{token}
```

Then run the next cell to fetch the questions; pass `lang="zh"` for 中文.

<details><summary>中文</summary>

写完代码之后，面试官常会就{title_zh}继续追问，这里收录的就是这类题目。题目由 addnorm 服务器
提供（`GET /questions?topic={topic}`）并判分（`POST /questions/{{id}}/answers`），判分时会解释
答案，并注明出自哪篇文章。

和练习 notebook 一样设置 `ADDNORM_URL` 与 `ADDNORM_TOKEN`。还没有 token？在任意单元格里运行
一次上面那行代码：它会新建一个学习者，并把 token 设置到当前 kernel 中。然后运行下一个单元格
获取题目；想看中文，把 `lang="en"` 改成 `lang="zh"`。

</details>
"""

_QUESTIONS_HOW = """\
## Your answers

Fill in `my_answers` with one entry per question number, in the shape each question asks for:
a choice index (`2`), a list of indices for multiple-select (`[0, 2]`), `True`/`False`, or a
number. Then run the cell: each answer is graded and explained. Change an answer and run the
cell again as often as you like.

<details><summary>中文</summary>

在 `my_answers` 里按题号填写答案，格式按题型而定：单选填选项下标（`2`），多选填下标列表
（`[0, 2]`），判断题填 `True`/`False`，数值题填一个数。运行单元格，每个答案都会被判分并附上
解释。改了答案可以随时再运行。

</details>
"""

# How a topic reads in a heading, in English and Chinese; a topic missing here shows its name.
_TOPIC_TITLES = {
    "ffn": ("the feed-forward network", "前馈网络（FFN）"),
    "residual": ("residual connections", "残差连接"),
    "layer_norm": ("LayerNorm", " LayerNorm "),
    "rms_norm": ("RMSNorm", " RMSNorm "),
    "norm_placement": ("Pre-Norm and Post-Norm", " Pre-Norm 与 Post-Norm "),
    "activations": ("activation functions", "激活函数"),
    "attention": ("attention", "注意力"),
    "moe": ("mixture of experts", "混合专家（MoE）"),
    "batch_norm": ("BatchNorm", " BatchNorm "),
    "training": ("training numerics", "训练中的数值问题"),
}


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


def question_topics(repo_root: Path) -> list[str]:
    """The question bank's topics that hold at least one question, in the bank's order."""
    from api.content.questions import load_question_bank

    bank = load_question_bank(repo_root / "exercises" / "questions")
    return [topic for topic, count in bank.count_by_topic().items() if count]


def questions_notebook(topic: str) -> str:
    return f"questions_{topic}"


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


_MODULE_BASES = ("nn.Module", "torch.nn.Module", "Module")
_FUNCTION_BASES = ("torch.autograd.Function", "autograd.Function", "Function")


def exercise_class_name(starter: str) -> str:
    """The name the exercise asks for, whatever its kind: the first public ``nn.Module``
    subclass the starter defines, else its first public ``torch.autograd.Function`` subclass,
    else its public top-level functions, comma-separated (``softmax,log_softmax``). A private
    class is a helper (a lab's ``_Block``), never the contract."""
    body = ast.parse(starter).body
    for bases in (_MODULE_BASES, _FUNCTION_BASES):
        for node in body:
            if (
                isinstance(node, ast.ClassDef)
                and not node.name.startswith("_")
                and any(ast.unparse(base) in bases for base in node.bases)
            ):
                return node.name
    functions = [
        n.name for n in body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
    ]
    if functions:
        return ",".join(functions)
    # An optimiser's class (``AdamW``), whatever its base: the first public class.
    for node in body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            return node.name
    raise ValueError("the starter defines no class and no def")


@dataclass(frozen=True)
class LocalCheck:
    """``exercises/<slug>/local_check.py``: its docstring names the reference (English, then
    Chinese, one paragraph each); the rest defines ``local_cases()``, shown in the notebook."""

    reference: str
    reference_zh: str
    code: str


def load_local_check(path: Path) -> LocalCheck:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    doc = ast.get_docstring(tree, clean=True)
    if not doc or not tree.body:
        raise ValueError(f"{path}: needs a docstring naming the reference, English then Chinese")
    paragraphs = [p.strip() for p in doc.split("\n\n") if p.strip()]
    if len(paragraphs) != 2:
        raise ValueError(f"{path}: the docstring needs two paragraphs, English then Chinese")
    if not any(isinstance(n, ast.FunctionDef) and n.name == "local_cases" for n in tree.body):
        raise ValueError(f"{path}: defines no local_cases()")
    body = "\n".join(text.splitlines()[tree.body[0].end_lineno or 0 :])
    return LocalCheck(paragraphs[0], paragraphs[1], _FUTURE.sub("", body.strip()).strip())


def local_check_cell_source(slug: str, class_name: str, local: LocalCheck) -> str:
    return (
        f"{local.code}\n\n\nfrom addnorm_client.local import check\n\n"
        f'check("{slug}", "{class_name}", local_cases())'
    )


def _bilingual(en: str, zh: str) -> str:
    return f"{en.strip()}\n\n<details><summary>中文</summary>\n\n{zh.strip()}\n\n</details>"


def _follow_ups_md(folder: Path, topic_of: Mapping[str, str]) -> str | None:
    follow_ups = load_follow_ups(folder)
    if not follow_ups:
        return None

    def items(zh: bool) -> str:
        lines = []
        for n, f in enumerate(follow_ups, 1):
            topic = topic_of.get(f.question, "")
            where = f"`{f.question}`" + (f", `{questions_notebook(topic)}`" if topic else "")
            lines.append(f"{n}. {f.ask_zh if zh else f.ask} ({where})")
        return "\n".join(lines)

    return _bilingual(
        f"{_FOLLOW_UPS_INTRO.strip()}\n\n{items(False)}",
        f"{_FOLLOW_UPS_INTRO_ZH.strip()}\n\n{items(True)}",
    )


def _exercise_cells(slug: str, folder: Path, topic_of: Mapping[str, str]) -> list[_Cell]:
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
    starter = _read(folder / "starter.py")
    how_to = [text.format(marker=marker, token=_TOKEN_ONE_LINER) for text in (_HOW_TO, _HOW_TO_ZH)]
    cells += [
        _Cell(f"{slug}-how-to", "markdown", _bilingual(*how_to)),
        _Cell(f"{slug}-exercise-intro", "markdown", "## Your implementation · 你的实现"),
        _Cell(f"{slug}-exercise", "code", exercise_cell_source(slug, starter)),
    ]
    local_path = folder / "local_check.py"
    if local_path.is_file():
        local = load_local_check(local_path)
        intro_md = _bilingual(
            _LOCAL_CHECK_INTRO.format(reference=local.reference),
            _LOCAL_CHECK_INTRO_ZH.format(reference=local.reference_zh),
        )
        cells += [
            _Cell(f"{slug}-local-check-intro", "markdown", intro_md),
            _Cell(
                f"{slug}-local-check",
                "code",
                local_check_cell_source(slug, exercise_class_name(starter), local),
            ),
        ]
        if "series=" in local.code:  # a lab: its figure, the learner's curves and the reference's
            cells += [
                _Cell(f"{slug}-chart-intro", "markdown", _bilingual(_CHART_INTRO, _CHART_INTRO_ZH)),
                _Cell(
                    f"{slug}-chart",
                    "code",
                    "from addnorm_client.local import plot_lab\n\n"
                    f'plot_lab("{slug}", "{exercise_class_name(starter)}", local_cases());',
                ),
            ]
    cells += [
        _Cell(f"{slug}-submit-intro", "markdown", _SUBMIT_INTRO.strip()),
        _Cell(
            f"{slug}-submit",
            "code",
            f'from addnorm_client.render import submit_cell\n\nsubmit_cell("{slug}")',
        ),
    ]
    follow_ups = _follow_ups_md(folder, topic_of)
    if follow_ups is not None:
        cells.append(_Cell(f"{slug}-follow-ups", "markdown", follow_ups))
    return cells


def _questions_cells(topic: str) -> list[_Cell]:
    # Fetched at run time rather than baked in: the bank changes without regenerating notebooks,
    # and the answer key never sits in a file a learner opens.
    name = f"questions-{topic}"
    title, title_zh = _TOPIC_TITLES.get(topic, (topic, f" {topic} "))
    intro = _QUESTIONS_MD.format(
        topic=topic, title=title, title_zh=title_zh, token=_TOKEN_ONE_LINER
    )
    return [
        _Cell(f"{name}-intro", "markdown", intro.strip()),
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
    # nbformat's constructors carry no annotations (the mypy settings exempt its calls).
    nb = v4.new_notebook(metadata=_METADATA)
    for cell in cells:
        if cell.kind == "code":
            nb.cells.append(v4.new_code_cell(cell.source, id=cell.id))
        else:
            nb.cells.append(v4.new_markdown_cell(cell.source, id=cell.id))
    ipynb = jupytext.writes(nb, fmt="ipynb")
    py = jupytext.writes(nb, fmt="py:percent")
    return _newline(ipynb), _newline(py)


def _newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def render_notebooks(repo_root: Path) -> dict[str, str]:
    """Every generated file's name (relative to the notebooks folder) and its text."""
    from api.content.questions import load_question_bank

    bank = load_question_bank(repo_root / "exercises" / "questions")
    topic_of = {q.id: str(q.topic) for q in bank}
    files: dict[str, str] = {}
    named: list[tuple[str, list[_Cell]]] = [
        (slug, _exercise_cells(slug, repo_root / "exercises" / slug, topic_of))
        for slug in exercise_slugs(repo_root)
    ]
    topics = [t for t, count in bank.count_by_topic().items() if count]
    named += [(questions_notebook(t), _questions_cells(t)) for t in topics]
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
    parser = argparse.ArgumentParser(prog="python -m api.content.notebooks", description=__doc__)
    parser.add_argument("command", choices=["build", "check"])
    parser.add_argument("--repo-root", type=Path, default=Path(__file__).resolve().parents[2])
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
        print(
            "run `addnorm notebooks build` (or `python -m api.content.notebooks build`)"
            " to regenerate"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
