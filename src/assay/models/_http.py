"""Turning SDK exceptions into ModelError: which failures are worth retrying, and how long to wait."""

from __future__ import annotations

import email.utils
import re
import time
from typing import Any

from assay.models.base import ModelError

RETRYABLE_STATUS = {408, 409, 425, 429}  # and every 5xx


def retry_after_seconds(headers: Any) -> float | None:
    """The wait a server asked for: retry-after-ms, or Retry-After in seconds or as an HTTP date."""
    if headers is None:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
    except (AttributeError, ValueError):
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_from_status(status: int, message: str, headers: Any) -> ModelError:
    """A ModelError for an HTTP error status."""
    message = re.sub(r"^Error code: \d+ - ", "", str(message))
    match = re.search(r"'message': '([^']*)'", message)  # the SDK shows the error body as a dict: keep its message
    if match:
        message = match.group(1)
    retryable = status in RETRYABLE_STATUS or status >= 500
    kind = {429: "rate_limit", 408: "timeout", 401: "auth", 403: "auth", 404: "not_found"}.get(status)
    if kind is None:
        kind = "server_error" if status >= 500 else "bad_request"
    return ModelError(f"HTTP {status}: {_one_line(message)}", retryable=retryable, retry_after=retry_after_seconds(headers), kind=kind)


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def sdk_error(exc: BaseException, sdk: Any) -> ModelError:
    """Classify an exception raised by the openai or anthropic SDK (same class names in both)."""
    if isinstance(exc, sdk.APITimeoutError):  # a subclass of APIConnectionError: test it first
        return ModelError("request timed out", retryable=True, kind="timeout")
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return ModelError(f"connection failed: {_one_line(repr(cause) if cause else str(exc))}", retryable=True, kind="connection")
    if isinstance(exc, sdk.APIStatusError):
        return error_from_status(exc.status_code, exc.message, exc.response.headers)
    if isinstance(exc, sdk.APIResponseValidationError):
        return ModelError(f"malformed response: {_one_line(str(exc))}", retryable=True, kind="malformed")
    if isinstance(exc, ValueError):  # json.JSONDecodeError and friends: the body was not the JSON promised
        return ModelError(f"malformed response: {_one_line(str(exc))}", retryable=True, kind="malformed")
    return ModelError(f"{type(exc).__name__}: {_one_line(str(exc))}", retryable=False, kind="error")


def malformed(what: str) -> ModelError:
    """A reply that parsed but lacks what the API promises."""
    return ModelError(f"malformed response: {what}", retryable=True, kind="malformed")
