"""Learning: what a learner does and what it leaves behind: practice and spaced review,
progress, hints seen, drafts, submissions and their grading, mock interviews, accounts
(tokens, sessions, registration, an operator's hold on learners), the cohort view,
exports and backups. Domain rules with thin adapters to the database.

May import: ``api.content``, ``api.grading`` and the bottom (``api.config``,
``api.models``, ``api.db``, ``api.jsonbody``, ``api.plaintext``, ``api.clients``). Never
``api.queue``, ``api.http`` or ``api.web``.
"""
