"""The hint ladders are content the service refuses to start without: every exercise has one, and
a malformed one stops start-up with the file, the rung and the field named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from api.content.catalog import HINT_RUNGS, ContentError, load_catalog, load_exercise
from tests.support import REPO, start_server

EXERCISES = REPO / "exercises"


def test_every_exercise_has_three_rungs_that_say_different_things() -> None:
    catalog = load_catalog(EXERCISES)
    assert catalog
    for slug, exercise in catalog.items():
        assert len(exercise.hints) == len(HINT_RUNGS), slug
        for lang in ("en", "zh"):
            texts = [h.text(lang) for h in exercise.hints]  # type: ignore[arg-type]
            assert len(set(texts)) == len(texts), f"{slug}: two rungs say the same ({lang})"


def _copy(tmp_path: Path, slug: str = "layer_norm") -> Path:
    folder = tmp_path / slug
    shutil.copytree(EXERCISES / slug, folder)
    return folder


@pytest.mark.parametrize(
    ("ladder", "expected"),
    [
        (None, "hints.yaml: missing"),
        ("- en: only one\n", "must be a list of exactly 3 hints"),
        ("{en: x, zh: y}", "must be a list of exactly 3 hints"),
        ("[", "not valid YAML"),
        ("RUNGS[1].zh=English only", "hint 2 (formula), field 'zh': Value error, must be written"),
        ("RUNGS[0].zh=", "hint 1 (concept), field 'zh'"),
        ("RUNGS[2].en=None", "hint 3 (usual_mistake), field 'en'"),
        ("RUNGS[2].extra=1", "hint 3 (usual_mistake), field 'extra'"),
    ],
)
def test_a_malformed_ladder_names_file_rung_and_field(
    tmp_path: Path, ladder: str | None, expected: str
) -> None:
    folder = _copy(tmp_path)
    path = folder / "hints.yaml"
    if ladder is None:
        path.unlink()
    elif ladder.startswith("RUNGS["):
        rungs = yaml.safe_load(path.read_text())
        where, value = ladder.split("=", 1)
        index, field = int(where[6]), where.split(".")[1]
        rungs[index][field] = None if value == "None" else value
        path.write_text(yaml.safe_dump(rungs, allow_unicode=True))
    else:
        path.write_text(ladder)
    with pytest.raises(ContentError) as raised:
        load_exercise(folder)
    message = str(raised.value)
    assert message.startswith(f"{path}: "), message
    assert expected in message, message


def test_the_service_refuses_to_start_on_a_malformed_ladder(tmp_path: Path) -> None:
    content = tmp_path / "exercises"
    shutil.copytree(EXERCISES, content)
    broken = content / "rms_norm" / "hints.yaml"
    rungs = yaml.safe_load(broken.read_text())
    rungs[1]["zh"] = "no Chinese here"
    broken.write_text(yaml.safe_dump(rungs, allow_unicode=True))
    with pytest.raises(RuntimeError) as raised:
        start_server(tmp_path / "data", ADDNORM_CONTENT_DIR=str(content))
    assert f"{broken}: hint 2 (formula), field 'zh'" in str(raised.value)
