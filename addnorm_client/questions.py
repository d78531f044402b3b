"""The concept-question walk-through used by the questions notebook.

Like ``submit_cell``, nothing here raises when the server is down or the token is wrong: the
learner sees the message and the notebook still runs to its end.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from addnorm_client.client import AddnormError, Client
from addnorm_client.render import Notice, show

T = TypeVar("T")


def _question_text(number: int, q: Mapping[str, Any]) -> str:
    lines = [f"{number}. {q.get('prompt', '')}"]
    if q.get("code"):
        lines += ["", *("     " + line for line in str(q["code"]).splitlines()), ""]
    for choice in q.get("choices") or []:
        lines.append(f"     [{choice.get('index')}] {choice.get('text')}")
    fmt = q.get("answer_format")
    unit = f" ({q['unit']})" if q.get("unit") else ""
    if fmt:
        lines.append(f"     answer with {fmt}{unit}")
    return "\n".join(lines)


def _question_html(number: int, q: Mapping[str, Any]) -> str:
    parts = [f"<li value='{number}'><p>{html.escape(str(q.get('prompt', '')))}</p>"]
    if q.get("code"):
        parts.append(f"<pre>{html.escape(str(q['code']))}</pre>")
    choices = q.get("choices") or []
    if choices:
        items = "".join(
            f"<li><code>{html.escape(str(c.get('index')))}</code> "
            f"{html.escape(str(c.get('text')))}</li>"
            for c in choices
        )
        parts.append(f"<ul style='list-style:none'>{items}</ul>")
    if q.get("answer_format"):
        unit = f" ({q['unit']})" if q.get("unit") else ""
        fmt = html.escape(f"{q['answer_format']}{unit}")
        parts.append(f"<p style='color:#57606a'>answer with {fmt}</p>")
    parts.append("</li>")
    return "".join(parts)


class QuestionList:
    def __init__(self, questions: Sequence[Mapping[str, Any]]) -> None:
        self.questions = questions

    def _repr_html_(self) -> str:
        items = "".join(_question_html(i, q) for i, q in enumerate(self.questions, 1))
        return f"<ol class='addnorm-questions'>{items}</ol>"

    def __repr__(self) -> str:
        return "\n\n".join(_question_text(i, q) for i, q in enumerate(self.questions, 1))


class AnswerView:
    def __init__(self, number: int, result: Mapping[str, Any]) -> None:
        self.number = number
        self.result = result

    def _source(self) -> str:
        source = self.result.get("source")
        if isinstance(source, Mapping):
            return f"{source.get('article', '')}, {source.get('section', '')}"
        references = self.result.get("references")
        if "source" in self.result and isinstance(references, list) and references:
            # A question beyond the course articles names its references instead.
            return "not in the course articles; " + "; ".join(str(r) for r in references)
        return ""

    def _repr_html_(self) -> str:
        ok = bool(self.result.get("correct"))
        colour = "#1a7f37" if ok else "#cf222e"
        verdict = "correct" if ok else "incorrect"
        parts = [
            f"<div class='addnorm-answer' data-correct='{str(ok).lower()}' "
            f"style='border-left:6px solid {colour};padding:6px 12px'>",
            f"<p><strong style='color:{colour}'>{self.number}. {verdict}</strong>",
        ]
        if not ok:
            key = html.escape(str(self.result.get("correct_answer_text", "")))
            parts.append(f" &mdash; the answer is: {key}")
        parts.append(f"</p><p>{html.escape(str(self.result.get('explanation', '')))}</p>")
        if self._source():
            parts.append(f"<p style='color:#57606a'>Source: {html.escape(self._source())}</p>")
        parts.append("</div>")
        return "".join(parts)

    def __repr__(self) -> str:
        ok = bool(self.result.get("correct"))
        head = f"{self.number}. {'correct' if ok else 'incorrect'}"
        if not ok:
            head += f": the answer is: {self.result.get('correct_answer_text', '')}"
        lines = [head, f"   {self.result.get('explanation', '')}"]
        if self._source():
            lines.append(f"   Source: {self._source()}")
        return "\n".join(lines)


class QuestionWalk:
    """A topic's questions, numbered from 1, fetched once; answers are graded by the server."""

    def __init__(self, topic: str, lang: str = "en", client: Client | None = None) -> None:
        self.topic = topic
        self.lang = lang
        self._client = client
        self.questions: list[dict[str, Any]] = []
        self.problem: str | None = None
        try:
            self.questions = self._call(lambda c: c.questions(topic=topic, lang=lang))
        except AddnormError as exc:
            self.problem = str(exc)

    def _call(self, request: Callable[[Client], T]) -> T:
        if self._client is not None:
            return request(self._client)
        with Client() as client:
            return request(client)

    def show(self) -> None:
        if self.problem is not None:
            show(Notice(self.problem))
        elif not self.questions:
            show(Notice(f"the server has no questions on topic {self.topic!r}"))
        else:
            show(QuestionList(self.questions))

    def answer(self, number: int, answer: object) -> None:
        """Grade ``answer`` to question ``number`` (as numbered by ``show``) and show the result."""
        if self.problem is not None:
            show(Notice(self.problem))
            return
        if not 1 <= number <= len(self.questions):
            show(Notice(f"there is no question {number}: pick 1..{len(self.questions)}"))
            return
        question_id = str(self.questions[number - 1]["id"])
        try:
            result = self._call(lambda c: c.answer(question_id, answer, lang=self.lang))
        except AddnormError as exc:
            show(Notice(f"question {number}: {exc}"))
            return
        show(AnswerView(number, result))

    def answer_all(self, answers: Mapping[int, object]) -> None:
        if self.problem is not None:
            show(Notice(self.problem))
            return
        if not answers:
            show(Notice("no answers yet: fill in my_answers above, then run this cell again"))
            return
        for number, answer in sorted(answers.items()):
            self.answer(number, answer)
