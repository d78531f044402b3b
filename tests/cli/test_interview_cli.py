"""``addnorm interview``: a phone screen sat from the terminal, start to report."""

from __future__ import annotations

import json

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
