"""Where the learner CLI keeps the server URL and tokens: one JSON file, readable by its owner only.

Tokens are kept per server URL, so a learner with a local server on two ports (or a local one and
a team one) can switch with ``ADDNORM_URL`` alone. A token follows the server's data directory
rather than its port: asked for a local address it has no token for, the CLI asks that server
to prove (``POST /users/token-proof``, see ``expected_proof``) that it holds a token saved for
another local address, and carries the token over only if it does. The environment wins over
the file:
``ADDNORM_URL`` picks the server and ``ADDNORM_TOKEN`` the token, as the notebooks use them.
The file is ``$ADDNORM_CONFIG``, else ``$XDG_CONFIG_HOME/addnorm/config.json``, else
``~/.config/addnorm/config.json``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from addnorm_client.client import DEFAULT_URL, AddnormError


def config_path() -> Path:
    explicit = os.environ.get("ADDNORM_CONFIG")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "addnorm" / "config.json"


def normalise_url(url: str) -> str:
    url = url.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise AddnormError(f"server URL must start with http:// or https://, got {url!r}")
    return url


@dataclass
class Config:
    url: str | None = None
    tokens: dict[str, str] = field(default_factory=dict)
    # The learner each token belongs to, per URL: what a new address is asked to prove it knows.
    learners: dict[str, int] = field(default_factory=dict)

    def server_url(self) -> str:
        env = os.environ.get("ADDNORM_URL")
        return normalise_url(env or self.url or DEFAULT_URL)

    def token_for(self, url: str) -> str | None:
        return os.environ.get("ADDNORM_TOKEN") or self.tokens.get(url)


def load() -> Config:
    path = config_path()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Config()
    except (OSError, ValueError) as exc:
        raise AddnormError(f"cannot read {path}: {exc}; fix or delete it") from None
    if not isinstance(raw, dict):
        raise AddnormError(f"{path} is not a JSON object; fix or delete it")
    url = raw.get("url")
    tokens = raw.get("tokens")
    learners = raw.get("learners")
    return Config(
        url=url if isinstance(url, str) else None,
        tokens={str(k): str(v) for k, v in (tokens.items() if isinstance(tokens, dict) else [])},
        learners={
            str(k): v
            for k, v in (learners.items() if isinstance(learners, dict) else [])
            if isinstance(v, int) and not isinstance(v, bool)
        },
    )


def save(config: Config) -> Path:
    """Write atomically with mode 0600 from the first byte (never briefly world-readable)."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    body = (
        json.dumps(
            {"url": config.url, "tokens": config.tokens, "learners": config.learners}, indent=2
        )
        + "\n"
    )
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".json")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(body)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def remember(url: str, token: str, learner: int | None = None, *, default: bool = True) -> Path:
    """Save ``token`` (of ``learner``, when known) for ``url``; make ``url`` the default server
    unless ``default`` is False."""
    config = load()
    url = normalise_url(url)
    if default:
        config.url = url
    config.tokens[url] = token
    if learner is not None:
        config.learners[url] = learner
    return save(config)


def expected_proof(token: str, nonce: str) -> str:
    """What a server holding ``token`` answers to ``nonce``
    (api/learning/tokens.py ``token_proof``): an HMAC keyed by the token's SHA-256, which that
    server stores in place of the token."""
    key = hashlib.sha256(token.encode()).hexdigest().encode()
    return hmac.new(key, b"addnorm-same-server\n" + nonce.encode(), hashlib.sha256).hexdigest()


def is_local(url: str) -> bool:
    """A loopback address (localhost, 127.0.0.0/8, ::1): where a token may follow on its own."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def carried_over(config: Config, url: str) -> list[tuple[str, str, int]]:
    """The tokens saved for other local addresses that ``url`` could be asked to prove:
    ``(old_url, token, learner)``, the most recently saved last. Empty unless ``url`` is local."""
    if not is_local(url):
        return []
    return [
        (old, token, config.learners[old])
        for old, token in config.tokens.items()
        if old != url and is_local(old) and old in config.learners
    ]
