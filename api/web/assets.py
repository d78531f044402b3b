"""The static files: the committed bundle under hashed names, served precompressed.

``web/build.mjs`` names every bundle file after its content (``addnorm-3F2A….js``), writes a
``.br`` and a ``.gz`` beside each script and style sheet, and a ``manifest.json`` from entry
name to file name. A hashed name never changes its content, so it is cached for a year; the
other files (``style.css``, the icon) are revalidated on every use. Compression is done once at
build time: nothing is compressed per request.
"""

from __future__ import annotations

import json
import os
import re
import stat as stat_mode
from functools import lru_cache
from pathlib import Path

import anyio.to_thread
from starlette.datastructures import Headers
from starlette.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

STATIC = Path(__file__).resolve().parent / "static"
DIST = STATIC / "dist"

# esbuild's [hash] is eight characters of base32 (A-Z, 2-7).
HASHED = re.compile(r"(^|/)dist/.+-[A-Z2-7]{8}\.[a-z0-9]+$")
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# Best first: brotli is smaller, gzip is what every client takes.
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))


@lru_cache(maxsize=1)
def manifest() -> dict[str, str]:
    try:
        loaded = json.loads((DIST / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}


def asset_url(entry: str) -> str:
    """The URL of a bundle file by its entry name (``addnorm.js``), under its hashed name."""
    return f"/static/dist/{manifest().get(entry, entry)}"


def _accepted(header: str) -> set[str]:
    """Content codings the client takes (``q=0`` refuses one)."""
    taken = set()
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        q = params.strip()
        if q.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000"):
            continue
        if name.strip():
            taken.add(name.strip().lower())
    return taken


class CompressedStatic(StaticFiles):
    """StaticFiles that answers with the precompressed twin when the client takes it."""

    def _twin(self, path: str) -> tuple[str, os.stat_result | None]:
        """``lookup_path`` of a twin's name, in a worker thread as StaticFiles looks up its own.
        A name the file system refuses (a NUL byte; too long once ``.br`` is added) has no
        twin: the plain file's lookup then answers it as StaticFiles answers any name."""
        try:
            return self.lookup_path(path)
        except (OSError, ValueError):
            return "", None

    async def get_response(self, path: str, scope: Scope) -> Response:
        accepted = _accepted(Headers(scope=scope).get("accept-encoding", ""))
        twin: Response | None = None
        if scope["method"] in ("GET", "HEAD") and path.endswith((".js", ".css")):
            for coding, suffix in ENCODINGS:
                if coding not in accepted:
                    continue
                full, stat = await anyio.to_thread.run_sync(self._twin, path + suffix)
                if stat is not None and full and stat_mode.S_ISREG(stat.st_mode):
                    plain = "text/javascript" if path.endswith(".js") else "text/css"
                    twin = FileResponse(
                        full,
                        stat_result=stat,
                        media_type=f"{plain}; charset=utf-8",
                        headers={"content-encoding": coding},
                    )
                    break
        response = twin if twin is not None else await super().get_response(path, scope)
        if response.status_code in (200, 304):
            response.headers["cache-control"] = IMMUTABLE if HASHED.search(path) else REVALIDATE
            if path.endswith((".js", ".css")):
                response.headers["vary"] = "Accept-Encoding"
        return response
