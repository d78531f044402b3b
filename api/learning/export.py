"""Exports: a learner's data (every row they own) and the cohort view, as JSON or CSV.

CSV is for spreadsheets, which run a cell starting with ``=``, ``+``, ``-`` or ``@`` as a
formula: learner names and code are text from strangers, so such a cell is prefixed with ``'``
(the OWASP advice for CSV injection). Each CSV is one rectangular table; JSON holds them all.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from sqlmodel import Session

from api.learning import learners
from api.learning.cohort import CohortView
from api.models import User

Format = Literal["json", "csv"]
COHORT_TABLES = ("learners", "exercises", "mistakes", "topics", "interviews")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict | list):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    text = str(value)
    # Numbers stay numbers: only text that a spreadsheet would evaluate is defused.
    if text.startswith(_FORMULA_START) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def to_csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    names = list(columns) if columns is not None else (list(rows[0]) if rows else [])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(names)
    for row in rows:
        writer.writerow([_cell(row.get(name)) for name in names])
    return out.getvalue()


# --------------------------------------------------------------------------- a learner's data


def learner_data(session: Session, user: User) -> dict[str, Any]:
    """Everything stored about one learner: their account and every row they own."""
    assert user.id is not None
    tables = dict(learners.owned_rows(session, user_id=user.id))
    session.commit()
    return {
        "learner": {
            "id": user.id,
            "name": user.name,
            "lang": user.lang,
            "role": user.role,
            "created_at": user.created_at,
            "disabled_at": user.disabled_at,
        },
        "tables": tables,
    }


def learner_tables() -> list[str]:
    return list(learners.owned_tables())


def learner_csv(data: Mapping[str, Any], table: str) -> str:
    rows = data["tables"][table]
    columns = [c.name for c in learners.owned_tables()[table].table.columns]
    return to_csv(rows, [c for c in columns if not c.endswith("_hash")])


# --------------------------------------------------------------------------- the cohort view


def cohort_rows(view: CohortView, table: str) -> list[dict[str, Any]]:
    """One of the cohort view's tables, flat, for CSV."""
    if table == "learners":
        return [
            {
                **row.model_dump(exclude={"topics", "exercises"}),
                **{f"mastery_{t}": m for t, m in row.topics.items()},
                **{f"exercise_{slug}": s for slug, s in row.exercises.items()},
            }
            for row in view.learners
        ]
    if table == "exercises":
        return [
            {
                **e.model_dump(exclude={"mistakes"}),
                "top_mistake": e.mistakes[0].name if e.mistakes else None,
            }
            for e in view.exercises
        ]
    if table == "mistakes":
        return [{"exercise": e.slug, **m.model_dump()} for e in view.exercises for m in e.mistakes]
    if table == "topics":
        return [t.model_dump() for t in view.topics]
    if table == "interviews":
        return [i.model_dump() for i in view.interviews.interviews]
    raise KeyError(table)


def cohort_csv(view: CohortView, table: str) -> str:
    rows = cohort_rows(view, table)
    columns: list[str] = []
    for row in rows:  # the learners' table has a column per topic and exercise
        columns += [k for k in row if k not in columns]
    return to_csv(rows, columns or _empty_columns(table))


def _empty_columns(table: str) -> list[str]:
    return {
        "learners": ["id", "name"],
        "exercises": ["slug"],
        "mistakes": ["exercise", "name", "count"],
        "topics": ["topic"],
        "interviews": ["id", "learner_id"],
    }[table]
