"""The grader's checks on the source before anything runs (size, syntax, the required
definitions, banned names).

They live in ``addnorm_client.static``, which has no server dependency, so that the learner's
``addnorm check`` applies the very same checks on the learner's machine: a local pass then means
the server will not reject the code for these reasons.
"""

from __future__ import annotations

from addnorm_client.static import (
    MAX_CODE_BYTES,
    NESTED_TOO_DEEPLY,
    PRIVATE_IMPLEMENTATIONS,
    StaticProblem,
    _aliases,
    _qualified,
    banned_uses,
    check,
    private_package,
)

__all__ = [
    "MAX_CODE_BYTES",
    "NESTED_TOO_DEEPLY",
    "PRIVATE_IMPLEMENTATIONS",
    "StaticProblem",
    "_aliases",
    "_qualified",
    "banned_uses",
    "check",
    "private_package",
]
