"""Slot servers serve many jobs: none may keep a learner's code or answer in its memory, since
the next learner's child is forked from it. Checked by reading the slot server's whole memory
(``/proc/<pid>/mem``) after a job, with the real pool, zygote and sandbox."""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.content.catalog import load_catalog
from api.grading.grader import Grader
from tests.support import REPO, in_process_grader


def _children(pid: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(proc.name))
    return found


def _memory(pid: int) -> Iterator[bytes]:
    """Every readable mapping of ``pid``, a chunk at a time (overlapping, so that no needle is
    split between two chunks)."""
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+)", line)
            if m is None or not m.group(3).startswith("r") or "[vvar" in line:
                continue
            start, end = int(m.group(1), 16), int(m.group(2), 16)
            overlap = b""
            for offset in range(start, end, 1 << 22):
                try:
                    mem.seek(offset)
                    chunk = mem.read(min(1 << 22, end - offset))
                except OSError:
                    break
                yield overlap + chunk
                overlap = chunk[-256:]


def _holds(pid: int, needles: list[bytes]) -> set[bytes]:
    return {n for chunk in _memory(pid) for n in needles if n in chunk}


@pytest.fixture(scope="module")
def grader() -> Iterator[Grader]:
    with in_process_grader(slots=1) as grader:
        yield grader


def test_a_slot_server_keeps_no_learner_data_between_jobs(grader: Grader) -> None:
    spec = load_catalog(REPO / "exercises")["layer_norm"].spec
    solution = (REPO / "solutions" / "layer_norm.py").read_text()
    nonce = secrets.token_hex(12)
    # The printed text exists only in the answer (the code spells it as two halves); the
    # comment only in the job.
    in_answer = f"answer-{nonce}".encode()
    in_job = f"job-{nonce}".encode()
    head, sep, rest = solution.partition("    def forward(")
    signature, newline, body = rest.partition("\n")
    code = (
        f"# job-{nonce}\n{head}{sep}{signature}{newline}"
        f"        print('answer-' + {nonce!r})\n{body}"
    )
    assert sep and newline
    verdict = grader.grade(code, spec)
    assert verdict.status == "passed", verdict.message
    assert in_answer.decode() in (verdict.stdout or "")

    zygote = grader.pool._proc.pid if grader.pool._proc else None
    assert zygote is not None
    slot_servers = _children(zygote)
    assert len(slot_servers) == 1, slot_servers
    server = slot_servers[0]
    # The slot server forks the next job's child once it is done with this one: then it holds
    # whatever that child inherits.
    deadline = time.monotonic() + 60
    while not _children(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _children(server), "the slot server did not fork its next child"

    # The scan itself works: the slot server's own code is found in its memory.
    assert _holds(server, [b"_serve_job"]) == {b"_serve_job"}
    assert _holds(server, [in_answer, in_job]) == set()
    assert _holds(zygote, [in_answer, in_job]) == set()

    # The same slot server grades the next job (it is not single-use any more).
    assert grader.grade(solution, spec).status == "passed"
    assert _children(zygote) == [server]


def test_a_learners_child_runs_as_batch_work_and_cannot_change_that(grader: Grader) -> None:
    """SCHED_BATCH keeps a child from preempting the service's threads (api/grading/zygote.py);
    the child sees its policy and seccomp refuses to change it back."""
    spec = load_catalog(REPO / "exercises")["layer_norm"].spec
    solution = (REPO / "solutions" / "layer_norm.py").read_text()
    head, sep, rest = solution.partition("    def forward(")
    signature, newline, body = rest.partition("\n")
    probe = (
        "        import os\n"
        "        print('policy', os.sched_getscheduler(0))\n"
        "        try:\n"
        "            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))\n"
        "            print('reset allowed')\n"
        "        except OSError as exc:\n"
        "            print('reset refused', exc.errno)\n"
    )
    assert sep and newline
    verdict = grader.grade(f"{head}{sep}{signature}{newline}{probe}{body}", spec)
    assert verdict.status == "passed", verdict.message
    assert f"policy {os.SCHED_BATCH}" in verdict.stdout
    if os.environ.get("ADDNORM_SANDBOX", "strict") == "strict":  # seccomp is one of its layers
        assert "reset refused" in verdict.stdout and "reset allowed" not in verdict.stdout
