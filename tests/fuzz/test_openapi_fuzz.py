"""Every operation of the published OpenAPI schema, fuzzed over real HTTP: no input gives a 5xx.

Schemathesis generates requests from the service's own ``/openapi.json`` (valid and invalid
bodies, path and query values at and past their bounds: ids beyond 64 bits, empty strings,
odd Unicode) and sends them, signed in as a learner, to a real server on a real SQLite file
with the real sandbox. The only check is the one the standards ask of every request: the
answer is never a server error. Failures print a reproducing ``curl`` command.

Beside it, the JSON that schemathesis never writes: ``NaN`` and ``Infinity`` literals (which
Python's JSON parser accepts) in every field of every JSON body, and integers past 64 bits.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support import Server


@pytest.fixture(scope="module")
def learner_token(server: Server) -> str:
    return server.new_learner("fuzz")


# Never a server error, and nothing the published schema does not describe: a status it does
# not list, a content type it does not name, a body of another shape (a client generated from
# the schema meets nothing it was not told of: api.http.openapi_doc).
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def test_no_operation_answers_with_a_server_error(server: Server, learner_token: str) -> None:
    # The operations are walked here rather than through schemathesis' pytest plugin, which does
    # not load under this pytest; each operation gets its own Hypothesis run and a failure names it.
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    headers: dict[str, str] = {}
    failures: list[str] = []
    tried = 0
    for loaded in schema.get_all_operations():
        operation = loaded.ok()
        tried += 1
        # Rotating the token would leave every later operation fuzzed without a valid one: it
        # rotates a learner of its own.
        own = operation.path == "/users/me/token"
        token = server.new_learner("rotates") if own else learner_token
        headers["Authorization"] = f"Bearer {token}"

        @given(case=operation.as_strategy())
        @settings(
            max_examples=25,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def fuzz(case: Any) -> None:
            response = case.call(headers=headers, timeout=60)
            case.validate_response(response, checks=CHECKS)

        try:
            fuzz()
        except Exception as exc:  # one operation's failure must not hide the others'
            failures.append(f"{operation.label}: {exc}")
    assert tried >= 15, f"only {tried} operations in the schema"
    assert not failures, "\n\n".join(failures)


def _json_operations(doc: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(method, path with ids filled in, top-level body fields) for every JSON body."""
    found = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            content = (op.get("requestBody") or {}).get("content", {})
            if "application/json" not in content:
                continue
            ref = content["application/json"]["schema"].get("$ref", "")
            fields: list[str] = []
            if ref:
                name = ref.rsplit("/", 1)[-1]
                fields = list(doc["components"]["schemas"][name].get("properties", {}))
            concrete = path.replace("{interview_id}", "1").replace("{position}", "1")
            concrete = concrete.replace("{question_id}", "x").replace("{slug}", "layer_norm")
            found.append((method.upper(), concrete, fields))
    return found


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "9" * 40])
def test_non_finite_and_huge_numbers_in_bodies_are_refused_in_words(
    server: Server, learner_token: str, literal: str
) -> None:
    doc = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    operations = _json_operations(doc)
    assert operations, "the schema lists no JSON body to try"
    headers = {"Authorization": f"Bearer {learner_token}", "Content-Type": "application/json"}
    seen = []
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
        for method, path, fields in operations:
            for field in fields or ["value"]:
                response = client.request(method, path, content=f'{{"{field}": {literal}}}')
                seen.append((method, path, field, response.status_code))
                assert response.status_code < 500, (method, path, field, response.text)
                # The refusal is JSON the client can read (a 422's detail cannot carry NaN).
                if response.status_code == 422:
                    assert response.json()["detail"]
    assert seen


def test_the_schema_describes_every_refusal_and_every_download(server: Server) -> None:
    doc = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    refusal = {"$ref": "#/components/schemas/Refusal"}
    operations = [(m, p, op) for p, item in doc["paths"].items() for m, op in item.items()]
    assert len(operations) >= 15
    for method, path, op in operations:
        default = op["responses"].get("default")
        assert default, f"{method} {path}: no default response for its refusals"
        assert default["content"]["application/json"]["schema"] == refusal
        invalid = op["responses"].get("422")
        if invalid is not None:
            assert refusal in invalid["content"]["application/json"]["schema"]["anyOf"]
    for path in ("/users/me/export", "/admin/learners/{user_id}/export", "/admin/cohort"):
        assert "text/csv" in doc["paths"][path]["get"]["responses"]["200"]["content"], path
