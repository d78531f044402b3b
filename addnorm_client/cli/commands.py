"""The learner's commands: ``signup``/``login``, ``list``, ``start``, ``check``, ``submit``,
``watch``, ``hint``, ``solution``, ``quiz``, ``review`` and ``status``, all talking to a server
over HTTP (``check`` to the exercise's files only).

Exit codes, for scripts and editors: 0 when the command did its job (and the code passed),
1 when the code did not pass (``check``, ``submit``), 2 when the command could not do its job
(server unreachable, token rejected, unknown exercise, ...). Those errors are one plain line on
stderr, never a traceback.
"""

from __future__ import annotations

import functools
import hmac
import os
import random
import secrets
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from addnorm_client import formulas
from addnorm_client.cli import config, show
from addnorm_client.cli.answers import NotAnAnswer, parse_answer
from addnorm_client.cli.local_check import LocalReport, local_slugs, run_local_check
from addnorm_client.cli.watch import FileWatcher, NotText
from addnorm_client.cli.words import listed, say, word
from addnorm_client.cli.workfile import exercise_of, read_code, sendable, starter_file, write_new
from addnorm_client.client import AddnormError, Client, ServerUnreachable, TokenRejected

P = ParamSpec("P")
R = TypeVar("R")

# soft_wrap: a long line (a token, an error) stays one line that a script can read back.
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

EXIT_NOT_PASSED = 1
EXIT_ERROR = 2

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the answer as JSON, for scripts.")]
LangOpt = Annotated[str, typer.Option("--lang", help="Language: en or zh.")]
# The verdict's language: by default the learner's preference on the server (PATCH /users/me).
VerdictLangOpt = Annotated[
    str | None,
    typer.Option("--lang", help="Verdict language: en or zh (default: your preference)."),
]
ExerciseOpt = Annotated[
    str | None,
    typer.Option("--exercise", "-e", help="Exercise slug, if the file does not say."),
]
FileArg = Annotated[Path, typer.Argument(help="Your exercise file (as `addnorm start` wrote it).")]
TableOpt = Annotated[
    bool, typer.Option("--table", help="List every failing check, not only the first.")
]


def friendly(command: Callable[P, R]) -> Callable[P, R]:
    """Turn the errors a learner can act on into one line on stderr and exit code 2."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except TokenRejected as exc:
            err.print(Text(f"addnorm: {_token_advice(exc)}"))
        except AddnormError as exc:
            err.print(Text(f"addnorm: {exc}"))
        except KeyboardInterrupt:
            err.print(Text("addnorm: stopped"))
            raise typer.Exit(130) from None
        raise typer.Exit(EXIT_ERROR)

    return run


def _token_advice(exc: TokenRejected) -> str:
    url = _server_url()
    try:
        saved = config.load().tokens
    except AddnormError:
        saved = {}
    env = os.environ.get("ADDNORM_TOKEN")
    if env and exc.token == env:
        # The variable wins over the saved token: `addnorm login` would change nothing.
        if saved.get(url) not in (None, env):
            return (
                f"token rejected by {url}: it came from ADDNORM_TOKEN, which overrides the "
                "token saved for this server; unset ADDNORM_TOKEN to use the saved one, or set "
                "it to a token this server issued"
            )
        return (
            f"token rejected by {url}: it came from ADDNORM_TOKEN, which overrides any saved "
            "token; set ADDNORM_TOKEN to a token this server issued, or unset it and run "
            "`addnorm login`"
        )
    if "no token" not in str(exc):
        return f"token rejected by {url}: run `addnorm login` with a token this server issued"
    # Tokens are saved per URL: the same server started on another port finds none. Its data
    # (and so the token) is the same, so say which saved token to carry over, and how.
    others = [u for u in saved if u != url]
    if others:
        return (
            f"not logged in to {url}; a token is saved for {', '.join(others)}: if this is the "
            f"same server (same data directory) on a new address, run "
            f"`addnorm login --url {url} --from {others[-1]}`, else `addnorm signup NAME`"
        )
    return f"not logged in to {url}: run `addnorm signup NAME` or `addnorm login`"


def _server_url(explicit: str | None = None) -> str:
    return config.normalise_url(explicit) if explicit else config.load().server_url()


def _client(url: str | None = None) -> Client:
    cfg = config.load()
    server = config.normalise_url(url) if url else cfg.server_url()
    return Client(server, cfg.token_for(server) or _follow(cfg, server) or "")


def _follow(cfg: config.Config, server: str) -> str | None:
    """A token saved for another local address of the same server (another port, the same data
    directory), once ``server`` has proved it holds it; saved for ``server`` too. The token is
    sent nowhere before that proof: a server that does not hold it cannot give one."""
    for old, token, learner in reversed(config.carried_over(cfg, server)):
        nonce = secrets.token_hex(16)
        try:
            with Client(server, "") as probe:
                proof = probe.token_proof(learner, nonce)
        except ServerUnreachable:
            return None  # the command itself says so
        except AddnormError:
            continue  # an older server without the route, or a refusal: no proof
        if hmac.compare_digest(proof, config.expected_proof(token, nonce)):
            config.remember(server, token, learner, default=False)
            err.print(
                Text(
                    f"addnorm: {server} holds the account saved for {old} (the same data "
                    f"directory): using its token, now saved for {server} too"
                )
            )
            return token
    return None


def _check_lang(lang: str) -> str:
    if lang not in ("en", "zh"):
        raise AddnormError(f"--lang must be en or zh, not {lang!r}")
    return lang


# -- account ------------------------------------------------------------------------------------

UrlOpt = Annotated[
    str | None,
    typer.Option("--url", help="Server URL (default: ADDNORM_URL, the saved one, or :8000)."),
]


def _whose(cfg: config.Config, server: str) -> str:
    learner = cfg.learners.get(server)
    return "a learner" if learner is None else f"learner {learner}"


@friendly
def signup(
    name: Annotated[str, typer.Argument(help="Your name on this server.")],
    url: UrlOpt = None,
    as_json: JsonOpt = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Sign up even though a token is saved for this server: it is replaced "
            "(and printed once more, on stderr).",
        ),
    ] = False,
) -> None:
    """Create a learner on the server and save its token (file mode 0600)."""
    server = _server_url(url)
    if not name.strip():
        raise AddnormError("the name must not be empty")
    cfg = config.load()
    replaced = cfg.tokens.get(server)
    # The saved token is the only way back to that learner: never replace it unasked.
    if replaced is not None and not force:
        raise AddnormError(
            f"a token is already saved for {server} ({_whose(cfg, server)}, in "
            f"{config.config_path()}); a new sign-up would replace it, and that learner signs "
            "in with that token alone: keep a copy (`addnorm token show` prints it), then run "
            "again with --force"
        )
    with Client(server, "") as client:
        created = client.create_user(name)
    path = config.remember(server, str(created["token"]), int(created["id"]))
    if replaced is not None:
        err.print(
            Text(
                f"addnorm: replaced the token saved for {server} ({_whose(cfg, server)}); it "
                f"was {replaced}: keep it to sign in as that learner again"
            )
        )
    if as_json:
        show.print_json(out, {**created, "url": server, "config": str(path)})
        return
    out.print(Text(f"signed up as {created['name']} (learner {created['id']}) on {server}"))
    out.print(Text(f"token (shown once; saved to {path}): {created['token']}"))
    out.print(Text("next: addnorm list, then addnorm start SLUG"))


def _read_token(server: str) -> str:
    """The token from a pipe (``echo TOKEN | addnorm login``) when stdin is not a terminal, else
    asked for as a hidden prompt. getpass reads the terminal, not stdin, so it is only used
    when stdin is the terminal."""
    if not sys.stdin.isatty():
        return sys.stdin.readline()
    return str(typer.prompt(f"token for {server}", hide_input=True))


@friendly
def login(
    url: UrlOpt = None,
    token: Annotated[
        str | None,
        typer.Option("--token", help="The token; read from stdin (or asked for) when omitted."),
    ] = None,
    from_url: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Reuse the token saved for this other URL (the same server on a new port).",
        ),
    ] = None,
) -> None:
    """Check a token with the server and save it for this server (file mode 0600)."""
    server = _server_url(url)
    if from_url is not None:
        old = config.normalise_url(from_url)
        token = config.load().tokens.get(old)
        if token is None:
            raise AddnormError(f"no token saved for {old}; `addnorm login` with the token")
    if token is None:
        token = _read_token(server)
    token = token.strip()
    if not token:
        raise AddnormError("the token must not be empty")
    with Client(server, token) as client:
        me = client.me()
    path = config.remember(server, token, int(me["id"]))
    out.print(Text(f"logged in to {server} as {me.get('name')} (token saved to {path})"))
    if os.environ.get("ADDNORM_TOKEN") not in (None, "", token):
        err.print(
            Text(
                "addnorm: ADDNORM_TOKEN is set and overrides the saved token: unset it to use "
                "this one"
            )
        )


token_app = typer.Typer(help="Your API token on this server.", no_args_is_help=True)


@token_app.command("rotate")
@friendly
def token_rotate(url: UrlOpt = None, as_json: JsonOpt = False) -> None:
    """Replace your token with a new one, saved where `addnorm login` saves it. The old token
    stops working at once (elsewhere too: log in there again) and your browser sessions end."""
    with _client(url) as client:
        server = client.url
        token = client.rotate_token()
    path = config.remember(server, token)
    if as_json:
        show.print_json(out, {"url": server, "config": str(path), "token": token})
        return
    out.print(Text(f"new token saved to {path}; the old one no longer works"))
    out.print(Text(f"token (shown once): {token}"))


@token_app.command("show")
@friendly
def token_show(url: UrlOpt = None, as_json: JsonOpt = False) -> None:
    """Print the token saved for this server, alone on stdout (to sign in on the pages, or for
    ADDNORM_TOKEN in a notebook); whose it is and where it is saved go to stderr."""
    server = _server_url(url)
    cfg = config.load()
    token = cfg.tokens.get(server)
    if token is None:
        raise AddnormError(
            f"no token saved for {server}: run `addnorm signup NAME` or `addnorm login`"
        )
    if as_json:
        show.print_json(
            out,
            {
                "url": server,
                "learner": cfg.learners.get(server),
                "config": str(config.config_path()),
                "token": token,
            },
        )
        return
    err.print(
        Text(f"the token of {_whose(cfg, server)} on {server}, saved in {config.config_path()}:")
    )
    if os.environ.get("ADDNORM_TOKEN") not in (None, "", token):
        err.print(Text("(ADDNORM_TOKEN is set and overrides it)"))
    out.print(Text(token))


# -- exercises ----------------------------------------------------------------------------------

STATUS_STYLE = {"solved": "green", "attempted": "yellow", "not_started": "dim"}


@friendly
def list_exercises(lang: LangOpt = "en", as_json: JsonOpt = False) -> None:
    """The exercises on the server, with your status on each."""
    with _client() as client:
        exercises = client.exercises(_check_lang(lang))
    if as_json:
        show.print_json(out, exercises)
        return
    out.print(_exercise_table(exercises, out.width, lang))
    out.print(show.catalogue_progress(exercises, lang))


# Below this width the topic column goes: the slug a learner types, and the title, come first.
WIDE_LIST = 100


def _exercise_table(exercises: Sequence[Mapping[str, Any]], width: int, lang: str = "en") -> Table:
    """The catalogue as a table whose slug column never folds or truncates (the slug is what
    the learner types next); the title wraps instead, and under ``WIDE_LIST`` columns the topic
    column is left out. Headers, levels and statuses in ``lang``."""
    slugs = [str(e.get("slug")) for e in exercises]
    wide = width >= WIDE_LIST
    table = Table()
    table.add_column(
        word("exercise", lang), no_wrap=True, min_width=max(map(len, slugs), default=8)
    )
    table.add_column(word("title", lang), overflow="fold", ratio=1)
    if wide:
        table.add_column(word("topic", lang), no_wrap=True)
    table.add_column(word("level", lang), no_wrap=True)
    table.add_column(word("status", lang), no_wrap=True)
    for e in exercises:
        status = str(e.get("status", ""))
        cells = [Text(str(e.get("slug"))), Text(str(e.get("title")))]
        if wide:
            cells.append(Text(str(e.get("topic"))))
        cells += [
            Text(word(str(e.get("difficulty")), lang)),
            Text(word(status.replace("_", " "), lang), STATUS_STYLE.get(status, "")),
        ]
        table.add_row(*cells)
    return table


def _prompt_file(exercise: Mapping[str, Any]) -> str:
    contract = exercise.get("contract") or {}
    lines = [str(exercise.get("prompt", "")).rstrip(), ""]
    if contract.get("signature"):
        lines += ["## Contract", "", "```python", str(contract["signature"]).rstrip(), "```", ""]
    for p in contract.get("parameters") or []:
        lines.append(f"- `{p.get('name')}` {p.get('shape', '')}, initialised to {p.get('init')}")
    if contract.get("forbidden"):
        lines += ["", "Not allowed:", *(f"- {f}" for f in contract["forbidden"])]
    return "\n".join(lines).rstrip() + "\n"


@friendly
def start(
    slug: Annotated[str, typer.Argument(help="Exercise slug, e.g. layer_norm (see `list`).")],
    lang: LangOpt = "en",
    folder: Annotated[
        Path, typer.Option("--dir", help="Where to write the files.", file_okay=False)
    ] = Path("."),
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
) -> None:
    """Write the exercise's starter (SLUG.py) and its prompt (SLUG.md) into a folder."""
    lang = _check_lang(lang)
    with _client() as client:
        exercise = client.exercise(slug, lang)
    code_path = folder / f"{slug}.py"
    prompt_path = folder / f"{slug}.md"
    # Both checks before either write: never leave half an exercise behind.
    for path in (code_path, prompt_path):
        if path.exists() and not force:
            said = "{path} already exists (your work?); use --force to overwrite it"
            raise AddnormError(say(lang, said, path=path))
    write_new(prompt_path, _prompt_file(exercise), force=True)
    write_new(code_path, starter_file(slug, str(exercise["starter"])), force=True)
    paths = {"code": code_path, "prompt": prompt_path}
    title = exercise.get("title")
    out.print(Text(say(lang, "{title}: wrote {code} and {prompt}", title=title, **paths), "bold"))
    out.print(Text(say(lang, "read {prompt}, fill in {code}, then:", **paths)))
    said = "  addnorm watch {code}     (checks and submits on every save)"
    out.print(Text(say(lang, said, **paths)))
    out.print(Text(say(lang, "  addnorm submit {code}    (once)", **paths)))


def _report_json(report: LocalReport) -> dict[str, Any]:
    return {
        "exercise": report.slug,
        "passed": report.passed,
        "problem": report.problem,
        "status": report.status,
        "line": report.line,
        "cases": [
            {
                "name": c.name,
                "shape": list(c.shape),
                "ok": c.ok,
                "max_abs_error": c.max_abs_error,
                "note": c.note,
            }
            for c in report.cases
        ],
    }


@friendly
def check(
    file: FileArg, exercise: ExerciseOpt = None, as_json: JsonOpt = False, table: TableOpt = False
) -> None:
    """The server's static checks (banned calls, the required definitions), then the
    exercise's public cases, forward and backward, on FILE, in this process (no server)."""
    code = read_code(file)
    slug = exercise_of(file, code, exercise, local_slugs())
    report = run_local_check(slug, code, str(file))
    if as_json:
        show.print_json(out, _report_json(report))
    else:
        show.local_report(out, report, table=table)
    if not report.passed:
        raise typer.Exit(EXIT_NOT_PASSED)


@friendly
def submit(
    file: FileArg,
    exercise: ExerciseOpt = None,
    as_json: JsonOpt = False,
    lang: VerdictLangOpt = None,
    table: TableOpt = False,
) -> None:
    """Have the server grade FILE; exit code 1 unless it passed."""
    code = sendable(file, read_code(file))
    verdict_lang = None if lang is None else _check_lang(lang)
    with _client() as client:
        slug = exercise_of(file, code, exercise, [e["slug"] for e in client.exercises()])
        verdict = client.submit(slug, code, verdict_lang)
    if as_json:
        show.print_json(out, verdict)
    else:
        show.verdict(out, verdict, slug, table=table)
    if verdict.get("verdict") != "passed":
        raise typer.Exit(EXIT_NOT_PASSED)


def _next_exercise(exercises: Sequence[Mapping[str, Any]], after: str) -> str | None:
    open_ = [str(e["slug"]) for e in exercises if e.get("status") != "solved"]
    return next((s for s in open_ if s != after), None)


def _watch_round(
    client: Client, file: Path, slug: str, code: str, lang: str | None = None, table: bool = False
) -> bool:
    """One check-then-submit round; True when the server passed the code."""
    out.rule(Text(f"{file.name}: checking"))
    try:
        report: LocalReport | None = run_local_check(slug, code, str(file))
    except AddnormError as exc:  # an exercise without local cases goes straight to the server
        out.print(Text(f"no local check: {exc}", "dim"))
        report = None
    if report is not None:
        show.local_report(out, report, table=table)
        if not report.passed:
            out.print(Text("fix the local cases first; not submitted. Save to re-run.", "yellow"))
            return False
    try:
        verdict = client.submit(slug, code, lang)
    except TokenRejected as exc:
        raise AddnormError(_token_advice(exc)) from None
    except AddnormError as exc:
        # The server may come back (or the rate limit lift): keep watching.
        err.print(Text(f"addnorm: {exc}"))
        return False
    show.verdict(out, verdict, slug, table=table)
    passed = verdict.get("verdict") == "passed"
    try:
        exercises = client.exercises()
    except AddnormError:
        return passed
    out.print(show.catalogue_progress(exercises))
    if passed:
        following = _next_exercise(exercises, slug)
        hint = f"next: addnorm start {following}" if following else "every exercise is solved"
        out.print(Text(f"{slug} solved! {hint}", "bold green"))
    return passed


@friendly
def watch(
    file: FileArg,
    exercise: ExerciseOpt = None,
    exit_on_pass: Annotated[
        bool, typer.Option("--exit-on-pass", help="Stop (exit 0) once the server passes it.")
    ] = False,
    lang: VerdictLangOpt = None,
    table: TableOpt = False,
) -> None:
    """Re-check and re-submit FILE on every save (local cases first), like rustlings' watch."""
    code = read_code(file)
    verdict_lang = None if lang is None else _check_lang(lang)
    with _client() as client:
        slug = exercise_of(file, code, exercise, [e["slug"] for e in client.exercises()])
        watcher = FileWatcher(file)
        watcher.accept(code)
        while True:
            if _watch_round(client, file, slug, code, verdict_lang, table) and exit_on_pass:
                return
            code = _next_save(watcher, file)


def _next_save(watcher: FileWatcher, file: Path) -> str:
    """The file's next new content; a save that is not text is said in one line, as ``check``
    says it, and watching goes on."""
    while True:
        out.print(Text(f"watching {file} for changes (Ctrl-C to stop)", "dim"))
        try:
            change = watcher.next_change()
        except NotText as exc:
            err.print(Text(f"addnorm: {exc}"))
            continue
        assert change is not None  # without a timeout it only returns with new content
        return change


# -- help -----------------------------------------------------------------------------------------

SlugArg = Annotated[str, typer.Argument(help="Exercise slug, e.g. layer_norm (see `list`).")]


@friendly
def hint(
    slug: SlugArg,
    number: Annotated[
        int | None,
        typer.Argument(help="Which rung (1 = concept, ...); default: the next one not yet seen."),
    ] = None,
    lang: LangOpt = "en",
    as_json: JsonOpt = False,
) -> None:
    """The next hint for an exercise (or rung NUMBER): the concept, the formula, then the line
    that is usually wrong. The server records it: a pass after hints is reviewed sooner."""
    lang = _check_lang(lang)
    with _client() as client:
        if number is None:
            used = client.help(slug, lang)
            total = int(used.get("hints_total") or 0)
            seen = {int(n) for n in used.get("hints_seen") or []}
            unseen = [n for n in range(1, total + 1) if n not in seen]
            if not total:
                raise AddnormError(say(lang, "{slug} has no hints", slug=slug))
            # Every rung seen: show the last one again rather than nothing.
            number = unseen[0] if unseen else total
        given = client.hint(slug, number, lang)
    if as_json:
        show.print_json(out, given)
        return
    rung, rungs = given.get("rung"), given.get("of")
    kind = word(str(given.get("kind")), lang)
    head = say(
        lang,
        "{slug}: hint {rung} of {rungs} ({kind})",
        slug=slug,
        rung=rung,
        rungs=rungs,
        kind=kind,
    )
    out.print(Text(head, "bold"))
    # Formulas as plain text: a terminal shows TeX as the backslashes it is written in.
    out.print(Text(formulas.as_text(str(given.get("text") or "")).rstrip()))
    if isinstance(rung, int) and isinstance(rungs, int) and rung < rungs:
        out.print(Text(say(lang, "next: addnorm hint {slug}", slug=slug), "dim"))


@friendly
def solution(
    slug: SlugArg,
    reveal: Annotated[
        bool,
        typer.Option(
            "--reveal",
            help="Ask for it before passing (after enough failed attempts); "
            "a later pass then counts as a lapse in review.",
        ),
    ] = False,
    lang: LangOpt = "en",
    as_json: JsonOpt = False,
) -> None:
    """The worked solution, once you have passed the exercise (or, with --reveal, after
    enough failed attempts). The code goes to stdout, so `> solved.py` keeps it."""
    lang = _check_lang(lang)
    with _client() as client:
        given = client.solution(slug, lang, reveal=reveal)
    if as_json:
        show.print_json(out, given)
        return
    reason = given.get("reason")
    err.print(
        Text(say(lang, "{slug}: worked solution ({reason})", slug=slug, reason=reason), "bold")
    )
    # Plain write: the code must reach a file or pager byte for byte, never re-wrapped.
    out.file.write(str(given.get("code") or "").rstrip("\n") + "\n")


# -- questions ----------------------------------------------------------------------------------


def _ask(question: Mapping[str, Any], number: int, total: int, lang: str = "en") -> Any | None:
    """Show a question and read an answer from stdin; None to skip it. EOFError ends the quiz."""
    out.print()
    head = f"[{number}/{total}] ({question.get('topic')}) {question.get('prompt')}"
    out.print(Text(head, "bold"))
    if question.get("code"):
        out.print(Text(str(question["code"]).rstrip()))
    for choice in question.get("choices") or []:
        out.print(Text(f"  {choice.get('index')}) {choice.get('text')}"))
    unit = say(lang, " ({unit})", unit=question["unit"]) if question.get("unit") else ""
    said = "answer with {format}{unit}; empty to skip"
    out.print(Text(say(lang, said, format=question.get("answer_format"), unit=unit), "dim"))
    while True:
        out.print("> ", end="")
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        if not sys.stdin.isatty():
            out.print()  # a piped answer is not echoed: end the prompt's line ourselves
        if not line.strip():
            return None
        try:
            return parse_answer(question, line, lang)
        except NotAnAnswer as exc:
            out.print(Text(say(lang, "{problem}; try again", problem=exc), "yellow"))


def _run_questions(client: Client, questions: Sequence[Mapping[str, Any]], lang: str) -> None:
    right = answered = 0
    try:
        for number, question in enumerate(questions, 1):
            answer = _ask(question, number, len(questions), lang)
            if answer is None:
                out.print(Text(word("skipped", lang), "dim"))
                continue
            result = client.answer(str(question["id"]), answer, lang)
            answered += 1
            right += bool(result.get("correct"))
            key = result.get("correct_answer_text")
            mark = (
                Text(word("correct", lang), "bold green")
                if result.get("correct")
                else Text(say(lang, "incorrect: the answer is {answer}", answer=key), "bold red")
            )
            out.print(mark)
            if result.get("explanation"):
                out.print(Text(str(result["explanation"])))
    except EOFError:
        out.print()
    said = "{right} of {answered} answered correctly"
    out.print(Text(say(lang, said, right=right, answered=answered), "bold"))


@friendly
def quiz(
    topic: Annotated[str | None, typer.Option("--topic", help="Only this topic.")] = None,
    lang: LangOpt = "en",
    count: Annotated[int, typer.Option("--count", min=1, max=100, help="How many.")] = 5,
    seed: Annotated[int | None, typer.Option("--seed", help="Fix the question order.")] = None,
) -> None:
    """An interactive quiz on the concept questions: answers are read from stdin."""
    lang = _check_lang(lang)
    with _client() as client:
        pool = client.questions(topic=topic, lang=lang)
        if not pool:
            raise AddnormError(say(lang, "no questions for topic {topic!r}", topic=topic))
        chosen = random.Random(seed).sample(pool, min(count, len(pool)))
        _run_questions(client, chosen, lang)


@friendly
def review(lang: LangOpt = "en", as_json: JsonOpt = False) -> None:
    """Today's practice session: reviews that are due, then new items; questions are asked here."""
    lang = _check_lang(lang)
    with _client() as client:
        plan = client.practice_session(lang)
        if as_json:
            show.print_json(out, plan)
            return
        items = [*plan.get("reviews", []), *plan.get("new", [])]
        if not items:
            out.print(Text(word("nothing due today: try `addnorm quiz` or a new exercise", lang)))
            return
        focus = listed([str(t) for t in plan.get("focus_topics") or []], lang)
        due = len(plan.get("reviews", []))
        said = "today: {due} due for review, {new} new; focus: {focus}"
        out.print(Text(say(lang, said, due=due, new=len(items) - due, focus=focus)))
        for item in items:
            if item.get("kind") == "exercise":
                out.print(Text(say(lang, "  exercise {id}: addnorm start {id}", id=item["id"])))
        questions = [
            client.question(str(i["id"]), lang) for i in items if i.get("kind") == "question"
        ]
        if questions:
            _run_questions(client, questions, lang)


@friendly
def status(as_json: JsonOpt = False) -> None:
    """Your progress: exercises solved, and mastery per topic, with bars."""
    with _client() as client:
        progress = client.progress()
    if as_json:
        show.print_json(out, progress)
        return
    exercises = progress.get("exercises") or {}
    out.print(show.catalogue_progress([{"slug": k, **v} for k, v in exercises.items()]), Text(""))
    # The slug column as wide as the longest slug (at least 16), so the statuses line up.
    width = max([16, *map(len, exercises)])
    for slug, entry in exercises.items():
        status_ = str(entry.get("status"))
        out.print(
            Text(f"  {slug:<{width}} "),
            Text(status_.replace("_", " "), STATUS_STYLE.get(status_, "")),
            Text(f" ({entry.get('attempts', 0)} attempts)", "dim"),
        )
    table = Table(title="topics", title_justify="left")
    for column in ("topic", "mastery", "", "answered"):
        table.add_column(column)
    for topic, m in (progress.get("topics") or {}).items():
        mastery = float(m.get("mastery") or 0.0)
        table.add_row(
            Text(topic),
            Text(show.bar(mastery, 1.0), "green"),
            Text(f"{mastery:.0%}"),
            Text(f"{m.get('attempted', 0)}/{m.get('total', 0)}"),
        )
    out.print(table)


def register(app: typer.Typer) -> None:
    """Add the learner commands to the ``addnorm`` command."""
    app.command()(signup)
    app.command()(login)
    app.add_typer(token_app, name="token")
    app.command("list")(list_exercises)
    app.command()(start)
    app.command()(check)
    app.command()(submit)
    app.command()(watch)
    app.command()(hint)
    app.command()(solution)
    app.command()(quiz)
    app.command()(review)
    app.command()(status)
