"""Checks on the source before anything runs: size, syntax, the required class (or functions),
banned names. The server's grader applies them to every submission (``api.grading.static``
re-exports this module) and ``addnorm check`` applies them on the learner's machine, so both
reject the same code for the same reasons. Standard library only: no server module, no torch.

The banned-name check resolves import aliases (``import torch.nn.functional as F``,
``from torch import nn``) so that ``F.layer_norm`` is caught while a learner's own method
called ``layer_norm`` is not. Names built at run time (``getattr(F, "layer" + "_norm")``) are
the child's tripwire's job.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MAX_CODE_BYTES = 64 * 1024


@dataclass(frozen=True)
class StaticProblem:
    status: str  # "error" or "rejected"
    message: str
    line: int | None = None
    column: int | None = None
    # The same in Chinese, written here beside the English (the server's verdict carries both;
    # nothing translates it afterwards).
    message_zh: str = ""


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> the torch qualified name it stands for."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    if a.asname:
                        found[a.asname] = a.name
                    else:
                        found["torch"] = "torch"
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] == "torch"
        ):
            for a in node.names:
                found[a.asname or a.name] = f"{node.module}.{a.name}"
    return found


def _qualified(node: ast.expr, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in aliases:
        return ".".join([aliases[node.id], *reversed(parts)])
    return None


# torch's private packages of whole operators written in Python from primitive ops (the
# references and decompositions behind torch.compile): every exercise's answer is in them, under
# names no ban list could keep up with, so the packages are banned as such, in every exercise.
# The zygote also disables their functions at run time (tripwire.disable_private_implementations).
PRIVATE_IMPLEMENTATIONS = ("torch._refs", "torch._decomp", "torch._prims", "torch.ops.prims")


def private_package(qual: str) -> str | None:
    for package in PRIVATE_IMPLEMENTATIONS:
        if qual == package or qual.startswith(package + "."):
            return package
    return None


def banned_uses(tree: ast.AST, banned: Iterable[str]) -> list[tuple[str, int]]:
    targets = set(banned)
    aliases = _aliases(tree)
    first: dict[str, int] = {}
    for node in ast.walk(tree):
        quals: list[str | None] = []
        if isinstance(node, ast.Attribute | ast.Name):
            quals.append(_qualified(node, aliases))
        elif isinstance(node, ast.ImportFrom) and node.module:
            quals.extend(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            quals.extend(a.name for a in node.names)
        for qual in quals:
            # torch.ops.aten.rms_norm(.default): a composite op may decompose before the child's
            # dispatch-level tripwire sees it, so its name is the only trace.
            if qual and qual.startswith("torch.ops.aten."):
                qual = "aten." + qual.split(".")[3]
            if qual and private_package(qual):
                qual = private_package(qual)
            if qual in targets or (qual and qual in PRIVATE_IMPLEMENTATIONS):
                assert qual is not None
                line = getattr(node, "lineno", 0)
                first[qual] = min(first.get(qual, line), line)
    return sorted(first.items(), key=lambda item: item[1])


NESTED_TOO_DEEPLY = (
    "your code is nested too deeply to be parsed (thousands of brackets, unary operators, "
    "lambdas or chained calls inside one another); no real implementation needs that"
)
NESTED_TOO_DEEPLY_ZH = (
    "你的代码嵌套太深，无法解析（成千上万层括号、一元运算、lambda 或相互嵌套的链式调用）；"
    "正常的实现不需要这样写。"
)


def _too_deep(line: int | None = None) -> StaticProblem:
    return StaticProblem("error", NESTED_TOO_DEEPLY, line=line, message_zh=NESTED_TOO_DEEPLY_ZH)


def _parse(code: str) -> ast.AST | StaticProblem:
    """The tree, or the problem that stops it. Pathological nesting is refused by the parser's
    own depth guards (RecursionError, MemoryError, 'too many nested parentheses'), never by
    exhausting the stack: the 64 KiB size limit keeps every structure small."""
    try:
        return ast.parse(code, filename="<submission>")
    except SyntaxError as exc:
        if "too many nested" in str(exc.msg):
            return _too_deep(exc.lineno)
        said = str(exc.msg)[:300]  # Python's own words, in English in both languages
        where = f"line {exc.lineno}, column {exc.offset}" if exc.lineno else "somewhere"
        where_zh = f"，位于第 {exc.lineno} 行第 {exc.offset} 列" if exc.lineno else ""
        return StaticProblem(
            "error",
            f"SyntaxError at {where}: {said}",
            line=exc.lineno,
            column=exc.offset,
            message_zh=f"语法错误（SyntaxError）{where_zh}：{said}",
        )
    except (RecursionError, MemoryError):
        return _too_deep()
    except ValueError as exc:  # null bytes; a lone surrogate (UnicodeEncodeError)
        said = str(exc)[:200]
        return StaticProblem(
            "error", f"the code cannot be parsed: {said}", message_zh=f"代码无法解析：{said}"
        )


def _bound_at_top(tree: ast.AST) -> set[str]:
    """Names the module binds to something other than a class when it runs: ``def``,
    assignment (``log_softmax = partial(...)``) and import, also inside a top-level ``if``,
    ``try`` or ``with``, but not inside a function or class body."""
    found: set[str] = set()
    pending = list(getattr(tree, "body", []))
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                found |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.If | ast.Try | ast.With | ast.TryStar):
            for field in ("body", "orelse", "finalbody"):
                pending.extend(getattr(node, field, []))
            for handler in getattr(node, "handlers", []):
                pending.extend(handler.body)
    return found


def _missing_definition(
    tree: ast.AST, class_name: str, functions: Sequence[str], base: str
) -> StaticProblem | None:
    if functions:
        bound = _bound_at_top(tree)
        missing = [f for f in functions if f not in bound]
        if not missing:
            return None
        wanted = [f"`def {f}(...)`" for f in functions]
        lacking = [f"`{f}`" for f in missing]
        return StaticProblem(
            "error",
            f"your code must define {' and '.join(wanted)}; it does not define "
            + ", ".join(lacking),
            message_zh=f"你的代码必须定义 {' 和 '.join(wanted)}，但没有定义 "
            + "、".join(lacking)
            + "。",
        )
    if not any(isinstance(n, ast.ClassDef) and n.name == class_name for n in ast.walk(tree)):
        wanted_class = f"`class {class_name}({base})`"
        return StaticProblem(
            "error",
            f"your code must define {wanted_class}; it does not",
            message_zh=f"你的代码必须定义 {wanted_class}，但没有找到。",
        )
    return None


def check(
    code: str,
    *,
    class_name: str,
    banned: Iterable[str],
    functions: Sequence[str] = (),
    base: str = "nn.Module",
) -> StaticProblem | None:
    """``functions``: a function exercise's required names (each a ``def``, or bound to a
    function at the top of the module); otherwise ``class_name`` must be a class."""
    if len(code.encode("utf-8", "surrogatepass")) > MAX_CODE_BYTES:
        kib = MAX_CODE_BYTES // 1024
        return StaticProblem(
            "error", f"the code is larger than {kib} KiB", message_zh=f"代码超过了 {kib} KiB 的上限"
        )
    tree = _parse(code)
    if isinstance(tree, StaticProblem):
        return tree
    missing = _missing_definition(tree, class_name, functions, base)
    if missing is not None:
        return missing
    uses = banned_uses(tree, banned)
    if uses:
        qual, line = uses[0]
        short = qual.replace("torch.nn.functional.", "F.").replace("torch.nn.", "nn.")
        return StaticProblem(
            "rejected",
            f"`{short}` does the whole job this exercise asks you to write, so it is not "
            f"allowed here{f' (line {line})' if line else ''}. Implement it from tensor ops.",
            line=line or None,
            message_zh=f"`{short}` 一步就完成了本题要你自己实现的全部工作，所以这里不能用"
            f"{f'（第 {line} 行）' if line else ''}。请用张量运算自己实现。",
        )
    return None
