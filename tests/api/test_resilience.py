"""Nothing is lost: a submission is on record before it is graded, and a grader that dies
mid-way leaves the row saying so while the service recovers and keeps answering."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

import httpx

from tests.support import REPO, Server

SOLUTION = (REPO / "solutions" / "layer_norm.py").read_text()
SPIN = (
    "import torch\nfrom torch import nn\n"
    "class LayerNorm(nn.Module):\n    pass\n"
    "while True:\n    pass\n"
)


def zygote_pids(server: Server) -> list[int]:
    """The grader processes (zygote and slot servers) below this test's server only."""
    out = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
    rows = [line.split(None, 2) for line in out.splitlines()[1:]]
    below, grew = {server.process.pid}, True
    while grew:
        grew = False
        for pid, ppid, _ in (r for r in rows if len(r) == 3):
            if int(ppid) in below and int(pid) not in below:
                below.add(int(pid))
                grew = True
    return [
        int(r[0])
        for r in rows
        if len(r) == 3 and int(r[0]) in below and "api.grading.zygote" in r[2]
    ]


def submit_in_background(
    api: httpx.Client, code: str
) -> tuple[threading.Thread, list[httpx.Response]]:
    answers: list[httpx.Response] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            api.post("/exercises/layer_norm/submissions", json={"code": code})
        )
    )
    thread.start()
    return thread, answers


def test_submission_is_recorded_before_grading_finishes(api: httpx.Client, server: Server) -> None:
    thread, answers = submit_in_background(api, SPIN)
    try:
        deadline = time.monotonic() + 4
        seen: list[dict[str, object]] = []
        while time.monotonic() < deadline and not seen:
            with server.client(api.headers["authorization"].split()[1]) as other:
                seen = [s for s in other.get("/submissions").json() if s["state"] == "grading"]
            time.sleep(0.05)
        assert seen, "the submission was not on record while it was being graded"
    finally:
        thread.join()
    assert answers[0].json()["verdict"] == "timeout"


def test_grader_dying_mid_grading_is_recorded_and_the_service_recovers(
    api: httpx.Client, server: Server
) -> None:
    restarts_before = httpx.get(f"{server.url}/health").json()["sandbox"]["restarts"]
    thread, answers = submit_in_background(api, SPIN)
    time.sleep(1.0)
    victims = zygote_pids(server)
    assert victims, "no grader processes found under the server"
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    thread.join()
    r = answers[0]
    assert r.status_code == 503, r.text
    body = r.json()
    assert "resubmit" in body["detail"]
    row = api.get(f"/submissions/{body['id']}").json()
    assert row["state"] == "grader_failed" and row["verdict"] is None
    assert "not graded" in row["message"]
    after = api.post("/exercises/layer_norm/submissions", json={"code": SOLUTION}).json()
    assert after["verdict"] == "passed", after["message"]
    health = httpx.get(f"{server.url}/health").json()
    assert health["status"] == "ok" and health["sandbox"]["restarts"] == restarts_before + 1


def test_grader_dying_while_idle_costs_the_next_learner_nothing(
    api: httpx.Client, server: Server
) -> None:
    victims = zygote_pids(server)
    assert victims, "no grader processes found under the server"
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    r = api.post("/exercises/layer_norm/submissions", json={"code": SOLUTION})
    assert r.status_code == 201, r.text
    assert r.json()["verdict"] == "passed", r.json()["message"]
