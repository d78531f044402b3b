"""signup/login, list, start, check, submit, quiz, review, status over HTTP, as subprocesses."""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.cli.conftest import (
    DETACHED,
    SOLUTION,
    UNBIASED,
    Learner,
    learner_env,
    one_line_error,
)
from tests.support import REPO, Server, free_port

STARTER = (REPO / "exercises" / "layer_norm" / "starter.py").read_text(encoding="utf-8")


def _token(learner: Learner) -> str:
    saved = json.loads(learner.config.read_text())
    return str(saved["tokens"][learner.env["ADDNORM_URL"]])


def test_signup_saves_a_private_token_that_list_then_uses(learner: Learner, server: Server) -> None:
    r = learner.run("signup", "ada")
    assert r.returncode == 0, r.stderr
    token = _token(learner)
    assert token in r.stdout  # shown once
    assert stat.S_IMODE(learner.config.stat().st_mode) == 0o600
    assert stat.S_IMODE(learner.config.parent.stat().st_mode) == 0o700
    with server.client(token) as c:
        assert c.get("/users/me").json()["name"] == "ada"

    listed = learner.run("list", "--json")
    assert listed.returncode == 0, listed.stderr
    exercises = json.loads(listed.stdout)
    assert {e["slug"] for e in exercises} >= {"layer_norm", "rms_norm", "swiglu_ffn"}
    assert {e["status"] for e in exercises} == {"not_started"}
    table = learner.run("list")
    assert "layer_norm" in table.stdout and "not started" in table.stdout
    assert "0/" in table.stdout  # the progress line


def test_login_checks_the_token_and_replaces_a_readable_file(
    learner: Learner, server: Server
) -> None:
    assert "token rejected" in one_line_error(learner.run("login", "--token", "not-a-token"))
    assert not learner.config.exists()  # nothing saved for a rejected token

    learner.config.parent.mkdir(parents=True)
    learner.config.write_text("{}")
    learner.config.chmod(0o644)
    token = server.new_learner("grace")
    r = learner.run("login", input=f"{token}\n")  # asked for, as a hidden prompt
    assert r.returncode == 0, r.stderr
    assert "as grace" in r.stdout
    assert stat.S_IMODE(learner.config.stat().st_mode) == 0o600
    assert _token(learner) == token


def test_errors_are_one_line_without_traceback(tmp_path: Path, learner: Learner) -> None:
    assert "not logged in" in one_line_error(learner.run("list"))
    assert "token rejected" in one_line_error(learner.run("status", ADDNORM_TOKEN="wrong"))

    nobody = learner_env(tmp_path / "elsewhere", f"http://127.0.0.1:{free_port()}")
    assert "not reachable" in one_line_error(nobody.run("list"))
    assert "http://" in one_line_error(nobody.run("list", ADDNORM_URL="ftp://x"))


def test_start_writes_the_starter_and_prompt_and_keeps_existing_work(signed_up: Learner) -> None:
    r = signed_up.run("start", "layer_norm", "--dir", "work")
    assert r.returncode == 0, r.stderr
    code = (signed_up.home / "work" / "layer_norm.py").read_text()
    assert code.splitlines()[0] == "# addnorm: exercise layer_norm"
    assert code.split("\n", 1)[1] == STARTER
    prompt = (signed_up.home / "work" / "layer_norm.md").read_text()
    assert "class LayerNorm(nn.Module)" in prompt

    (signed_up.home / "work" / "layer_norm.py").write_text("my work")
    again = signed_up.run("start", "layer_norm", "--dir", "work")
    assert "already exists" in one_line_error(again)
    assert (signed_up.home / "work" / "layer_norm.py").read_text() == "my work"

    zh = signed_up.run("start", "layer_norm", "--lang", "zh", "--dir", "zh")
    assert zh.returncode == 0, zh.stderr
    assert re.search(r"[\u4e00-\u9fff]", (signed_up.home / "zh" / "layer_norm.md").read_text())
    assert "unknown exercise" in one_line_error(signed_up.run("start", "no_such_thing"))


def test_check_runs_the_local_cases_without_a_server(tmp_path: Path) -> None:
    offline = learner_env(tmp_path / "offline", f"http://127.0.0.1:{free_port()}")
    work = offline.home
    (work / "layer_norm.py").write_text(STARTER)  # named after the exercise: no marker needed
    (work / "mine.py").write_text("# addnorm: exercise layer_norm\n" + SOLUTION)
    (work / "unbiased.py").write_text(UNBIASED)
    (work / "broken.py").write_text("class LayerNorm(:\n")

    starter = offline.run("check", "layer_norm.py")
    assert starter.returncode == 1
    assert "NotImplementedError" in starter.stdout
    assert "0 of 4 local cases match" in starter.stdout

    solved = offline.run("check", "mine.py", "--json")
    assert solved.returncode == 0, solved.stdout + solved.stderr
    report = json.loads(solved.stdout)
    assert report["passed"] and report["exercise"] == "layer_norm"
    assert report["cases"] and all(c["ok"] for c in report["cases"])

    wrong = offline.run("check", "unbiased.py", "-e", "layer_norm", "--json")
    assert wrong.returncode == 1
    assert not json.loads(wrong.stdout)["passed"]

    broken = offline.run("check", "broken.py", "-e", "layer_norm")
    assert broken.returncode == 1 and "SyntaxError" in broken.stdout
    assert "which exercise" in one_line_error(offline.run("check", "unbiased.py"))


def test_submit_shows_the_verdict_and_exits_1_unless_passed(signed_up: Learner) -> None:
    assert signed_up.run("start", "layer_norm").returncode == 0
    starter = signed_up.run("submit", "layer_norm.py")
    assert starter.returncode == 1
    assert "layer_norm: ERROR" in starter.stdout and "NotImplementedError" in starter.stdout

    (signed_up.home / "layer_norm.py").write_text(UNBIASED)
    wrong = signed_up.run("submit", "layer_norm.py")
    assert wrong.returncode == 1
    assert "layer_norm: FAILED" in wrong.stdout
    assert "Diagnosis:" in wrong.stdout and "unbiased" in wrong.stdout.lower()

    # Right forward pass, detached statistics: the server names the mistake in the gradients.
    (signed_up.home / "layer_norm.py").write_text(DETACHED)
    detached = signed_up.run("submit", "layer_norm.py")
    assert detached.returncode == 1
    assert "layer_norm: FAILED" in detached.stdout and "detached_statistics" in detached.stdout

    (signed_up.home / "layer_norm.py").write_text(SOLUTION)
    right = signed_up.run("submit", "layer_norm.py", "--json")
    assert right.returncode == 0, right.stdout + right.stderr
    assert json.loads(right.stdout)["verdict"] == "passed"

    status = signed_up.run("status", "--json")
    assert json.loads(status.stdout)["exercises"]["layer_norm"]["status"] == "solved"
    text = signed_up.run("status")
    assert "1/" in text.stdout and "█" in text.stdout and "solved" in text.stdout


def test_quiz_reads_answers_from_stdin_and_records_them(signed_up: Learner, server: Server) -> None:
    # "0" is a valid answer to every question type (choice 0, [0], false, the number 0).
    r = signed_up.run(
        "quiz", "--topic", "rms_norm", "--count", "2", "--seed", "7", input="banana\n0\n0\n"
    )
    assert r.returncode == 0, r.stderr
    assert "try again" in r.stdout  # "banana" fits no question type
    assert r.stdout.count("[1/2]") == 1 and r.stdout.count("[2/2]") == 1
    assert re.search(r"(\d) of 2 answered correctly", r.stdout)
    with server.client(_token(signed_up)) as c:
        assert c.get("/progress").json()["topics"]["rms_norm"]["attempted"] == 2

    # Stdin closing ends the quiz cleanly, with what was answered so far.
    eof = signed_up.run("quiz", "--count", "3", input="")
    assert eof.returncode == 0, eof.stderr
    assert "0 of 0 answered correctly" in eof.stdout
    unknown = one_line_error(signed_up.run("quiz", "--topic", "astrology"))
    assert "422: topic: Input should be" in unknown and "rms_norm" in unknown


def test_review_lists_todays_session_and_asks_its_questions(signed_up: Learner) -> None:
    plan = signed_up.run("review", "--json")
    assert plan.returncode == 0, plan.stderr
    body = json.loads(plan.stdout)
    assert set(body) >= {"reviews", "new", "focus_topics"}
    questions = [i for i in body["reviews"] + body["new"] if i["kind"] == "question"]
    assert questions, body

    # Skip the first question, answer the second, then stdin ends.
    r = signed_up.run("review", input="\n0\n")
    assert r.returncode == 0, r.stderr
    assert "today:" in r.stdout and "skipped" in r.stdout
    assert re.search(r"\d of 1 answered correctly", r.stdout)


def test_a_running_local_server_grades_for_grade(signed_up: Learner, tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text(SOLUTION)
    r = signed_up.run("grade", "layer_norm", str(tmp_path / "mine.py"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warm grader pool of the server at" in r.stderr
    assert "layer_norm: PASSED" in r.stdout


def test_rate_limit_says_when_to_retry(tmp_path: Path) -> None:
    from tests.support import start_server, stop_server

    srv = start_server(tmp_path / "server", ADDNORM_SUBMISSIONS_PER_MINUTE="1")
    try:
        learner = learner_env(tmp_path, srv.url)
        assert learner.run("signup", "hasty").returncode == 0
        (learner.home / "layer_norm.py").write_text(SOLUTION)
        assert learner.run("submit", "layer_norm.py").returncode == 0
        line = one_line_error(learner.run("submit", "layer_norm.py"))
        assert "429" in line and re.search(r"retry in \d+(\.\d+)? s", line), line
        assert httpx.get(f"{srv.url}/health").status_code == 200
    finally:
        stop_server(srv)


def test_submit_and_start_pass_the_learners_language(signed_up: Learner) -> None:
    started = signed_up.run("start", "layer_norm", "--lang", "zh")
    assert started.returncode == 0, started.stderr
    written = (signed_up.home / "layer_norm.py").read_text(encoding="utf-8")
    assert re.search(r"[\u4e00-\u9fff]", written)  # the starter's comments in Chinese
    (signed_up.home / "layer_norm.py").write_text(UNBIASED)
    zh = signed_up.run("submit", "layer_norm.py", "--lang", "zh", "--json")
    assert zh.returncode == 1, zh.stderr
    verdict = json.loads(zh.stdout)
    assert verdict["lang"] == "zh" and "个用例" in verdict["message"]
    assert verdict["diagnosis"]["title"] == verdict["diagnosis"]["title_zh"]
    shown = signed_up.run("submit", "layer_norm.py", "--lang", "zh")
    assert "个用例" in shown.stdout and verdict["diagnosis"]["title_zh"] in shown.stdout
    en = signed_up.run("submit", "layer_norm.py", "--json")  # no --lang: the preference, en
    assert json.loads(en.stdout)["lang"] == "en"
    assert "--lang must be en or zh" in one_line_error(
        signed_up.run("submit", "layer_norm.py", "--lang", "fr")
    )


def test_grade_is_refused_while_a_mock_interview_runs(
    signed_up: Learner, server: Server, tmp_path: Path
) -> None:
    """The server holds practice during an interview (docs/interviews.md): its 409 is its
    decision, said in one line, and no local pool grades the file behind its back. ``check``
    keeps working: it never asks the server and runs only the exercise's public cases, on the
    learner's own machine."""
    (tmp_path / "mine.py").write_text(SOLUTION)
    with server.client(_token(signed_up)) as c:
        started = c.post("/interviews", json={"preset": "phone_screen"})
        assert started.status_code == 201, started.text
        number = started.json()["id"]
        held = signed_up.run("grade", "layer_norm", str(tmp_path / "mine.py"))
        line = one_line_error(held)
        assert "409" in line and f"mock interview {number}" in line, line
        assert "pool of its own" not in held.stderr and "PASSED" not in held.stdout

        (signed_up.home / "layer_norm.py").write_text(SOLUTION)
        checked = signed_up.run("check", "layer_norm.py")
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "4 of 4 local cases match" in checked.stdout

        ended = c.post(f"/interviews/{number}/finish", params={"confirm": "true"})
        assert ended.status_code == 200, ended.text
    after = signed_up.run("grade", "layer_norm", str(tmp_path / "mine.py"))
    assert after.returncode == 0, after.stdout + after.stderr
    assert "layer_norm: PASSED" in after.stdout


def test_a_second_signup_keeps_the_first_learners_token(learner: Learner, server: Server) -> None:
    assert learner.run("signup", "first").returncode == 0
    first = _token(learner)
    line = one_line_error(learner.run("signup", "second"))
    assert "--force" in line and "addnorm token show" in line, line
    assert _token(learner) == first  # nothing replaced

    shown = learner.run("token", "show")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().splitlines()[-1].endswith(first)

    forced = learner.run("signup", "second", "--force")
    assert forced.returncode == 0, forced.stderr
    assert first in forced.stderr  # the replaced token, said once more rather than lost
    assert _token(learner) != first
    with server.client(_token(learner)) as c:
        assert c.get("/users/me").json()["name"] == "second"
    with server.client(first) as c:
        assert c.get("/users/me").json()["name"] == "first"


def test_status_columns_line_up_with_long_slugs(signed_up: Learner) -> None:
    progress = json.loads(signed_up.run("status", "--json").stdout)
    slugs = list(progress["exercises"])
    assert max(map(len, slugs)) > 16, slugs  # e.g. fused_add_rms_norm
    shown = signed_up.run("status")
    assert shown.returncode == 0, shown.stderr
    starts = set()
    for slug in slugs:
        line = next(x for x in shown.stdout.splitlines() if x.split()[:1] == [slug])
        starts.add(line.index("not started", len(slug)))
    assert len(starts) == 1, shown.stdout


def test_code_over_the_limit_is_refused_before_it_is_sent(signed_up: Learner) -> None:
    """The server takes code up to 64 KiB (api/http/submissions.py, addnorm_client.static):
    the CLI says that limit, whatever the file's size, rather than the body limit."""
    head = "# addnorm: exercise layer_norm\n" + SOLUTION
    for size in (100 * 1024, 5 * 1024 * 1024):
        (signed_up.home / "layer_norm.py").write_text(head + "#" * (size - len(head)) + "\n")
        for command in (("submit", "layer_norm.py"), ("grade", "layer_norm", "layer_norm.py")):
            line = one_line_error(signed_up.run(*command))
            assert "64 KiB" in line and "layer_norm.py" in line, line
            assert "1048576" not in line and "Request body" not in line, line


def test_a_server_that_is_not_addnorm_is_named_in_one_line(tmp_path: Path) -> None:
    """ADDNORM_URL at a plain ``python -m http.server``: one line with the status and the
    content type, never the HTML page."""
    port = free_port()
    other = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "http.server did not start"
                time.sleep(0.1)
        stranger = learner_env(tmp_path / "learner", url)
        for args, env in (
            (("list",), {"ADDNORM_TOKEN": "some-token"}),
            (("list",), {}),
            (("signup", "ada"), {}),
        ):
            line = one_line_error(stranger.run(*args, **env))
            assert f"the server at {url} did not answer as an addnorm server" in line, line
            assert "text/html" in line and "<" not in line, line
        assert "404" in one_line_error(stranger.run("list", ADDNORM_TOKEN="t"))
    finally:
        other.terminate()
        other.wait(timeout=10)


def test_help_reads_as_whole_sentences(learner: Learner) -> None:
    """Typer keeps a docstring's line breaks in rich help: each summary and paragraph must be
    one line when the terminal is wide enough, never cut mid-sentence."""
    wide = {"COLUMNS": "400"}
    for args in (("--help",), ("token", "--help")):
        r = learner.run(*args, **wide)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        start = next(i for i, x in enumerate(lines) if "Commands" in x)
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("╰"))
        rows = lines[start + 1 : end]
        assert rows and all(re.match(r"│ \S", row) for row in rows), "\n".join(rows)
    check = next(x for x in learner.run("--help", **wide).stdout.splitlines() if "│ check " in x)
    assert "then the exercise's public cases" in check, check
    graded = learner.run("grade", "--help", **wide).stdout.splitlines()
    line = next(x for x in graded if "A local `addnorm serve`" in x)
    assert "which takes several seconds." in line, graded  # the paragraph whole, on one line
