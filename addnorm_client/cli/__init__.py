"""The learner's side of the ``addnorm`` command (typer + rich), registered by ``api.cli``.

Unlike the rest of ``addnorm_client`` (httpx only, for notebooks), this needs typer and rich,
and torch for ``addnorm check``; all three come with the ``addnorm`` package.
"""

from __future__ import annotations

from addnorm_client.cli.commands import register

__all__ = ["register"]
