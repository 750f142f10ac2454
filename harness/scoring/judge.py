"""The optional LLM judge: any OpenAI-compatible endpoint, a fixed rubric, temperature 0, cached on disk.

Hygiene (issue 11): the cache key is the hash of everything the judge sees (model, rubric, the whole
prompt with gold, tolerance, unit, aliases and options, and the request settings), so a changed episode
is asked again. The verdict is read from the first line after any reasoning block; a reply without
one is asked once more, then becomes a `judge_error` verdict (never INCORRECT, never cached). No
`max_tokens` is forced, so a reasoning model can think. A judge that cannot be reached raises
JudgeUnavailable with the endpoint in the message (the CLI turns it into exit code 2).

Provider failures are retried by the agents' policy (harness.provider: tenacity, Retry-After, the same
split of what is retried). Every request, retry and verdict goes to the judge's own log
(`JudgeConfig.log_path`, JSONL; scoring puts it beside the scores): scoring never writes into a trace.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

from pydantic import BaseModel, Field

from harness.agent import ProviderError
from harness.episode import Answer
from harness.provider import RetryPolicy, call_with_retries_sync
from harness.rundir import atomic_write_text

from .answer_text import strip_reasoning
from .match import gold_display
from .model import AnswerVerdict

RUBRIC = """You grade one answer of a research agent against the gold answer of a question about scientific papers.
Rules:
- The answer is CORRECT if it states the same value or entity as the gold answer. Formatting, units written
  out, extra explanation and the letter-vs-option-text form of a multiple-choice answer do not matter.
- Numbers must agree within the stated tolerance (or be the same number when no tolerance is given), in the
  gold unit when one is given.
- For a list or set, every gold item must be present and no wrong item may be added.
- A hedge between several values, a range or a list of candidates for one value, a refusal or an empty
  answer is INCORRECT.
Reply with exactly one word on the first line: CORRECT or INCORRECT."""
RETRY_NUDGE = "Your reply did not start with the verdict. Reply with exactly one word on the first line: CORRECT or INCORRECT."
T = TypeVar("T")
_VERDICT = re.compile(r"^(?:verdict|label|grade|answer|judgement|judgment)?\s*[:\-]?\s*(INCORRECT|CORRECT)\b", re.I)


class JudgeUnavailable(Exception):
    """The judge endpoint could not be reached or refused the request."""


class JudgeConfig(BaseModel):
    """Which judge to ask and where its verdicts are cached."""

    model: str = Field(description="model name at the endpoint")
    base_url: str = Field(description="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="environment variable with the API key (a local endpoint needs none)")
    cache_dir: Path | None = Field(default=None, description="verdict cache (default: <sandbox cache>/judge)")
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=1, ge=0, description="retries of a request that failed for a provider reason")
    retry_base_s: float = Field(default=1.0, gt=0, description="first wait before a retry (doubles each time)")
    max_tokens: int | None = Field(default=None, ge=1, description="cap on the judge's reply; unset lets a reasoning model think")
    log_path: Path | None = Field(default=None, description="the judge's own log (JSONL): requests, retries, verdicts")

    @property
    def name(self) -> str:
        return f"judge:{self.model}"


def question_block(question: str, gold: Answer) -> str:
    """Everything the judge is told about the question and its gold answer."""
    parts = [f"Question: {question}", f"Gold answer: {gold_display(gold)}", f"Answer format: {gold.format}"]
    if gold.format == "number":
        parts.append(f"Tolerance: {gold.tolerance if gold.tolerance is not None else 'exact'}")
        if gold.unit:
            parts.append(f"Unit: {gold.unit}")
    if gold.aliases:
        parts.append(f"Also accepted: {'; '.join(gold.aliases)}")
    if gold.choices:
        parts.append("Options: " + "; ".join(f"{k}) {v}" for k, v in gold.choices.items()))
    return "\n".join(parts)


def parse_judge_reply(text: str | None) -> bool | None:
    """CORRECT -> True, INCORRECT -> False, read from the first line after reasoning; anything else -> None."""
    if not text:
        return None
    body = strip_reasoning(text)
    first = next((ln for ln in body.splitlines() if ln.strip()), "")
    first = re.sub(r"[*_`#>]", "", first).strip()
    m = _VERDICT.match(first)
    return None if m is None else m.group(1).upper() == "CORRECT"


class Judge:
    """A cached binary labeller backed by a chat-completions endpoint."""

    def __init__(self, config: JudgeConfig):
        self.config = config
        if config.cache_dir is not None:
            self.cache_dir = Path(config.cache_dir)
        else:
            from sandbox.paths import cache_dir

            self.cache_dir = cache_dir() / "judge"
        self._client = None
        self.requests = 0
        self.errors = 0
        self.retries = 0
        self._log_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.config.name

    def request(self, question: str, gold: Answer, answer: str) -> dict[str, Any]:
        """The chat request for one answer (what the cache key hashes)."""
        body: dict[str, Any] = {
            "model": self.config.model, "temperature": 0,
            "messages": [{"role": "system", "content": RUBRIC},
                         {"role": "user", "content": f"{question_block(question, gold)}\nAgent answer: {answer}"}],
        }
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        return body

    def cache_key(self, question: str, gold: Answer, answer: str) -> str:
        blob = json.dumps(self.request(question, gold, answer), ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _client_or_make(self):  # noqa: ANN202 - an openai.OpenAI client
        if self._client is None:
            from openai import OpenAI

            key = os.environ.get(self.config.api_key_env) or "not-needed"
            self._client = OpenAI(base_url=self.config.base_url, api_key=key, timeout=self.config.timeout_s,
                                  max_retries=0)  # retries: harness.provider's policy, logged
        return self._client

    def log(self, event: str, **fields: Any) -> None:
        """Append one line to the judge's log (if it has one)."""
        if self.config.log_path is None:
            return
        line = json.dumps({"ts": time.time(), "judge": self.name, "event": event, **fields}, ensure_ascii=False)
        with self._log_lock:
            self.config.log_path.parent.mkdir(parents=True, exist_ok=True)
            with self.config.log_path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")

    def _ask(self, body: dict[str, Any], key: str) -> str:
        import openai

        where = f"judge endpoint {self.config.base_url} (model {self.config.model})"
        policy = RetryPolicy(max_retries=self.config.max_retries, base_s=self.config.retry_base_s)

        def on_retry(attempt: int, error: str, wait_s: float) -> None:
            self.retries += 1
            self.log("retry", key=key, attempt=attempt, error=error, wait_s=round(wait_s, 3))

        client = self._client_or_make()
        self.requests += 1
        self.log("request", key=key)
        try:
            resp = call_with_retries_sync(lambda: client.chat.completions.create(**body), policy, on_retry)
        except ProviderError as e:
            self.log("failed", key=key, error=str(e))
            cause = e.__cause__
            if isinstance(cause, (openai.APIConnectionError, openai.APITimeoutError)):
                raise JudgeUnavailable(f"{where} is not reachable: {e}") from None
            if isinstance(cause, openai.APIStatusError):
                raise JudgeUnavailable(f"{where} refused the request (HTTP {cause.status_code}): {e}") from None
            raise JudgeUnavailable(f"{where} sent a reply that is not a chat completion: {e}") from None
        except openai.OpenAIError as e:  # a reply the client cannot decode
            raise JudgeUnavailable(f"{where} sent a reply that is not a chat completion: {e}") from None
        content = resp.choices[0].message.content if resp.choices else None
        return content or ""

    def __call__(self, question: str, gold: Answer, answer: str) -> AnswerVerdict:
        body = self.request(question, gold, answer)
        key = self.cache_key(question, gold, answer)
        path = self.cache_dir / key[:2] / f"{key}.json"
        if path.is_file():
            try:
                verdict = AnswerVerdict.model_validate_json(path.read_text(encoding="utf-8"))
                self.log("verdict", key=key, correct=verdict.correct, cached=True)
                return verdict
            except ValueError:
                pass  # a damaged cache entry is asked again
        reply = self._ask(body, key)
        label = parse_judge_reply(reply)
        if label is None:  # once more, told what the first line must be
            self.log("no_verdict", key=key, reply=reply[:200])
            retry = {**body, "messages": body["messages"] + [{"role": "assistant", "content": reply},
                                                             {"role": "user", "content": RETRY_NUDGE}]}
            reply = self._ask(retry, key)
            label = parse_judge_reply(reply)
        if label is None:
            self.errors += 1
            self.log("judge_error", key=key, reply=reply[:200])
            return AnswerVerdict(correct=False, judge_error=True,
                                 detail=f"{self.name}: no verdict on the first line after a retry: {reply.strip()[:80]!r}")
        verdict = AnswerVerdict(correct=label, detail=f"{self.name}: {'CORRECT' if label else 'INCORRECT'}")
        atomic_write_text(path, verdict.model_dump_json())
        self.log("verdict", key=key, correct=label, cached=False)
        return verdict

    # ---- any rubric whose reply a parser reads (report judges, issue 32) ----------------------------------------
    def chat_body(self, system: str, user: str) -> dict[str, Any]:
        """A temperature-0 request with this judge's model (and max_tokens, if set)."""
        body: dict[str, Any] = {"model": self.config.model, "temperature": 0,
                                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        return body

    def ask_parsed(self, kind: str, body: dict[str, Any], parse: Callable[[str], T | None], nudge: str) -> T | None:
        """Ask once (cached under `cache_dir/kind`, keyed by the hash of the whole request) and read the reply with
        `parse`; a reply it cannot read is asked once more with `nudge`, then is a judge error (logged, counted in
        `errors`, never cached, so the next scoring asks again). The raw reply is cached and read again on a hit."""
        key = hashlib.sha256(json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()
        path = self.cache_dir / kind / key[:2] / f"{key}.json"
        if path.is_file():
            try:
                got = parse(json.loads(path.read_text(encoding="utf-8"))["reply"])
            except (ValueError, KeyError, TypeError):
                got = None  # a damaged cache entry is asked again
            if got is not None:
                self.log(kind, key=key, cached=True)
                return got
        reply = self._ask(body, key)
        got = parse(reply)
        if got is None:
            self.log("no_parse", key=key, kind=kind, reply=reply[:200])
            retry = {**body, "messages": body["messages"] + [{"role": "assistant", "content": reply},
                                                             {"role": "user", "content": nudge}]}
            reply = self._ask(retry, key)
            got = parse(reply)
        if got is None:
            self.errors += 1
            self.log("judge_error", key=key, kind=kind, reply=reply[:200])
            return None
        atomic_write_text(path, json.dumps({"kind": kind, "reply": reply}, ensure_ascii=False))
        self.log(kind, key=key, cached=False)
        return got
