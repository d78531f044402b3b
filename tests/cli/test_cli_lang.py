"""``--lang zh``: the learner commands' own words in Chinese (what the server sends comes in the
asked language already), and the English output as it was."""

from __future__ import annotations

import re

from tests.cli.conftest import SOLUTION, Learner

CJK = re.compile(r"[\u4e00-\u9fff]")


def _absent(text: str, *phrases: str) -> None:
    for phrase in phrases:
        assert phrase not in text, (phrase, text)


def test_quiz_and_review_in_chinese(signed_up: Learner) -> None:
    # Not an answer, then skipped; then "0", which every question type takes.
    args = ("quiz", "--topic", "rms_norm", "--count", "3", "--seed", "7", "--lang", "zh")
    quiz = signed_up.run(*args, input="banana\n\n0\n0\n")
    assert quiz.returncode == 0, quiz.stderr
    _absent(quiz.stdout, "answer with", "empty to skip", "try again", "answer true or false")
    _absent(quiz.stdout, "skipped", "answered correctly", "incorrect: the answer is")
    lines = quiz.stdout.splitlines()
    assert "correct" not in lines, quiz.stdout
    assert "已跳过" in lines and re.search(r"共作答 2 题，答对 \d 题", quiz.stdout), quiz.stdout

    review = signed_up.run("review", "--lang", "zh", input="\n0\n")
    assert review.returncode == 0, review.stderr
    _absent(review.stdout, "today:", "due for review", "new; focus", "skipped")
    _absent(review.stdout, "answered correctly", "answer with", "empty to skip")
    assert "今日" in review.stdout, review.stdout


def test_hint_solution_start_list_and_submit_in_chinese(signed_up: Learner) -> None:
    last = signed_up.run("hint", "rms_norm", "3", "--lang", "zh")
    assert last.returncode == 0, last.stderr
    head = last.stdout.splitlines()[0]
    _absent(head, "hint 3 of 3", "usual_mistake")
    assert head.startswith("rms_norm") and CJK.search(head), head
    first = signed_up.run("hint", "rms_norm", "1", "--lang", "zh")
    _absent(first.stdout, "next:", "(concept)")
    assert "addnorm hint rms_norm" in first.stdout
    english = signed_up.run("hint", "rms_norm", "1")
    assert english.stdout.splitlines()[0] == "rms_norm: hint 1 of 3 (concept)"
    assert english.stdout.splitlines()[-1] == "next: addnorm hint rms_norm"

    (signed_up.home / "layer_norm.py").write_text(SOLUTION)
    assert signed_up.run("submit", "layer_norm.py").returncode == 0
    worked = signed_up.run("solution", "layer_norm", "--lang", "zh")
    assert worked.returncode == 0, worked.stderr
    _absent(worked.stderr, "worked solution")
    assert "class LayerNorm" in worked.stdout

    started = signed_up.run("start", "gelu", "--lang", "zh")
    assert started.returncode == 0, started.stderr
    _absent(started.stdout, ": wrote", "read ", "fill in", "then:", "(once)", "on every save")
    assert "addnorm watch gelu.py" in started.stdout and "addnorm submit gelu.py" in started.stdout
    english = signed_up.run("start", "gelu", "--dir", "en")
    assert english.stdout.splitlines()[1:] == [
        "read en/gelu.md, fill in en/gelu.py, then:",
        "  addnorm watch en/gelu.py     (checks and submits on every save)",
        "  addnorm submit en/gelu.py    (once)",
    ]

    listed = signed_up.run("list", "--lang", "zh")
    assert listed.returncode == 0, listed.stderr
    header = next(x for x in listed.stdout.splitlines() if x.startswith("┃"))
    for word in ("exercise", "title", "topic", "level", "status"):
        assert not re.search(rf"\b{word}\b", header), header
    cells = {c.strip() for x in listed.stdout.splitlines() for c in x.split("│")}
    assert not cells & {"easy", "medium", "hard", "not started", "attempted", "solved"}, cells
    _absent(listed.stdout, "progress", "exercises solved")
    assert "1/" in listed.stdout  # the progress line, layer_norm solved

    submitted = signed_up.run("submit", "gelu.py", "--lang", "zh", "--table")
    assert submitted.returncode == 1, submitted.stderr
    _absent(submitted.stdout, "ERROR", "failing checks", "max abs err")
    assert submitted.stdout.startswith("gelu："), submitted.stdout
