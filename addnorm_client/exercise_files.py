"""What the learner's tools read from an exercise's own files (``exercises/<slug>/``), without
importing the server.

``spec.py`` is the grader's contract, but importing it pulls in the server's grading package;
the few facts the client needs (the kind, the name or names the code must define, the banned
names) are plain literals in its ``SPEC = ExerciseSpec(...)`` call, or name lists it imports
from ``api.grading.allowlist``, so they are read from the two files' syntax trees. A spec that
computes one of them at run time makes ``contract`` raise, and the
catalogue test comparing this reading with the loaded specs fails, so the two cannot drift.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from addnorm_client.client import AddnormError

# The repository's own content, as the server's default (ADDNORM_CONTENT_DIR moves both).
_REPO_EXERCISES = Path(__file__).resolve().parent.parent / "exercises"


def exercises_dir() -> Path:
    explicit = os.environ.get("ADDNORM_CONTENT_DIR")
    return Path(explicit) if explicit else _REPO_EXERCISES


def local_slugs() -> list[str]:
    return sorted(p.parent.name for p in exercises_dir().glob("*/spec.py"))


@dataclass(frozen=True)
class Contract:
    slug: str
    kind: str  # "module", "function", "autograd_function" or "optimizer"
    class_name: str
    functions: tuple[str, ...]
    banned: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the code must define."""
        return self.functions or (self.class_name,)

    @property
    def base(self) -> str:
        if self.kind == "optimizer":
            return "object"
        return "torch.autograd.Function" if self.kind == "autograd_function" else "nn.Module"


def _spec_call(tree: ast.Module) -> ast.Call | None:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "SPEC" for t in node.targets)
            and isinstance(node.value, ast.Call)
        ):
            return node.value
    return None


def _constants(tree: ast.Module) -> dict[str, ast.expr]:
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                found[target.id] = node.value
    return found


# The module of shared name lists a spec may import its banned names from; read as text like
# the spec itself (importing it would import the server's grading package and torch).
_SHARED_LISTS = (
    "api.grading.allowlist",
    _REPO_EXERCISES.parent / "api" / "grading" / "allowlist.py",
)


def _imported_constants(tree: ast.Module) -> dict[str, ast.expr]:
    """The constants a spec imports from the shared lists, as their syntax (``banned=(*A, *B)``
    with ``A`` and ``B`` tuples of strings there)."""
    module, path = _SHARED_LISTS
    wanted = {
        alias.name: alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == module
        for alias in node.names
    }
    if not wanted or not path.is_file():
        return {}
    shared = _constants(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return {local: shared[name] for name, local in wanted.items() if name in shared}


def _evaluate(value: ast.expr, constants: dict[str, ast.expr], depth: int = 0) -> Any:
    """A literal, a name bound to one, or a tuple or list that unpacks such names (``*NAME``)."""
    if depth > 8:
        raise ValueError("names nested too deep")
    if isinstance(value, ast.Name) and value.id in constants:
        return _evaluate(constants[value.id], constants, depth + 1)
    if isinstance(value, (ast.Tuple, ast.List)) and any(
        isinstance(e, (ast.Starred, ast.Name)) for e in value.elts
    ):
        items: list[Any] = []
        for element in value.elts:
            if isinstance(element, ast.Starred):
                items.extend(_evaluate(element.value, constants, depth + 1))
            else:
                items.append(_evaluate(element, constants, depth + 1))
        return tuple(items) if isinstance(value, ast.Tuple) else items
    return ast.literal_eval(value)


def _literal(value: ast.expr, constants: dict[str, ast.expr], what: str, path: Path) -> Any:
    try:
        return _evaluate(value, constants)
    except (ValueError, TypeError):
        raise AddnormError(
            f"{path}: `{what}` is not a literal, so `addnorm check` cannot read it; "
            "use `addnorm submit`"
        ) from None


def contract(slug: str) -> Contract:
    path = exercises_dir() / slug / "spec.py"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except FileNotFoundError:
        raise AddnormError(
            f"exercise {slug!r} is not in {exercises_dir()}; known: {', '.join(local_slugs())}"
        ) from None
    call = _spec_call(tree)
    if call is None:
        raise AddnormError(f"{path} has no `SPEC = ExerciseSpec(...)`")
    constants = {**_imported_constants(tree), **_constants(tree)}
    given = {k.arg: k.value for k in call.keywords if k.arg}
    if "class_name" not in given:
        raise AddnormError(f"{path}: SPEC names no class_name")

    def read(name: str, default: Any) -> Any:
        return _literal(given[name], constants, name, path) if name in given else default

    return Contract(
        slug=slug,
        kind=str(read("kind", "module")),
        class_name=str(read("class_name", "")),
        functions=tuple(read("functions", ())),
        banned=tuple(read("banned", ())),
    )
