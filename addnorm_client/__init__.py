"""A small HTTP client for an addnorm server, for notebooks and scripts.

It depends on httpx alone (never on the server's packages), so a learner's kernel only needs
``pip install httpx`` besides torch. Configure it with ``ADDNORM_URL`` and ``ADDNORM_TOKEN``.
"""

from __future__ import annotations

from addnorm_client.client import (
    DEFAULT_URL,
    AddnormError,
    ApiError,
    Client,
    CodeTooLarge,
    NotFound,
    RetryLater,
    ServerUnreachable,
    TokenRejected,
)

__all__ = [
    "DEFAULT_URL",
    "AddnormError",
    "ApiError",
    "Client",
    "CodeTooLarge",
    "NotFound",
    "RetryLater",
    "ServerUnreachable",
    "TokenRejected",
]
