"""The learner's working files: what ``addnorm start`` writes and how a file names its exercise.

A file written by ``start`` begins with the same marker line the notebooks use
(``# addnorm: exercise <slug>``), so ``check``, ``submit`` and ``watch`` know the exercise
without being told, even after the learner renames the file. Without a marker, a file named
after a slug (``layer_norm.py``) is taken to be that exercise; ``--exercise`` overrides both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from addnorm_client.client import AddnormError, code_size_problem
from addnorm_client.render import MARKER_PREFIX, exercise_marker

SLUG = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
# Only the top of the file is searched: the marker is written on line 1.
MARKER_LINES = 5


def not_text(path: Path) -> AddnormError:
    """What ``check``, ``submit`` and ``watch`` say of a file that is not UTF-8."""
    return AddnormError(f"{path} is not UTF-8 text")


def read_code(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AddnormError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise AddnormError(f"{path} is a folder; give the exercise's .py file") from None
    except UnicodeDecodeError:
        raise not_text(path) from None
    except OSError as exc:
        raise AddnormError(f"cannot read {path}: {exc.strerror}") from None


def sendable(path: Path, code: str) -> str:
    """``code`` (read from ``path``), once it is known to fit the server's code limit: a larger
    file is refused here, naming the limit, rather than sent for the server's body limit to
    refuse."""
    too_large = code_size_problem(code)
    if too_large is not None:
        raise AddnormError(f"{path} is {too_large}; not sent")
    return code


def marked_slug(code: str) -> str | None:
    for line in code.splitlines()[:MARKER_LINES]:
        stripped = line.strip()
        if stripped.startswith(MARKER_PREFIX):
            slug = stripped[len(MARKER_PREFIX) :].strip()
            return slug if SLUG.match(slug) else None
    return None


def exercise_of(path: Path, code: str, explicit: str | None, known: Iterable[str]) -> str:
    """The exercise ``path`` is for: ``--exercise``, else its marker line, else its name."""
    known = list(known)
    slug = explicit or marked_slug(code) or (path.stem if path.stem in known else None)
    if slug is None:
        raise AddnormError(
            f"which exercise is {path.name} for? start it with `{exercise_marker('<slug>')}` "
            f"or pass --exercise SLUG (one of: {', '.join(known)})"
        )
    if slug not in known:
        raise AddnormError(f"unknown exercise {slug!r}; known: {', '.join(known)}")
    return slug


def starter_file(slug: str, starter: str) -> str:
    """The starter as the learner's file: the marker line first, then the starter unchanged."""
    body = starter if starter.endswith("\n") else starter + "\n"
    return f"{exercise_marker(slug)}\n{body}"


def write_new(path: Path, text: str, *, force: bool) -> None:
    """Write ``text`` to ``path`` unless that would overwrite the learner's work."""
    if path.exists() and not force:
        raise AddnormError(f"{path} already exists (your work?); use --force to overwrite it")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
