"""JSON columns on both databases, through the engine the service builds (``api.db``): what
goes in comes back, whatever the document's shape. SQLite gives a column declared JSON numeric
affinity, so a document that is a bare number comes back as a number, not as text."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import JSON, Column, Engine, Integer, MetaData, Table, insert, select

from api import db

DOCUMENTS: list[Any] = [
    -6.416,
    7,
    0,
    True,
    "层归一化 LayerNorm",
    [1, 2.5, None, "x"],
    {"checks": [{"message": "matches", "max_abs_error": 1.2e-07}], "message_zh": "全部通过"},
    {},
    [],
]


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path, pg_url: str) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path / 'json.db'}" if request.param == "sqlite" else pg_url
    eng = db.make_engine(url)
    yield eng
    eng.dispose()


@pytest.fixture
def table(engine: Engine) -> Iterator[Table]:
    meta = MetaData()
    t = Table("json_roundtrip", meta, Column("id", Integer, primary_key=True), Column("doc", JSON))
    meta.drop_all(engine)
    meta.create_all(engine)
    yield t
    meta.drop_all(engine)


def _stored(engine: Engine, table: Table, doc: Any) -> Any:
    with engine.begin() as conn:
        row_id = conn.execute(insert(table).values(doc=doc)).inserted_primary_key[0]  # type: ignore[index]
    with engine.begin() as conn:
        return conn.execute(select(table.c.doc).where(table.c.id == row_id)).scalar_one()


@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda d: type(d).__name__ + repr(d)[:12])
def test_a_document_comes_back_as_it_went_in(engine: Engine, table: Table, doc: Any) -> None:
    back = _stored(engine, table, doc)
    assert back == doc and type(back) is type(doc)


def test_json_has_no_nan_so_it_is_stored_as_null(engine: Engine, table: Table) -> None:
    assert _stored(engine, table, {"error": math.nan, "ok": 1.0}) == {"error": None, "ok": 1.0}


def test_a_key_that_is_not_text_is_stored_as_text(engine: Engine, table: Table) -> None:
    assert _stored(engine, table, {3: "three"}) == {"3": "three"}
