"""``addnorm interview``, item by item, as a reviewer met it sitting interviews from the terminal:
the length asked for, code-reading questions, exercise starters, the clock per item, the
explanation, the commands each kind of item takes, the self-rating, an ended interview's items,
answers typed the Chinese way, and a Chinese interview in Chinese throughout."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from addnorm_client.cli.workfile import starter_file
from tests.cli.conftest import Learner, one_line_error
from tests.support import Server

CHOICE_TYPES = ("single_choice", "multiple_select", "code_reading")


def _started(learner: Learner, *args: str) -> dict[str, Any]:
    r = learner.run("interview", "start", *args, "--json")
    assert r.returncode == 0, r.stderr
    started: dict[str, Any] = json.loads(r.stdout)
    return started


def _shown(learner: Learner, number: int) -> dict[str, Any]:
    r = learner.run("interview", "show", str(number), "--json")
    assert r.returncode == 0, r.stderr
    shown: dict[str, Any] = json.loads(r.stdout)
    return shown


def _spent(learner: Learner, number: int, position: int) -> float:
    item = next(i for i in _shown(learner, number)["items"] if i["position"] == position)
    return float(item["time_spent_seconds"])


def _of_kind(iv: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [i for i in iv["items"] if i["kind"] == kind]


def _of_type(iv: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(i for i in iv["items"] if (i.get("question") or {}).get("type") == kind)


def _round_with(
    server: Server, learner: Learner, types: set[str], lang: str = "en"
) -> dict[str, Any]:
    """A concepts round holding a question of each of ``types``: 30 minutes (12 questions), all
    on layer_norm, whose 24 questions hold every type. The server draws them at random, so a
    round that misses one (about 1 in 10) is finished and another started. Started over HTTP
    with the learner's own token: the CLI has no option for the topics."""
    token = next(iter(json.loads(learner.config.read_text())["tokens"].values()))
    body = {"preset": "concepts", "minutes": 30, "topics": ["layer_norm"], "lang": lang}
    with server.client(token) as api:
        for _ in range(8):
            r = api.post("/interviews", json=body)
            assert r.status_code == 201, r.text
            iv: dict[str, Any] = r.json()
            if types <= {(i.get("question") or {}).get("type") for i in iv["items"]}:
                return iv
            api.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})
    raise AssertionError(f"eight rounds and none held {types}")


def test_minutes_out_of_range_are_refused_in_one_line(signed_up: Learner) -> None:
    """NaN and infinity cannot be sent as JSON, and 0 or less is no length: refused before
    anything is sent, naming the range the server takes, which the help states too."""
    for minutes in ("nan", "inf", "0", "-5"):
        line = one_line_error(
            signed_up.run("interview", "start", "--preset", "concepts", f"--minutes={minutes}")
        )
        assert "--minutes" in line and "10" in line and "180" in line, line
        assert "greater than 0" not in line, line
    zh = one_line_error(signed_up.run("interview", "start", "--lang", "zh", "--minutes=nan"))
    assert "10" in zh and "180" in zh and "between" not in zh, zh
    helped = signed_up.run("interview", "start", "--help")
    assert helped.returncode == 0 and "10 to 180" in helped.stdout, helped.stdout
    # Nothing was started: a concepts round of the right length starts now.
    assert _started(signed_up, "--preset", "concepts", "--minutes", "10")["minutes"] == 10


def test_a_code_reading_question_shows_its_code(signed_up: Learner, server: Server) -> None:
    """The code is the question: `show` lists it under the item with the choices, and `open`
    prints it with the prompt and the choices."""
    iv = _round_with(server, signed_up, {"code_reading"})
    item = _of_type(iv, "code_reading")
    question = item["question"]
    code = [line.rstrip() for line in question["code"].splitlines() if line.strip()]
    choices = [f"{c['index']}) {c['text']}" for c in question["choices"]]
    assert code and choices
    shown = signed_up.run("interview", "show", str(iv["id"]))
    assert shown.returncode == 0, shown.stderr
    opened = signed_up.run("interview", "open", str(iv["id"]), str(item["position"]))
    assert opened.returncode == 0, opened.stderr
    for printed in (shown.stdout, opened.stdout):
        missing = [line for line in code + choices if line not in printed]
        assert not missing, (missing, printed)
    assert question["prompt"] in opened.stdout
    assert f"addnorm interview answer {iv['id']} {item['position']}" in opened.stdout


def test_opening_an_exercise_writes_its_starter_and_never_overwrites(signed_up: Learner) -> None:
    """`addnorm start` is paused during the interview: opening the exercise writes its starter
    to SLUG.py here, says how to submit it, and keeps a file that is already there."""
    iv = _started(signed_up, "--preset", "phone_screen")
    (ex,) = _of_kind(iv, "exercise")
    slug, at = ex["id"], str(ex["position"])
    path = signed_up.home / f"{slug}.py"
    assert not path.exists()
    opened = signed_up.run("interview", "open", str(iv["id"]), at)
    assert opened.returncode == 0, opened.stderr
    assert path.read_text() == starter_file(slug, ex["starter"])
    assert f"wrote the starter to {slug}.py" in opened.stdout
    assert f"addnorm interview submit {iv['id']} {at} {slug}.py" in opened.stdout
    # The learner's work is never overwritten, opened again or not.
    path.write_text("# my work\n")
    again = signed_up.run("interview", "open", str(iv["id"]), at)
    assert again.returncode == 0, again.stderr
    assert path.read_text() == "# my work\n"
    assert f"{slug}.py already exists" in again.stdout
    assert "wrote the starter" not in again.stdout
    sent = signed_up.run("interview", "submit", str(iv["id"]), at, f"{slug}.py")
    assert sent.returncode == 0 and "received" in sent.stdout, sent.stderr
    assert f"addnorm interview leave {iv['id']} {at}" in sent.stdout


def test_answers_stop_their_clock_and_leave_stops_it(signed_up: Learner) -> None:
    """A question takes one answer, so answering it (or the explain item) stops its clock;
    `leave` stops an open item's clock; a submission leaves it running (it may be repeated)."""
    iv = _started(signed_up, "--preset", "onsite")
    number = iv["id"]
    question = _of_kind(iv, "question")[0]["position"]
    exercise = _of_kind(iv, "exercise")[0]["position"]
    explain = _of_kind(iv, "explain")[0]["position"]

    def still(position: int) -> None:
        before = _spent(signed_up, number, position)
        time.sleep(2.0)
        assert _spent(signed_up, number, position) == before, position

    assert signed_up.run("interview", "open", str(number), str(question)).returncode == 0
    # "0" fits every question type: a choice, a list of one, false, a number.
    answered = signed_up.run("interview", "answer", str(number), str(question), "0")
    assert answered.returncode == 0, answered.stderr
    still(question)
    assert "recorded" in answered.stdout and "takes one answer" in answered.stdout
    assert signed_up.run("interview", "open", str(number), str(explain)).returncode == 0
    explained = signed_up.run("interview", "explain", str(number), str(explain), "Because.")
    assert explained.returncode == 0 and "takes one answer" in explained.stdout, explained.stderr
    still(explain)
    assert signed_up.run("interview", "open", str(number), str(exercise)).returncode == 0
    left = signed_up.run("interview", "leave", str(number), str(exercise))
    assert left.returncode == 0, left.stderr
    assert f"item {exercise} (exercise): clock stopped at" in left.stdout
    still(exercise)


def test_explain_reads_standard_input_and_refuses_nothing(signed_up: Learner) -> None:
    """ "-" reads the explanation from standard input; an empty or blank one is refused in one
    line, and the item can still be answered after."""
    iv = _started(signed_up, "--preset", "onsite")
    number, at = str(iv["id"]), str(_of_kind(iv, "explain")[0]["position"])
    for text, given in (("", None), ("  \n\t", None), ("-", ""), ("-", " \n \n")):
        line = one_line_error(signed_up.run("interview", "explain", number, at, text, input=given))
        assert "empty" in line, (text, given, line)
    written = "Mean and variance over the last dim.\n- eps inside the square root."
    done = signed_up.run("interview", "explain", number, at, "-", input=written + "\n")
    assert done.returncode == 0 and "recorded" in done.stdout, done.stderr
    finished = signed_up.run("interview", "finish", number, "--yes", "--json")
    assert json.loads(finished.stdout)["report"]["items"][-1]["explanation"] == written


def test_each_kind_of_item_names_its_own_command(signed_up: Learner) -> None:
    iv = _started(signed_up, "--preset", "onsite")
    number = iv["id"]
    question = _of_kind(iv, "question")[0]["position"]
    exercise = _of_kind(iv, "exercise")[0]["position"]
    explain = _of_kind(iv, "explain")[0]["position"]
    line = one_line_error(signed_up.run("interview", "answer", str(number), str(exercise), "0"))
    assert f"`addnorm interview submit {number} {exercise} FILE`" in line, line
    line = one_line_error(signed_up.run("interview", "answer", str(number), str(explain), "0"))
    assert f"`addnorm interview explain {number} {explain} TEXT`" in line, line
    line = one_line_error(signed_up.run("interview", "explain", str(number), str(question), "x"))
    assert f"`addnorm interview answer {number} {question} ANSWER`" in line, line
    (signed_up.home / "code.py").write_text("x = 1\n")
    line = one_line_error(
        signed_up.run("interview", "submit", str(number), str(question), "code.py")
    )
    assert f"`addnorm interview answer {number} {question} ANSWER`" in line, line
    # Nothing was recorded on the way.
    assert all(i["status"] == "open" for i in _shown(signed_up, number)["items"])


def test_rate_takes_all_four_points(signed_up: Learner) -> None:
    iv = _started(signed_up, "--preset", "onsite")
    number = str(iv["id"])
    assert signed_up.run("interview", "finish", number, "--yes").returncode == 0
    line = one_line_error(signed_up.run("interview", "rate", number, "--shapes", "2"))
    assert "--numerical-stability, --cost, --training-vs-inference" in line, line
    assert "--shapes" not in line, line
    assert _shown(signed_up, iv["id"])["report"]["self_rating"] is None
    every = ("--shapes", "2", "--numerical-stability", "0", "--cost", "1")
    rated = signed_up.run("interview", "rate", number, *every, "--training-vs-inference", "2")
    assert rated.returncode == 0, rated.stderr
    points = _shown(signed_up, iv["id"])["report"]["self_rating"]["points"]
    assert points == {"shapes": 2, "numerical_stability": 0, "cost": 1, "training_vs_inference": 2}


_ITEM_LINE = re.compile(r"^\s+(\d+)\. (\S+)\s+(\S+)\s+\d+:\d\d/\d+:\d\d")


def test_an_ended_interview_shows_results_and_the_explanation(signed_up: Learner) -> None:
    """Once it has ended, the items show the report's result, not "open"; the report shows
    what the learner wrote for the explain item."""
    iv = _started(signed_up, "--preset", "onsite")
    number, at = str(iv["id"]), str(_of_kind(iv, "explain")[0]["position"])
    written = "Row-wise statistics, biased variance.\nTwo passes over the input, O(n)."
    assert signed_up.run("interview", "explain", number, at, written).returncode == 0
    assert signed_up.run("interview", "finish", number, "--yes").returncode == 0
    shown = signed_up.run("interview", "show", number)
    assert shown.returncode == 0, shown.stderr
    rows = [m.groups() for m in map(_ITEM_LINE.match, shown.stdout.splitlines()) if m]
    statuses = [status for _, _, status in rows]
    assert len(rows) == 2 * len(iv["items"]), shown.stdout  # the items, then the report's
    assert "open" not in statuses, shown.stdout
    assert statuses[: len(iv["items"])] == statuses[len(iv["items"]) :], shown.stdout
    assert statuses.count("answered") == 2 and "not_answered" in statuses, shown.stdout
    for line in written.splitlines():
        assert line in shown.stdout, shown.stdout


def test_answers_typed_the_chinese_way(signed_up: Learner, server: Server) -> None:
    """ "0、2" is a list of choices as a Chinese keyboard types it; an empty answer to a
    single-choice question asks for one choice number."""
    iv = _round_with(server, signed_up, {"multiple_select", "single_choice"})
    number = str(iv["id"])
    several = _of_type(iv, "multiple_select")["position"]
    one = _of_type(iv, "single_choice")["position"]
    done = signed_up.run("interview", "answer", number, str(several), "0、2")
    assert done.returncode == 0 and "recorded" in done.stdout, done.stderr
    line = one_line_error(signed_up.run("interview", "answer", number, str(one), ""))
    assert line.endswith("type one choice number"), line
    finished = signed_up.run("interview", "finish", number, "--yes", "--json")
    report = json.loads(finished.stdout)["report"]
    assert next(i for i in report["items"] if i["position"] == several)["answer"] == [0, 2]


def test_a_chinese_interview_speaks_chinese(signed_up: Learner, server: Server) -> None:
    """Started in Chinese, the CLI's own words are Chinese too: opening an item, a refusal of
    the learner's answer, an answer recorded, leaving, finishing with items unanswered."""
    iv = _round_with(server, signed_up, {"single_choice"}, lang="zh")
    number = str(iv["id"])
    item = _of_type(iv, "single_choice")
    at, last = item["position"], len(item["question"]["choices"]) - 1
    opened = signed_up.run("interview", "open", number, str(at))
    assert opened.returncode == 0, opened.stderr
    assert f"第 {at} 题（概念题）：已用 0:0" in opened.stdout, opened.stdout
    assert f"item {at}" not in opened.stdout and "answer with" not in opened.stdout
    wrong = one_line_error(signed_up.run("interview", "answer", number, str(at), "9"))
    assert wrong == f"addnorm: 选项编号是 0..{last}", wrong
    done = signed_up.run("interview", "answer", number, str(at), "0")
    assert done.returncode == 0 and f"第 {at} 题：已记录" in done.stdout, done.stdout
    assert "recorded" not in done.stdout
    left = signed_up.run("interview", "leave", number, str(at))
    assert left.returncode == 0 and "计时已停止" in left.stdout, left.stdout
    refused = one_line_error(signed_up.run("interview", "finish", number))
    unanswered = [i["position"] for i in iv["items"] if i["position"] != at]
    assert f"第 {'、'.join(map(str, unanswered))} 题还未作答" in refused, refused
    assert "unanswered" not in refused and "--yes" in refused
    shown = signed_up.run("interview", "show", number)
    assert shown.returncode == 0 and "已作答" in shown.stdout, shown.stdout


def test_an_interview_submission_over_the_limit_is_refused_unsent(signed_up: Learner) -> None:
    """As for `addnorm submit`: the code limit named, nothing sent, no attempt used."""
    iv = _started(signed_up, "--preset", "phone_screen")
    (ex,) = _of_kind(iv, "exercise")
    big = signed_up.home / "big.py"
    big.write_text("#" * (100 * 1024) + "\n")
    line = one_line_error(
        signed_up.run("interview", "submit", str(iv["id"]), str(ex["position"]), "big.py")
    )
    assert "64 KiB" in line and "big.py" in line, line
    item = next(i for i in _shown(signed_up, iv["id"])["items"] if i["position"] == ex["position"])
    assert item["attempts"] == 0, item
