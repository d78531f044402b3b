"""Exports as file downloads, shared by the operator's routes, the learner's and the pages."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException
from fastapi.responses import Response
from sqlmodel import Session

from api.jsonbody import dumps
from api.learning import cohort, export
from api.models import User

# A download's success in the published schema: the JSON, or with ``format=csv`` one table as
# CSV (``/openapi.json`` would otherwise promise JSON alone).
AS_FILE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The data as a file: JSON, or one table as CSV (format=csv)",
        "content": {"application/json": {}, "text/csv": {"schema": {"type": "string"}}},
    }
}


def download(body: str, *, filename: str, fmt: export.Format) -> Response:
    media = "text/csv; charset=utf-8" if fmt == "csv" else "application/json"
    return Response(
        body,
        media_type=media,
        headers={
            "content-disposition": f'attachment; filename="{filename}"',
            "cache-control": "no-store",
        },
    )


def learner_export(session: Session, user: User, fmt: export.Format, table: str | None) -> Response:
    data = export.learner_data(session, user)
    if fmt == "json":
        return download(dumps(data).decode(), filename=f"addnorm-learner-{user.id}.json", fmt=fmt)
    table = table or "submission"
    if table not in data["tables"]:
        raise HTTPException(
            422, detail=f"table must be one of: {', '.join(export.learner_tables())}"
        )
    return download(
        export.learner_csv(data, table), filename=f"addnorm-learner-{user.id}-{table}.csv", fmt=fmt
    )


def cohort_export(view: cohort.CohortView, fmt: export.Format, table: str | None) -> Response:
    if fmt == "json":
        return download(view.model_dump_json(), filename="addnorm-cohort.json", fmt=fmt)
    table = table or "learners"
    if table not in export.COHORT_TABLES:
        raise HTTPException(422, detail=f"table must be one of: {', '.join(export.COHORT_TABLES)}")
    return download(export.cohort_csv(view, table), filename=f"addnorm-cohort-{table}.csv", fmt=fmt)
