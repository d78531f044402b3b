"""The ``addnorm`` command: ``serve``, ``worker`` (queue mode), ``grade`` a file locally,
``notebooks``, ``admin`` (operators, invites, backups on the host), and the learner's commands
(``addnorm_client.cli``: ``signup``, ``list``, ``start``, ``watch``, ``submit``, ...)."""

from __future__ import annotations

import inspect
import json
import logging
from pathlib import Path
from typing import Annotated, Any

import typer

from addnorm_client.cli import register as register_learner_commands
from addnorm_client.cli.commands import friendly
from addnorm_client.cli.workfile import read_code, sendable
from addnorm_client.client import AddnormError

app = typer.Typer(
    help="addnorm: Transformer building blocks, graded in a sandbox.", no_args_is_help=True
)
notebooks_app = typer.Typer(
    help="Generate and check the paired Jupyter notebooks.", no_args_is_help=True
)
app.add_typer(notebooks_app, name="notebooks")
admin_app = typer.Typer(
    help="Run addnorm for a group, on the host: operators, invites, backups (docs/operators.md).",
    no_args_is_help=True,
)
app.add_typer(admin_app, name="admin")
# signup, login, list, start, check, submit, watch, quiz, review, status: the learner's commands.
register_learner_commands(app)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Start the HTTP service (SQLite in ADDNORM_DATA_DIR, a warm sandboxed grader pool)."""
    import uvicorn

    from api.config import get_settings
    from api.http.httpguard import SERVER_LIMITS, BoundedH11Protocol
    from api.main import create_app

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # Bounded request heads, idle and half-sent connections, per client address too
    # (api/http/httpguard.py, SECURITY.md).
    settings = get_settings()
    BoundedH11Protocol.configure(settings)
    uvicorn.run(
        create_app(),
        host=host,
        port=port,
        log_level="info",
        http=BoundedH11Protocol,
        # uvicorn's own reading of X-Forwarded-For/-Proto, from ADDNORM_TRUSTED_PROXIES only:
        # its default trusts 127.0.0.1, so any local client could name itself another address.
        proxy_headers=bool(settings.proxies),
        forwarded_allow_ips=settings.trusted_proxies or None,
        **SERVER_LIMITS,
    )


@app.command()
def worker() -> None:
    """Run a queue worker (needs ADDNORM_BROKER_URL): grades what the API processes enqueue."""
    from api.config import get_settings
    from api.queue.worker import run_worker

    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings = get_settings()
    if not settings.queue_mode:
        typer.echo(
            "addnorm worker needs ADDNORM_BROKER_URL (e.g. redis://127.0.0.1:6379/0)", err=True
        )
        raise typer.Exit(2)
    raise typer.Exit(run_worker(settings))


@app.command(hidden=True)
def decider(
    fd: Annotated[int, typer.Option(help="the socket the service passed")],
    content: Annotated[Path, typer.Option(help="the service's exercise directory")],
) -> None:
    """A decider process of a running service, which starts it (api.grading.deciders): decides
    verdicts on the socket ``fd``. Not a command for people."""
    from api.content.catalog import load_catalog
    from api.grading import decider as deciding

    deciding.run(fd, {slug: e.spec for slug, e in load_catalog(content).items()})


@app.command()
@friendly
def grade(
    exercise: Annotated[str, typer.Argument(help="Exercise slug, e.g. layer_norm.")],
    path: Annotated[
        Path, typer.Argument(help="Python file with your implementation.", exists=True)
    ],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the whole verdict as JSON.")
    ] = False,
    own_pool: Annotated[
        bool,
        typer.Option("--own-pool", help="Start a pool even when a local server is running."),
    ] = False,
) -> None:
    """Grade a file in the service's sandbox, no server needed.

    A local `addnorm serve` you are logged in to is used when one runs (its pool is warm, the
    verdict is recorded as a submission); otherwise a one-off grader pool is started, which
    takes several seconds. When that server answers and refuses (during a mock interview, with
    a rejected token, ...), its answer is final: no pool of this command's own grades the file.
    """
    from addnorm_client.cli.local_pool import grade_on_running_server

    code = sendable(path, read_code(path))
    if not own_pool:
        answer = grade_on_running_server(exercise, code)
        if answer is not None:
            if as_json:
                typer.echo(json.dumps(answer, indent=2, ensure_ascii=False))
            else:
                from rich.console import Console

                from addnorm_client.cli.show import verdict as show_verdict

                show_verdict(Console(highlight=False, soft_wrap=True), answer, exercise)
            raise typer.Exit(0 if answer.get("verdict") == "passed" else 1)

    from rich.console import Console

    from api.config import get_settings
    from api.content.catalog import load_catalog
    from api.grading import allowlist
    from api.grading.grader import Grader
    from api.grading.pool import GraderPool

    settings = get_settings()
    catalog = load_catalog(settings.content_dir)
    if exercise not in catalog:
        raise AddnormError(f"unknown exercise {exercise!r}; known: {', '.join(catalog)}")
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    # Said up front: the pool imports torch in a fresh, locked-down zygote before the first
    # verdict, several seconds on a laptop (6-12 s measured on a busy 2-core machine).
    console.print(
        "starting a grader pool for this one file (several seconds; a running `addnorm serve` "
        "keeps one warm and `addnorm grade` uses it when you are logged in to it)"
    )
    pool = GraderPool(
        slots=1,
        profile=settings.sandbox,
        cpu_seconds=settings.cpu_seconds,
        banned=[
            allowlist.spec_backstop(
                catalog[exercise].spec.banned,
                catalog[exercise].spec.allowed,
                catalog[exercise].spec.kind,
            )
        ],
    )
    try:
        with console.status("starting the sandboxed grader pool..."):
            pool.start()
        with console.status("grading..."):
            verdict = Grader(pool, time_limit=settings.time_limit_seconds).grade(
                code, catalog[exercise].spec
            )
    finally:
        pool.close()
    if as_json:
        typer.echo(json.dumps(verdict.model_dump(mode="json"), indent=2, ensure_ascii=False))
    else:
        typer.echo(f"{verdict.status}: {verdict.message}")
        if verdict.diagnosis:
            typer.echo(f"\n{verdict.diagnosis.title}: {verdict.diagnosis.explanation}")
    raise typer.Exit(0 if verdict.status == "passed" else 1)


def _database() -> tuple[str, Any]:
    """The service's database, migrated to head, as ``addnorm serve`` would open it."""
    from api import db
    from api.config import get_settings

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = db.make_engine(settings.sqlalchemy_url)
    db.migrate(engine)
    return settings.sqlalchemy_url, engine


@admin_app.command("create-operator")
def admin_create_operator(
    name: Annotated[str, typer.Argument(help="The operator's name, e.g. your own.")],
) -> None:
    """Create an operator and print their token (shown once): it opens /admin and /app/admin."""
    from sqlmodel import Session

    from api.learning.learners import create_operator

    if not name.strip() or len(name) > 80:
        typer.echo("the name must be 1 to 80 characters", err=True)
        raise typer.Exit(2)
    _, engine = _database()
    with Session(engine) as session:
        user, token = create_operator(session, name=name)
    engine.dispose()
    typer.echo(f"operator {user.name!r} (id {user.id}) created; their token, shown once:", err=True)
    typer.echo(token)


@admin_app.command("invite")
def admin_invite(
    uses: Annotated[int, typer.Option(help="How many learners may sign up with it.")] = 1,
    days: Annotated[float, typer.Option(help="Days until it expires.")] = 7.0,
) -> None:
    """Make an invite code (ADDNORM_REGISTRATION=invite) and print it (shown once)."""
    from datetime import UTC, datetime, timedelta

    from sqlmodel import Session

    from api.learning import registration

    if not 1 <= uses <= registration.MAX_USES or not 0 < days <= 366:
        typer.echo(f"--uses is 1 to {registration.MAX_USES}, --days above 0 up to 366", err=True)
        raise typer.Exit(2)
    _, engine = _database()
    with Session(engine) as session:
        row, code = registration.create_invite(
            session, uses=uses, expires_at=datetime.now(UTC) + timedelta(days=days)
        )
    engine.dispose()
    typer.echo(
        f"invite for {row.uses} sign-up(s), expires {row.expires_at:%Y-%m-%d %H:%M} UTC:", err=True
    )
    typer.echo(code)


@admin_app.command("backup")
def admin_backup(
    path: Annotated[Path, typer.Argument(help="The backup file to write (must not exist).")],
) -> None:
    """Copy the SQLite database to PATH while the service runs (SQLite's online backup)."""
    from api.config import get_settings
    from api.learning.backup import BackupError, backup

    try:
        size = backup(get_settings().sqlalchemy_url, path)
    except BackupError as exc:
        typer.echo(f"backup failed: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"backed up to {path} ({size} bytes)")


@admin_app.command("restore")
def admin_restore(
    path: Annotated[Path, typer.Argument(help="A file `addnorm admin backup` wrote.")],
) -> None:
    """Replace the database with the backup at PATH (it may be running: it sees the backup's
    data from its next request), then migrate it to this version."""
    from api.config import get_settings
    from api.learning.backup import BackupError, restore

    try:
        restore(get_settings().sqlalchemy_url, path)
    except BackupError as exc:
        typer.echo(f"restore failed: {exc}", err=True)
        raise typer.Exit(1) from None
    _, engine = _database()
    engine.dispose()
    typer.echo(f"restored from {path}")


@notebooks_app.command("build")
def notebooks_build() -> None:
    """Regenerate notebooks/ from exercises/."""
    from api.config import REPO_ROOT
    from api.content.notebooks import build_notebooks

    for written in build_notebooks(REPO_ROOT, REPO_ROOT / "notebooks"):
        typer.echo(f"wrote {written}")


@notebooks_app.command("check")
def notebooks_check() -> None:
    """Fail if a committed notebook differs from what the generator produces."""
    from api.config import REPO_ROOT
    from api.content.notebooks import check_notebooks

    problems = check_notebooks(REPO_ROOT, REPO_ROOT / "notebooks")
    for problem in problems:
        typer.echo(problem, err=True)
    raise typer.Exit(1 if problems else 0)


def _prose(text: str) -> str:
    """A docstring as help text: each paragraph one line. Typer's rich help keeps a docstring's
    single line breaks, so a paragraph wrapped at the source's width would break mid-sentence
    in every terminal; rich wraps the joined line to the terminal instead. A paragraph that
    starts with click's no-rewrap marker (a backspace) is kept as written."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines())
        for p in paragraphs
    )


def _whole_sentences(group: typer.Typer) -> None:
    """Every command's help, in ``group`` and the groups under it, as ``_prose``."""
    for command in group.registered_commands:
        text = command.help or (inspect.getdoc(command.callback) if command.callback else None)
        if text:
            command.help = _prose(text)
    if isinstance(group.info.help, str):
        group.info.help = _prose(group.info.help)
    for sub in group.registered_groups:
        if isinstance(sub.help, str):
            sub.help = _prose(sub.help)
        if sub.typer_instance is not None:
            _whole_sentences(sub.typer_instance)


_whole_sentences(app)

if __name__ == "__main__":
    app()
