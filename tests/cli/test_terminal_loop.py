"""The terminal loop for every exercise: ``check`` agrees with the server on what it rejects
(banned calls, wrong gradients), ``hint`` and ``solution`` over HTTP, ``login`` from a pipe
while a terminal is attached, tokens across addresses, and an 80-column layout."""

from __future__ import annotations

import fcntl
import json
import math
import os
import pty
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from addnorm_client.cli.local_check import run_local_check
from addnorm_client.exercise_files import contract, local_slugs
from api.content.catalog import load_catalog
from tests.cli.conftest import DETACHED, SOLUTION, UNBIASED, Learner, learner_env
from tests.support import REPO, Server, free_port

CATALOGUE = sorted(load_catalog(REPO / "exercises"))


def test_the_client_reads_the_same_contract_as_the_server() -> None:
    """The kind, names and banned list ``check`` reads from spec.py's text are the loaded
    spec's, for every exercise (so the local static check is the server's)."""
    catalog = load_catalog(REPO / "exercises")
    assert local_slugs() == sorted(catalog)
    for slug, exercise in catalog.items():
        read = contract(slug)
        spec = exercise.spec
        assert (read.kind, read.class_name, read.functions) == (
            spec.kind,
            spec.class_name,
            tuple(spec.functions),
        ), slug
        assert read.banned == tuple(spec.banned), slug


@pytest.mark.parametrize("slug", CATALOGUE)
def test_check_passes_the_worked_solution_and_fails_the_starter(slug: str) -> None:
    solved = run_local_check(slug, (REPO / "solutions" / f"{slug}.py").read_text(), "x")
    assert solved.passed, (solved.problem, [c for c in solved.cases if not c.ok])
    starter = run_local_check(slug, (REPO / "exercises" / slug / "starter.py").read_text(), "x")
    assert not starter.passed
    assert starter.problem is not None or not any(c.ok for c in starter.cases)


def test_check_fails_a_wrong_hand_written_backward() -> None:
    """layer_norm_backward: the forward is right, the backward forgets the mean terms; the
    local backward check finds it in the gradient with respect to x."""
    code = (REPO / "solutions" / "layer_norm_backward.py").read_text()
    right = "dx = rstd * (g - g_mean - x_hat * gx_mean)"
    assert right in code
    wrong = code.replace(right, "dx = rstd * g")
    report = run_local_check("layer_norm_backward", wrong, "x")
    assert not report.passed, report
    notes = [c.note for c in report.cases if not c.ok]
    assert notes and all("backward" in n for n in notes), notes


def test_a_banned_call_fails_check_as_the_server_rejects_it(tmp_path: Path) -> None:
    offline = learner_env(tmp_path / "offline", f"http://127.0.0.1:{free_port()}")
    # Right values, by the very call the exercise forbids, reached through an alias.
    banned = SOLUTION.replace(
        "        return (x - mean)",
        "        from torch.nn import functional as G\n"
        "        if x.shape[-1] > 10**9:\n"
        "            return G.layer_norm(x, x.shape[-1:])\n"
        "        return (x - mean)",
    )
    (offline.home / "layer_norm.py").write_text(banned)
    r = offline.run("check", "layer_norm.py", "--json")
    assert r.returncode == 1, r.stdout + r.stderr
    report = json.loads(r.stdout)
    assert report["status"] == "rejected" and not report["passed"]
    line = next(i for i, text in enumerate(banned.splitlines(), 1) if "G.layer_norm" in text)
    assert "F.layer_norm" in report["problem"] and report["line"] == line
    text = offline.run("check", "layer_norm.py")
    assert text.returncode == 1 and "rejected by the server's checks" in text.stdout


def test_check_takes_function_and_autograd_function_exercises(tmp_path: Path) -> None:
    offline = learner_env(tmp_path / "offline", f"http://127.0.0.1:{free_port()}")
    for slug in ("softmax", "silu_function"):
        (offline.home / f"{slug}.py").write_text((REPO / "solutions" / f"{slug}.py").read_text())
        r = offline.run("check", "-e", slug, f"{slug}.py")
        assert r.returncode == 0, r.stdout + r.stderr
        assert "local cases match" in r.stdout and "defines no" not in r.stdout
    (offline.home / "detached.py").write_text(DETACHED)
    r = offline.run("check", "-e", "layer_norm", "detached.py")
    assert r.returncode == 1
    assert "First failure" in r.stdout and "not the forward's derivative" in r.stdout


def _controlling_terminal(slave: int) -> None:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)


def test_login_reads_the_token_from_a_pipe_with_a_terminal_attached(
    learner: Learner, server: Server
) -> None:
    """``echo TOKEN | addnorm login`` in a terminal: the token comes from the pipe. (getpass
    would read the terminal and wait for the keyboard: the timeout would fire.)"""
    token = server.new_learner("piped")
    master, slave = pty.openpty()
    try:
        r = subprocess.run(
            [sys.executable, "-m", "api.cli", "login"],
            input=f"{token}\n",
            capture_output=True,
            text=True,
            env=learner.env,
            cwd=learner.home,
            timeout=120,
            preexec_fn=lambda: _controlling_terminal(slave),
            pass_fds=(slave,),
        )
    finally:
        os.close(master)
        os.close(slave)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "as piped" in r.stdout
    saved = json.loads(learner.config.read_text())
    assert saved["tokens"][learner.env["ADDNORM_URL"]] == token


def test_a_new_address_for_the_same_server_says_how_to_carry_the_token(
    signed_up: Learner, server: Server
) -> None:
    old = signed_up.env["ADDNORM_URL"]
    new = old.replace("127.0.0.1", "localhost")  # the same server (same data), another URL
    # A config from before the CLI recorded whose token is whose: nothing for the new address
    # to prove, so no token follows on its own (tests/cli/test_token_follows.py: one that does).
    saved = json.loads(signed_up.config.read_text())
    saved.pop("learners")
    signed_up.config.write_text(json.dumps(saved))
    r = signed_up.run("list", ADDNORM_URL=new)
    assert r.returncode == 2
    assert f"addnorm login --url {new} --from {old}" in r.stderr
    moved = signed_up.run("login", "--url", new, "--from", old)
    assert moved.returncode == 0, moved.stderr
    assert signed_up.run("list", ADDNORM_URL=new).returncode == 0


def test_hint_and_solution_over_http(signed_up: Learner) -> None:
    first = signed_up.run("hint", "layer_norm")
    assert first.returncode == 0, first.stderr
    assert "layer_norm: hint 1 of" in first.stdout
    second = signed_up.run("hint", "layer_norm", "--json")
    assert json.loads(second.stdout)["rung"] == 2  # the next one not yet seen
    # The formula rung as plain text in a terminal, in both languages: no TeX left.
    assert "\\frac{" in json.loads(second.stdout)["text"]
    for lang in ("en", "zh"):
        formula = signed_up.run("hint", "layer_norm", "2", "--lang", lang)
        assert formula.returncode == 0, formula.stderr
        assert "\\" not in formula.stdout and "$" not in formula.stdout, formula.stdout
        assert "(x - mean)/√(var + ε) · weight + bias" in formula.stdout, formula.stdout
    # Before a pass (and without enough failed attempts) the server refuses the solution.
    refused = signed_up.run("solution", "layer_norm")
    assert refused.returncode == 2 and "403" in refused.stderr
    (signed_up.home / "layer_norm.py").write_text(SOLUTION)
    assert signed_up.run("submit", "-e", "layer_norm", "layer_norm.py").returncode == 0
    worked = signed_up.run("solution", "layer_norm")
    assert worked.returncode == 0, worked.stderr
    assert "class LayerNorm" in worked.stdout
    compile(worked.stdout, "solution", "exec")  # the code alone on stdout, byte for byte


def test_list_and_submit_at_80_columns(signed_up: Learner) -> None:
    narrow = {"COLUMNS": "80"}
    listed = signed_up.run("list", **narrow)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    table = [line for line in lines if line.startswith("│")]
    assert all(len(line) <= 80 for line in table), "\n".join(table)
    first_cells = {line.split("│")[1].strip() for line in table}
    assert set(CATALOGUE) <= first_cells  # every slug whole, in its own cell

    (signed_up.home / "layer_norm.py").write_text(UNBIASED)
    wrong = signed_up.run("submit", "layer_norm.py", **narrow)
    assert wrong.returncode == 1
    # The card is the case the message calls the first failure, whatever the checks' order.
    named = wrong.stdout.split("First: '", 1)[1].split("'", 1)[0]
    assert f"First failure: case {named}" in wrong.stdout and "  what   " in wrong.stdout
    assert "failing checks (" not in wrong.stdout and "--table lists them" in wrong.stdout
    tabled = signed_up.run("submit", "layer_norm.py", "--table", **narrow)
    assert tabled.returncode == 1 and "failing checks (" in tabled.stdout


def _card_row(stdout: str, label: str) -> list[str]:
    """The cells of the first-failure card's row ``label`` (the worst one in brackets)."""
    line = next(x for x in stdout.splitlines() if x.split()[:1] == [label])
    return line.split()[1:]


def _figure(cell: str) -> float:
    return float(cell.strip("[]").replace("NaN", "nan"))


def test_the_card_shows_your_value_beside_the_expected_one(signed_up: Learner) -> None:
    """The first failure's values at 80 columns in both languages: a LayerNorm that doubles
    its output shows twice every expected value, the worst one marked; the unbiased variance
    shows NaN on one-wide rows and, in the JSON, the known ratio sqrt((n - 1) / n) on a row of
    the default initialisation (weight 1, bias 0)."""
    doubled = SOLUTION.replace("        return (x - mean)", "        return 2 * (x - mean)")
    (signed_up.home / "layer_norm.py").write_text(doubled)
    for lang, yours, expected in (("en", "yours", "expected"), ("zh", "你的值", "期望值")):
        r = signed_up.run("submit", "layer_norm.py", "--lang", lang, COLUMNS="80")
        assert r.returncode == 1, r.stdout + r.stderr
        rows = [x for x in r.stdout.splitlines() if x.split()[:1] in ([yours], [expected])]
        assert len(rows) == 2 and all(len(x) <= 80 for x in rows), r.stdout
        mine, theirs = _card_row(r.stdout, yours), _card_row(r.stdout, expected)
        assert 1 <= len(mine) == len(theirs) <= 5, r.stdout
        assert sum(c.startswith("[") for c in mine) == 1, r.stdout
        # The card's own words in the verdict's language too.
        tail = "项检查中有" if lang == "zh" else "checks failed; --table lists them"
        assert tail in r.stdout, r.stdout
        for y, e in zip(mine, theirs, strict=True):
            # Four significant digits on both sides; bfloat16 rounds the learner's side more.
            assert abs(_figure(y) - 2 * _figure(e)) <= 1e-2 * abs(2 * _figure(e)) + 1e-6, r.stdout

    (signed_up.home / "layer_norm.py").write_text(UNBIASED)
    r = signed_up.run("submit", "layer_norm.py", COLUMNS="80")
    assert r.returncode == 1 and "First failure: case dim_1" in r.stdout, r.stdout
    assert _card_row(r.stdout, "yours") == ["[NaN]"], r.stdout
    assert math.isfinite(_figure(_card_row(r.stdout, "expected")[0])), r.stdout

    r = signed_up.run("submit", "layer_norm.py", "--json")
    checks = json.loads(r.stdout)["checks"]
    assert all(c["values"] is None for c in checks if c["passed"])
    default = next(c for c in checks if c["case"] == "default_init" and c["target"] == "output")
    values = default["values"]
    n = default["shape"][-1]
    assert values["start"] + values["at"] == default["worst_index"][-1]
    for y, e in zip(values["yours"], values["expected"], strict=True):
        assert isinstance(y, float) and isinstance(e, float)
        assert y / e == pytest.approx(math.sqrt((n - 1) / n), rel=1e-3), values


def test_submit_table_lists_every_failing_check(signed_up: Learner) -> None:
    """The starter fails every check (19 for layer_norm): --table lists each one, as the README
    and `submit --help` say; the default view stays the short card."""
    assert signed_up.run("start", "layer_norm").returncode == 0
    verdict = json.loads(signed_up.run("submit", "layer_norm.py", "--json").stdout)
    failing = [c for c in verdict["checks"] if not c["passed"]]
    assert len(failing) > 8, len(failing)
    tabled = signed_up.run("submit", "layer_norm.py", "--table")
    assert tabled.returncode == 1, tabled.stderr
    rows = [x for x in tabled.stdout.splitlines() if x.startswith("│")]
    assert len(rows) == len(failing), tabled.stdout
    assert "more failing checks" not in tabled.stdout
    assert f"failing checks ({len(failing)} of {len(verdict['checks'])})" in tabled.stdout
    short = signed_up.run("submit", "layer_norm.py")
    assert "failing checks (" not in short.stdout and "--table lists them" in short.stdout
