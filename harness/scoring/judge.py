"""The optional LLM judge: any OpenAI-compatible endpoint, a fixed rubric, temperature 0, cached on disk.

The cache key is sha256(model + rubric + question + gold + answer), so re-scoring a run, or scoring
another run with the same answers, makes no request. A judge that cannot be reached raises
JudgeUnavailable with the endpoint in the message (the CLI turns it into exit code 2).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from pydantic import BaseModel, Field

from harness.episode import Answer
from harness.rundir import atomic_write_text

from .match import gold_display
from .model import AnswerVerdict

RUBRIC = """You grade one answer of a research agent against the gold answer of a question about scientific papers.
Rules:
- The answer is CORRECT if it states the same value or entity as the gold answer. Formatting, units written
  out, extra explanation and the letter-vs-option-text form of a multiple-choice answer do not matter.
- Numbers must agree within the stated tolerance (or be the same number when no tolerance is given).
- For a list or set, every gold item must be present and no wrong item may be added.
- A hedge between several values, a refusal or an empty answer is INCORRECT.
Reply with exactly one word on the first line: CORRECT or INCORRECT."""


class JudgeUnavailable(Exception):
    """The judge endpoint could not be reached or refused the request."""


class JudgeConfig(BaseModel):
    """Which judge to ask and where its verdicts are cached."""

    model: str = Field(description="model name at the endpoint")
    base_url: str = Field(description="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    api_key_env: str = Field(default="OPENAI_API_KEY", description="environment variable with the API key (a local endpoint needs none)")
    cache_dir: Path | None = Field(default=None, description="verdict cache (default: <sandbox cache>/judge)")
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=1, ge=0)

    @property
    def name(self) -> str:
        return f"judge:{self.model}"


def _question_block(question: str, gold: Answer) -> str:
    parts = [f"Question: {question}", f"Gold answer: {gold_display(gold)}"]
    if gold.format == "number":
        parts.append(f"Tolerance: {gold.tolerance if gold.tolerance is not None else 'exact'}")
    if gold.aliases:
        parts.append(f"Also accepted: {'; '.join(gold.aliases)}")
    if gold.choices:
        parts.append("Options: " + "; ".join(f"{k}) {v}" for k, v in gold.choices.items()))
    return "\n".join(parts)


def parse_judge_reply(text: str) -> bool | None:
    """CORRECT -> True, INCORRECT -> False, anything else -> None."""
    head = text.strip().upper()
    if re.search(r"\bINCORRECT\b|\bNOT CORRECT\b", head):
        return False
    if re.search(r"\bCORRECT\b", head):
        return True
    return None


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

    @property
    def name(self) -> str:
        return self.config.name

    def cache_key(self, question: str, gold: Answer, answer: str) -> str:
        blob = json.dumps([self.config.model, RUBRIC, question, gold_display(gold), answer], ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _client_or_make(self):
        if self._client is None:
            from openai import OpenAI

            key = os.environ.get(self.config.api_key_env) or "not-needed"
            self._client = OpenAI(base_url=self.config.base_url, api_key=key, timeout=self.config.timeout_s,
                                  max_retries=self.config.max_retries)
        return self._client

    def _ask(self, question: str, gold: Answer, answer: str) -> str:
        import openai

        messages = [
            {"role": "system", "content": RUBRIC},
            {"role": "user", "content": f"{_question_block(question, gold)}\nAgent answer: {answer}"},
        ]
        try:
            self.requests += 1
            resp = self._client_or_make().chat.completions.create(
                model=self.config.model, messages=messages, temperature=0, max_tokens=32,  # type: ignore[arg-type]
            )
        except (openai.APIConnectionError, openai.APITimeoutError) as e:
            raise JudgeUnavailable(f"judge endpoint {self.config.base_url} (model {self.config.model}) is not reachable: {e}") from None
        except openai.APIStatusError as e:
            raise JudgeUnavailable(
                f"judge endpoint {self.config.base_url} refused the request (HTTP {e.status_code}, model {self.config.model}): {e.message}"
            ) from None
        content = resp.choices[0].message.content if resp.choices else None
        return content or ""

    def __call__(self, question: str, gold: Answer, answer: str) -> AnswerVerdict:
        key = self.cache_key(question, gold, answer)
        path = self.cache_dir / key[:2] / f"{key}.json"
        if path.is_file():
            try:
                return AnswerVerdict.model_validate_json(path.read_text(encoding="utf-8"))
            except ValueError:
                pass  # a damaged cache entry is asked again
        reply = self._ask(question, gold, answer)
        label = parse_judge_reply(reply)
        if label is None:
            return AnswerVerdict(correct=False, detail=f"judge reply not understood: {reply[:80]!r}")
        verdict = AnswerVerdict(correct=label, detail=f"{self.name}: {reply.strip().splitlines()[0][:40]}")
        atomic_write_text(path, verdict.model_dump_json())
        return verdict
