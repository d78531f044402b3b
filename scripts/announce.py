"""``scripts/serve``'s greeting: wait until the service answers, then say where it is.

Prints the URL, the data directory (or database), and with ``--create-learner NAME`` creates that
learner over HTTP, prints the token and saves it for the ``addnorm`` CLI (``addnorm login``'s
file, mode 0600), so ``addnorm list`` works right away. The server keeps running whatever
happens here.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import httpx

from addnorm_client.cli import config
from addnorm_client.client import AddnormError, Client
from api.config import get_settings

# The first start imports torch in the grader's zygote before /health answers ok: tens of
# seconds on a busy laptop.
READY_TIMEOUT_S = 180.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def wait_ready(url: str, pid: int) -> bool:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if not _alive(pid):
            return False
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    return False


def _saved_learner(url: str) -> dict[str, object] | None:
    """The learner whose token is saved for ``url``, when the server still takes that token."""
    token = config.load().tokens.get(config.normalise_url(url))
    if not token:
        return None
    try:
        with Client(url, token) as client:
            return client.me()
    except AddnormError:
        return None  # revoked, or another server's database: nothing to keep


def _learner_lines(url: str, name: str) -> list[str]:
    # The README's command is typed again at every restart: a learner of that name whose token is
    # saved is kept (a second "ada" would leave the progress behind the old token, looking lost),
    # and a token saved for someone else is never dropped silently (as `addnorm signup` refuses).
    saved = _saved_learner(url)
    path = config.config_path()
    if saved is not None and saved.get("name") == name:
        return [
            f"  learner:   {name} (id {saved.get('id')}), created before; kept",
            f"             its token stays saved for the addnorm CLI in {path}",
            "             (addnorm token show prints it)",
        ]
    if saved is not None:
        return [
            f"  learner {name!r} not created: the token saved in {path} is learner "
            f"{saved.get('name')!r}'s (id {saved.get('id')}), and creating another would drop it",
            f"             to add {name!r} anyway: .venv/bin/addnorm signup {name} --force",
        ]
    try:
        with Client(url, "") as client:
            created = client.create_user(name)
    except AddnormError as exc:
        return [f"  could not create learner {name!r}: {exc}"]
    token = str(created["token"])
    learner = created.get("id")
    saved_in = config.remember(url, token, learner if isinstance(learner, int) else None)
    return [
        f"  learner:   {created['name']} (id {created['id']})",
        f"  token:     {token}",
        f"             (shown once; saved for the addnorm CLI in {saved_in})",
        f"             notebooks: export ADDNORM_TOKEN={token}",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id")
    parser.add_argument("--create-learner", metavar="NAME")
    args = parser.parse_args()

    started = time.monotonic()
    # A server bound to every interface is reached locally through the loopback address.
    local_host = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    url = f"http://{local_host}:{args.port}"
    if not wait_ready(url, args.pid):
        print(f"scripts/serve: the service did not come up at {url}; see its log above")
        return 1
    settings = get_settings()
    where = settings.database_url or f"{settings.data_dir} (SQLite: addnorm.db; back it up)"
    lines = [
        "",
        f"addnorm is ready at {url}  (up in {time.monotonic() - started:.1f} s)",
        f"  data:      {where}",
        f"  API docs:  {url}/docs",
        f"  notebooks and scripts: export ADDNORM_URL={url}",
    ]
    if args.create_learner:
        lines += _learner_lines(url, args.create_learner)
    lines += ["  first exercise: .venv/bin/addnorm list; .venv/bin/addnorm start layer_norm", ""]
    print("\n".join(lines), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C while waiting: the server gets it too and stops
        sys.exit(130)
