"""The cohort view against submissions this test made: three learners, known mistakes (the
exercises' own variants, whose first line names the mistake the grader must find), on SQLite
and PostgreSQL (the mistake's name is read from the stored verdict's JSON by each dialect)."""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest

from api.content.questions import QuestionBank
from tests.admin.conftest import Deployment, deploy, fresh_database
from tests.support import REPO, browser_cookie, stop_server


def variant(slug: str, name: str) -> tuple[str, str]:
    """A known-mistake variant's code and the mistake its header says the grader names."""
    code = (REPO / "exercises" / slug / "variants" / f"{name}.py").read_text()
    header = code.splitlines()[0]
    assert header.startswith("# expect: failed mistake="), header
    return code, header.split("mistake=")[1].strip()


def solution(slug: str) -> str:
    return (REPO / "solutions" / f"{slug}.py").read_text()


UNBIASED, UNBIASED_NAME = variant("layer_norm", "failed_unbiased_variance")
EPS, EPS_NAME = variant("layer_norm", "failed_eps_outside_sqrt")
CENTRED, CENTRED_NAME = variant("rms_norm", "failed_mean_centred")

# Who submits what, in order: (learner, exercise, code).
PLAN = [
    ("Ana", "layer_norm", UNBIASED),
    ("Ben", "layer_norm", UNBIASED),
    ("Ana", "layer_norm", solution("layer_norm")),
    ("Ben", "layer_norm", EPS),
    ("Cai", "layer_norm", EPS),
    ("Cai", "rms_norm", CENTRED),
    ("Ben", "layer_norm", solution("layer_norm")),
    ("Cai", "rms_norm", solution("rms_norm")),
]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def cohort(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, bank: QuestionBank
) -> Iterator[tuple[Deployment, dict[str, tuple[int, str]], list[dict[str, Any]]]]:
    """A deployment of its own (nobody else's learners in its cohort), the learners' (id,
    token) by name, and the submissions as the server answered them."""
    data = tmp_path_factory.mktemp("cohort")
    with fresh_database(request.param, data) as url:
        d = deploy(data, url, ADDNORM_REGISTRATION="invite")
        try:
            people = {name: d.new_learner(name) for name in ("Ana", "Ben", "Cai")}
            made = []
            for name, slug, code in PLAN:
                with d.server.client(people[name][1]) as c:
                    r = c.post(f"/exercises/{slug}/submissions", json={"code": code})
                    assert r.status_code == 201, r.text
                    made.append({**r.json(), "learner": name})
            # Cai answers a question right; Ana sits a mock interview and finishes it.
            question = next(q for q in bank if q.topic == "layer_norm")
            with d.server.client(people["Cai"][1]) as c:
                r = c.post(f"/questions/{question.id}/answers", json={"answer": question.answer})
                assert r.status_code == 200, r.text
            with d.server.client(people["Ana"][1]) as c:
                plan = {"preset": "concepts", "minutes": 10, "topics": ["rms_norm"]}
                iv = c.post("/interviews", json=plan).json()
                first = iv["items"][0]
                assert first["kind"] == "question"
                right = bank.get(first["id"]).answer
                url_ = f"/interviews/{iv['id']}/items/{first['position']}/answers"
                assert c.post(url_, json={"answer": right}).status_code == 201
                finished = c.post(f"/interviews/{iv['id']}/finish", params={"confirm": "true"})
                assert finished.status_code == 200, finished.text
            yield d, people, made
        finally:
            stop_server(d.server)


def test_the_cohort_view_counts_what_the_learners_did(
    cohort: tuple[Deployment, dict[str, tuple[int, str]], list[dict[str, Any]]],
) -> None:
    d, people, made = cohort
    # The grader named the mistakes the variants' headers promise (else nothing below means
    # much): two unbiased variances, two eps outside the sqrt, one mean-centred RMSNorm.
    named = [(m["learner"], (m.get("diagnosis") or {}).get("name")) for m in made]
    assert [n for _, n in named if n] == [
        UNBIASED_NAME, UNBIASED_NAME, EPS_NAME, EPS_NAME, CENTRED_NAME,
    ]  # fmt: skip
    with d.as_operator() as op:
        r = op.get("/admin/cohort")
    assert r.status_code == 200, r.text
    view = r.json()
    # The view, abridged to what this cohort touched (shown with pytest -s).
    abridged = {
        **view,
        "exercises": [e for e in view["exercises"] if e["submissions"]],
        "topics": [t for t in view["topics"] if t["learners_active"]],
        "learners": [{k: v for k, v in r.items() if k != "exercises"} for r in view["learners"]],
    }
    print(json.dumps(abridged, indent=1, ensure_ascii=False))
    assert view["learners_total"] == 3
    ex = {e["slug"]: e for e in view["exercises"]}

    ln = ex["layer_norm"]
    assert (ln["learners_attempted"], ln["learners_solved"], ln["submissions"]) == (3, 2, 6)
    # Ana passed on her 2nd submission, Ben on his 3rd; Cai never did.
    assert ln["median_attempts_to_pass"] == 2.5
    mistakes = {m["name"]: m for m in ln["mistakes"]}
    assert set(mistakes) == {UNBIASED_NAME, EPS_NAME}
    assert (mistakes[UNBIASED_NAME]["count"], mistakes[UNBIASED_NAME]["learners"]) == (2, 2)
    assert (mistakes[EPS_NAME]["count"], mistakes[EPS_NAME]["learners"]) == (2, 2)

    # The median time to a pass, from the submissions' own timestamps.
    def at(learner: str, index: int) -> datetime:
        rows = [m for m in made if m["learner"] == learner and m["exercise"] == "layer_norm"]
        return datetime.fromisoformat(rows[index]["created_at"])

    spans = [
        (at("Ana", 1) - at("Ana", 0)).total_seconds(),
        (at("Ben", 2) - at("Ben", 0)).total_seconds(),
    ]
    assert ln["median_seconds_to_pass"] == pytest.approx(statistics.median(spans), abs=0.01)

    rms = ex["rms_norm"]
    assert (rms["learners_attempted"], rms["learners_solved"]) == (1, 1)
    assert rms["median_attempts_to_pass"] == 1 + 1
    assert [m["name"] for m in rms["mistakes"]] == [CENTRED_NAME]
    untouched = [e for slug, e in ex.items() if slug not in ("layer_norm", "rms_norm")]
    assert all(e["learners_attempted"] == 0 and not e["mistakes"] for e in untouched)

    # Each example verdict really is a verdict naming that mistake, of a learner in the cohort.
    operator_cookie = browser_cookie(d.server, d.operator)
    with d.as_operator() as op:
        for m in [*ln["mistakes"], *rms["mistakes"]]:
            shown = op.get(m["example"]).json()
            assert shown["diagnosis"]["name"] == m["name"]
            assert shown["user_id"] in {p[0] for p in people.values()}
            page = httpx.get(
                f"{d.server.url}{m['example_page']}",
                cookies={"addnorm_session": operator_cookie},
                timeout=30,
            )
            assert page.status_code == 200 and m["title"] in page.text

    # Per learner and per topic: the same mastery each learner's own /progress reports.
    rows = {row["name"]: row for row in view["learners"]}
    assert (rows["Ana"]["solved"], rows["Ben"]["solved"], rows["Cai"]["solved"]) == (1, 1, 1)
    assert rows["Cai"]["exercises"]["layer_norm"] == "attempted"
    assert rows["Cai"]["exercises"]["rms_norm"] == "solved"
    topics = {t["topic"]: t for t in view["topics"]}
    own: dict[str, dict[str, float]] = {}
    for name, (_, token) in people.items():
        with d.server.client(token) as c:
            own[name] = {t: v["mastery"] for t, v in c.get("/progress").json()["topics"].items()}
        for topic, level in own[name].items():
            assert rows[name]["topics"][topic] == pytest.approx(level, abs=1e-3), (name, topic)
    for topic, stats in topics.items():
        levels = [own[n][topic] for n in people]
        assert stats["mean_mastery"] == pytest.approx(statistics.fmean(levels), abs=1e-3)
        assert stats["max_mastery"] == pytest.approx(max(levels), abs=1e-3)
    assert topics["layer_norm"]["mean_mastery"] > 0

    # The mock interview, scored as Ana's own report scores it.
    interviews = view["interviews"]
    assert (interviews["count"], interviews["ended"]) == (1, 1)
    (iv,) = interviews["interviews"]
    with d.server.client(people["Ana"][1]) as c:
        report = c.get(f"/interviews/{iv['id']}").json()["report"]
    assert iv["learner"] == "Ana" and iv["right"] == report["score"]["right"] >= 1
    assert iv["total"] == report["score"]["total"]


def _csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_exports_parse_back_to_the_view(
    cohort: tuple[Deployment, dict[str, tuple[int, str]], list[dict[str, Any]]],
) -> None:
    d, people, made = cohort
    with d.as_operator() as op:
        view = op.get("/admin/cohort").json()
        as_json = op.get("/admin/cohort", params={"format": "json"})
        assert "attachment" in as_json.headers["content-disposition"]
        assert json.loads(as_json.text)["exercises"] == view["exercises"]
        exercises = _csv(
            op.get("/admin/cohort", params={"format": "csv", "table": "exercises"}).text
        )
        mistakes = _csv(op.get("/admin/cohort", params={"format": "csv", "table": "mistakes"}).text)
        learners = _csv(op.get("/admin/cohort", params={"format": "csv", "table": "learners"}).text)
        bad = op.get("/admin/cohort", params={"format": "csv", "table": "nope"})
        assert bad.status_code == 422
        ana = op.get(f"/admin/learners/{people['Ana'][0]}/export").json()
        ana_csv = _csv(
            op.get(
                f"/admin/learners/{people['Ana'][0]}/export",
                params={"format": "csv", "table": "submission"},
            ).text
        )
    by_slug = {e["slug"]: e for e in view["exercises"]}
    for row in exercises:
        e = by_slug[row["slug"]]
        assert int(row["learners_attempted"]) == e["learners_attempted"]
        assert int(row["learners_solved"]) == e["learners_solved"]
        assert (
            float(row["median_attempts_to_pass"]) if row["median_attempts_to_pass"] else None
        ) == e["median_attempts_to_pass"]
    assert sorted((m["exercise"], m["name"], int(m["count"])) for m in mistakes) == sorted(
        (e["slug"], m["name"], m["count"]) for e in view["exercises"] for m in e["mistakes"]
    )
    assert {r["name"]: int(r["solved"]) for r in learners} == {"Ana": 1, "Ben": 1, "Cai": 1}

    # One learner's data: every submission of theirs, code and verdict included.
    mine = [m for m in made if m["learner"] == "Ana"]
    assert ana["learner"]["name"] == "Ana" and "token_hash" not in ana["learner"]
    assert [s["id"] for s in ana["tables"]["submission"]] == [m["id"] for m in mine]
    assert ana["tables"]["submission"][0]["result"]["diagnosis"]["name"] == UNBIASED_NAME
    assert len(ana["tables"]["interview"]) == 1 and len(ana["tables"]["interviewattempt"]) == 1
    assert [int(r["id"]) for r in ana_csv] == [m["id"] for m in mine]
    assert ana_csv[0]["code"] == UNBIASED

    # The learner downloads their own, and only their own.
    with d.server.client(people["Cai"][1]) as c:
        own = c.get("/users/me/export").json()
        own_csv = _csv(c.get("/users/me/export", params={"format": "csv"}).text)
        answers = _csv(
            c.get("/users/me/export", params={"format": "csv", "table": "questionanswer"}).text
        )
    assert own["learner"]["id"] == people["Cai"][0]
    assert {s["user_id"] for s in own["tables"]["submission"]} == {people["Cai"][0]}
    assert len(own_csv) == 3 and len(answers) == 1


def test_a_spreadsheet_formula_in_a_name_is_defused(
    cohort: tuple[Deployment, dict[str, tuple[int, str]], list[dict[str, Any]]],
) -> None:
    d, _, _ = cohort
    uid, _ = d.new_learner('=HYPERLINK("http://evil.example","x")')
    try:
        with d.as_operator() as op:
            text = op.get("/admin/cohort", params={"format": "csv", "table": "learners"}).text
        row = next(r for r in _csv(text) if r["id"] == str(uid))
        assert row["name"] == "'" + '=HYPERLINK("http://evil.example","x")'
    finally:
        with d.as_operator() as op:
            assert op.delete(f"/admin/learners/{uid}").status_code == 200
