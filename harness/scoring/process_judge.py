"""Judged process quality (optional; MiroEval, seed 000): an LLM judge scores the research process 1-10.

The judge reads a rendering of the trace (each turn's question, the calls with their arguments, what
each returned in brief and which units it exposed, errors, the answer; never the gold answer or the
required evidence) and scores the five intrinsic dimensions of MiroEval. It runs on the answer judge's
plumbing (`judge.py`: any OpenAI-compatible endpoint, temperature 0, a cache keyed by the hash of the
whole request, one retry for an unreadable reply, then an error that is neither cached nor a score, and
JudgeUnavailable when the endpoint is down). Its scores are set beside the deterministic counterparts
(breadth: papers surfaced; depth: units per opened paper; refinement: reformulations; efficiency:
efficiency) by Spearman rank correlation over episodes; critical thinking has no counterpart.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Callable

import numpy as np

from harness.rundir import atomic_write_text
from harness.trace_fold import EpisodeFold

from .answer_text import strip_reasoning
from .judge import Judge
from .model import EpisodeScore
from .process_model import Correlation, EpisodeProcess, JudgedProcess, JudgedProcessSummary
from .process_outcome import MIN_N, rho_with_interval

DIMENSIONS = ("search_breadth", "analytical_depth", "progressive_refinement", "critical_thinking", "efficiency")
COUNTERPARTS: dict[str, tuple[str, Callable[[EpisodeProcess], float | None]]] = {
    "search_breadth": ("papers surfaced", lambda p: p.papers_surfaced),
    "analytical_depth": ("units per paper", lambda p: p.units_per_paper),
    "progressive_refinement": ("reformulations", lambda p: p.reformulations),
    "efficiency": ("efficiency", lambda p: p.efficiency),
}
PROCESS_RUBRIC = """You audit how a research agent worked, not whether its answers were right. The agent answered
questions about scientific papers over several turns with tools (web_search, pdf_extract, pdf_rag, figure_extract,
table_extract); a memory-only turn offers no tools. Score the process on five dimensions, each an integer 1-10:
- search_breadth: explores a suitable range of queries and sources for what it had to find;
- analytical_depth: reads the papers deeply enough (the right sections, figures and tables) to support its answers;
- progressive_refinement: improves queries and reading as it learns, instead of repeating what failed;
- critical_thinking: checks sources and values, notices conflicts and errors, does not answer without support;
- efficiency: reaches what it needs without redundant or off-target calls.
Reply with one JSON object and nothing else, e.g.
{"search_breadth": 7, "analytical_depth": 5, "progressive_refinement": 6, "critical_thinking": 4, "efficiency": 8}"""
RETRY_NUDGE = ("Your reply was not one JSON object with an integer 1-10 for each of search_breadth, analytical_depth, "
               "progressive_refinement, critical_thinking and efficiency. Reply with that object only.")
MAX_RENDER_CHARS = 40_000
_OBJECT = re.compile(r"\{[^{}]*\}", re.S)


def render_trace(fold: EpisodeFold) -> str:
    """The episode's process as the judge reads it: turns, calls, brief results, exposed units, answers."""
    lines = [f"Episode {fold.episode_id}: {len(fold.turns)} turn(s)."]
    for tf in fold.ordered_turns:
        q = tf.start.question if tf.start else "(question not recorded)"
        offered = ", ".join(tf.tools_offered) or "none (memory-only: answer from what was gathered earlier)"
        lines += ["", f"Turn {tf.turn}. Question: {q}", f"Tools offered: {offered}"]
        for c in tf.calls:
            args = json.dumps(c.args, ensure_ascii=False, sort_keys=True)
            if not c.executed:
                lines.append(f"  step {c.step}: {c.tool}({args}) refused: {c.error or ''}")
                continue
            got = f"ERROR: {c.error}" if c.error else " ".join((c.result_summary or (c.result_text or "")[:300]).split())
            units = ", ".join(u.label() for u in c.exposed)
            lines.append(f"  step {c.step}: {c.tool}({args}) -> {got}" + (f" [exposed: {units}]" if units else ""))
        if tf.budget is not None:
            lines.append(f"  the step budget of {tf.budget.budget} ran out")
        answer = " ".join((tf.answer_text or "(no answer)").split())
        lines.append(f"  answer: {answer[:600]}")
    text = "\n".join(lines)
    return text if len(text) <= MAX_RENDER_CHARS else text[:MAX_RENDER_CHARS] + "\n(... the rest of the trace is cut)"


def parse_process_reply(text: str | None) -> dict[str, float] | None:
    """The five scores from a reply (a JSON object, after any reasoning); None unless all five are 1-10."""
    if not text:
        return None
    body = strip_reasoning(text)
    for m in reversed(_OBJECT.findall(body)):
        try:
            data = json.loads(m)
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        scores: dict[str, float] = {}
        for d in DIMENSIONS:
            v = data.get(d)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 1 <= v <= 10:
                break
            scores[d] = float(v)
        else:
            return scores
    return None


class ProcessJudge(Judge):
    """A cached judge of process quality over the answer judge's client and error handling."""

    def process_request(self, rendering: str) -> dict:
        body: dict = {"model": self.config.model, "temperature": 0,
                      "messages": [{"role": "system", "content": PROCESS_RUBRIC},
                                   {"role": "user", "content": f"The agent's trace:\n\n{rendering}"}]}
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        return body

    def judge_episode(self, fold: EpisodeFold) -> JudgedProcess:
        body = self.process_request(render_trace(fold))
        key = hashlib.sha256(json.dumps(body, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()
        path = self.cache_dir / "process" / key[:2] / f"{key}.json"
        if path.is_file():
            try:
                return JudgedProcess.model_validate_json(path.read_text(encoding="utf-8"))
            except ValueError:
                pass  # a damaged cache entry is asked again
        reply = self._ask(body)
        scores = parse_process_reply(reply)
        if scores is None:
            retry = {**body, "messages": body["messages"] + [{"role": "assistant", "content": reply},
                                                             {"role": "user", "content": RETRY_NUDGE}]}
            reply = self._ask(retry)
            scores = parse_process_reply(reply)
        if scores is None:
            self.errors += 1
            return JudgedProcess(judge=self.name, error=f"no scores after a retry: {reply.strip()[:80]!r}")
        judged = JudgedProcess(judge=self.name, scores=scores)
        atomic_write_text(path, judged.model_dump_json())
        return judged


def agreement(dimension: str, pairs: list[tuple[float, float]]) -> Correlation:
    """Spearman rho between a judged dimension and its deterministic counterpart, with a bootstrap interval."""
    name, _ = COUNTERPARTS[dimension]
    out = Correlation(metric=f"{dimension} ~ {name}", level="episode", n=len(pairs))
    if len(pairs) < MIN_N:
        out.note = f"not defined: {len(pairs)} episode(s) with both"
        return out
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs], dtype=float)
    if np.all(x == x[0]):
        out.note = f"not defined: the judge gave {x[0]:g} to every episode"
    elif np.all(y == y[0]):
        out.note = f"not defined: {name} is {y[0]:g} on every episode"
    else:
        out.rho, out.low, out.high = rho_with_interval(x, y)
    return out


def summarize_judged(episodes: list[EpisodeScore], judge_name: str) -> JudgedProcessSummary:
    """Mean judged score per dimension and the agreement of each with its deterministic counterpart."""
    judged = [(e.process, e.process.judged) for e in episodes if e.process is not None and e.process.judged is not None]
    ok = [(p, j) for p, j in judged if j.error is None]
    means = {d: (sum(j.scores[d] for _, j in ok) / len(ok) if ok else None) for d in DIMENSIONS}
    agree = []
    for d, (_, get) in COUNTERPARTS.items():
        agree.append(agreement(d, [(j.scores[d], v) for p, j in ok if (v := get(p)) is not None]))
    return JudgedProcessSummary(judge=judge_name, episodes=len(ok), errors=len(judged) - len(ok), means=means, agreement=agree)
