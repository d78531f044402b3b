"""Interviews in a real SQLite file, in process: two requests that both find an interview
running and both end it must feed its held answers to review once."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Column, Engine, Integer, MetaData, Table, func, inspect
from sqlmodel import Session, SQLModel, select

from api import db
from api.content.catalog import Exercise, load_catalog
from api.content.questions import QuestionBank
from api.learning import interview_records
from api.learning.interviews import InterviewState
from api.models import QuestionAnswer, ReviewCard, User
from tests.support import REPO

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def catalog() -> dict[str, Exercise]:
    return load_catalog(REPO / "exercises")


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'addnorm.db'}")
    db.migrate(engine)
    yield engine
    # Its pooled connection holds three files open (the database, -wal, -shm) in this worker.
    engine.dispose()


def _learner(engine: Engine) -> int:
    with Session(engine) as s:
        user = User(name="learner", token_hash="0" * 64)
        s.add(user)
        s.commit()
        assert user.id is not None
        return user.id


@pytest.mark.parametrize("ending", ["finish", "expire"])
def test_two_enders_feed_the_held_answer_once(
    engine: Engine, bank: QuestionBank, catalog: dict[str, Exercise], ending: str
) -> None:
    user_id = _learner(engine)
    with Session(engine, expire_on_commit=False) as s:
        row = interview_records.start(
            s,
            user_id=user_id,
            bank=bank,
            catalog=catalog,
            minutes=30,
            topics=["rms_norm"],
            lang="en",
            now=T0,
            rng=random.Random(0),
        )
        first = interview_records.item(row, 1)
        key = bank.get(first.item_id).answer
        interview_records.answer(
            s, row, position=1, raw_answer=key, bank=bank, now=T0 + timedelta(minutes=2)
        )
        assert row.id is not None
        interview_id = row.id

    # Two requests load the interview while it is still running, then both end it.
    a = Session(engine, expire_on_commit=False)
    b = Session(engine, expire_on_commit=False)
    row_a = interview_records.get(a, user_id=user_id, interview_id=interview_id)
    row_b = interview_records.get(b, user_id=user_id, interview_id=interview_id)
    assert row_a.state == row_b.state == InterviewState.running
    later = T0 + (timedelta(minutes=5) if ending == "finish" else timedelta(hours=1))
    for session, row in ((a, row_a), (b, row_b)):
        if ending == "finish":
            interview_records.finish(session, row, bank=bank, catalog=catalog, now=later)
        else:
            interview_records.settle(session, row, bank=bank, catalog=catalog, now=later)
    a.close()
    b.close()

    with Session(engine) as s:
        answers = s.exec(
            select(func.count())
            .select_from(QuestionAnswer)
            .where(QuestionAnswer.question_id == first.item_id)
        ).one()
        assert answers == 1
        card = s.exec(select(ReviewCard).where(ReviewCard.item_id == first.item_id)).one()
        assert card.user_id == user_id
        ended = interview_records.get(s, user_id=user_id, interview_id=interview_id)
        expected = InterviewState.finished if ending == "finish" else InterviewState.expired
        assert ended.state == expected
        # Expired at its deadline, finished when the learner said so.
        end = T0 + timedelta(minutes=30) if ending == "expire" else later
        assert ended.ended_at is not None and ended.ended_at.replace(tzinfo=UTC) == end
        assert ended.mastery_after is not None and ended.mastery_after["rms_norm"] > 0


def test_the_migrations_build_exactly_the_tables_the_models_declare(engine: Engine) -> None:
    with engine.connect() as connection:
        drift = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
    assert drift == []
    # The comparison does see a difference: a table the migrations never created.
    declared = MetaData()
    for table in SQLModel.metadata.tables.values():
        table.to_metadata(declared)
    Table("ghost", declared, Column("id", Integer, primary_key=True))
    with engine.connect() as connection:
        drift = compare_metadata(MigrationContext.configure(connection), declared)
    assert [d[0] for d in drift] == ["add_table"]


def test_the_interview_migration_goes_down_and_up_again(engine: Engine) -> None:
    db.migrate(engine, "0001", down=True)
    assert not {"interview", "interviewattempt"} & set(inspect(engine).get_table_names())
    db.migrate(engine)
    assert {"interview", "interviewattempt"} <= set(inspect(engine).get_table_names())
