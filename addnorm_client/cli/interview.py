"""``addnorm interview``: sit a mock interview from the terminal.

    addnorm interview start --preset phone_screen
    addnorm interview show 7                    # items, budgets and clocks; the report at the end
    addnorm interview open 7 2                  # start item 2's clock (time is kept per item)
    addnorm interview answer 7 2 "1"            # a question or follow-up ("1", "0,2", "true", 0.5)
    addnorm interview explain 7 5 "Because ..." # the explain item, a few sentences
    addnorm interview submit 7 1 layer_norm.py  # only "received" until the end
    addnorm interview finish 7 [--yes]          # --yes ends it with items unanswered
    addnorm interview rate 7 --shapes 2 --numerical-stability 1 --cost 2 --training-vs-inference 0

Everything goes through the server's interview routes; practice routes answer 409 meanwhile.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.cells import cell_len
from rich.text import Text

from addnorm_client.cli import show
from addnorm_client.cli.answers import NotAnAnswer, parse_answer
from addnorm_client.cli.commands import JsonOpt, _client, err, friendly, out
from addnorm_client.cli.workfile import read_code
from addnorm_client.client import AddnormError

app = typer.Typer(help="Sit a mock interview: start, answer, submit, finish, read the report.")

IdArg = Annotated[int, typer.Argument(help="The interview's number.")]
ItemArg = Annotated[int, typer.Argument(help="The item's position (1, 2, ...).")]


# The terminal's own words, in the report's language (the server's texts come in it already);
# the same words as the pages (api/web/i18n.py).
_ZH = {
    "question": "概念题",
    "exercise": "编程题",
    "follow_up": "追问",
    "explain": "讲解代码",
    "open": "未作答",
    "answered": "已作答",
    "submitted": "已提交",
    "received": "已收到",
    "passed": "通过",
    "not_passed": "未通过",
    "pending": "等待评测",
    "correct": "正确",
    "wrong": "错误",
    "not_answered": "未作答",
    "running": "进行中",
    "finished": "已结束",
    "expired": "已超时",
    "interview": "模拟面试",
    "left": "剩余",
    "score": "得分",
    "submissions": "次提交",
    "key": "答案",
    "review next": "接下来复习",
    "trend": "历次面试走势",
    "phone_screen": "电话面试",
    "onsite": "现场面试",
    "concepts": "概念面试",
    "shapes": "张量形状",
    "numerical_stability": "数值稳定性",
    "cost": "计算与内存开销",
    "training_vs_inference": "训练与推理的区别",
}


def _word(word: str, lang: str) -> str:
    return _ZH.get(word, word) if lang == "zh" else word


def _cells(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns: a CJK character takes two, so ``:<9``
    (which counts characters) misaligns the columns of a Chinese report."""
    return text + " " * max(0, width - cell_len(text))


def _clock(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _print_interview(iv: dict[str, Any]) -> None:
    lang = str(iv.get("lang") or "en")

    def w(word: str) -> str:
        return _word(word, lang)

    out.print(
        Text(
            f"{w('interview')} {iv['id']} · {w(iv.get('preset') or 'interview')} · "
            f"{w(iv['state'])} · {_clock(float(iv.get('remaining_seconds') or 0))} {w('left')}"
        )
    )
    for it in iv["items"]:
        label = it.get("ask") or (it.get("question") or {}).get("prompt") or it.get("title")
        line = (
            f"  {it['position']:>2}. {_cells(w(it['kind']), 9)} {_cells(w(it['status']), 9)} "
            f"{_clock(it['time_spent_seconds'])}/{_clock(it['budget_seconds'])}  {label}"
        )
        out.print(Text(line))
        question = it.get("question")
        if question and it["status"] == "open":
            for choice in question.get("choices") or []:
                out.print(Text(f"        {choice['index']}) {choice['text']}"))
    report = iv.get("report")
    if report:
        _print_report(report)


def _print_report(report: dict[str, Any]) -> None:
    lang = str(report.get("lang") or "en")

    def w(word: str) -> str:
        return _word(word, lang)

    colon = "：" if lang == "zh" else ": "  # Chinese typography: the full-width colon, no space
    out.print(Text(""))
    out.print(
        Text(
            f"{report['recommendation_name']} · {w('score')} {report['score']['right']}/"
            f"{report['score']['total']}",
            "bold",
        )
    )
    for reason in report["reasons"]:
        out.print(Text(f"  - {reason}"))
    for r in report["rubric"]:
        score = "-" if r["score"] is None else f"{r['score']}/{r['max_score']}"
        out.print(Text(f"{r['name']}{colon}{score}"))
        for evidence in r["evidence"]:
            out.print(Text(f"    {evidence}", "dim"))
    for item in report["items"]:
        out.print(
            Text(
                f"  {item['position']:>2}. {_cells(w(item['kind']), 9)} "
                f"{_cells(w(item['result']), 12)} "
                f"{_clock(item['time_spent_seconds'])}/{_clock(item['budget_seconds'])}"
                + (
                    f"  {item['attempts']}/{item['max_attempts']} {w('submissions')}"
                    if item.get("max_attempts")
                    else ""
                )
            )
        )
        check = item.get("check")
        if check:
            out.print(Text(f"      {w('key')}{colon}{check.get('correct_answer_text')}", "dim"))
        if item.get("model_answer"):
            for point, text in item["model_answer"].items():
                out.print(Text(f"      {w(point)}{colon}{text}", "dim"))
    if report["review"]:
        out.print(Text(f"{w('review next')}{colon}" + ", ".join(a["id"] for a in report["review"])))
    trend = report.get("trend") or []
    if len(trend) > 1:
        points = " → ".join(f"#{p['id']} {p['score']:.1f}" for p in trend)
        out.print(Text(f"{w('trend')}{colon}{points}"))


def _item(iv: dict[str, Any], position: int) -> dict[str, Any]:
    for it in iv["items"]:
        if it["position"] == position:
            return dict(it)
    raise AddnormError(f"interview {iv['id']} has no item {position}")


@app.command("start")
@friendly
def start(
    preset: Annotated[
        str, typer.Option("--preset", help="phone_screen, onsite (default) or concepts.")
    ] = "onsite",
    minutes: Annotated[float | None, typer.Option("--minutes", help="Length.")] = None,
    lang: Annotated[str, typer.Option("--lang", help="en or zh.")] = "en",
    as_json: JsonOpt = False,
) -> None:
    """Start a mock interview."""
    body: dict[str, Any] = {"preset": preset, "lang": lang}
    if minutes is not None:
        body["minutes"] = minutes
    with _client() as client:
        iv = client._json("POST", "/interviews", json=body)
    if as_json:
        show.print_json(out, iv)
        return
    _print_interview(iv)


@app.command("show")
@friendly
def show_interview(
    interview: IdArg,
    lang: Annotated[str | None, typer.Option("--lang", help="Read it in en or zh.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The interview: items with their clocks; once it has ended, the report."""
    with _client() as client:
        iv = client._json(
            "GET", f"/interviews/{interview}", params={"lang": lang} if lang else None
        )
    if as_json:
        show.print_json(out, iv)
        return
    _print_interview(iv)


@app.command("open")
@friendly
def open_item(interview: IdArg, position: ItemArg) -> None:
    """Turn to an item: its clock runs until another is opened."""
    with _client() as client:
        clock = client._json("POST", f"/interviews/{interview}/items/{position}/open")
        iv = client._json("GET", f"/interviews/{interview}")
    it = _item(iv, position)
    out.print(
        Text(
            f"item {position} ({it['kind']}): {_clock(clock['time_spent_seconds'])} of "
            f"{_clock(clock['budget_seconds'])}"
        )
    )
    if it.get("prompt"):
        out.print(Text(str(it["prompt"])))
    elif it.get("question"):
        out.print(Text(str(it.get("ask") or it["question"]["prompt"])))


# A numeric answer may be negative ("-0.5"), and an explanation may open with a dash: without
# this, click reads either as an unknown option and stops with a usage error. These commands
# take no options of their own but --help, which still works.
_FREE_TEXT = {"ignore_unknown_options": True}


@app.command("answer", context_settings=_FREE_TEXT)
@friendly
def answer(interview: IdArg, position: ItemArg, text: Annotated[str, typer.Argument()]) -> None:
    """Answer a question or follow-up: recorded, no word on whether it is right."""
    with _client() as client:
        iv = client._json("GET", f"/interviews/{interview}")
        question = _item(iv, position).get("question")
        if not question:
            raise AddnormError(f"item {position} is not a question (explain: `explain`)")
        try:
            value = parse_answer(question, text)
        except NotAnAnswer as exc:
            raise AddnormError(str(exc)) from None
        client._json(
            "POST", f"/interviews/{interview}/items/{position}/answers", json={"answer": value}
        )
    out.print(Text(f"item {position}: recorded"))


@app.command("explain", context_settings=_FREE_TEXT)
@friendly
def explain(interview: IdArg, position: ItemArg, text: Annotated[str, typer.Argument()]) -> None:
    """Explain your code: why it is right and what it costs."""
    with _client() as client:
        client._json(
            "POST", f"/interviews/{interview}/items/{position}/answers", json={"answer": text}
        )
    out.print(Text(f"item {position}: recorded"))


@app.command("submit")
@friendly
def submit(
    interview: IdArg,
    position: ItemArg,
    file: Annotated[Path, typer.Argument(help="Your code for this item.")],
) -> None:
    """Submit code for a coding item: "received" only, the verdict is the report's."""
    code = read_code(file)
    with _client() as client:
        got = client._json(
            "POST", f"/interviews/{interview}/items/{position}/submissions", json={"code": code}
        )
    out.print(Text(f"item {position}: {got['result']} ({got['attempts_left']} submissions left)"))


@app.command("finish")
@friendly
def finish(
    interview: IdArg,
    yes: Annotated[bool, typer.Option("--yes", help="End it even with items unanswered.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """End the interview and print its report."""
    with _client() as client:
        iv = client._json("GET", f"/interviews/{interview}")
        left = [it["position"] for it in iv["items"] if it["status"] == "open"]
        if left and not yes and iv["state"] == "running":
            err.print(
                Text(
                    f"addnorm: items {', '.join(map(str, left))} are unanswered; "
                    "run again with --yes to finish anyway"
                )
            )
            raise typer.Exit(2)
        done = client._json("POST", f"/interviews/{interview}/finish", params={"confirm": "true"})
    if as_json:
        show.print_json(out, done)
        return
    _print_interview(done)


PointOpt = Annotated[int, typer.Option(min=0, max=2)]


@app.command("rate")
@friendly
def rate(
    interview: IdArg,
    shapes: PointOpt = 0,
    numerical_stability: PointOpt = 0,
    cost: PointOpt = 0,
    training_vs_inference: PointOpt = 0,
) -> None:
    """After the end: rate your explanation against the model answer (0..2 per point)."""
    with _client() as client:
        done = client._json(
            "POST",
            f"/interviews/{interview}/self-rating",
            json={
                "shapes": shapes,
                "numerical_stability": numerical_stability,
                "cost": cost,
                "training_vs_inference": training_vs_inference,
            },
        )
    _print_report(done["report"])


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="interview")
