"""Model provider failures and how they are retried: one policy for the agents and the LLM judge.

Retried (tenacity, exponential backoff with jitter, the server's Retry-After wins): 429, 408/409, 5xx,
timeouts, connection errors, cut-off or unparseable response bodies. Not retried, and the error says
why: other 4xx (bad request, auth; a prompt longer than the model's context is named as such) and a 5xx
whose message shows the server refused the request itself (llama-cpp-python answers a request that fails
its validation with a 500): the same request cannot succeed. A request that timed out names the timeout,
the attempts and the option that raises it (`RetryPolicy.timeout_s`, `timeout_option`); an abandoned
request's connection is closed (httpx drops a connection whose response was not read), which tells the
server to stop. Anything else is not a provider failure (a bug) and propagates unchanged. Every retry is
reported through `on_retry(attempt, error, wait_s)`, so the caller can record it: agents in the run's
trace, the judge in its own log. Every failed attempt, retried or not (a 400 is not), is reported through
`on_failure(error, seconds)` before that, so an agent can put the body it sent in the trace beside the
error: the request is what one needs to debug a 400 context-length error, and the server received it
whether or not it answered.

Two kinds of client are understood: the openai SDK's errors (smolagents, the judge) and, for requests
posted with httpx itself (the OpenAI agent's prebuilt bodies, `agents/_wire.py`), `EndpointStatusError`
and httpx's own errors. The SDK is never imported here just to compare types: its import costs a
second of CPU, and a run whose agents post with httpx never needs it.
"""
from __future__ import annotations

import json
import random
import re
import sys
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TypeVar

import httpx
import tenacity

from .agent import ProviderError

T = TypeVar("T")
OnRetry = Callable[[int, str, float], None]
OnFailure = Callable[[str, float], None]  # (what failed, seconds the attempt took)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait; Retry-After from the server wins (capped at max_wait_s)."""

    max_retries: int = 4
    base_s: float = 1.0
    max_wait_s: float = 60.0
    jitter: float = 0.1
    timeout_s: float | None = None  # one attempt's timeout, named in the error of a request that timed out
    timeout_option: str = "--request-timeout"  # the option that raises it

    def worst_case_s(self) -> float | None:
        """The longest a request can take under this policy: every attempt timing out, every wait at its cap."""
        if self.timeout_s is None:
            return None
        return (self.max_retries + 1) * self.timeout_s + self.max_retries * self.max_wait_s * (1 + self.jitter)

    def backoff(self, attempt: int) -> float:
        """Wait before retry number `attempt` (1-based) when the server says nothing."""
        wait = min(self.max_wait_s, self.base_s * (2 ** (attempt - 1)))
        return wait * (1 + random.uniform(0, self.jitter))


@dataclass(frozen=True)
class ErrorVerdict:
    retryable: bool
    description: str
    retry_after_s: float | None = None
    timed_out: bool = False


# a prompt longer than the model's context, in the words of llama.cpp, llama-cpp-python, vLLM and OpenAI
_CONTEXT_OVERFLOW = re.compile(r"context[ _](?:length|size|window)|exceed_context_size|maximum context|prompt is too long"
                               r"|input (?:is )?too long", re.I)
# a 5xx that refuses the request itself: llama-cpp-python's FastAPI validation and its chat handler's checks,
# llama-server without --jinja
_REFUSED_SHAPE = re.compile(r"validation error|Input should be|Field required|requires --jinja|Unsupported param"
                            r"|not found in tools|tool_choice", re.I)


class EndpointStatusError(Exception):
    """An OpenAI-compatible endpoint answered with an HTTP error status (requests posted with httpx)."""

    def __init__(self, status_code: int, message: str, retry_after_s: float | None = None):
        super().__init__(f"{status_code}: {message}")
        self.status_code = status_code
        self.message = message
        self.retry_after_s = retry_after_s


def retry_after(headers: httpx.Headers | Any) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (None for an HTTP date or no header)."""
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


def error_message_of(data: Any) -> str | None:
    """The message of an OpenAI-style error body: `{"error": {"message": ...}}`, or vLLM's `{"message": ...}`;
    None when the body has none (an empty message is ""; llama-cpp-python sends one for a failed assertion)."""
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict) and "message" in err:
        return str(err["message"] or "")
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return data["message"]
    return None


def is_context_overflow(message: str) -> bool:
    """Whether a server's error message says the prompt is longer than the model's context."""
    return bool(_CONTEXT_OVERFLOW.search(message))


def _status(code: int, message: str, retry_after_s: float | None) -> ErrorVerdict:
    msg = f"HTTP {code}: {message}" if message.strip() else f"HTTP {code} (the server gave no message)"
    if code >= 500 and _REFUSED_SHAPE.search(message):
        return ErrorVerdict(False, f"{msg} (not retried: the server refused the request itself, so the same request "
                                   "cannot succeed)")
    if code == 429 or code in (408, 409) or code >= 500:
        return ErrorVerdict(True, msg, retry_after_s)
    if _CONTEXT_OVERFLOW.search(message):
        return ErrorVerdict(False, f"{msg} (not retried: the request is longer than the model's context, so the same "
                                   "request cannot succeed)")
    return ErrorVerdict(False, f"{msg} (not retried: a {code} refuses the request itself)")


def _sdk_verdict(exc: BaseException) -> ErrorVerdict | None:
    """The openai SDK's errors, when the SDK is loaded (an SDK error implies it is)."""
    openai = sys.modules.get("openai")
    if openai is None:
        return None
    if isinstance(exc, openai.APITimeoutError):
        return ErrorVerdict(True, "request timed out", timed_out=True)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        return ErrorVerdict(True, f"connection error: {cause or exc}")
    if isinstance(exc, openai.APIStatusError):
        headers = exc.response.headers if exc.response is not None else None
        said = error_message_of(exc.body)
        return _status(exc.status_code, str(exc.message) if said is None else said, retry_after(headers))
    if isinstance(exc, openai.APIResponseValidationError):
        return ErrorVerdict(True, f"unusable response body: {type(exc).__name__}: {exc}")
    return None


def classify(exc: BaseException) -> ErrorVerdict | None:
    """What a request failure means; None for exceptions that are not provider failures (bugs)."""
    if isinstance(exc, EndpointStatusError):
        return _status(exc.status_code, exc.message, exc.retry_after_s)
    if isinstance(exc, httpx.TimeoutException):
        return ErrorVerdict(True, "request timed out", timed_out=True)
    if isinstance(exc, httpx.ConnectError):
        return ErrorVerdict(True, f"connection error: {exc}")
    verdict = _sdk_verdict(exc)
    if verdict is not None:
        return verdict
    if isinstance(exc, (json.JSONDecodeError, httpx.TransportError)):
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


def _provider_error(exc: Exception, attempts: int, policy: RetryPolicy) -> ProviderError | None:
    """A provider failure that outlasted the policy (or is not retried) as ProviderError; None for anything else.
    A timeout says how long each attempt waited and which option raises it."""
    verdict = classify(exc)
    if verdict is None:
        return None
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    if verdict.timed_out and policy.timeout_s is not None:
        each = "each attempt" if attempts > 1 else "the attempt"
        return ProviderError(f"request timed out{tries} ({each} waited {policy.timeout_s:g} s); a slow server (a model "
                             f"on CPU) may need longer: raise {policy.timeout_option} (now {policy.timeout_s:g})")
    return ProviderError(f"{verdict.description}{tries}")


def _report(exc: Exception, started: float, on_failure: OnFailure | None) -> None:
    """Tell the caller an attempt failed with a provider error (a bug is not reported: it propagates)."""
    verdict = classify(exc)
    if verdict is not None and on_failure is not None:
        on_failure(verdict.description, time.perf_counter() - started)


async def call_with_retries(fn: Callable[[], Awaitable[T]], policy: RetryPolicy, on_retry: OnRetry,
                            on_failure: OnFailure | None = None) -> T:
    """Await fn(), retrying provider failures; ProviderError when they outlast the policy."""
    retrying = _retrying(policy, on_retry, tenacity.AsyncRetrying)

    async def attempt() -> T:  # a coroutine function, so tenacity awaits each attempt
        started = time.perf_counter()
        try:
            return await fn()
        except Exception as exc:  # reported, then re-raised unchanged for the retry policy to judge
            _report(exc, started, on_failure)
            raise

    try:
        result: T = await retrying(attempt)
        return result
    except Exception as exc:
        err = _provider_error(exc, retrying.statistics.get("attempt_number", 1), policy)
        if err is None:
            raise
        raise err from exc


def call_with_retries_sync(fn: Callable[[], T], policy: RetryPolicy, on_retry: OnRetry,
                           on_failure: OnFailure | None = None) -> T:
    """The same for synchronous clients (smolagents runs in a worker thread; the judge is synchronous)."""
    retrying = _retrying(policy, on_retry, tenacity.Retrying)

    def attempt() -> T:
        started = time.perf_counter()
        try:
            return fn()
        except Exception as exc:  # reported, then re-raised unchanged for the retry policy to judge
            _report(exc, started, on_failure)
            raise

    try:
        result: T = retrying(attempt)
        return result
    except Exception as exc:
        err = _provider_error(exc, retrying.statistics.get("attempt_number", 1), policy)
        if err is None:
            raise
        raise err from exc
