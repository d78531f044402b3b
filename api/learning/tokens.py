"""Secrets handed to people (API tokens, invite codes): made here, stored only as hashes."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def hash_token(token: str) -> str:
    # Tokens are 256 random bits, so a plain SHA-256 is enough: there is nothing to brute-force.
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)


# The same server on a new address (another port, the same data directory) holds the same
# token hashes. A client that saved a token for the old address asks the new one to prove it
# holds that learner's hash before sending it anything: an HMAC keyed by the stored hash over a
# nonce of the client's. Only the hash's holder can answer; the token never crosses the wire.
PROOF_CONTEXT = b"addnorm-same-server\n"


def token_proof(token_hash: str, nonce: str) -> str:
    return hmac.new(token_hash.encode(), PROOF_CONTEXT + nonce.encode(), hashlib.sha256).hexdigest()
