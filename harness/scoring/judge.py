"""The optional LLM judge: any OpenAI-compatible endpoint, a fixed rubric, temperature 0, cached on disk.

Hygiene (issue 11): the cache key is the hash of everything the judge sees (model, rubric, the whole
prompt with gold, tolerance, unit, aliases and options, and the request settings), so a changed episode
is asked again. The verdict is read from the first line after any reasoning block; a reply without
one is asked once more, then becomes a `judge_error` verdict (never INCORRECT, never cached). No
`max_tokens` is forced, so a reasoning model can think. A judge that cannot be reached raises
JudgeUnavailable with the endpoint in the message (the CLI turns it into exit code 2).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from harness.episode import Answer
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
    max_retries: int = Field(default=1, ge=0, description="HTTP retries of the client for transient errors")
    max_tokens: int | None = Field(default=None, ge=1, description="cap on the judge's reply; unset lets a reasoning model think")

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
                                  max_retries=self.config.max_retries)
        return self._client

    def _ask(self, body: dict[str, Any]) -> str:
        import openai

        where = f"judge endpoint {self.config.base_url} (model {self.config.model})"
        try:
            self.requests += 1
            resp = self._client_or_make().chat.completions.create(**body)
        except (openai.APIConnectionError, openai.APITimeoutError) as e:
            raise JudgeUnavailable(f"{where} is not reachable: {e}") from None
        except openai.APIStatusError as e:
            raise JudgeUnavailable(f"{where} refused the request (HTTP {e.status_code}): {e.message}") from None
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
                return AnswerVerdict.model_validate_json(path.read_text(encoding="utf-8"))
            except ValueError:
                pass  # a damaged cache entry is asked again
        reply = self._ask(body)
        label = parse_judge_reply(reply)
        if label is None:  # once more, told what the first line must be
            retry = {**body, "messages": body["messages"] + [{"role": "assistant", "content": reply},
                                                             {"role": "user", "content": RETRY_NUDGE}]}
            reply = self._ask(retry)
            label = parse_judge_reply(reply)
        if label is None:
            self.errors += 1
            return AnswerVerdict(correct=False, judge_error=True,
                                 detail=f"{self.name}: no verdict on the first line after a retry: {reply.strip()[:80]!r}")
        verdict = AnswerVerdict(correct=label, detail=f"{self.name}: {'CORRECT' if label else 'INCORRECT'}")
        atomic_write_text(path, verdict.model_dump_json())
        return verdict
