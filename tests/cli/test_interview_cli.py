"""``addnorm interview``: a phone screen sat from the terminal, start to report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.content.interview_rubric import explanation_words
from api.content.questions import Question, QuestionBank, load_question_bank
from tests.cli.conftest import Learner, one_line_error
from tests.support import REPO


def test_a_phone_screen_from_the_cli(signed_up: Learner) -> None:
    r = signed_up.run("interview", "start", "--preset", "phone_screen", "--json")
    assert r.returncode == 0, r.stderr
    iv = json.loads(r.stdout)
    assert [i["kind"] for i in iv["items"]] == ["exercise", "follow_up", "follow_up"]
    ex = iv["items"][0]
    shown = signed_up.run("interview", "show", str(iv["id"]))
    assert shown.returncode == 0 and "phone_screen" in shown.stdout and "running" in shown.stdout
    # Practice waits meanwhile: the learner's status command points to the interview.
    held = signed_up.run("status")
    assert held.returncode == 2 and f"mock interview {iv['id']}" in held.stderr
    assert signed_up.run("interview", "open", str(iv["id"]), "1").returncode == 0
    solution = signed_up.home / "solution.py"
    solution.write_text((REPO / "solutions" / f"{ex['id']}.py").read_text())
    sub = signed_up.run("interview", "submit", str(iv["id"]), "1", str(solution))
    assert sub.returncode == 0, sub.stderr
    assert "received (2 submissions left)" in sub.stdout
    answered = signed_up.run("interview", "answer", str(iv["id"]), "2", "0")
    assert answered.returncode in (0, 2), answered.stderr  # "0" fits choices and numbers alike
    # Item 3 unanswered: finishing asks for --yes.
    one_line_error(signed_up.run("interview", "finish", str(iv["id"])))
    done = signed_up.run("interview", "finish", str(iv["id"]), "--yes", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)["report"]
    assert (
        report["items"][0]["result"] == "passed" and report["items"][2]["result"] == "not_answered"
    )
    text = signed_up.run("interview", "show", str(iv["id"]), "--lang", "zh")
    assert text.returncode == 0 and "正确性" in text.stdout and "评分" not in text.stderr


@pytest.fixture(scope="module")
def bank() -> QuestionBank:
    return load_question_bank(Path(REPO) / "exercises" / "questions")


EXPLANATION_ZH = (
    "均值和方差只在最后一维上计算，每一行单独归一化；方差用有偏估计，eps 加在方差上再开方，"
    "所以常数行也不会除以零。开销是对输入扫两遍，时间 O(n)，除了统计量不占额外内存；"
    "没有滑动统计量，所以训练和推理时行为一样。"
)


def _cli_answer(question: Question) -> str:
    """The right answer as `addnorm interview answer` takes it ("1", "0,2", "true", 0.5)."""
    key = question.answer
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, list):
        return ",".join(str(k) for k in key)
    return str(key)


def test_an_onsite_round_from_the_cli_in_chinese(signed_up: Learner, bank: QuestionBank) -> None:
    """The 45-minute on-site round, started in Chinese and sat entirely from the terminal:
    every question answered, both exercises submitted, the explanation written in Chinese
    (counted in characters, not as one space-less word), the report read, the self-rating
    given, and the same report shown in English."""
    r = signed_up.run("interview", "start", "--preset", "onsite", "--lang", "zh", "--json")
    assert r.returncode == 0, r.stderr
    iv = json.loads(r.stdout)
    kinds = [i["kind"] for i in iv["items"]]
    assert kinds.count("exercise") == 2 and kinds[-1] == "explain", kinds
    number = str(iv["id"])
    for it in iv["items"]:
        at = str(it["position"])
        opened = signed_up.run("interview", "open", number, at)
        assert opened.returncode == 0, opened.stderr
        # The CLI's own words are the interview's language: "第 3 题（编程题）：已用 0:00，...".
        assert opened.stdout.startswith(f"第 {at} 题（") and f"item {at}" not in opened.stdout
        if it["kind"] in ("question", "follow_up"):
            done = signed_up.run("interview", "answer", number, at, _cli_answer(bank.get(it["id"])))
        elif it["kind"] == "exercise":
            code = signed_up.home / f"{it['id']}.py"
            code.write_text((REPO / "solutions" / f"{it['id']}.py").read_text())
            done = signed_up.run("interview", "submit", number, at, str(code))
            assert "已收到" in done.stdout and "通过" not in done.stdout, done.stdout
        else:
            done = signed_up.run("interview", "explain", number, at, EXPLANATION_ZH)
        assert done.returncode == 0, (it, done.stdout, done.stderr)
        assert "received" not in done.stdout and "recorded" not in done.stdout, done.stdout
    # All answered: no --yes needed.
    finished = signed_up.run("interview", "finish", number, "--json")
    assert finished.returncode == 0, finished.stderr
    report = json.loads(finished.stdout)["report"]
    assert all(i["result"] in ("correct", "passed", "answered") for i in report["items"]), [
        (i["kind"], i["result"]) for i in report["items"]
    ]
    explain = report["items"][-1]
    assert explain["explanation"] == EXPLANATION_ZH and len(explain["model_answer"]) == 4
    communication = next(d for d in report["rubric"] if d["dimension"] == "communication")
    words = explanation_words(EXPLANATION_ZH)
    assert words > 80 and f"讲解代码用了 {words} 个字词" in communication["evidence"]
    rated = signed_up.run(
        "interview",
        "rate",
        number,
        "--shapes",
        "2",
        "--numerical-stability",
        "2",
        "--cost",
        "1",
        "--training-vs-inference",
        "2",
    )
    assert rated.returncode == 0, rated.stderr
    assert "对照参考答案自评：7 / 8" in rated.stdout
    # The terminal's own words follow the report's language too.
    assert "得分" in rated.stdout and "score" not in rated.stdout
    assert "通过" in rated.stdout and " passed " not in rated.stdout
    # Read again in English: the same report, every word in the other language.
    en = signed_up.run("interview", "show", number, "--lang", "en")
    assert en.returncode == 0, en.stderr
    assert "self-rating against the model answer: 7 of 8" in en.stdout
    assert f"explained the code in {words} words" in en.stdout
    assert "Correctness" in en.stdout and "正确性" not in en.stdout
    assert "score" in en.stdout and "passed" in en.stdout and "得分" not in en.stdout


# What parse_answer says when "-0.5" does not fit a question's type: the learner's own mistake,
# named. A usage error ("No such option: -0") would mean the shell's words never reached it.
_NOT_A_NUMBER_FOR = {
    "single_choice": "choice numbers are",
    "code_reading": "choice numbers are",
    "multiple_select": "choice numbers are",
    "true_false": "answer true or false",
}


def test_a_negative_number_and_a_leading_dash_reach_the_interview(
    signed_up: Learner, bank: QuestionBank
) -> None:
    """Answers are typed as shell words: "-0.5" is a number, not an option. Every question of a
    concepts round gets it: the numeric ones record it, the others refuse it in one line that
    names what they take, and the report holds exactly that. An explanation that opens with a
    dash (a list) is recorded too."""
    r = signed_up.run("interview", "start", "--preset", "concepts", "--json")
    assert r.returncode == 0, r.stderr
    iv = json.loads(r.stdout)
    number = str(iv["id"])
    asked = 0
    for it in iv["items"]:
        if it["kind"] not in ("question", "follow_up"):
            continue
        at = str(it["position"])
        assert signed_up.run("interview", "open", number, at).returncode == 0
        done = signed_up.run("interview", "answer", number, at, "-0.5")
        kind = bank.get(it["id"]).type
        if kind == "numeric":
            assert done.returncode == 0 and "recorded" in done.stdout, done.stderr
        else:
            assert _NOT_A_NUMBER_FOR[kind] in one_line_error(done), kind
        asked += 1
    assert asked >= 3, iv["items"]
    finished = signed_up.run("interview", "finish", number, "--yes", "--json")
    assert finished.returncode == 0, finished.stderr
    report = json.loads(finished.stdout)["report"]
    for item in report["items"]:
        if bank.get(item["id"]).type == "numeric":
            assert item["answer"] == -0.5 and item["result"] in ("correct", "wrong"), item
        else:
            assert item["answer"] is None and item["result"] == "not_answered", item
    # An explanation written as a list, first line a dash.
    started = signed_up.run("interview", "start", "--preset", "onsite", "--json")
    assert started.returncode == 0, started.stderr
    onsite = json.loads(started.stdout)
    number, at = str(onsite["id"]), str(onsite["items"][-1]["position"])
    assert signed_up.run("interview", "open", number, at).returncode == 0
    listed = "- mean and variance over the last dim\n- eps inside the square root"
    done = signed_up.run("interview", "explain", number, at, listed)
    assert done.returncode == 0 and "recorded" in done.stdout, done.stderr
    finished = signed_up.run("interview", "finish", number, "--yes", "--json")
    assert json.loads(finished.stdout)["report"]["items"][-1]["explanation"] == listed
