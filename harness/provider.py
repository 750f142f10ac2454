"""Model provider failures and how they are retried: one policy for the agents and the LLM judge.

Retried (tenacity, exponential backoff with jitter, the server's Retry-After wins): 429, 408/409, 5xx,
timeouts, connection errors, cut-off or unparseable response bodies. Not retried: other 4xx (bad
request, auth), which raise ProviderError at once. Anything else is not a provider failure (a bug)
and propagates unchanged. Every retry is reported through `on_retry(attempt, error, wait_s)`, so the
caller can record it: agents in the run's trace, the judge in its own log.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TypeVar

import httpx
import openai
import tenacity

from .agent import ProviderError

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
        """Wait before retry number `attempt` (1-based) when the server says nothing."""
        wait = min(self.max_wait_s, self.base_s * (2 ** (attempt - 1)))
        return wait * (1 + random.uniform(0, self.jitter))


@dataclass(frozen=True)
class ErrorVerdict:
    retryable: bool
    description: str
    retry_after_s: float | None = None


def _retry_after(headers: httpx.Headers | None) -> float | None:
    if not headers:
        return None
    for key in ("retry-after-ms", "retry-after"):
        raw = headers.get(key)
        if raw is None:
            continue
        try:
            v = float(raw)
        except ValueError:
            continue  # an HTTP date: fall back to our own backoff
        return v / 1000.0 if key.endswith("ms") else v
    return None


def classify(exc: BaseException) -> ErrorVerdict | None:
    """What a request failure means; None for exceptions that are not provider failures (bugs)."""
    if isinstance(exc, openai.APITimeoutError):
        return ErrorVerdict(True, "request timed out")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return ErrorVerdict(True, f"connection error: {cause or exc}")
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        msg = f"HTTP {code}: {exc.message}"
        if code == 429 or code in (408, 409) or code >= 500:
            return ErrorVerdict(True, msg, _retry_after(exc.response.headers if exc.response is not None else None))
        return ErrorVerdict(False, msg)
    if isinstance(exc, (openai.APIResponseValidationError, json.JSONDecodeError, httpx.TransportError)):
        return ErrorVerdict(True, f"unusable response body: {type(exc).__name__}: {exc}")
    return None


def _retryable(exc: BaseException) -> bool:
    verdict = classify(exc)
    return verdict is not None and verdict.retryable


def _retrying(policy: RetryPolicy, on_retry: OnRetry, cls: type[Any]) -> Any:
    """A tenacity Retrying (or AsyncRetrying) that follows `policy` and reports each retry."""

    def wait(state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        verdict = classify(exc) if exc is not None else None
        if verdict is not None and verdict.retry_after_s is not None:
            return min(policy.max_wait_s, max(0.0, verdict.retry_after_s))
        return policy.backoff(state.attempt_number)

    def before_sleep(state: tenacity.RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        verdict = classify(exc) if exc is not None else None
        wait_s = state.next_action.sleep if state.next_action else 0.0
        on_retry(state.attempt_number, verdict.description if verdict else repr(exc), wait_s)

    return cls(retry=tenacity.retry_if_exception(_retryable), stop=tenacity.stop_after_attempt(policy.max_retries + 1),
               wait=wait, before_sleep=before_sleep, reraise=True)


def _provider_error(exc: Exception, attempts: int) -> ProviderError | None:
    """A provider failure that outlasted the policy (or is not retried) as ProviderError; None for anything else."""
    verdict = classify(exc)
    if verdict is None:
        return None
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    return ProviderError(f"{verdict.description}{tries}")


async def call_with_retries(fn: Callable[[], Awaitable[T]], policy: RetryPolicy, on_retry: OnRetry) -> T:
    """Await fn(), retrying provider failures; ProviderError when they outlast the policy."""
    retrying = _retrying(policy, on_retry, tenacity.AsyncRetrying)

    async def attempt() -> T:  # a coroutine function, so tenacity awaits each attempt
        return await fn()

    try:
        result: T = await retrying(attempt)
        return result
    except Exception as exc:
        err = _provider_error(exc, retrying.statistics.get("attempt_number", 1))
        if err is None:
            raise
        raise err from exc


def call_with_retries_sync(fn: Callable[[], T], policy: RetryPolicy, on_retry: OnRetry) -> T:
    """The same for synchronous clients (smolagents runs in a worker thread; the judge is synchronous)."""
    retrying = _retrying(policy, on_retry, tenacity.Retrying)
    try:
        result: T = retrying(fn)
        return result
    except Exception as exc:
        err = _provider_error(exc, retrying.statistics.get("attempt_number", 1))
        if err is None:
            raise
        raise err from exc
