"""docker-compose.cluster.yml, checked without a Docker engine: valid against the Compose
Specification, the four services with health checks and start order, persistent Redis and
PostgreSQL, settings the app accepts as queue mode, and the worker's health check run for real."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from api.config import Settings
from tests.deploy.test_compose import _errors

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "docker-compose.cluster.yml"
SCHEMA = REPO / "tests" / "data" / "compose-spec.json"
_VAR = re.compile(r"\$\{(?P<name>\w+)(?::?(?P<op>[-?])(?P<arg>[^}]*))?\}")


@pytest.fixture(scope="module")
def cluster() -> dict[str, Any]:
    data = yaml.safe_load(CLUSTER.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    data = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def interpolate(value: str, env: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, op = match.group("name"), match.group("op")
        if env.get(name):
            return env[name]
        if op == "?":
            raise KeyError(name)
        return match.group("arg") or ""

    return _VAR.sub(replace, value)


def test_cluster_file_validates_against_the_specification(
    cluster: dict[str, Any], schema: dict[str, Any]
) -> None:
    assert _errors(schema, cluster) == []


def test_the_schema_check_rejects_a_broken_cluster_file(
    cluster: dict[str, Any], schema: dict[str, Any]
) -> None:
    broken = json.loads(json.dumps(cluster))
    broken["services"]["worker"]["deploy"] = {"replica": 2}  # misspelt: silently one worker
    broken["services"]["api"]["depends_on"]["redis"]["condition"] = "service_ready"
    errors = _errors(schema, broken)
    assert any(e.startswith("services/worker/deploy") and "replica" in e for e in errors), errors
    assert any(e.startswith("services/api/depends_on") for e in errors), errors


def test_four_services_with_replicas_health_checks_and_start_order(
    cluster: dict[str, Any],
) -> None:
    services = cluster["services"]
    assert set(services) == {"api", "worker", "redis", "postgres"}
    for name in ("api", "worker"):
        assert services[name]["deploy"]["replicas"] >= 2
        assert services[name]["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
        }
        assert services[name]["build"] == {"context": ".", "target": "api"}
    for name, service in services.items():
        assert service["healthcheck"]["test"][0] == "CMD", name
        assert service["restart"] == "unless-stopped", name
        assert service["cap_drop"] == ["ALL"] and "privileged" not in service, name
        assert service["mem_limit"], name
    assert services["worker"]["command"] == ["addnorm", "worker"]
    assert services["api"]["command"] == ["addnorm", "serve", "--host", "0.0.0.0", "--port", "8000"]


def test_redis_is_append_only_and_both_stores_are_on_named_volumes(
    cluster: dict[str, Any],
) -> None:
    services = cluster["services"]
    command = services["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    mounts = {
        name: {str(v).split(":")[1]: str(v).split(":")[0] for v in services[name]["volumes"]}
        for name in ("redis", "postgres")
    }
    assert mounts["redis"]["/data"] in cluster["volumes"]
    assert mounts["postgres"]["/var/lib/postgresql/data"] in cluster["volumes"]


def test_the_app_reads_the_environment_as_queue_mode_on_postgresql(
    cluster: dict[str, Any],
) -> None:
    shell = {"POSTGRES_PASSWORD": "0123abcd"}
    for name in ("api", "worker"):
        raw = cluster["services"][name]["environment"]
        env = {k: interpolate(str(v), shell) for k, v in raw.items()}
        fields = {k.removeprefix("ADDNORM_").lower(): v for k, v in env.items()}
        settings = Settings.model_validate(fields)
        assert settings.queue_mode and settings.environment == "production"
        assert settings.sqlalchemy_url.startswith("postgresql+psycopg://addnorm:0123abcd@postgres")
        assert settings.shared_redis_url == "redis://redis:6379/0"
    # Without the password compose refuses to start instead of running with an empty one.
    with pytest.raises(KeyError):
        interpolate(str(cluster["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"]), {})


def test_env_example_lists_every_cluster_variable() -> None:
    names = {m[0] for m in _VAR.findall(CLUSTER.read_text(encoding="utf-8"))}
    listed = set(re.findall(r"^(\w+)=", (REPO / ".env.example").read_text(), re.MULTILINE))
    assert names <= listed, f"missing from .env.example: {sorted(names - listed)}"


def test_worker_command_exists(tmp_path: Path) -> None:
    addnorm = Path(sys.executable).parent / "addnorm"
    out = subprocess.run([str(addnorm), "worker", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "queue worker" in out.stdout
    # Without a broker it refuses clearly instead of starting a worker with nowhere to listen.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADDNORM_")}
    env["ADDNORM_DATA_DIR"] = str(tmp_path)
    refused = subprocess.run([str(addnorm), "worker"], capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and "needs ADDNORM_BROKER_URL" in refused.stderr


def test_worker_health_check_reads_the_heartbeat(cluster: dict[str, Any], tmp_path: Path) -> None:
    test = cluster["services"]["worker"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "python"]
    heartbeat = tmp_path / "worker-heartbeat"

    def check() -> int:
        code = test[-1].replace("/data/worker-heartbeat", str(heartbeat))
        return subprocess.run([sys.executable, *test[2:-1], code], capture_output=True).returncode

    assert check() != 0  # no heartbeat yet: not healthy
    heartbeat.touch()
    assert check() == 0
    stale = time.time() - 120
    os.utime(heartbeat, (stale, stale))
    assert check() != 0
