"""Where the learner CLI keeps the server URL and tokens: one JSON file, readable by its owner only.

Tokens are kept per server URL, so a learner with a local server on two ports (or a local one and
a team one) can switch with ``ADDNORM_URL`` alone. The environment wins over the file:
``ADDNORM_URL`` picks the server and ``ADDNORM_TOKEN`` the token, as the notebooks use them.
The file is ``$ADDNORM_CONFIG``, else ``$XDG_CONFIG_HOME/addnorm/config.json``, else
``~/.config/addnorm/config.json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

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
    return Config(
        url=url if isinstance(url, str) else None,
        tokens={str(k): str(v) for k, v in (tokens.items() if isinstance(tokens, dict) else [])},
    )


def save(config: Config) -> Path:
    """Write atomically with mode 0600 from the first byte (never briefly world-readable)."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    body = json.dumps({"url": config.url, "tokens": config.tokens}, indent=2) + "\n"
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


def remember(url: str, token: str) -> Path:
    """Make ``url`` the default server and ``token`` its token."""
    config = load()
    url = normalise_url(url)
    config.url = url
    config.tokens[url] = token
    return save(config)
