"""Start-up runs the sandbox's boot beside the content and the database (api.main): a start
that fails still stops the service and leaves no zygote behind, and the references' warm-up,
now after ready, never runs beside a submission's reference (the global generator)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

import api.main
from api.config import Settings
from api.content.questions import QuestionBankError
from api.grading.pool import GraderPool, SandboxUnavailable
from tests.support import REPO


def _settings(tmp_path: Path, content: Path | None = None) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        content_dir=content or REPO / "exercises",
        grader_slots=1,
    )


def _recording_pools(monkeypatch: pytest.MonkeyPatch) -> list[GraderPool]:
    made: list[GraderPool] = []
    build = api.main.pool_for

    def record(settings: Settings, catalog: dict[str, api.main.Exercise]) -> GraderPool:
        made.append(build(settings, catalog))
        return made[-1]

    monkeypatch.setattr(api.main, "pool_for", record)
    return made


def test_a_broken_question_bank_stops_start_up_and_the_booting_zygote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = tmp_path / "exercises"
    shutil.copytree(REPO / "exercises", content)
    (content / "questions" / "ffn.yaml").write_text("questions: [ {id: 1", encoding="utf-8")
    pools = _recording_pools(monkeypatch)
    with pytest.raises(QuestionBankError):
        api.main.build_context(_settings(tmp_path, content))
    assert len(pools) == 1
    assert pools[0]._proc is None and not pools[0].status.running


def test_a_sandbox_that_cannot_start_still_stops_the_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(self: GraderPool) -> None:
        raise SandboxUnavailable("seccomp: not available on this host (test)")

    monkeypatch.setattr(GraderPool, "start", unavailable)
    with pytest.raises(SandboxUnavailable, match="seccomp"):
        api.main.build_context(_settings(tmp_path))


def test_the_warm_up_takes_the_graders_turn_one_exercise_at_a_time(tmp_path: Path) -> None:
    ctx = api.main.build_context(_settings(tmp_path))
    grader = ctx.grader
    assert grader is not None and grader.pool.status.running
    try:
        # Holding the turn: the background warm-up cannot build a reference meanwhile.
        with grader._turn:
            warming = [t for t in threading.enumerate() if t.name == "addnorm-warm-up"]
            assert len(warming) == 1
            warming[0].join(timeout=1.0)
            assert warming[0].is_alive()
        warming[0].join(timeout=600)
        assert not warming[0].is_alive()
        # And a verdict beside it is the verdict alone.
        code = (REPO / "solutions" / "layer_norm.py").read_text()
        assert grader.grade(code, ctx.catalog["layer_norm"].spec).status == "passed"
    finally:
        grader.pool.close()
        ctx.engine.dispose()
