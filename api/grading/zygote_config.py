"""The zygote's start-up configuration, passed through an inherited pipe, not its command line.

The pool writes it once (``encode``) into a pipe whose read end the zygote inherits; the zygote
reads it to EOF once, before it warms up (``read``). On the command line it was ~46 KB of JSON
per process (2026-12-02): unreadable in ``ps`` and visible to every local user; a pipe leaves
nothing on disk or in ``/proc/<pid>/cmdline``. The zygote treats what it reads as bounded,
untrusted data: a size cap, JSON, a checked shape; anything else is a ``ConfigError`` and the
zygote refuses to start (the sandbox is security code: a missing layer stops the service, never
weakens it).

Imports nothing from the grader (the pool, which must not import torch, uses it too).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass

# The catalogue's lists took 45,841 bytes on 2026-12-02 (each exercise's banned names plus, with
# an allow-list, every whole-job ATen operator outside it); 1 MiB leaves room and stays bounded.
MAX_BYTES = 1 << 20
MAX_NAME = 200  # the longest name today is under 60 characters


class ConfigError(ValueError):
    """The configuration the zygote read is missing, too large or malformed."""


@dataclass(frozen=True)
class ZygoteConfig:
    banned: list[list[str]]  # each exercise's backstop (``allowlist.spec_backstop``)


def encode(banned: Sequence[Sequence[str]]) -> bytes:
    """For the pool: the bytes to write into the zygote's configuration pipe."""
    data = json.dumps({"banned": [list(names) for names in banned]}).encode()
    if len(data) > MAX_BYTES:
        raise ConfigError(f"the zygote's configuration is {len(data)} bytes, over {MAX_BYTES}")
    return data


def read(fd: int) -> ZygoteConfig:
    """For the zygote: read ``fd`` to EOF (at most ``MAX_BYTES``), close it, and check it."""
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= MAX_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration from fd {fd}: {exc}") from exc
    finally:
        # Closed at once: no slot server or child inherits it.
        with contextlib.suppress(OSError):
            os.close(fd)
    if size > MAX_BYTES:
        raise ConfigError(f"the configuration is over {MAX_BYTES} bytes")
    return parse(b"".join(chunks))


def parse(data: bytes) -> ZygoteConfig:
    """Check the shape: ``{"banned": [[name, ...], ...]}``, names non-empty strings."""
    try:
        value = json.loads(data)
    except ValueError as exc:  # UnicodeDecodeError is one too
        raise ConfigError(f"the configuration is not JSON: {exc}") from exc
    if not isinstance(value, dict) or set(value) != {"banned"}:
        keys = sorted(value) if isinstance(value, dict) else type(value).__name__
        raise ConfigError(f'the configuration must be an object with one key "banned", got {keys}')
    banned = value["banned"]
    if not isinstance(banned, list):
        raise ConfigError('"banned" must be a list of lists of names')
    for i, names in enumerate(banned):
        if not isinstance(names, list):
            raise ConfigError(f'"banned"[{i}] must be a list of names, got {type(names).__name__}')
        for j, name in enumerate(names):
            if not isinstance(name, str) or not name or len(name) > MAX_NAME:
                raise ConfigError(
                    f'"banned"[{i}][{j}] must be a name (a non-empty string of at most '
                    f"{MAX_NAME} characters), got {name!r:.80}"
                )
    return ZygoteConfig(banned=banned)
