"""HTTP: the JSON routes, the dependencies they take (``SessionDep``, ``CurrentUser``), and
the guards every request passes (body limits, authentication first, rate limits, grading
fairness, the pause on practice, the 422 a malformed request gets).

May import: ``api.web`` (its pages share the guards and sessions), ``api.queue``,
``api.learning``, ``api.content``, ``api.grading`` and the bottom. Nothing imports this
package but ``api.web``, ``api.main`` and ``api.cli``.
"""
