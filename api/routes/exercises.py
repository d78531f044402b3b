from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api import progress
from api.catalog import Lang
from api.deps import AppDep, CurrentUser, ExerciseDep, SessionDep
from api.followups import follow_ups_for
from api.routes.users import learner_lang

router = APIRouter(tags=["exercises"])


@router.get("/exercises")
def read_exercises(
    ctx: AppDep, user: CurrentUser, session: SessionDep, lang: Lang | None = None
) -> list[dict[str, Any]]:
    assert user.id is not None
    lang = lang or learner_lang(user)
    mine = progress.exercise_progress(session, user_id=user.id, catalog=ctx.catalog)
    return [
        {
            "slug": e.slug,
            "title": e.title(lang),
            "topic": e.meta.topic,
            "topics": list(e.meta.topics),
            "difficulty": e.meta.difficulty,
            "status": mine[e.slug]["status"],
        }
        for e in ctx.catalog.values()
    ]


@router.get("/exercises/{slug}")
def read_exercise(
    ctx: AppDep, exercise: ExerciseDep, user: CurrentUser, lang: Lang | None = None
) -> dict[str, Any]:
    """The prompt and the starter in ``lang``, by default the learner's preference."""
    lang = lang or learner_lang(user)  # learners only: served to authenticated learners
    return {
        "slug": exercise.slug,
        "title": exercise.title(lang),
        "topic": exercise.meta.topic,
        "topics": list(exercise.meta.topics),
        "kind": exercise.spec.kind,
        "difficulty": exercise.meta.difficulty,
        "lang": lang,
        "prompt": exercise.prompt[lang],
        "starter": exercise.starter_for(lang),
        "contract": {
            "class_name": exercise.spec.class_name,
            "signature": exercise.meta.signature,
            "parameters": [p.model_dump() for p in exercise.meta.parameters],
            "forbidden": exercise.meta.forbidden,
        },
        "known_mistakes": [m.name for m in exercise.spec.mistakes],
        # What an interviewer asks once the code runs; the full question, its answer and its
        # explanation are the question bank's (GET /questions/{question_id}).
        "follow_ups": [
            {"question_id": f.question, "ask": f.text(lang)}
            for f in follow_ups_for(ctx.settings.content_dir, exercise.slug)
        ],
    }
