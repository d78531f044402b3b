"""Formulas for a terminal: the TeX the hints and prompts write between ``$`` (inline) and
``$$`` (display) as plain Unicode text, e.g. ``$\\frac{x - \\mu}{\\sqrt{\\sigma^2 +
\\varepsilon}}$`` as ``(x - μ)/√(σ² + ε)``.

Only the subset the exercises use is known (fractions, roots, sums, sub- and superscripts,
Greek letters, ``\\mathrm`` and ``\\text``, ``\\hat``, delimiters, spacing, ``aligned``); any other
command is written as its name without the backslash, so nothing is ever dropped. Code spans
and fenced blocks are left exactly as they are.
"""

from __future__ import annotations

import re

_GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "iota": "ι",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
}
_SYMBOLS = {
    **_GREEK,
    "sum": "Σ",
    "prod": "∏",
    "partial": "∂",
    "nabla": "∇",
    "infty": "∞",
    "cdot": "·",
    "odot": "⊙",
    "otimes": "⊗",
    "times": "×",
    "div": "÷",
    "pm": "±",
    "top": "ᵀ",
    "leftarrow": "←",
    "rightarrow": "→",
    "to": "→",
    "gets": "←",
    "Rightarrow": "⇒",
    "mapsto": "↦",
    "sim": "~",
    "approx": "≈",
    "ge": "≥",
    "geq": "≥",
    "le": "≤",
    "leq": "≤",
    "ne": "≠",
    "neq": "≠",
    "in": "∈",
    "ldots": "…",
    "cdots": "⋯",
    "dots": "…",
    "lfloor": "⌊",
    "rfloor": "⌋",
    "lceil": "⌈",
    "rceil": "⌉",
    "langle": "⟨",
    "rangle": "⟩",
    "qquad": "    ",
    "quad": "  ",
}
# Functions written upright in TeX: their name, as a reader types it.
_NAMES = {"log", "exp", "max", "min", "tanh", "sin", "cos", "sqrt", "arg", "det"}
# Sizing and alignment carry no meaning in plain text; the delimiter after them stays.
_SILENT = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr"}
_SPACES = {",": " ", ";": " ", ":": " ", "!": "", " ": " "}
_TEXT_FONTS = {"mathrm", "text", "textrm", "texttt", "mathit", "mathbf", "textbf", "operatorname"}
_BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼"}
# Combining marks over the one character an accent takes.
_ACCENTS = {
    "hat": "\u0302",
    "bar": "\u0304",
    "overline": "\u0305",
    "tilde": "\u0303",
    "vec": "\u20d7",
}
_SUPER = dict(zip("0123456789+-=()niT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀ", strict=True))
_SUB = dict(
    zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)

# What may follow a fraction without a space.
_CLOSERS = set(")]}.,;:+-=^_&") | {"\\right", "\\big", "\\Big", "\\\\", "\\quad", "\\qquad"}

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|[{}^_&]|\s+|.", re.S)


class _Reader:
    def __init__(self, tex: str) -> None:
        self.tokens: list[str] = _TOKEN.findall(tex)
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def skip_space(self) -> None:
        while (t := self.peek()) is not None and t.isspace():
            self.i += 1

    def sequence(self, until: str | None = None) -> str:
        out: list[str] = []
        while (t := self.peek()) is not None:
            if t == until:
                self.i += 1
                return "".join(out)
            if t == "}":  # an unbalanced brace: kept, never dropped
                self.i += 1
                out.append("}")
                continue
            out.append(self.item())
        return "".join(out)

    def group(self) -> str:
        """One argument: a braced group, a command or one character."""
        self.skip_space()
        t = self.peek()
        if t is None:
            return ""
        if t == "{":
            self.i += 1
            return self.sequence(until="}")
        return self.item()

    def raw_group(self) -> str:
        """A braced group's text as written (``\\text{...}``, ``\\begin{...}``)."""
        self.skip_space()
        if self.peek() != "{":
            return self.group()
        self.i += 1
        depth, out = 1, []
        while (t := self.peek()) is not None:
            self.i += 1
            depth += {"{": 1, "}": -1}.get(t, 0)
            if depth == 0:
                break
            out.append(t)
        return "".join(out)

    def optional(self) -> str | None:
        self.skip_space()
        if self.peek() != "[":
            return None
        self.i += 1
        out: list[str] = []
        while (t := self.peek()) is not None and t != "]":
            out.append(self.item())
        self.i += 1
        return "".join(out)

    def item(self) -> str:
        t = self.take()
        if t == "{":
            return self.sequence(until="}")
        if t in ("^", "_"):
            return _script(self.group(), _SUPER if t == "^" else _SUB, t)
        if t == "&":
            return ""
        if t.isspace():
            return " "
        if not t.startswith("\\"):
            return t
        name = t[1:]
        if name == "\\":
            return "\n"
        if name in _SPACES:
            return _SPACES[name]
        if len(name) == 1:  # \{ \} \_ \% \$ \#: the character itself
            return name
        return self.command(name)

    def command(self, name: str) -> str:
        if name in ("frac", "tfrac", "dfrac"):
            top, bottom = self.group(), self.group()
            # "1/n Σᵢ xᵢ", not "1/nΣᵢ xᵢ": a space where the fraction runs into what follows.
            after = self.peek()
            gap = " " if after is not None and not after.isspace() and after not in _CLOSERS else ""
            return f"{_atom(top)}/{_atom(bottom)}{gap}"
        if name == "sqrt":
            degree = self.optional()
            root = {"3": "∛", "4": "∜"}.get(degree or "", "√")
            prefix = "" if degree is None or root != "√" else _script(degree, _SUPER, "^")
            return f"{prefix}{root}{_atom(self.group())}"
        if name in _TEXT_FONTS:
            return self.raw_group().replace("\\_", "_").replace("\\", "")
        if name == "mathbb":
            inner = self.raw_group()
            return "".join(_BLACKBOARD.get(c, c) for c in inner)
        if name in _ACCENTS:
            inner = self.group()
            if len(inner) == 1:
                return inner + _ACCENTS[name]
            return f"{name}({inner})"
        if name in ("begin", "end"):
            self.raw_group()  # aligned, cases, ...: the lines stay, the frame goes
            return ""
        if name in _SILENT:
            self.skip_space()
            if self.peek() == ".":  # \left. : an invisible delimiter
                self.i += 1
            return ""
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        if name in _NAMES:
            return name
        # Unknown: its name and its argument, legible, never dropped.
        if self.peek() == "{":
            return f"{name}({self.group()})"
        return name


def _atom(text: str) -> str:
    """``text`` as an operand: bare when it is one symbol or word, else in parentheses."""
    text = text.strip()
    if re.fullmatch(r"[√∛∜]?(?:[\w.\u0300-\u036f]+|\(.*\))", text) and _balanced(text):
        return text
    return f"({text})"


def _balanced(text: str) -> bool:
    depth = 0
    for i, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0 and c == ")" and i < len(text) - 1:
            return False  # "(a)(b)" is not one parenthesised operand
        if depth < 0:
            return False
    return depth == 0


def _script(text: str, table: dict[str, str], mark: str) -> str:
    """A sub- or superscript: in Unicode's script characters where they all exist, else as
    ``^x`` / ``_x`` for one symbol or word, ``^(...)`` for more."""
    text = text.strip()
    if text == "ᵀ" and mark == "^":
        return text
    if text and all(c in table for c in text):
        return "".join(table[c] for c in text)
    if re.fullmatch(r"\w+", text):
        return mark + text
    return f"{mark}({text})"


def tex_to_text(tex: str) -> str:
    """One formula (without its ``$`` delimiters) as plain text."""
    text = _Reader(tex).sequence()
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(line for line in lines if line.strip())


# Fenced code, inline code, display math, inline math: in this order of precedence.
_SPANS = re.compile(
    r"(?P<fence>^[ \t]*```.*?^[ \t]*```[ \t]*$)"
    r"|(?P<code>`+[^`]*?`+)"
    r"|\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$])\$(?P<inline>[^$\n]+?)\$",
    re.S | re.M,
)


def as_text(markdown: str) -> str:
    """A hint or a prompt with every formula as plain text; code as written."""
    out: list[str] = []
    last = 0
    for m in _SPANS.finditer(markdown):
        out.append(_prose(markdown[last : m.start()]))
        if m.group("display") is not None:
            indent = re.search(r"[ \t]*$", markdown[: m.start()])
            pad = indent.group(0) if indent else ""
            lines = tex_to_text(m.group("display")).split("\n")
            out.append(("\n" + pad).join(lines))
        elif m.group("inline") is not None:
            out.append(tex_to_text(m.group("inline")).replace("\n", " "))
        else:
            out.append(m.group(0))
        last = m.end()
    out.append(_prose(markdown[last:]))
    return "".join(out)


def _prose(text: str) -> str:
    """Markdown's escapes outside formulas and code: ``\\_`` is an underscore, ``\\$`` a dollar."""
    return re.sub(r"\\([_*$#{}\[\]\\])", r"\1", text)
