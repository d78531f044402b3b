"""The learner's side of the ``addnorm`` command (typer + rich), registered by ``api.cli``.

Unlike the rest of ``addnorm_client`` (httpx only, for notebooks), this needs typer and rich,
and torch for ``addnorm check``; all three come with the ``addnorm`` package.
"""

from __future__ import annotations

import typer

from addnorm_client.cli import commands, interview

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add the learner's commands to ``app``; ``interview`` builds on the helpers of
    ``commands``, so it is registered here rather than from inside them."""
    commands.register(app)
    interview.register(app)
