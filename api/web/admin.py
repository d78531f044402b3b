"""The operator's pages under /app/admin: the cohort view with its charts, invitations, the
learners (rename, disable, a new token, delete) and the downloads. The same services as the
JSON routes under /admin; every form is CSRF-checked, and a learner gets 403."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import ValidationError
from sqlmodel import Session

from api.http.deps import AppDep, RowId, SessionDep
from api.http.downloads import cohort_export, learner_export
from api.http.users import add_learner
from api.learning import cohort, export, learners, registration, submissions
from api.models import Submission, UserCreate
from api.web.charts import cohort_chart, count_chart, mastery_chart
from api.web.i18n import topic_name
from api.web.render import render
from api.web.session import CheckedFormDep, OperatorOnly, OperatorPageDep, PageNotFound, WebDep
from api.web.verdicts import verdict_view

router = APIRouter(include_in_schema=False)

ADMIN = "/app/admin"
# Mistakes in the cohort-wide chart: the handful worth talking to the group about.
CHART_MISTAKES = 8


def _page(
    request: Request,
    web: WebDep,
    session: Session,
    ctx: AppDep,
    *,
    status: int = 200,
    **shown: Any,
) -> Response:
    view = cohort.read_cohort(
        session, bank=ctx.questions, catalog=ctx.catalog, now=datetime.now(UTC)
    )
    lang = web.lang
    exercises = cohort_chart(
        [
            (
                e.slug,
                e.title_zh if lang == "zh" else e.title,
                e.learners_attempted,
                e.learners_solved,
            )
            for e in view.exercises
        ],
        view.learners_total,
    )
    topics = mastery_chart(
        {t.topic: t.mean_mastery for t in view.topics},
        {t.topic: topic_name(t.topic, lang) for t in view.topics},
    )
    tally: Counter[tuple[str, str]] = Counter()
    titles: dict[tuple[str, str], str] = {}
    for e in view.exercises:
        for m in e.mistakes:
            tally[(e.slug, m.name)] += m.count
            titles[(e.slug, m.name)] = m.title_zh if lang == "zh" else m.title
    mistakes = count_chart(
        [
            (f"{slug}:{name}", f"{titles[(slug, name)]} ({slug})", count)
            for (slug, name), count in tally.most_common(CHART_MISTAKES)
        ]
    )
    return render(
        request,
        web,
        "admin.html",
        status=status,
        view=view,
        exercise_chart=exercises,
        topic_chart=topics,
        mistake_chart=mistakes,
        invites=[(row, registration.state(row)) for row in registration.invites(session)[:50]],
        registration=ctx.settings.registration,
        tables=export.COHORT_TABLES,
        learner_tables=export.learner_tables(),
        **shown,
    )


def _operator_form(web: CheckedFormDep) -> CheckedFormDep:
    # The form's CSRF check first (a forged POST is refused whoever it names), then the role.
    if web.user is None or web.user.role != "operator":
        raise OperatorOnly()
    return web


@router.get(ADMIN)
def read_admin_page(
    request: Request, web: WebDep, operator: OperatorPageDep, session: SessionDep, ctx: AppDep
) -> Response:
    del operator
    return _page(request, web, session, ctx)


@router.post(f"{ADMIN}/invites")
def create_invite(
    request: Request,
    web: CheckedFormDep,
    session: SessionDep,
    ctx: AppDep,
    uses: Annotated[int, Form(ge=1, le=registration.MAX_USES)] = 1,
    days: Annotated[float, Form(gt=0, le=366)] = 7.0,
) -> Response:
    _operator_form(web)
    row, code = registration.create_invite(
        session, uses=uses, expires_at=datetime.now(UTC) + timedelta(days=days)
    )
    return _page(request, web, session, ctx, new_invite=code, new_invite_row=row)


@router.post(f"{ADMIN}/learners")
def create_learner(
    request: Request,
    web: CheckedFormDep,
    session: SessionDep,
    ctx: AppDep,
    name: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    _operator_form(web)
    try:
        body = UserCreate(name=name.strip())
    except ValidationError:
        return _page(request, web, session, ctx, status=422, error="bad_name")
    created = add_learner(session, name=body.name)
    return _page(request, web, session, ctx, new_token=created.token, token_for=created.name)


def _learner(session: Session, user_id: int) -> Any:
    user = learners.learner(session, user_id)
    if user is None:
        raise PageNotFound()
    return user


@router.post(f"{ADMIN}/learners/{{user_id}}/rename")
def rename_learner(
    request: Request,
    user_id: RowId,
    web: CheckedFormDep,
    session: SessionDep,
    ctx: AppDep,
    name: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    _operator_form(web)
    user = _learner(session, user_id)
    try:
        body = UserCreate(name=name.strip())
    except ValidationError:
        return _page(request, web, session, ctx, status=422, error="bad_name")
    learners.rename(session, user, body.name)
    return RedirectResponse(f"{ADMIN}#learners", status_code=303)


@router.post(f"{ADMIN}/learners/{{user_id}}/disable")
def disable_learner(user_id: RowId, web: CheckedFormDep, session: SessionDep) -> Response:
    _operator_form(web)
    learners.set_disabled(session, _learner(session, user_id), True)
    return RedirectResponse(f"{ADMIN}#learners", status_code=303)


@router.post(f"{ADMIN}/learners/{{user_id}}/enable")
def enable_learner(user_id: RowId, web: CheckedFormDep, session: SessionDep) -> Response:
    _operator_form(web)
    learners.set_disabled(session, _learner(session, user_id), False)
    return RedirectResponse(f"{ADMIN}#learners", status_code=303)


@router.post(f"{ADMIN}/learners/{{user_id}}/token")
def reissue_token(
    request: Request, user_id: RowId, web: CheckedFormDep, session: SessionDep, ctx: AppDep
) -> Response:
    _operator_form(web)
    user = _learner(session, user_id)
    token = learners.reissue_token(session, user)
    return _page(request, web, session, ctx, new_token=token, token_for=user.name)


@router.post(f"{ADMIN}/learners/{{user_id}}/delete")
def delete_learner(
    request: Request,
    user_id: RowId,
    web: CheckedFormDep,
    session: SessionDep,
    ctx: AppDep,
    confirm: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    _operator_form(web)
    user = _learner(session, user_id)
    # Deleting is for good: the operator types the learner's name, as GitHub asks for a
    # repository's, so a slipped click on the wrong row deletes nothing.
    if confirm.strip() != user.name:
        return _page(request, web, session, ctx, status=422, error="delete_confirm")
    learners.delete_learner(session, user_id=user_id)
    return RedirectResponse(f"{ADMIN}#learners", status_code=303)


@router.get(f"{ADMIN}/submissions/{{submission_id}}")
def read_submission_page(
    request: Request,
    submission_id: RowId,
    web: WebDep,
    operator: OperatorPageDep,
    session: SessionDep,
    ctx: AppDep,
) -> Response:
    del operator
    row = session.get(Submission, submission_id)
    if row is None:
        raise PageNotFound()
    owner = learners.learner(session, row.user_id)
    return render(
        request,
        web,
        "admin_submission.html",
        row=row,
        owner=owner,
        exercise=ctx.catalog.get(row.exercise),
        verdict=verdict_view(submissions.public(row), web.lang),
    )


@router.get(f"{ADMIN}/cohort.{{fmt}}")
def download_cohort(
    fmt: export.Format,
    operator: OperatorPageDep,
    session: SessionDep,
    ctx: AppDep,
    table: str | None = None,
) -> Response:
    del operator
    view = cohort.read_cohort(
        session, bank=ctx.questions, catalog=ctx.catalog, now=datetime.now(UTC)
    )
    return cohort_export(view, fmt, table)


@router.get(f"{ADMIN}/learners/{{user_id}}/export.{{fmt}}")
def download_learner(
    user_id: RowId,
    fmt: export.Format,
    operator: OperatorPageDep,
    session: SessionDep,
    table: str | None = None,
) -> Response:
    del operator
    return learner_export(session, _learner(session, user_id), fmt, table)
