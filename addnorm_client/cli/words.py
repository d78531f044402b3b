"""The learner commands' own words in Chinese (``--lang zh``): ``list``, ``start``, ``hint``,
``solution``, ``quiz`` and ``review``. What the server sends (titles, prompts, hints, questions,
explanations, reasons) comes in the asked language already and is never translated here.

A sentence is keyed by its English template, which is also what English output prints, so the
English stays as it was. The words are the pages' own where they have one
(``api/web/locale/zh/LC_MESSAGES/messages.po``, read through ``api.web.i18n``; the client does not
import the server, so they are repeated here). The verdict card has its words in ``show``, the
mock interview in ``interview``.
"""

from __future__ import annotations

from typing import Any

_ZH = {
    # list: the table's headers and cells, the progress line.
    "exercise": "题目",
    "title": "标题",
    "topic": "主题",
    "level": "难度",
    "status": "状态",
    "easy": "简单",
    "medium": "中等",
    "hard": "困难",
    "not started": "未开始",
    "attempted": "已尝试",
    "solved": "已解决",
    "progress ": "进度 ",
    " {solved}/{total} exercises solved": " 已解决 {solved}/{total} 道编程题",
    # start
    "{title}: wrote {code} and {prompt}": "{title}：已写入 {code} 和 {prompt}",
    "read {prompt}, fill in {code}, then:": "阅读 {prompt}，在 {code} 中写好代码，然后运行：",
    "  addnorm watch {code}     (checks and submits on every save)": (
        "  addnorm watch {code}     （每次保存都检查并提交）"
    ),
    "  addnorm submit {code}    (once)": "  addnorm submit {code}    （提交一次）",
    "{path} already exists (your work?); use --force to overwrite it": (
        "{path} 已存在（是你写的代码吗？）；要覆盖请加 --force"
    ),
    # hint and solution
    "{slug}: hint {rung} of {rungs} ({kind})": "{slug}：提示 {rung}/{rungs}（{kind}）",
    "concept": "思路",
    "formula": "公式",
    "usual_mistake": "常见错误",
    "next: addnorm hint {slug}": "下一条：addnorm hint {slug}",
    "{slug} has no hints": "{slug} 没有提示",
    "{slug}: worked solution ({reason})": "{slug}：参考解答（{reason}）",
    # quiz and review
    "answer with {format}{unit}; empty to skip": "作答格式：{format}{unit}；直接回车跳过",
    " ({unit})": "（{unit}）",
    "{problem}; try again": "{problem}；请再输入一次",
    "skipped": "已跳过",
    "correct": "回答正确",
    "incorrect: the answer is {answer}": "回答错误：正确答案是 {answer}",
    "{right} of {answered} answered correctly": "共作答 {answered} 题，答对 {right} 题",
    "nothing due today: try `addnorm quiz` or a new exercise": (
        "今天没有待复习的内容：试试 `addnorm quiz`，或做一道新题"
    ),
    "today: {due} due for review, {new} new; focus: {focus}": (
        "今日：{due} 项待复习，{new} 项新内容；重点：{focus}"
    ),
    "  exercise {id}: addnorm start {id}": "  编程题 {id}：addnorm start {id}",
    "no questions for topic {topic!r}": "主题 {topic!r} 没有题目",
}


def word(text: str, lang: str) -> str:
    """``text`` (a word as the server names it, e.g. ``easy``) in ``lang``."""
    return _ZH.get(text, text) if lang == "zh" else text


def say(lang: str, text: str, **values: Any) -> str:
    """``text``, an English template, in ``lang`` with its fields filled in."""
    return word(text, lang).format(**values)


def listed(values: list[str], lang: str) -> str:
    return ("、" if lang == "zh" else ", ").join(values)
