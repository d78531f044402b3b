"""Hostile submissions through the whole path: HTTP -> grader pool -> zygote -> locked-down child
-> verdict, against the session's real server (``tests/conftest.py``) in the profile the run asks
for (``ADDNORM_SANDBOX``, strict by default).

For every attack in ``attacks.ATTACKS``:

1. the verdict is not ``passed`` and is one of the attack's expected verdicts;
2. nothing leaked: the server's environment canary, every ``token_hash`` in the database, the
   schema, the grader's source, the worked solution, the server log and (as root) /etc/shadow
   appear nowhere in the response; the response, stdout and stderr are size-capped;
3. no side effect: no file created or changed, no connection or datagram reached the test's
   listeners, no process or thread of the attack is running, no user was created through the
   API's own port, nothing was mounted;
4. the server still answers correctly: it is alive, the zygote was not restarted, and the worked
   solution still passes (on every slot after attacks on shared state or on the parent).

The checks are shown to be able to fail: ``test_checkers_see_real_events`` feeds them real
events, and ``test_control_attacks_work_without_the_sandbox`` runs a subset of the attacks
against a server in the ``insecure`` profile, where they must visibly succeed.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.hostile.attacks import ATTACKS, BENIGN, Attack, prelude
from tests.hostile.conftest import OBSERVED, drop_ctx, make_ctx, submit_attack
from tests.hostile.probes import (
    OUTPUT_CAP,
    RESPONSE_CAP,
    SOLUTION,
    Ctx,
    leaks,
    needles,
    processes_tagged,
    side_effects,
)
from tests.support import Server, start_server, stop_server

pytestmark = pytest.mark.hostile

PROFILE = os.environ.get("ADDNORM_SANDBOX", "strict")
TIME_LIMIT = float(os.environ.get("ADDNORM_TIME_LIMIT_SECONDS", "5"))
# The slot server's deadline plus reaping, HTTP and a loaded CI machine.
TIMEOUT_SLACK = 4.0
SUBMIT = "/exercises/layer_norm/submissions"


def _sandbox(server: Server) -> dict[str, Any]:
    r = httpx.get(f"{server.url}/health", timeout=30)
    r.raise_for_status()
    return dict(r.json()["sandbox"])


def _params(attacks: list[Attack]) -> list[Any]:
    return [
        pytest.param(
            a,
            id=a.name,
            marks=[pytest.mark.xfail(strict=True, reason=a.xfail)] if a.xfail else [],
        )
        for a in attacks
    ]


def _solution_passes(api: httpx.Client) -> str | None:
    r = api.post(SUBMIT, json={"code": SOLUTION})
    if r.status_code != 201:
        return f"the solution got HTTP {r.status_code}: {r.text[:300]}"
    body = r.json()
    if body["verdict"] != "passed":
        return f"the solution got {body['verdict']}: {body['message'][:300]}"
    return None


def _response_problems(
    attack: Attack, r: httpx.Response, elapsed: float, secrets: dict[str, str]
) -> list[str]:
    """Checks 1 and 2 (and the size caps) on one response."""
    if r.status_code != 201:
        return [f"HTTP {r.status_code} instead of a verdict: {r.text[:300]}"]
    body = r.json()
    problems = []
    if body["verdict"] == "passed" or body["verdict"] not in attack.verdicts:
        problems.append(
            f"verdict {body['verdict']!r} not in {sorted(attack.verdicts)}: {body['message'][:300]}"
        )
    elif not re.search(attack.reason, body["message"]):
        problems.append(f"stopped, not as expected ({attack.reason!r}): {body['message'][:500]}")
    found = leaks(r.text, body, secrets)
    if found:
        problems.append(f"leaked: {found}")
    if len(r.content) >= RESPONSE_CAP:
        problems.append(f"response of {len(r.content)} bytes (cap {RESPONSE_CAP})")
    for key in ("stdout", "stderr"):
        if len(body.get(key) or "") >= OUTPUT_CAP:
            problems.append(f"{key} of {len(body[key])} characters (cap {OUTPUT_CAP})")
    if body["verdict"] == "timeout" and elapsed > TIME_LIMIT + TIMEOUT_SLACK:
        problems.append(f"the timeout verdict took {elapsed:.1f} s (limit {TIME_LIMIT:g} s)")
    return problems


# --- the attacks --------------------------------------------------------------------------------


@pytest.mark.parametrize("attack", _params(ATTACKS))
def test_attack(attack: Attack, server: Server, api: httpx.Client, ctx: Ctx) -> None:
    if PROFILE == "insecure":
        pytest.skip("the insecure profile defends nothing but resource limits (SECURITY.md)")
    sandbox = _sandbox(server)
    inactive = [n for n in attack.needs if not sandbox["layers"][n]["active"]]
    if inactive:
        pytest.skip(f"needs the {', '.join(inactive)} layer, inactive here (see /health)")
    code = prelude(ctx) + attack.code
    before = needles(ctx)
    assert not leaks(code, None, before), "the attack's own code holds a secret"

    r, elapsed = submit_attack(
        api, SUBMIT, code, profile=PROFILE, name=attack.name, verdicts=set(attack.verdicts)
    )
    problems = _response_problems(attack, r, elapsed, needles(ctx))
    effects = side_effects(ctx)
    if effects:
        problems.append(f"side effects: {effects}")
    if server.process.poll() is not None:
        problems.append(f"the server exited with {server.process.returncode}")
    else:
        for _ in range(1 + (sandbox["slots"] if attack.every_slot else 0)):
            failed = _solution_passes(api)
            if failed:
                problems.append(f"afterwards {failed}")
                break
        if _sandbox(server)["restarts"] != sandbox["restarts"]:
            problems.append("the grader zygote was restarted: a slot died or hung")
    assert not problems, "\n".join(problems)
    if attack.extra is not None:
        attack.extra(r.json())


@pytest.mark.parametrize("name", sorted(BENIGN))
def test_benign_code_still_passes(name: str, server: Server, api: httpx.Client, ctx: Ctx) -> None:
    """What the sandbox must not break: without this, "not passed" could mean "broken"."""
    r = api.post(SUBMIT, json={"code": prelude(ctx) + BENIGN[name]})
    assert r.status_code == 201, r.text[:300]
    body = r.json()
    assert body["verdict"] == "passed", body["message"]
    if name == "small_print":
        assert "benign-output True" in body["stdout"], body["stdout"][:300]
    assert not leaks(r.text, body, needles(ctx))


def test_profile_in_force(server: Server) -> None:
    """The suite tests the profile the run asked for, with the layers SECURITY.md promises."""
    sandbox = _sandbox(server)
    assert sandbox["profile"] == PROFILE
    active = {n for n, layer in sandbox["layers"].items() if layer["active"]}
    base = {"setsid", "close_fds", "clear_env", "rlimits"}
    required = {
        "strict": base | {"no_new_privs", "landlock", "capabilities", "seccomp"},
        "standard": base | {"no_new_privs", "capabilities", "seccomp"},
        "insecure": base,
    }[PROFILE]
    assert required <= active, required - active
    if PROFILE == "strict":
        assert ("uid" in active) == (os.geteuid() == 0)


# --- attacks that need more than one submission or the server's death -------------------------

# Walks up the stack from the submission's module into the slot server's frames and prints
# every bytes object it finds there that is not its own job: the previous job's result, say.
STACK_WALK = """
import sys
from torch import nn


class LayerNorm(nn.Module):
    pass


f = sys._getframe()
while f is not None:
    for name, value in list(f.f_locals.items()):
        if isinstance(value, (bytes, bytearray)) and b'"stdout"' in value:
            print(f.f_code.co_name, name, bytes(value)[:3000])
    f = f.f_back
raise RuntimeError("walked the stack")
"""


def test_no_data_of_the_previous_submission_on_the_slot(server: Server, ctx: Ctx) -> None:
    secret = f"private-output-of-another-learner-{ctx.nonce}"
    # The worked solution, printing the secret first thing in forward (whatever its wording).
    head, sep, rest = SOLUTION.partition("    def forward(")
    signature, newline, body = rest.partition("\n")
    victim = f"{head}{sep}{signature}{newline}        print({secret!r})\n{body}"
    assert sep and newline and secret in victim
    with server.client(server.new_learner("victim")) as v:
        r = v.post(SUBMIT, json={"code": victim})
    assert r.status_code == 201 and secret in r.json()["stdout"], r.text[:300]
    slots = int(_sandbox(server)["slots"])
    with server.client(server.new_learner("attacker")) as a:
        seen = []
        for _ in range(slots):  # one of them runs on the slot that graded the victim
            r = a.post(SUBMIT, json={"code": STACK_WALK})
            assert r.status_code == 201, r.text[:300]
            assert r.json()["verdict"] == "error", r.json()["message"]
            seen.append(r.text)
    assert not [t for t in seen if secret in t], "another learner's output leaked"


def _ppid_and_state(pid: int) -> tuple[int, str] | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0]


def _alive(pid: int) -> bool:
    st = _ppid_and_state(pid)
    return st is not None and st[1] not in ("Z", "X")


def test_zygote_does_not_outlive_an_api_killed_mid_grading(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    srv = start_server(tmp_path_factory.mktemp("killed"), ADDNORM_SUBMISSIONS_PER_MINUTE="1000")
    zygotes = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (_ppid_and_state(int(entry.name)) or (0, ""))[0] == (
            srv.process.pid
        ):
            with contextlib.suppress(OSError):
                if b"api.grading.zygote" in (entry / "cmdline").read_bytes():
                    zygotes.append(int(entry.name))
    assert len(zygotes) == 1, zygotes
    zygote = zygotes[0]
    try:
        slow = "import time\nfrom torch import nn\ntime.sleep(1.5)\nclass LayerNorm(nn.Module):\n"
        with srv.client(srv.new_learner()) as c, contextlib.suppress(httpx.TimeoutException):
            c.post(SUBMIT, json={"code": slow + "    pass\n"}, timeout=0.5)
        srv.process.kill()  # e.g. the OOM killer, mid-grading
        srv.process.wait()
        deadline = time.monotonic() + 10
        while _alive(zygote) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(zygote), f"the zygote {zygote} outlived its API by 10 s"
    finally:
        if _alive(zygote):
            os.killpg(zygote, signal.SIGKILL)  # its own session: the zygote and its slots


# --- the checks can fail ------------------------------------------------------------------------


def test_checkers_see_real_events(server: Server, ctx: Ctx) -> None:
    """Each checker, fed the event it looks for, reports it (and reports nothing before)."""
    assert side_effects(ctx) == {}
    secrets = needles(ctx)
    for what, needle in secrets.items():
        body = {"verdict": "error", "stdout": f"...{needle}...", "message": ""}
        assert leaks("{}", body, secrets) == [what]

    with open(ctx.targets["tmp"], "w") as f:
        f.write("x")
    ctx.victim.write_text("changed")
    with socket.create_connection(("127.0.0.1", ctx.listener.tcp_port)):
        pass
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"x", ("127.0.0.1", ctx.listener.udp_port))
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(ctx.listener.unix_path))
    sleeper = subprocess.Popen(["sleep", ctx.sleep_arg])
    with server.client() as c:
        c.post("/users", json={"name": ctx.nonce}).raise_for_status()
    try:
        found = side_effects(ctx)
        assert set(found) == {"files", "victim", "network", "processes", "api_user"}, found
        assert len(found["network"]) == 3, found["network"]
        assert [pid for pid, _ in processes_tagged(ctx)] == [sleeper.pid]
    finally:
        sleeper.kill()
        sleeper.wait()
    assert processes_tagged(ctx) == []
    if os.geteuid() == 0:
        subprocess.run(["mount", "-t", "tmpfs", "none", str(ctx.mount_dir)], check=True)
        try:
            assert "mount" in side_effects(ctx)
        finally:
            subprocess.run(["umount", str(ctx.mount_dir)], check=True)


@pytest.fixture(scope="module")
def insecure_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = start_server(
        tmp_path_factory.mktemp("insecure"),
        ADDNORM_SANDBOX="insecure",
        ADDNORM_ENVIRONMENT="development",  # production refuses the insecure profile
        ADDNORM_SUBMISSIONS_PER_MINUTE="1000",
    )
    yield srv
    stop_server(srv)


@pytest.mark.parametrize("attack", _params([a for a in ATTACKS if a.control]))
def test_control_attacks_work_without_the_sandbox(attack: Attack, insecure_server: Server) -> None:
    """Under ``insecure`` (process hygiene and rlimits only) the attack must visibly succeed:
    proof that the attack is real and that the checks above would see it get through."""
    token = insecure_server.new_learner()
    ctx = make_ctx(insecure_server)
    try:
        with insecure_server.client(token) as api:
            r = api.post(SUBMIT, json={"code": prelude(ctx) + attack.code})
        assert r.status_code == 201, r.text[:300]
        body = r.json()
        OBSERVED.append(("insecure", attack.name, body["verdict"], 0.0))
        leaked = leaks(r.text, body, needles(ctx))
        effects = side_effects(ctx)
        assert leaked or effects or body["verdict"] == "passed", (
            f"nothing happened without the sandbox: {body['verdict']}: {body['message'][:300]}"
        )
        missing = [e for e in attack.effects if e not in effects]
        assert not missing, f"expected side effects {missing} did not happen: {effects}"
        unseen = [k for k in attack.leaks if not any(w.startswith(k) for w in leaked)]
        assert not unseen, f"expected leaks {unseen} did not happen: {leaked}"
    finally:
        drop_ctx(ctx)
