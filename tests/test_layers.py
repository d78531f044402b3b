"""The layers of ``api/`` (docs: CONTRIBUTING.md, "The layout"), checked from the source's AST.

Imports flow one way: the frame (``main``, ``cli``) over ``web``/``http`` over ``queue`` over
``learning`` over ``content`` over ``grading`` over the bottom (``config``, ``db``, ``models``
and the small helpers beside them). A module may import its own layer or any layer below, never
one above. ``api.grading`` knows nothing of the web or the database; ``addnorm_client`` (the
learner's side) imports nothing from ``api``; and no two modules import each other, directly or
round a longer loop. Function-level imports count (they run, only later); imports under
``if TYPE_CHECKING:`` do not (they never run).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Top to bottom; a module belongs to the longest prefix that names it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("frame", ("api.main", "api.cli", "api.migrations")),
    ("web/http", ("api.web", "api.http")),
    ("queue", ("api.queue",)),
    ("learning", ("api.learning",)),
    ("content", ("api.content",)),
    ("grading", ("api.grading",)),
    (
        "bottom",
        (
            "api",
            "api.config",
            "api.db",
            "api.models",
            "api.jsonbody",
            "api.plaintext",
            "api.clients",
        ),
    ),
)
# The learner's side stands apart: it may import nothing from ``api``.
CLIENT = "addnorm_client"

# The grader runs in a worker, the CLI and the API alike: code in, verdict out.
GRADING_MUST_NOT_IMPORT = (
    "fastapi",
    "starlette",
    "sqlmodel",
    "sqlalchemy",
    "alembic",
    "celery",
    "redis",
    "api.db",
    "api.models",
)

# Cycles that exist today and are being broken on another branch. The lead empties this at merge;
# an entry that no longer matches a cycle fails the test too, so the set only shrinks.
KNOWN_CYCLES: set[frozenset[str]] = set()  # none: a new cycle is a bug, not an entry here


def module_name(path: Path, root: Path = REPO) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(root: Path = REPO) -> dict[str, str]:
    """Every module of ``api`` and ``addnorm_client``, by dotted name."""
    found: dict[str, str] = {}
    for package in ("api", CLIENT):
        for path in sorted((root / package).rglob("*.py")):
            found[module_name(path, root)] = path.read_text(encoding="utf-8")
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth, skipping ``if TYPE_CHECKING:`` bodies
    (their ``else:`` runs, so it is kept)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.orelse:
                yield from _import_nodes_of(stmt)
            continue
        yield from _import_nodes_of(child)


def _import_nodes_of(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    yield from _import_nodes(node)


def imported_names(module: str, source: str, is_package: bool = False) -> set[str]:
    """The dotted names ``module`` imports, relative imports made absolute: ``import a.b`` gives
    ``a.b``; ``from a import b`` gives ``a.b`` (the caller keeps it if ``b`` is a submodule, and
    falls back to ``a`` if not)."""
    names: set[str] = set()
    for node in _import_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            anchor = package[: len(package) - (node.level - 1)]
            base = ".".join([*anchor, base] if base else anchor)
        names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph(modules: Mapping[str, str], packages: Iterable[str] = ()) -> dict[str, set[str]]:
    """Edges between the given modules only: each import goes to the deepest module it names."""
    package_set = set(packages)
    graph: dict[str, set[str]] = {}
    for module, source in modules.items():
        targets: set[str] = set()
        for name in imported_names(module, source, module in package_set):
            parts = name.split(".")
            for end in range(len(parts), 0, -1):
                candidate = ".".join(parts[:end])
                if candidate in modules:
                    if candidate != module:
                        targets.add(candidate)
                    break
        graph[module] = targets
    return graph


def layer_of(module: str) -> int | None:
    """The layer's rank, 0 at the top; None if no layer names the module."""
    best: tuple[int, int] | None = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            names_it = module == prefix or (prefix != "api" and module.startswith(prefix + "."))
            if names_it and (best is None or len(prefix) > best[0]):
                best = (len(prefix), rank)
    return None if best is None else best[1]


def layer_problems(graph: Mapping[str, set[str]]) -> list[str]:
    problems = []
    for module in sorted(graph):
        if module.split(".")[0] == CLIENT:
            problems += [
                f"{module} imports {t} (the client talks to the server over HTTP)"
                for t in sorted(graph[module])
                if t.split(".")[0] == "api"
            ]
            continue
        rank = layer_of(module)
        if rank is None:
            problems.append(f"{module} is in no layer (add it to LAYERS or move it)")
            continue
        for target in sorted(graph[module]):
            target_rank = layer_of(target)
            if target_rank is not None and target_rank < rank:
                problems.append(
                    f"{module} ({LAYERS[rank][0]}) imports {target} ({LAYERS[target_rank][0]}),"
                    " a layer above it"
                )
    return problems


def grading_problems(modules: Mapping[str, str]) -> list[str]:
    problems = []
    for module, source in sorted(modules.items()):
        if module != "api.grading" and not module.startswith("api.grading."):
            continue
        for name in sorted(imported_names(module, source)):
            for banned in GRADING_MUST_NOT_IMPORT:
                if name == banned or name.startswith(banned + "."):
                    problems.append(f"{module} imports {name}")
    return problems


def cycles(graph: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for target in edges:
                if target not in graph:
                    continue
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def _repo_graph() -> tuple[dict[str, str], dict[str, set[str]]]:
    modules = sources()
    packages = {
        module_name(p) for name in ("api", CLIENT) for p in (REPO / name).rglob("__init__.py")
    }
    return modules, import_graph(modules, packages)


# The checks on the repository.


def test_no_module_imports_a_layer_above_it() -> None:
    _, graph = _repo_graph()
    assert layer_problems(graph) == []


def test_the_top_of_api_is_only_the_frame() -> None:
    top = sorted(p.stem for p in (REPO / "api").glob("*.py") if p.stem != "__init__")
    assert len(top) <= 8, top


def test_grading_imports_nothing_of_the_web_or_the_database() -> None:
    modules, _ = _repo_graph()
    assert grading_problems(modules) == []


def test_no_import_cycles_but_the_known_ones() -> None:
    _, graph = _repo_graph()
    found = set(cycles(graph))
    assert sorted(sorted(c) for c in found - KNOWN_CYCLES) == []
    assert sorted(sorted(c) for c in KNOWN_CYCLES - found) == [], "a known cycle is gone: drop it"


def test_every_package_says_what_lives_there_and_what_it_may_import() -> None:
    for package in ("content", "learning", "http", "web", "grading", "queue"):
        doc = ast.get_docstring(ast.parse((REPO / "api" / package / "__init__.py").read_text()))
        assert doc and "import" in doc, f"api/{package}/__init__.py"


# The checker itself, fed imports that break the rules: it must name each one.


def _check(modules: dict[str, str]) -> tuple[list[str], list[frozenset[str]]]:
    graph = import_graph(modules, {m for m in modules if m.count(".") <= 1})
    return layer_problems(graph), cycles(graph)


def test_an_upward_import_is_reported() -> None:
    problems, _ = _check(
        {
            "api.grading.verdict": "def f():\n    from api.learning import practice\n",
            "api.learning.practice": "from api.content import catalog\n",
            "api.content.catalog": "import api.grading.verdict\n",
        }
    )
    assert problems == [
        "api.grading.verdict (grading) imports api.learning.practice (learning), a layer above it"
    ]


def test_a_cycle_is_reported_and_type_checking_imports_are_not() -> None:
    problems, found = _check(
        {
            "api.content.catalog": "from api.content import questions\n",
            "api.content.questions": "def f():\n    import api.content.notebooks\n",
            "api.content.notebooks": "from api.content.catalog import load_catalog\n",
            "api.learning.review": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from api.http import deps\n"
            ),
            "api.http.deps": "from api.learning import review\n",
        }
    )
    assert problems == []
    assert found == [
        frozenset({"api.content.catalog", "api.content.questions", "api.content.notebooks"})
    ]


def test_the_client_grading_and_unplaced_modules_are_reported() -> None:
    problems, _ = _check(
        {
            "addnorm_client.cli": "from api.config import get_settings\n",
            "api.config": "",
            "api.helpers": "",
        }
    )
    assert problems == [
        "addnorm_client.cli imports api.config (the client talks to the server over HTTP)",
        "api.helpers is in no layer (add it to LAYERS or move it)",
    ]
    assert grading_problems({"api.grading.pool": "def f():\n    import sqlmodel\n"}) == [
        "api.grading.pool imports sqlmodel"
    ]
