"""Retries for model requests: exponential backoff, Retry-After, and a clear split of what is retried.

Retried: 429, 408/409, 5xx, timeouts, connection errors, cut-off or unparseable response bodies.
Not retried: other 4xx (bad request, auth): those raise ProviderError at once. Every retry is
reported through `on_retry(attempt, error, wait_s)` so the trace shows it.
"""
from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass
from typing import Awaitable, Callable, TypeVar

import httpx

from harness.agent import ProviderError

from ._wire import EndpointStatusError, retry_after

T = TypeVar("T")
OnRetry = Callable[[int, str, float], None]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait; Retry-After from the server wins (capped at max_wait_s)."""

    max_retries: int = 4
    base_s: float = 1.0
    max_wait_s: float = 60.0
    jitter: float = 0.1

    def backoff(self, attempt: int) -> float:
        wait = min(self.max_wait_s, self.base_s * (2 ** (attempt - 1)))
        return wait * (1 + random.uniform(0, self.jitter))


@dataclass(frozen=True)
class ErrorVerdict:
    retryable: bool
    description: str
    retry_after_s: float | None = None


def _status(code: int, message: str, retry_after_s: float | None) -> ErrorVerdict:
    msg = f"HTTP {code}: {message}"
    if code == 429 or code in (408, 409) or code >= 500:
        return ErrorVerdict(True, msg, retry_after_s)
    return ErrorVerdict(False, msg)


def classify(exc: BaseException) -> ErrorVerdict | None:
    """What a request failure means; None for exceptions that are not provider failures (bugs).

    Knows the errors of our own httpx path (`_wire`) and, when the openai SDK is loaded (smolagents,
    the judge), the SDK's; the SDK is never imported here just to compare types.
    """
    if isinstance(exc, EndpointStatusError):
        return _status(exc.status_code, exc.message, exc.retry_after_s)
    if isinstance(exc, httpx.TimeoutException):
        return ErrorVerdict(True, "request timed out")
    if isinstance(exc, httpx.ConnectError):
        return ErrorVerdict(True, f"connection error: {exc}")
    openai = sys.modules.get("openai")
    if openai is not None:
        if isinstance(exc, openai.APITimeoutError):
            return ErrorVerdict(True, "request timed out")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            return ErrorVerdict(True, f"connection error: {cause or exc}")
        if isinstance(exc, openai.APIStatusError):
            headers = exc.response.headers if exc.response is not None else None
            return _status(exc.status_code, str(getattr(exc, "message", exc)), retry_after(headers))
        if isinstance(exc, openai.APIResponseValidationError):
            return ErrorVerdict(True, f"unusable response body: {type(exc).__name__}: {exc}")
    if isinstance(exc, (json.JSONDecodeError, httpx.TransportError)):
        return ErrorVerdict(True, f"unusable response body: {type(exc).__name__}: {exc}")
    return None


def _wait_for(policy: RetryPolicy, attempt: int, verdict: ErrorVerdict) -> float:
    if verdict.retry_after_s is not None:
        return min(policy.max_wait_s, max(0.0, verdict.retry_after_s))
    return policy.backoff(attempt)


def _after_failure(exc: Exception, attempt: int, policy: RetryPolicy) -> tuple[str, float]:
    """Decide on a failed attempt: (description, wait) to retry, or raise (ProviderError when exhausted)."""
    verdict = classify(exc)
    if verdict is None:
        raise exc
    if not verdict.retryable or attempt >= policy.max_retries:
        tries = f" after {attempt + 1} attempts" if attempt else ""
        raise ProviderError(f"{verdict.description}{tries}") from exc
    return verdict.description, _wait_for(policy, attempt + 1, verdict)


async def call_with_retries(fn: Callable[[], Awaitable[T]], policy: RetryPolicy, on_retry: OnRetry) -> T:
    """Await fn(), retrying provider failures; ProviderError when they outlast the policy."""
    attempt = 0
    while True:
        try:
            return await fn()
        except Exception as exc:
            description, wait = _after_failure(exc, attempt, policy)
            attempt += 1
            on_retry(attempt, description, wait)
            await asyncio.sleep(wait)


def call_with_retries_sync(fn: Callable[[], T], policy: RetryPolicy, on_retry: OnRetry) -> T:
    """The same for synchronous clients (smolagents runs in a worker thread)."""
    attempt = 0
    while True:
        try:
            return fn()
        except Exception as exc:
            description, wait = _after_failure(exc, attempt, policy)
            attempt += 1
            on_retry(attempt, description, wait)
            time.sleep(wait)
