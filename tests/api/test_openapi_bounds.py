"""The published schema states integer bounds as the models declare them: integers, exact.

FastAPI's OpenAPI model holds bounds as floats, so ``le=10`` came out as ``10.0`` and a bound past
2**53 rounded; schemathesis, comparing in floats, then sent values the service refused as out of
range (api.http.openapi_doc)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import BaseModel

import api.main  # noqa: F401  (every route's models defined)
from api.http.openapi_doc import EXACT_IN_A_FLOAT, integer_bounds
from tests.support import Server

BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _integer_nodes(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, list):
        for i, item in enumerate(node):
            found += _integer_nodes(item, f"{path}[{i}]")
    elif isinstance(node, dict):
        if node.get("type") == "integer":
            found.append((path, node))
        for key, value in node.items():
            found += _integer_nodes(value, f"{path}/{key}")
    return found


def _models() -> dict[str, type[BaseModel]]:
    """Every pydantic model defined so far, by name (names defined twice are left out)."""
    seen: dict[str, list[type[BaseModel]]] = {}
    todo = list(BaseModel.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith("api."):
            seen.setdefault(cls.__name__, []).append(cls)
    return {name: classes[0] for name, classes in seen.items() if len(set(classes)) == 1}


def test_every_integer_bound_is_published_as_the_model_declares_it(server: Server) -> None:
    doc = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    nodes = _integer_nodes(doc)
    bounded = [(path, node) for path, node in nodes if any(k in node for k in BOUNDS)]
    assert len(bounded) >= 10, bounded  # path ids, invites, self-ratings, ...
    for path, node in bounded:
        for key in BOUNDS:
            if key in node:
                # JSON "10" parses as int and "10.0" as float.
                assert type(node[key]) is int, (path, key, node[key])
    models = _models()
    compared = 0
    for name, schema in doc["components"]["schemas"].items():
        model = models.get(name.removesuffix("-Input").removesuffix("-Output"))
        if model is None:
            continue
        declared = model.model_json_schema()
        for field, published in schema.get("properties", {}).items():
            own = declared["properties"].get(field, {})
            for variant, mine in zip(
                published.get("anyOf", [published]), own.get("anyOf", [own]), strict=False
            ):
                if mine.get("type") != "integer":
                    continue
                for key in BOUNDS:
                    assert variant.get(key) == mine.get(key), (name, field, key)
                    compared += key in mine
    # TokenProofAsked.user, InviteCreate.uses, the four self-ratings, max_attempts: 2 bounds each.
    assert compared >= 14, compared


@pytest.mark.parametrize(
    "bound", [EXACT_IN_A_FLOAT + 2.0, float(2**62), -(EXACT_IN_A_FLOAT + 2.0), 10.5]
)
def test_a_bound_a_float_may_have_rounded_stops_the_schema(bound: float) -> None:
    schema = {"properties": {"n": {"type": "integer", "maximum": bound}}}
    with pytest.raises(ValueError, match="cannot be published exactly"):
        integer_bounds(schema)


def test_bounds_of_numbers_that_are_not_integers_stay_as_they_are() -> None:
    schema: dict[str, Any] = {
        "properties": {
            "minutes": {"type": "number", "maximum": 240.0},
            "n": {"anyOf": [{"type": "integer", "minimum": 1.0}, {"type": "null"}]},
        }
    }
    integer_bounds(schema)
    assert schema["properties"]["minutes"]["maximum"] == 240.0
    assert type(schema["properties"]["n"]["anyOf"][0]["minimum"]) is int
