"""docker-compose.yml and the Dockerfile, checked without a Docker engine.

CI machines have the docker client but no engine, so nothing here builds an image or runs
`docker compose up`. Instead: the compose file is validated against the Compose Specification
schema (a copy in tests/data/, see its README), its settings are checked for what the service
needs, and the api service's command is run as a plain process, exactly as compose would run it
but with a loopback host and a free port, until its /health answers; compose's own healthcheck
command is run against it too.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import yaml

from tests.support import free_port, logged_tracebacks

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "tests" / "data" / "compose-spec.json"
HEALTH_TIMEOUT_S = 60.0
_VAR = re.compile(r"\$\{(?P<name>\w+)(?::?(?P<op>[-?])(?P<arg>[^}]*))?\}")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((REPO / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    data = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _errors(schema: Mapping[str, Any], document: object) -> list[str]:
    validator = jsonschema.Draft7Validator(schema)
    return [
        f"{'/'.join(str(p) for p in e.absolute_path) or '<root>'}: {e.message}"
        for e in validator.iter_errors(document)
    ]


def _dockerfile_stages() -> dict[str, list[tuple[str, str]]]:
    """Each stage's instructions as (KEYWORD, arguments), continuation lines joined."""
    text = (REPO / "Dockerfile").read_text(encoding="utf-8")
    logical = re.sub(r"\\\n\s*", " ", text)
    stages: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for line in logical.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            match = re.fullmatch(r"(\S+)(?:\s+AS\s+(\S+))?", args.strip(), re.IGNORECASE)
            assert match, f"unparsed FROM: {line}"
            current = [("FROM", match.group(1))]
            stages[match.group(2) or f"stage{len(stages)}"] = current
        else:
            current.append((keyword, args.strip()))
    return stages


def _instruction(stage: list[tuple[str, str]], keyword: str) -> str:
    found = [args for kw, args in stage if kw == keyword]
    assert found, f"no {keyword} in stage"
    return found[-1]


def _interpolate(value: str) -> str:
    """Compose's interpolation: ${VAR:-default} takes VAR from the environment when it is set
    and non-empty (as compose does with the shell and .env), else the default; a required
    ${VAR:?msg} must not appear in the api service, which has to start with no .env at all."""

    def replace(match: re.Match[str]) -> str:
        if match.group("op") == "?":
            raise AssertionError(f"api service requires {match.group('name')}: {value}")
        return os.environ.get(match.group("name")) or match.group("arg") or ""

    return _VAR.sub(replace, value)


# -- the file against the specification ---------------------------------------------------------


def test_schema_is_a_valid_draft7_schema(schema: dict[str, Any]) -> None:
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema.get("title") == "Compose Specification"


def test_compose_file_validates_against_the_specification(
    compose: dict[str, Any], schema: dict[str, Any]
) -> None:
    assert _errors(schema, compose) == []


def test_the_schema_check_rejects_a_broken_file(
    compose: dict[str, Any], schema: dict[str, Any]
) -> None:
    # Proof that the validation above can fail: misspelt keys and wrong types are caught.
    broken = json.loads(json.dumps(compose))
    broken["services"]["api"]["helthcheck"] = broken["services"]["api"].pop("healthcheck")
    broken["services"]["jupyter"]["depends_on"] = "api"
    errors = _errors(schema, broken)
    assert any("helthcheck" in e for e in errors), errors
    assert any(e.startswith("services/jupyter/depends_on") for e in errors), errors


# -- what compose would run ---------------------------------------------------------------------


def test_services(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"api", "jupyter"}


def test_api_service(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    assert api["build"] == {"context": ".", "target": "api"}
    assert api["command"] == ["addnorm", "serve", "--host", "0.0.0.0", "--port", "8000"]
    assert api["restart"] == "unless-stopped"
    assert api["mem_limit"] and api["pids_limit"] > 0
    assert any(str(p).endswith(":8000:8000") for p in api["ports"])
    test = api["healthcheck"]["test"]
    assert test[0] == "CMD" and "http://127.0.0.1:8000/health" in " ".join(test)
    assert "privileged" not in api and "cap_add" not in api


def test_data_lives_on_a_named_volume_at_the_data_dir(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    data_dir = api["environment"]["ADDNORM_DATA_DIR"]
    mounts = {str(v).split(":")[1]: str(v).split(":")[0] for v in api["volumes"]}
    assert data_dir in mounts, f"nothing mounted at ADDNORM_DATA_DIR={data_dir}"
    volume = mounts[data_dir]
    assert not volume.startswith((".", "/")), "a named volume, not a bind mount"
    assert volume in compose["volumes"]


def test_jupyter_service(compose: dict[str, Any]) -> None:
    jupyter = compose["services"]["jupyter"]
    env = jupyter["environment"]
    assert env["ADDNORM_URL"] == "http://api:8000"
    assert env["JUPYTER_TOKEN"].startswith("${JUPYTER_TOKEN:?"), "compose must refuse to start"
    assert jupyter["depends_on"] == {"api": {"condition": "service_healthy"}}
    assert "--ServerApp.root_dir=/home/addnorm/notebooks" in jupyter["command"]
    assert any(str(v).endswith(":/home/addnorm/notebooks") for v in jupyter["volumes"])


def test_env_example_lists_every_variable(compose: dict[str, Any]) -> None:
    used = set(_VAR.findall((REPO / "docker-compose.yml").read_text(encoding="utf-8")))
    names = {name for name, _, _ in used}
    example = (REPO / ".env.example").read_text(encoding="utf-8")
    listed = set(re.findall(r"^(\w+)=", example, re.MULTILINE))
    assert names <= listed, f"missing from .env.example: {sorted(names - listed)}"


def test_dockerfile_agrees_with_compose(compose: dict[str, Any]) -> None:
    stages = _dockerfile_stages()
    assert stages["base"][0] == ("FROM", "python:3.11-slim")
    runs = " ".join(args for kw, args in stages["base"] if kw == "RUN")
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in runs
    assert list(stages)[-1] == "api", "a plain `docker build .` must produce the service"
    for name in ("api", "jupyter"):
        # An ENTRYPOINT would be prepended to compose's command: there must be none.
        assert all(kw != "ENTRYPOINT" for stage in ("base", name) for kw, _ in stages[stage])
        cmd = json.loads(_instruction(stages[name], "CMD"))
        assert cmd == compose["services"][name]["command"], name
        assert compose["services"][name]["build"]["target"] == name
    healthcheck = _instruction(stages["api"], "HEALTHCHECK")
    assert (
        json.loads(healthcheck.split("CMD", 1)[1])
        == compose["services"]["api"]["healthcheck"]["test"][1:]
    )
    user = _instruction(stages["base"], "USER")
    assert user not in {"root", "0"}, "the service runs as a non-root user"
    env = _instruction(stages["base"], "ENV")
    assert (
        env == f"ADDNORM_DATA_DIR={compose['services']['api']['environment']['ADDNORM_DATA_DIR']}"
    )


# -- the api command, run as a plain process ----------------------------------------------------


def _with_option(argv: list[str], option: str, value: str) -> list[str]:
    i = argv.index(option)
    return [*argv[: i + 1], value, *argv[i + 2 :]]


def _run_healthcheck(test: list[str], port: int) -> int:
    assert test[:2] == ["CMD", "python"]
    argv = [sys.executable, *test[2:]]
    argv[-1] = argv[-1].replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    return subprocess.run(argv, capture_output=True, timeout=30, check=False).returncode


@pytest.fixture
def api_process(
    compose: dict[str, Any], tmp_path: Path
) -> Iterator[tuple[subprocess.Popen[bytes], int, Path]]:
    service = compose["services"]["api"]
    command = list(service["command"])
    assert command[0] == "addnorm"
    # The console script installed beside the interpreter running the tests (the venv's).
    executable = Path(sys.executable).parent / "addnorm"
    if not executable.exists():
        pytest.fail(f"{executable} missing: install the project first (pip install -e '.[dev]')")
    port = free_port()
    argv = [str(executable), *command[1:]]
    argv = _with_option(_with_option(argv, "--host", "127.0.0.1"), "--port", str(port))
    env = dict(os.environ)
    env.update({k: _interpolate(str(v)) for k, v in service["environment"].items()})
    env["ADDNORM_DATA_DIR"] = str(tmp_path / "data")
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield proc, port, log
    finally:
        _stop(proc)
    # As for every server the suite starts (tests.support.stop_server): a traceback in its log
    # is a failure no request saw, the start-up's and the shutdown's included.
    found = logged_tracebacks(log)
    assert not found, f"`addnorm serve` logged {len(found)} traceback(s); the first:\n{found[0]}"


def _stop(proc: subprocess.Popen[bytes]) -> None:
    # The service starts its grader zygote as a separate process: stop the whole group, and
    # make sure of it even when the leader is already gone.
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.slow
def test_api_command_serves_health(
    compose: dict[str, Any], api_process: tuple[subprocess.Popen[bytes], int, Path]
) -> None:
    proc, port, log = api_process
    healthcheck = compose["services"]["api"]["healthcheck"]["test"]
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    response: httpx.Response | None = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"`addnorm serve` exited with {proc.returncode}:\n{log.read_text()}")
        try:
            response = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
            if response.status_code == 200:
                break
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    else:
        pytest.fail(f"/health not OK within {HEALTH_TIMEOUT_S:.0f} s:\n{log.read_text()}")
    assert response is not None
    body = response.json()
    assert isinstance(body, dict) and body.get("status") == "ok", body
    # Compose's own healthcheck, run as written against the live process, passes...
    assert _run_healthcheck(healthcheck, port) == 0
    # ...and fails where nothing listens, so it is not a check that always succeeds.
    assert _run_healthcheck(healthcheck, free_port()) != 0
