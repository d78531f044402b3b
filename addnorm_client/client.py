"""``Client``: the addnorm HTTP API as Python calls, with errors a learner can act on.

Every failure is raised as an ``AddnormError`` whose message says what to do next (start the
server, set the token, pick a known exercise), because the person reading it is in the middle
of an exercise, not debugging HTTP.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

import httpx

from addnorm_client.static import MAX_CODE_BYTES

DEFAULT_URL = "http://127.0.0.1:8000"
# Grading takes tens of milliseconds when the pool is warm, but the first submission after a
# start-up may wait for the zygote to import torch; a minute leaves room for that.
DEFAULT_TIMEOUT_S = 60.0


class AddnormError(Exception):
    """Anything that kept a request from producing an answer; ``str()`` is the advice."""


class ServerUnreachable(AddnormError):
    pass


class TokenRejected(AddnormError):
    # The token the server refused (None: none was sent), so a caller can say where it came from.
    token: str | None = None


class NotFound(AddnormError):
    pass


class CodeTooLarge(AddnormError):
    pass


class NotAddnormServer(AddnormError):
    """Something answered at the URL, but not as an addnorm server does (HTML, not JSON)."""

    def __init__(self, url: str, response: httpx.Response) -> None:
        kind = _content_type(response) or "no content type"
        super().__init__(
            f"the server at {url} did not answer as an addnorm server "
            f"({response.request.method} {response.request.url.path}: "
            f"{response.status_code} {response.reason_phrase}, {kind}); "
            "is ADDNORM_URL (or --url) the addnorm server's address?"
        )
        self.status = response.status_code


def code_size_problem(code: str) -> str | None:
    """Why the server would refuse ``code`` for its size (the 64 KiB code limit, which
    ``addnorm_client.static`` and the server's submission route share), or None."""
    size = len(code.encode("utf-8", "surrogatepass"))
    if size <= MAX_CODE_BYTES:
        return None
    return f"{size} bytes; the server takes code up to {MAX_CODE_BYTES // 1024} KiB"


class ApiError(AddnormError):
    """Any other non-2xx answer, with the server's status and ``detail``."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(f"addnorm server answered {status}: {detail}")
        self.status = status
        self.detail = detail


class RetryLater(ApiError):
    """A 429 (too many submissions) or 503 (grader busy) that says when to try again."""

    def __init__(self, status: int, detail: str, retry_after: float | None) -> None:
        super().__init__(status, detail)
        self.retry_after = retry_after
        if retry_after is not None:
            self.args = (f"{self.args[0]}; retry in {retry_after:g} s",)


def _content_type(response: httpx.Response) -> str:
    return str(response.headers.get("content-type", "")).split(";")[0].strip().lower()


def _is_json(response: httpx.Response) -> bool:
    kind = _content_type(response)
    return kind == "application/json" or kind.endswith("+json")


def _detail(response: httpx.Response) -> str:
    if not _is_json(response):
        # Never the body: a proxy's or another server's HTML page is no message for a terminal.
        return f"{response.reason_phrase} ({_content_type(response) or 'no content type'})"
    try:
        body = response.json()
    except ValueError:
        return response.reason_phrase
    if isinstance(body, dict) and "detail" in body:
        detail = body["detail"]
        if isinstance(detail, list) and all(isinstance(d, dict) for d in detail):
            return _validation_errors(detail)
        return detail if isinstance(detail, str) else str(detail)
    return str(body)[:500]


class Client:
    """A connection to one addnorm server as one learner.

    ``url`` and ``token`` default to ``ADDNORM_URL`` (else ``http://127.0.0.1:8000``) and
    ``ADDNORM_TOKEN``, read when the client is made, so ``%env ADDNORM_TOKEN=...`` in a notebook
    takes effect on the next call.
    """

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.url = (url or os.environ.get("ADDNORM_URL") or DEFAULT_URL).rstrip("/")
        # An empty token (``ADDNORM_TOKEN=`` in a compose .env) means none at all.
        self.token = (token if token is not None else os.environ.get("ADDNORM_TOKEN")) or None
        self._http = httpx.Client(base_url=self.url, timeout=timeout)

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- the API --------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._json("GET", "/health", auth=False)

    def create_user(self, name: str) -> dict[str, Any]:
        """Register a learner; the answer's ``token`` is shown once, keep it."""
        return self._json("POST", "/users", json={"name": name}, auth=False)

    def exercises(self, lang: str = "en") -> list[dict[str, Any]]:
        return self._json_list("GET", "/exercises", params={"lang": lang})

    def exercise(self, slug: str, lang: str = "en") -> dict[str, Any]:
        return self._json(
            "GET", f"/exercises/{slug}", params={"lang": lang}, missing=_unknown_exercise(slug)
        )

    def submit(self, slug: str, code: str, lang: str | None = None) -> dict[str, Any]:
        """Grade ``code`` as a submission to exercise ``slug``; returns the verdict, in ``lang``
        (en or zh; None: the learner's preference on the server). Code over the server's size
        limit is refused here, unsent."""
        too_large = code_size_problem(code)
        if too_large is not None:
            raise CodeTooLarge(f"code too large: it is {too_large}; not sent")
        return self._json(
            "POST",
            f"/exercises/{slug}/submissions",
            json={"code": code},
            params={"lang": lang} if lang else None,
            missing=_unknown_exercise(slug),
        )

    def help(self, slug: str, lang: str = "en") -> dict[str, Any]:
        """The help used on ``slug`` so far (``hints_total``, ``hints_seen``) and whether its
        worked solution is open (``solution``)."""
        return self._json(
            "GET", f"/exercises/{slug}/help", params={"lang": lang}, missing=_unknown_exercise(slug)
        )

    def hint(self, slug: str, number: int, lang: str = "en") -> dict[str, Any]:
        """Rung ``number`` (1-based) of the hint ladder; recorded by the server."""
        return self._json(
            "GET",
            f"/exercises/{slug}/hints/{number}",
            params={"lang": lang},
            missing=f"{slug} has no hint {number} (or no such exercise)",
        )

    def solution(self, slug: str, lang: str = "en", *, reveal: bool = False) -> dict[str, Any]:
        """The worked solution: open after a pass; ``reveal`` asks for it after enough failed
        attempts (a later pass then counts as Again in review). A 403 says what unlocks it."""
        return self._json(
            "POST" if reveal else "GET",
            f"/exercises/{slug}/solution",
            params={"lang": lang},
            missing=f"no worked solution for {slug!r} on this server",
        )

    def questions(self, topic: str | None = None, lang: str = "en") -> list[dict[str, Any]]:
        params = {"lang": lang} | ({"topic": topic} if topic else {})
        return self._json_list("GET", "/questions", params=params)

    def question(self, question_id: str, lang: str = "en") -> dict[str, Any]:
        return self._json(
            "GET",
            f"/questions/{question_id}",
            params={"lang": lang},
            missing=f"unknown question {question_id!r}: GET /questions lists them",
        )

    def answer(self, question_id: str, answer: object, lang: str = "en") -> dict[str, Any]:
        """Grade ``answer`` (a choice index, a list of indices, a bool or a number)."""
        return self._json(
            "POST",
            f"/questions/{question_id}/answers",
            params={"lang": lang},
            json={"answer": answer},
            missing=f"unknown question {question_id!r}: GET /questions lists them",
        )

    def rotate_token(self) -> str:
        """A new token for this learner (the one this client holds stops working at once); the
        client carries on with the new one."""
        token = str(self._json("POST", "/users/me/token")["token"])
        self.token = token
        return token

    def token_proof(self, user: int, nonce: str) -> str:
        """The server's proof that it holds learner ``user``'s token (see ``expected_proof``);
        asked without a token."""
        body = self._json(
            "POST", "/users/token-proof", json={"user": user, "nonce": nonce}, auth=False
        )
        return str(body.get("proof"))

    def me(self) -> dict[str, Any]:
        """The learner the token belongs to (``id``, ``name``): a cheap way to test a token."""
        return self._json("GET", "/users/me")

    def progress(self) -> dict[str, Any]:
        return self._json("GET", "/progress")

    def review(self, lang: str = "en") -> dict[str, Any]:
        """What is due now, most overdue first (``due``, ``count``)."""
        return self._json("GET", "/review", params={"lang": lang})

    def practice_session(self, lang: str = "en") -> dict[str, Any]:
        """Today's practice set: ``reviews`` due, then ``new`` items from the weakest topic."""
        return self._json("GET", "/session", params={"lang": lang})

    # -- plumbing -------------------------------------------------------------------------

    def _body(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self._request(method, path, **kwargs)
        if not _is_json(response):
            raise NotAddnormServer(self.url, response)
        try:
            return response.json()
        except ValueError:
            raise NotAddnormServer(self.url, response) from None

    def _json_list(self, method: str, path: str, **kwargs: Any) -> list[dict[str, Any]]:
        body = self._body(method, path, **kwargs)
        # Tolerate a paginated envelope ({"items": [...]}) as well as a bare list.
        if isinstance(body, dict) and isinstance(body.get("items"), list):
            body = body["items"]
        if not isinstance(body, list):
            raise ApiError(200, f"expected a list from {path}, got {type(body).__name__}")
        return body

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        body = self._body(method, path, **kwargs)
        if not isinstance(body, dict):
            raise ApiError(200, f"expected an object from {path}, got {type(body).__name__}")
        return body

    def _request(
        self,
        method: str,
        path: str,
        *,
        auth: bool = True,
        missing: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token}"} if auth and self.token else {}
        try:
            response = self._http.request(method, path, headers=headers, **kwargs)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise ServerUnreachable(
                f"addnorm server not reachable at {self.url}: is it running? "
                "start it with `addnorm serve` (or set ADDNORM_URL to where it runs)"
            ) from exc
        except httpx.TimeoutException as exc:
            raise ServerUnreachable(
                f"addnorm server at {self.url} did not answer {method} {path} in time"
            ) from exc
        except httpx.TransportError as exc:
            raise ServerUnreachable(
                f"addnorm server at {self.url} failed to answer {method} {path}: {exc}"
            ) from exc
        if response.is_success:
            return response
        status = response.status_code
        if status in (429, 503):  # also uvicorn's own plain-text 503 when it is full
            raise RetryLater(status, _detail(response), _retry_after(response))
        if not _is_json(response):
            # An addnorm server answers every API error in JSON: this is something else.
            raise NotAddnormServer(self.url, response)
        if status == 401:
            if self.token is None:
                raise TokenRejected(
                    "no token: set ADDNORM_TOKEN to the token POST /users gave you "
                    f"(curl -X POST {self.url}/users -H 'Content-Type: application/json' "
                    """-d '{"name": "you"}')"""
                )
            rejected = TokenRejected(
                "token rejected: set ADDNORM_TOKEN to the token POST /users gave you"
            )
            rejected.token = self.token
            raise rejected
        if status == 404:
            raise NotFound(missing or f"not found: {method} {path} ({_detail(response)})")
        if status == 413:
            detail, limit = _detail(response), f"{MAX_CODE_BYTES // 1024} KiB"
            said = detail if limit in detail else f"{detail}; the server takes code up to {limit}"
            raise CodeTooLarge(f"code too large: {said}")
        raise ApiError(status, _detail(response))


def _unknown_exercise(slug: str) -> str:
    return f"unknown exercise {slug!r}: GET /exercises lists the exercises this server grades"


def _validation_errors(errors: list[dict[str, Any]]) -> str:
    # FastAPI's 422: [{"loc": ["query", "topic"], "msg": "Input should be ...", ...}, ...]
    parts = []
    for error in errors[:5]:
        loc = [str(part) for part in error.get("loc") or [] if part not in ("body", "query")]
        where = ".".join(loc)
        parts.append(f"{where}: {error.get('msg', '')}" if where else str(error.get("msg", "")))
    return "; ".join(parts)[:500]


def _retry_after(response: httpx.Response) -> float | None:
    # Retry-After may also be an HTTP date; the server sends seconds, anything else is ignored.
    try:
        seconds = float(response.headers.get("Retry-After", ""))
    except ValueError:
        return None
    return seconds if 0 <= seconds < 86400 else None
