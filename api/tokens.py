"""Secrets handed to people (API tokens, invite codes): made here, stored only as hashes."""

from __future__ import annotations

import hashlib
import secrets


def hash_token(token: str) -> str:
    # Tokens are 256 random bits, so a plain SHA-256 is enough: there is nothing to brute-force.
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)
