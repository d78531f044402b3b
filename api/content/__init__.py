"""Content: the exercise catalogue, the question bank, follow-ups, the interview rubric and
the generated notebooks. Loaded once from ``exercises/`` and validated; it changes when an
exercise or a question changes.

May import: ``api.grading`` (an exercise's spec) and the bottom (``api.config``,
``api.models``, ``api.db``, ``api.jsonbody``, ``api.plaintext``, ``api.clients``). Never
``api.learning``, ``api.queue``, ``api.http`` or ``api.web``.
"""
