"""A lab through the learner CLI, as subprocesses: ``list`` shows it, ``start`` writes its starter
and prompt, ``check`` runs its local cases offline (the measurement, no backward check), and
``submit`` gets the server's verdict, with the lab's chart in the JSON."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import Learner, learner_env
from tests.support import REPO, free_port

SLUG = "pre_post_ln_gradients"
FOLDER = REPO / "exercises" / SLUG
STARTER = (FOLDER / "starter.py").read_text(encoding="utf-8")
SOLUTION = (REPO / "solutions" / f"{SLUG}.py").read_text(encoding="utf-8")
SWAPPED = (FOLDER / "variants" / "failed_variants_swapped.py").read_text(encoding="utf-8")


def test_list_and_start_serve_the_lab(signed_up: Learner) -> None:
    listed = signed_up.run("list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert SLUG in listed.stdout
    r = signed_up.run("start", SLUG, "--dir", "work")
    assert r.returncode == 0, r.stderr
    code = (signed_up.home / "work" / f"{SLUG}.py").read_text()
    assert code.split("\n", 1)[1] == STARTER
    prompt = (signed_up.home / "work" / f"{SLUG}.md").read_text()
    assert "def pre_post_ln_gradients(" in prompt and "Xiong et al." in prompt


def test_check_runs_the_measurement_offline(tmp_path: Path) -> None:
    offline = learner_env(tmp_path / "offline", f"http://127.0.0.1:{free_port()}")
    (offline.home / f"{SLUG}.py").write_text(STARTER)
    (offline.home / "mine.py").write_text(f"# addnorm: exercise {SLUG}\n" + SOLUTION)
    (offline.home / "swapped.py").write_text(SWAPPED.split("\n", 1)[1])

    starter = offline.run("check", f"{SLUG}.py")
    assert starter.returncode == 1
    assert "NotImplementedError" in starter.stdout and "0 of 3 local cases match" in starter.stdout

    solved = offline.run("check", "mine.py", "--json")
    assert solved.returncode == 0, solved.stdout + solved.stderr
    report = json.loads(solved.stdout)
    assert report["passed"] and report["exercise"] == SLUG and len(report["cases"]) == 3

    wrong = offline.run("check", "swapped.py", "-e", SLUG, "--json")
    assert wrong.returncode == 1
    assert not json.loads(wrong.stdout)["passed"]


def test_submit_names_the_mistake_and_carries_the_chart(signed_up: Learner) -> None:
    assert signed_up.run("start", SLUG).returncode == 0
    (signed_up.home / f"{SLUG}.py").write_text(SWAPPED)
    wrong = signed_up.run("submit", f"{SLUG}.py")
    assert wrong.returncode == 1
    assert f"{SLUG}: FAILED" in wrong.stdout and "variants_swapped" in wrong.stdout

    (signed_up.home / f"{SLUG}.py").write_text(SOLUTION)
    right = signed_up.run("submit", f"{SLUG}.py", "--json")
    assert right.returncode == 0, right.stdout + right.stderr
    answer = json.loads(right.stdout)
    assert answer["verdict"] == "passed"
    series = answer["chart"]["series"]
    assert [s["label"] for s in series] == ["Pre-LN", "Post-LN"]
    assert all(len(s["learner"]) == len(s["reference"]) == 24 for s in series)
