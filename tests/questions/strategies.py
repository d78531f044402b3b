"""Guessing strategies played against the question bank, one per cue a test-taker can exploit.

Each player answers every question of the kind it applies to without knowing anything about
normalisation or Transformers: it reads only the surface of the choices or the prompt (lengths,
digits, absolute words, the wording of a true/false item, the numbers printed in a prompt). Its
*score* is the expected fraction it gets right, ties broken at random; its *chance* is what a
blind guess scores on the same items. The lint (test_lint.py) holds every player to chance +
MAX_OVER_CHANCE in each language and prints the table.

Issue 29 found these cues after issue 16 removed "the key is strictly the longest".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from api.content.questions import (
    LANGS,
    CodeReadingQuestion,
    Lang,
    MultipleSelectQuestion,
    NumericQuestion,
    QuestionBank,
    SingleChoiceQuestion,
    TrueFalseQuestion,
)

OneKey = SingleChoiceQuestion | CodeReadingQuestion

# A player may beat a blind guess by this much (10 points) before the lint fails.
MAX_OVER_CHANCE = 0.10

# "Always", "never", "only" ...: a test-taker learns that such options are usually wrong.
ABSOLUTE = {
    "en": re.compile(
        r"\b(always|never|all|every|only|any|none|whatever|regardless|guarantee[sd]?|must|"
        r"cannot|impossible|completely|entirely|rules? out|eliminates?)\b",
        re.IGNORECASE,
    ),
    "zh": re.compile(
        r"总是|始终|永远|从不|绝不|一定|必然|必须|所有|任何|完全|只有|唯一|杜绝|无论|不可能|彻底|总能"
    ),
}

# True/false wording. The quoted form puts an article's claim and asks nothing more ("The ...
# article says X. True or false?"); the reworded form asks whether a claim is "established",
# "proven", "fixed" or "general". Issue 29 found the first always true and the second always false.
QUOTED_ONLY = {
    "en": re.compile(r"\barticle\b.*\bTrue or false\?\s*$", re.IGNORECASE | re.DOTALL),
    "zh": re.compile(r"》.*判断对错。\s*$", re.DOTALL),
}
HEDGE_TRAP = {
    "en": re.compile(
        r"\b(established|proven|proves?|fixed|general(ly)?|settled|in general|always)\b",
        re.IGNORECASE,
    ),
    "zh": re.compile(r"定论|证明|证实|固定|普遍|一般|总能|总是|公认|通用"),
}

# Qualifiers: "usually", "can", "in practice"...: issue 52 found the key on the items that judge a
# claim of the material the only qualified option among absolute straw men.
HEDGE = {
    "en": re.compile(
        r"\b(usually|often|typically|mostly|largely|partly|partially|roughly|about|approximately|"
        r"around|some|sometimes|can|may|might|could|tends? to|likely|in practice|depends?|"
        r"depending|not necessarily|not always|rarely|seldom|modest(ly)?|somewhat|at most|"
        r"mainly|generally|in part|helps?|more or less)\b",
        re.IGNORECASE,
    ),
    "zh": re.compile(
        r"通常|往往|常常|经常|一般|大多|多数|大约|约|左右|可能|也许|未必|不一定|取决于|视.{0,8}而定|"
        r"倾向|部分|有时|实践中|较|略|有助于|主要|基本"
    ),
}

# Digits and the symbols of formulas and code: "the most specific option is right".
SPECIFIC = re.compile(r"[0-9=+\-*/^()\[\]{}<>%×·√≈≤≥_|`~²³√]")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:e-?\d+)?")


@dataclass(frozen=True)
class Score:
    """A player's expected score on `items` questions, against what a blind guess scores."""

    strategy: str
    lang: Lang
    items: int
    score: float
    chance: float

    @property
    def over_chance(self) -> float:
        return self.score - self.chance

    @property
    def within_bound(self) -> bool:
        return self.over_chance <= MAX_OVER_CHANCE + 1e-9


def texts(q: OneKey | MultipleSelectQuestion, lang: Lang) -> list[str]:
    return [c.text if lang == "en" else c.text_zh for c in q.choices]


def lengths(q: OneKey | MultipleSelectQuestion, lang: Lang) -> list[int]:
    # Characters, whitespace dropped: Chinese has no spaces and English has many.
    return [len("".join(t.split())) for t in texts(q, lang)]


def in_top(values: Sequence[float], index: int, k: int) -> float:
    """Probability that choice `index` is among the k largest, ties broken at random."""
    above = sum(v > values[index] for v in values)
    tied = sum(v == values[index] for v in values)
    if above >= k:
        return 0.0
    if above + tied <= k:
        return 1.0
    return (k - above) / tied


def pick_top(values: Sequence[float], key: int, k: int) -> float:
    # Guess uniformly among the k largest: right with P(key in top k) / k.
    return in_top(values, key, k) / k


def specificity(text: str) -> int:
    return len(SPECIFIC.findall(text))


# ----------------------------------------------------------------- single-key players


def _longest(q: OneKey, lang: Lang) -> float:
    # "The longest is right", a tie for the longest counted as a hit (issue 29's measure).
    n = lengths(q, lang)
    return float(n[q.answer] == max(n))


def _longest_chance(q: OneKey, lang: Lang) -> float:
    n = lengths(q, lang)
    return n.count(max(n)) / len(n)


def _two_longest(q: OneKey, lang: Lang) -> float:
    return pick_top(lengths(q, lang), q.answer, 2)


def _not_the_shortest(q: OneKey, lang: Lang) -> float:
    # "The shortest is never right": a hit when the key is not (tied for) the shortest.
    n = lengths(q, lang)
    return float(n[q.answer] != min(n) or len(set(n)) == 1)


def _not_the_shortest_chance(q: OneKey, lang: Lang) -> float:
    n = lengths(q, lang)
    return 1.0 if len(set(n)) == 1 else 1 - n.count(min(n)) / len(n)


def _most_specific(q: OneKey, lang: Lang) -> float:
    return pick_top([specificity(t) for t in texts(q, lang)], q.answer, 1)


def _no_absolute_words(q: OneKey, lang: Lang) -> float:
    # Guess among the choices without "always"/"never"; all of them if every choice has one.
    plain = [i for i, t in enumerate(texts(q, lang)) if not ABSOLUTE[lang].search(t)]
    pool = plain or list(range(len(q.choices)))
    return (q.answer in pool) / len(pool)


def hedges(text: str, lang: Lang) -> int:
    return len(HEDGE[lang].findall(text))


def _most_hedged(q: OneKey, lang: Lang) -> float:
    # Guess among the options with the most qualifiers (all of them if none has one).
    return pick_top([hedges(t, lang) for t in texts(q, lang)], q.answer, 1)


def judges_a_claim(q: OneKey | TrueFalseQuestion) -> bool:
    """The item puts a claim of the course articles to the learner (it names an article)."""
    return "article" in q.prompt.lower() or "《" in q.prompt_zh


def _uniform(q: OneKey, lang: Lang) -> float:
    return 1 / len(q.choices)


# name: (player, what a blind guess scores on the same measure)
ONE_KEY_PLAYERS: dict[
    str, tuple[Callable[[OneKey, Lang], float], Callable[[OneKey, Lang], float]]
] = {
    "longest choice (ties counted)": (_longest, _longest_chance),
    "two longest, guess between": (_two_longest, _uniform),
    "never the shortest (key not shortest)": (_not_the_shortest, _not_the_shortest_chance),
    "most digits and symbols": (_most_specific, _uniform),
    "avoid absolute words": (_no_absolute_words, _uniform),
    "most hedged option": (_most_hedged, _uniform),
}


def one_key_score(bank: QuestionBank, name: str, lang: Lang, *, claims_only: bool = False) -> Score:
    questions = [q for q in bank if isinstance(q, OneKey)]
    if claims_only:
        questions = [q for q in questions if judges_a_claim(q)]
    player, blind = ONE_KEY_PLAYERS[name]
    score = sum(player(q, lang) for q in questions) / len(questions)
    chance = sum(blind(q, lang) for q in questions) / len(questions)
    label = f"{name}, on items judging an article's claim" if claims_only else name
    return Score(label, lang, len(questions), score, chance)


# ----------------------------------------------------------------- multiple-select players


def _options(bank: QuestionBank, lang: Lang) -> list[tuple[str, bool]]:
    return [
        (text, i in q.answer)
        for q in bank
        if isinstance(q, MultipleSelectQuestion)
        for i, text in enumerate(texts(q, lang))
    ]


def tick_all_score(bank: QuestionBank, lang: Lang) -> Score:
    # Per option: ticking everything is right as often as options are keys; a coin scores 50%.
    options = _options(bank, lang)
    base_rate = sum(right for _, right in options) / len(options)
    return Score("multi: tick every option (key base rate)", lang, len(options), base_rate, 0.5)


def no_absolute_score(bank: QuestionBank, lang: Lang) -> Score:
    """Per option: tick exactly the options without absolute words.

    Chance is what a rule that ticks the same share of options, independently of the keys, would
    score: b r + (1 - b)(1 - r) for base rate b and ticked share r.
    """
    options = _options(bank, lang)
    ticks = [not ABSOLUTE[lang].search(text) for text, _ in options]
    right = sum(tick == key for tick, (_, key) in zip(ticks, options, strict=True))
    b = sum(key for _, key in options) / len(options)
    r = sum(ticks) / len(ticks)
    chance = b * r + (1 - b) * (1 - r)
    return Score(
        "multi: tick all without absolute words", lang, len(options), right / len(options), chance
    )


# ----------------------------------------------------------------- true/false players


def wording_guess(q: TrueFalseQuestion, lang: Lang) -> bool | None:
    """True for the bare "the article says X. True or false?" form, false for the reworded form
    that asks whether a claim is established/proven/general, None (a coin) otherwise."""
    prompt = q.prompt if lang == "en" else q.prompt_zh
    if QUOTED_ONLY[lang].search(prompt):
        return True
    if HEDGE_TRAP[lang].search(prompt):
        return False
    return None


# The format cue of issue 52: "The article says X. True or false?" read as true, and "The
# article says X. True or false: Y" (a consequence or a reading of X) read as false.
ASKS_ABOUT_A_READING = {
    "en": re.compile(r"\bTrue or false:\s*\S", re.IGNORECASE),
    "zh": re.compile(r"判断：\s*\S"),
}


def format_guess(q: TrueFalseQuestion, lang: Lang) -> bool | None:
    if not judges_a_claim(q):
        return None
    prompt = q.prompt if lang == "en" else q.prompt_zh
    if ASKS_ABOUT_A_READING[lang].search(prompt):
        return False
    if QUOTED_ONLY[lang].search(prompt):
        return True
    return None


def _absolute_guess(q: TrueFalseQuestion, lang: Lang) -> bool | None:
    prompt = q.prompt if lang == "en" else q.prompt_zh
    return not ABSOLUTE[lang].search(prompt)


def _true_false_score(
    bank: QuestionBank,
    name: str,
    lang: Lang,
    guess: Callable[[TrueFalseQuestion, Lang], bool | None],
) -> Score:
    items = [q for q in bank if isinstance(q, TrueFalseQuestion)]
    scores = [0.5 if (g := guess(q, lang)) is None else float(g == q.answer) for q in items]
    return Score(name, lang, len(items), sum(scores) / len(items), 0.5)


def wording_score(bank: QuestionBank, lang: Lang) -> Score:
    return _true_false_score(bank, "true/false: by wording", lang, wording_guess)


def absolute_tf_score(bank: QuestionBank, lang: Lang) -> Score:
    return _true_false_score(bank, "true/false: absolute word means false", lang, _absolute_guess)


def format_score(bank: QuestionBank, lang: Lang) -> Score:
    # Scored on the items the cue applies to (those naming an article), not diluted by the rest.
    items = [q for q in bank if isinstance(q, TrueFalseQuestion) and judges_a_claim(q)]
    scores = [0.5 if (g := format_guess(q, lang)) is None else float(g == q.answer) for q in items]
    name = "true/false: by format (quoted ? true, ': reading' false)"
    return Score(name, lang, len(items), sum(scores) / len(items), 0.5)


# ----------------------------------------------------------------- numeric player


def printed_numbers(prompt: str) -> set[float]:
    return {float(m) for m in NUMBER.findall(prompt)}


def numeric_printed_guess(q: NumericQuestion, lang: Lang) -> float:
    # Type one of the numbers printed in the prompt, at random: right with the share accepted.
    numbers = printed_numbers(q.prompt if lang == "en" else q.prompt_zh)
    if not numbers:
        return 0.0
    return sum(q.tolerance.accepts(n, q.answer) for n in numbers) / len(numbers)


def key_is_printed(q: NumericQuestion, lang: Lang) -> bool:
    numbers = printed_numbers(q.prompt if lang == "en" else q.prompt_zh)
    return any(q.tolerance.accepts(n, q.answer) for n in numbers)


def numeric_score(bank: QuestionBank, lang: Lang) -> Score:
    # A blind guess at a real number is essentially never right: chance is 0.
    items = [q for q in bank if isinstance(q, NumericQuestion)]
    printed = sum(key_is_printed(q, lang) for q in items)
    return Score("numeric: key printed in the prompt", lang, len(items), printed / len(items), 0.0)


# ----------------------------------------------------------------- all of them


def all_scores(bank: QuestionBank) -> list[Score]:
    scores = []
    for lang in LANGS:
        scores += [one_key_score(bank, name, lang) for name in ONE_KEY_PLAYERS]
        scores.append(one_key_score(bank, "most hedged option", lang, claims_only=True))
        scores += [tick_all_score(bank, lang), no_absolute_score(bank, lang)]
        scores += [wording_score(bank, lang), absolute_tf_score(bank, lang)]
        scores.append(format_score(bank, lang))
        scores.append(numeric_score(bank, lang))
    return scores


def table(scores: Sequence[Score]) -> str:
    """Strategy x language: score against chance, with the margin and whether it is in bound."""
    by_name: dict[str, dict[Lang, Score]] = {}
    for s in scores:
        by_name.setdefault(s.strategy, {})[s.lang] = s
    width = max(len(name) for name in by_name)
    head = f"{'strategy':<{width}} | " + " | ".join(f"{lang}: score vs chance" for lang in LANGS)
    lines = [head, "-" * len(head)]
    for name, per_lang in by_name.items():
        cells = []
        for lang in LANGS:
            s = per_lang[lang]
            mark = "ok" if s.within_bound else "OVER"
            cells.append(f"{s.score:5.1%} vs {s.chance:5.1%} ({s.over_chance:+.1%}) {mark:<4}")
        lines.append(f"{name:<{width}} | " + " | ".join(cells))
    return "\n".join(lines)
