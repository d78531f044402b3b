"""``addnorm interview``: sit a mock interview from the terminal.

    addnorm interview start --preset phone_screen
    addnorm interview show 7                    # items, budgets and clocks; the report at the end
    addnorm interview open 7 2                  # start item 2's clock (time is kept per item)
    addnorm interview leave 7 2                 # stop it (answering a question stops it too)
    addnorm interview answer 7 2 "1"            # a question or follow-up ("1", "0,2", "true", 0.5)
    addnorm interview explain 7 5 "Because ..." # the explain item, a few sentences ("-": stdin)
    addnorm interview submit 7 1 layer_norm.py  # only "received" until the end
    addnorm interview finish 7 [--yes]          # --yes ends it with items unanswered
    addnorm interview rate 7 --shapes 2 --numerical-stability 1 --cost 2 --training-vs-inference 0

Everything goes through the server's interview routes; practice routes answer 409 meanwhile.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.cells import cell_len
from rich.text import Text

from addnorm_client.cli import show
from addnorm_client.cli.answers import NotAnAnswer, parse_answer
from addnorm_client.cli.commands import JsonOpt, _client, err, friendly, out
from addnorm_client.cli.workfile import SLUG, read_code, sendable, starter_file
from addnorm_client.client import AddnormError, ApiError, Client

app = typer.Typer(help="Sit a mock interview: start, answer, submit, finish, read the report.")

IdArg = Annotated[int, typer.Argument(help="The interview's number.")]
ItemArg = Annotated[int, typer.Argument(help="The item's position (1, 2, ...).")]

# The lengths the server takes by default: ADDNORM_INTERVIEW_MIN_MINUTES (10) to MAX_MINUTES
# (api.learning.interviews). A value in between that a server refuses, it refuses with its own.
SHORTEST_MINUTES, LONGEST_MINUTES = 10, 180


# The terminal's own words, in the report's language (the server's texts come in it already);
# the same words as the pages (api/web/i18n.py). A sentence is keyed by its English template.
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
    "you wrote": "你写的",
    "review next": "接下来复习",
    "trend": "历次面试走势",
    "phone_screen": "电话面试",
    "onsite": "现场面试",
    "concepts": "概念面试",
    "shapes": "张量形状",
    "numerical_stability": "数值稳定性",
    "cost": "计算与内存开销",
    "training_vs_inference": "训练与推理的区别",
    # Sentences.
    "item {n} ({kind}): {spent} of {budget}": "第 {n} 题（{kind}）：已用 {spent}，限时 {budget}",
    "item {n} ({kind}): clock stopped at {spent} of {budget}": (
        "第 {n} 题（{kind}）：计时已停止，已用 {spent}，限时 {budget}"
    ),
    "answer with {format}: `addnorm interview answer {id} {n} ANSWER`": (
        "作答（{format}）：`addnorm interview answer {id} {n} 答案`"
    ),
    "explain {title}: why your code is right, and what it costs; send it with "
    "`addnorm interview explain {id} {n} TEXT` (TEXT - reads it from standard input)": (
        "讲解 {title}：你的代码为什么正确，开销多大；用 `addnorm interview explain {id} {n} 文字` "
        "提交（文字写 - 则从标准输入读取）"
    ),
    "wrote the starter to {file}": "已把初始代码写入 {file}",
    "{file} already exists: kept as it is, not overwritten": "{file} 已存在：原样保留，未覆盖",
    "cannot write {file}: {why}": "无法写入 {file}：{why}",
    "send it with `addnorm interview submit {id} {n} {file}`": (
        "写好后提交：`addnorm interview submit {id} {n} {file}`"
    ),
    "item {n}: recorded; an item takes one answer, so its clock has stopped": (
        "第 {n} 题：已记录；每题只作答一次，计时已停止"
    ),
    "item {n}: {result} ({left} submissions left); its clock runs until you open another "
    "item or `addnorm interview leave {id} {n}`": (
        "第 {n} 题：{result}（还可提交 {left} 次）；计时继续，直到你打开另一题或运行 "
        "`addnorm interview leave {id} {n}`"
    ),
    "item {n}'s clock still runs ({why}); stop it with `addnorm interview leave {id} {n}`": (
        "第 {n} 题仍在计时（{why}）；用 `addnorm interview leave {id} {n}` 停止"
    ),
    "interview {id} has no item {n}": "模拟面试 {id} 没有第 {n} 题",
    "item {n} is an exercise: send your code with `addnorm interview submit {id} {n} FILE`": (
        "第 {n} 题是编程题：用 `addnorm interview submit {id} {n} 文件` 提交代码"
    ),
    "item {n} is the explain item: write it with `addnorm interview explain {id} {n} TEXT`": (
        "第 {n} 题是讲解代码：用 `addnorm interview explain {id} {n} 文字` 作答"
    ),
    "item {n} is a question: answer it with `addnorm interview answer {id} {n} ANSWER`": (
        "第 {n} 题是概念题：用 `addnorm interview answer {id} {n} 答案` 作答"
    ),
    "item {n} is no longer served": "第 {n} 题已不再提供",
    "the explanation is empty: write a few sentences (TEXT, or - to read them from standard "
    "input)": "讲解是空的：请写几句话（直接写，或写 - 从标准输入读取）",
    "standard input is not UTF-8 text": "标准输入不是 UTF-8 文本",
    "items {items} are unanswered; run again with --yes to finish anyway": (
        "第 {items} 题还未作答；确认结束请加 --yes 再运行一次"
    ),
    "--minutes is the interview's length, between {low} and {high} minutes, not {got}": (
        "--minutes 是面试时长，须在 {low} 到 {high} 分钟之间，不能是 {got}"
    ),
    "rate all four points (0..2 each); missing {missing}": (
        "四项都要自评（每项 0..2）；缺少 {missing}"
    ),
}


def _word(word: str, lang: str) -> str:
    return _ZH.get(word, word) if lang == "zh" else word


def _say(lang: str, text: str, **values: Any) -> str:
    """``text``, an English template, in ``lang`` with its fields filled in."""
    return _word(text, lang).format(**values)


def _lang(iv: dict[str, Any]) -> str:
    return "zh" if iv.get("lang") == "zh" else "en"


def _listed(values: Iterable[object], lang: str) -> str:
    return ("、" if lang == "zh" else ", ").join(map(str, values))


def _cells(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns: a CJK character takes two, so ``:<9``
    (which counts characters) misaligns the columns of a Chinese report."""
    return text + " " * max(0, width - cell_len(text))


def _clock(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def _print_question(question: dict[str, Any], indent: str = "") -> None:
    """A question's code (a code-reading question is about it) and its numbered choices."""
    if question.get("code"):
        for line in str(question["code"]).rstrip().splitlines():
            out.print(Text(f"{indent}{line}" if line.strip() else ""))
    for choice in question.get("choices") or []:
        out.print(Text(f"{indent}{choice['index']}) {choice['text']}"))


def _print_interview(iv: dict[str, Any]) -> None:
    lang = _lang(iv)

    def w(word: str) -> str:
        return _word(word, lang)

    out.print(
        Text(
            f"{w('interview')} {iv['id']} · {w(iv.get('preset') or 'interview')} · "
            f"{w(iv['state'])} · {_clock(float(iv.get('remaining_seconds') or 0))} {w('left')}"
        )
    )
    report = iv.get("report")
    # Once it has ended, an item is what the report found it to be, not "open".
    results = {r["position"]: r["result"] for r in report["items"]} if report else {}
    width = 12 if report else 9
    for it in iv["items"]:
        label = it.get("ask") or (it.get("question") or {}).get("prompt") or it.get("title")
        status = results.get(it["position"], it["status"])
        line = (
            f"  {it['position']:>2}. {_cells(w(it['kind']), 9)} {_cells(w(status), width)} "
            f"{_clock(it['time_spent_seconds'])}/{_clock(it['budget_seconds'])}  {label}"
        )
        out.print(Text(line))
        question = it.get("question")
        if question and it["status"] == "open" and iv["state"] == "running":
            _print_question(question, indent="        ")
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
        if item.get("explanation"):
            first, *more = str(item["explanation"]).splitlines() or [""]
            out.print(Text(f"      {w('you wrote')}{colon}{first}"))
            for line in more:
                out.print(Text(f"        {line}"))
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
    raise AddnormError(_say(_lang(iv), "interview {id} has no item {n}", id=iv["id"], n=position))


# What each kind of item takes, and the command that sends it.
_ANSWER_IT = "item {n} is a question: answer it with `addnorm interview answer {id} {n} ANSWER`"
_TAKES = {
    "question": _ANSWER_IT,
    "follow_up": _ANSWER_IT,
    "exercise": "item {n} is an exercise: send your code with "
    "`addnorm interview submit {id} {n} FILE`",
    "explain": "item {n} is the explain item: write it with "
    "`addnorm interview explain {id} {n} TEXT`",
}


def _item_of_kind(iv: dict[str, Any], position: int, kinds: tuple[str, ...]) -> dict[str, Any]:
    """Item ``position``, which must be one of ``kinds``; else the command its kind takes."""
    it = _item(iv, position)
    if it["kind"] not in kinds and it["kind"] in _TAKES:
        raise AddnormError(_say(_lang(iv), _TAKES[it["kind"]], id=iv["id"], n=position))
    return it


def _stop_clock(client: Client, iv: dict[str, Any], position: int) -> None:
    """Leave an item once its one answer is recorded. Its clock would otherwise run on until
    another item is opened; a failure here leaves the answer recorded and says so."""
    try:
        client._json("POST", f"/interviews/{iv['id']}/items/{position}/leave")
        return
    except ApiError as exc:
        if exc.status == 409:  # the interview has just ended: every clock has stopped
            return
        why = exc.detail
    except AddnormError as exc:
        why = str(exc)
    said = "item {n}'s clock still runs ({why}); stop it with `addnorm interview leave {id} {n}`"
    err.print(Text("addnorm: " + _say(_lang(iv), said, n=position, why=why, id=iv["id"])))


@app.command("start")
@friendly
def start(
    preset: Annotated[
        str, typer.Option("--preset", help="phone_screen, onsite (default) or concepts.")
    ] = "onsite",
    minutes: Annotated[
        float | None,
        typer.Option(
            "--minutes",
            help=f"Length in minutes, {SHORTEST_MINUTES} to {LONGEST_MINUTES} (default: the "
            "preset's, 20 or 45 for onsite); every item's budget is scaled to it.",
        ),
    ] = None,
    lang: Annotated[str, typer.Option("--lang", help="en or zh.")] = "en",
    as_json: JsonOpt = False,
) -> None:
    """Start a mock interview."""
    body: dict[str, Any] = {"preset": preset, "lang": lang}
    if minutes is not None:
        # NaN and infinity are no JSON; nothing at or below 0 is a length. Other values out of
        # range the server refuses itself, naming its own bounds.
        if not (math.isfinite(minutes) and minutes > 0):
            raise AddnormError(
                _say(
                    "zh" if lang == "zh" else "en",
                    "--minutes is the interview's length, between {low} and {high} minutes, "
                    "not {got}",
                    low=SHORTEST_MINUTES,
                    high=LONGEST_MINUTES,
                    got=f"{minutes:g}",
                )
            )
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
    """The interview: items with their clocks (and a question's code and choices); once it has
    ended, each item's result and the report."""
    with _client() as client:
        iv = client._json(
            "GET", f"/interviews/{interview}", params={"lang": lang} if lang else None
        )
    if as_json:
        show.print_json(out, iv)
        return
    _print_interview(iv)


def _write_starter(iv: dict[str, Any], it: dict[str, Any]) -> None:
    """The exercise's starter as ``SLUG.py`` here (``addnorm start`` is paused meanwhile),
    unless that file exists: the learner's work is never overwritten."""
    slug, starter = str(it.get("id") or ""), it.get("starter")
    if not starter or not SLUG.match(slug):
        return
    lang = _lang(iv)
    path = Path(f"{slug}.py")
    try:
        with path.open("x", encoding="utf-8") as f:  # "x": never over an existing file
            f.write(starter_file(slug, str(starter)))
        out.print(Text(_say(lang, "wrote the starter to {file}", file=path)))
    except FileExistsError:
        out.print(
            Text(_say(lang, "{file} already exists: kept as it is, not overwritten", file=path))
        )
    except OSError as exc:
        raise AddnormError(
            _say(lang, "cannot write {file}: {why}", file=path, why=exc.strerror)
        ) from None
    said = "send it with `addnorm interview submit {id} {n} {file}`"
    out.print(Text(_say(lang, said, id=iv["id"], n=it["position"], file=path)))


def _move_clock(
    interview: int, position: int, event: str, said: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Open or leave an item on the server and print its clock with ``said``; (the interview,
    the item)."""
    with _client() as client:
        clock = client._json("POST", f"/interviews/{interview}/items/{position}/{event}")
        iv = client._json("GET", f"/interviews/{interview}")
    lang = _lang(iv)
    it = _item(iv, position)
    spent, budget = _clock(clock["time_spent_seconds"]), _clock(clock["budget_seconds"])
    kind = _word(it["kind"], lang)
    out.print(Text(_say(lang, said, n=position, kind=kind, spent=spent, budget=budget)))
    return iv, it


@app.command("open")
@friendly
def open_item(interview: IdArg, position: ItemArg) -> None:
    """Turn to an item: its clock runs until another is opened or it is left. A question shows
    its code and choices; an exercise's starter is written to SLUG.py here, unless that exists."""
    iv, it = _move_clock(interview, position, "open", "item {n} ({kind}): {spent} of {budget}")
    lang = _lang(iv)
    question = it.get("question")
    if question:
        if it.get("ask"):
            out.print(Text(str(it["ask"])))
        out.print(Text(str(question["prompt"])))
        _print_question(question)
        unit = question.get("unit")
        shape = str(question.get("answer_format") or "")
        if unit:
            shape += f"（{unit}）" if lang == "zh" else f" ({unit})"
        said = "answer with {format}: `addnorm interview answer {id} {n} ANSWER`"
        out.print(Text(_say(lang, said, format=shape, id=interview, n=position), "dim"))
    elif it.get("prompt"):
        out.print(Text(str(it["prompt"])))
    if it["kind"] == "exercise":
        _write_starter(iv, it)
    elif it["kind"] == "explain":
        said = (
            "explain {title}: why your code is right, and what it costs; send it with "
            "`addnorm interview explain {id} {n} TEXT` (TEXT - reads it from standard input)"
        )
        title = it.get("title") or it["id"]
        out.print(Text(_say(lang, said, title=title, id=interview, n=position), "dim"))


@app.command("leave")
@friendly
def leave_item(interview: IdArg, position: ItemArg) -> None:
    """Step away from the open item: its clock stops until an item is opened again. Answering
    a question or the explain item stops its clock too; a submission does not (you may submit
    again)."""
    _move_clock(
        interview, position, "leave", "item {n} ({kind}): clock stopped at {spent} of {budget}"
    )


# A numeric answer may be negative ("-0.5"), and an explanation may open with a dash: without
# this, click reads either as an unknown option and stops with a usage error. These commands
# take no options of their own but --help, which still works.
_FREE_TEXT = {"ignore_unknown_options": True}


@app.command("answer", context_settings=_FREE_TEXT)
@friendly
def answer(interview: IdArg, position: ItemArg, text: Annotated[str, typer.Argument()]) -> None:
    """Answer a question or follow-up: recorded, no word on whether it is right. It takes one
    answer, so its clock stops."""
    with _client() as client:
        iv = client._json("GET", f"/interviews/{interview}")
        lang = _lang(iv)
        question = _item_of_kind(iv, position, ("question", "follow_up")).get("question")
        if not question:
            raise AddnormError(_say(lang, "item {n} is no longer served", n=position))
        try:
            value = parse_answer(question, text, lang)
        except NotAnAnswer as exc:
            raise AddnormError(str(exc)) from None
        client._json(
            "POST", f"/interviews/{interview}/items/{position}/answers", json={"answer": value}
        )
        _stop_clock(client, iv, position)
    said = "item {n}: recorded; an item takes one answer, so its clock has stopped"
    out.print(Text(_say(lang, said, n=position)))


def _stdin_text(lang: str) -> str:
    try:
        return sys.stdin.read()
    except UnicodeDecodeError:
        raise AddnormError(_say(lang, "standard input is not UTF-8 text")) from None


@app.command("explain", context_settings=_FREE_TEXT)
@friendly
def explain(
    interview: IdArg,
    position: ItemArg,
    text: Annotated[
        str, typer.Argument(help='A few sentences; "-" reads them from standard input.')
    ],
) -> None:
    """Explain your code: why it is right and what it costs. It takes one answer, so its clock
    stops. `explain 7 9 - < notes.md` sends a file."""
    with _client() as client:
        iv = client._json("GET", f"/interviews/{interview}")
        lang = _lang(iv)
        _item_of_kind(iv, position, ("explain",))
        if text == "-":
            text = _stdin_text(lang)
        if not text.strip():
            raise AddnormError(
                _say(
                    lang,
                    "the explanation is empty: write a few sentences (TEXT, or - to read them "
                    "from standard input)",
                )
            )
        client._json(
            "POST", f"/interviews/{interview}/items/{position}/answers", json={"answer": text}
        )
        _stop_clock(client, iv, position)
    said = "item {n}: recorded; an item takes one answer, so its clock has stopped"
    out.print(Text(_say(lang, said, n=position)))


@app.command("submit")
@friendly
def submit(
    interview: IdArg,
    position: ItemArg,
    file: Annotated[Path, typer.Argument(help="Your code for this item.")],
) -> None:
    """Submit code for a coding item: "received" only, the verdict is the report's. The clock
    keeps running (you may submit again): `leave` stops it."""
    code = sendable(file, read_code(file))
    with _client() as client:
        iv = client._json("GET", f"/interviews/{interview}")
        _item_of_kind(iv, position, ("exercise",))
        got = client._json(
            "POST", f"/interviews/{interview}/items/{position}/submissions", json={"code": code}
        )
    lang = _lang(iv)
    said = (
        "item {n}: {result} ({left} submissions left); its clock runs until you open another "
        "item or `addnorm interview leave {id} {n}`"
    )
    result, left = _word(str(got["result"]), lang), got["attempts_left"]
    out.print(Text(_say(lang, said, n=position, result=result, left=left, id=interview)))


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
        lang = _lang(iv)
        left = [it["position"] for it in iv["items"] if it["status"] == "open"]
        if left and not yes and iv["state"] == "running":
            said = "items {items} are unanswered; run again with --yes to finish anyway"
            raise AddnormError(_say(lang, said, items=_listed(left, lang)))
        done = client._json("POST", f"/interviews/{interview}/finish", params={"confirm": "true"})
    if as_json:
        show.print_json(out, done)
        return
    _print_interview(done)


def _point(name: str) -> Any:
    return typer.Option(
        min=0, max=2, help=f"{name}: 0 missed, 1 touched on it, 2 covered as the model answer does."
    )


@app.command("rate")
@friendly
def rate(
    interview: IdArg,
    shapes: Annotated[int | None, _point("Shapes")] = None,
    numerical_stability: Annotated[int | None, _point("Numerical stability")] = None,
    cost: Annotated[int | None, _point("Cost")] = None,
    training_vs_inference: Annotated[int | None, _point("Training vs inference")] = None,
) -> None:
    """After the end: rate your explanation against the model answer, all four points, 0..2
    each."""
    points = {
        "shapes": shapes,
        "numerical_stability": numerical_stability,
        "cost": cost,
        "training_vs_inference": training_vs_inference,
    }
    missing = ["--" + name.replace("_", "-") for name, value in points.items() if value is None]
    with _client() as client:
        if missing:
            lang = _lang(client._json("GET", f"/interviews/{interview}"))
            said = "rate all four points (0..2 each); missing {missing}"
            raise AddnormError(_say(lang, said, missing=_listed(missing, lang)))
        done = client._json("POST", f"/interviews/{interview}/self-rating", json=points)
    _print_report(done["report"])


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="interview")
