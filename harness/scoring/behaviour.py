"""What the model did, counted from the trace: the steps that moved nothing forward and the requests that failed.

A small model against a local server spends most of a run on replies that neither call a tool nor answer, on
calls the session cannot run, and on requests the server refuses or lets time out; ESR alone says only that
it failed. Per episode and summed per split (scores.json `behaviour`, report.md "What the model did"):

- steps without a tool call, by kind (`no_tool_step.reason`): empty, plan, over-long (cut off at the length
  limit), unparseable (a tool call written as text, an answer that only repeats the instructions'
  placeholder), and the code agent's own kinds (code that raised, code that called nothing) as `other`;
- malformed calls: a tool call whose arguments are not JSON or fail the tool's schema (not run);
- refused calls: a well-formed call the rules refused (a tool not offered, a call past the budget; not run);
- tool errors: calls that ran and returned an error (a figure the paper does not have, a part out of range);
- retries, timeouts (request attempts that timed out) and failed requests (attempts the provider answered
  with an error, bodies kept in the trace: trace v5), and fallbacks (turns answered by the one request
  without tools after the budget or a limit ran out).
"""
from __future__ import annotations

from pydantic import BaseModel, Field

from harness.trace_fold import EpisodeFold

NO_TOOL_KINDS = ("empty", "plan", "over_long", "unparseable")


class ModelBehaviour(BaseModel):
    """Counts of what the model did that moved nothing forward, and of its failed requests."""

    no_tool_steps: int = Field(default=0, description="model steps that neither called a tool nor answered")
    empty: int = Field(default=0, description="replies with no text and no tool call")
    plan: int = Field(default=0, description="replies with text (a plan) but no tool call and no answer")
    over_long: int = Field(default=0, description="replies cut off at the length limit before acting")
    unparseable: int = Field(default=0, description="replies that could not be read as an action (a tool call written "
                                                    "as text, an answer repeating the instructions' placeholder)")
    other_no_tool: int = Field(default=0, description="other steps without a tool call (code that raised or called nothing)")
    malformed_calls: int = Field(default=0, description="tool calls whose arguments were not JSON or failed the schema")
    refused_calls: int = Field(default=0, description="well-formed tool calls refused: a tool not offered, past the budget")
    tool_errors: int = Field(default=0, description="tool calls that ran and returned an error")
    retries: int = Field(default=0, description="request attempts retried after a provider error")
    timeouts: int = Field(default=0, description="request attempts that timed out")
    failed_requests: int = Field(default=0, description="request attempts the provider answered with an error")
    fallbacks: int = Field(default=0, description="turns answered by the fallback request (budget or limit ran out)")

    def plus(self, other: "ModelBehaviour") -> "ModelBehaviour":
        return ModelBehaviour(**{k: getattr(self, k) + getattr(other, k) for k in type(self).model_fields})

    def parts(self) -> list[str]:
        """The non-zero counts as short phrases, for a table cell (`no-tool 3: empty 2, plan 1`, ...)."""
        kinds = [f"{n.replace('_', '-')} {getattr(self, n)}" for n in NO_TOOL_KINDS if getattr(self, n)]
        kinds += [f"other {self.other_no_tool}"] if self.other_no_tool else []
        out = [f"no-tool {self.no_tool_steps}: {', '.join(kinds)}"] if self.no_tool_steps else []
        for name, label in (("malformed_calls", "malformed"), ("refused_calls", "refused"), ("tool_errors", "tool errors"),
                            ("retries", "retries"), ("timeouts", "timeouts"), ("failed_requests", "failed requests"),
                            ("fallbacks", "fallbacks")):
            if getattr(self, name):
                out.append(f"{label} {getattr(self, name)}")
        return out


def behaviour_of(fold: EpisodeFold) -> ModelBehaviour:
    """The counts of one episode's trace (one epoch)."""
    b = ModelBehaviour()
    failed = [m for t in fold.turns.values() for m in t.failed_model_calls]
    retries = [r for t in fold.turns.values() for r in t.retries]
    for t in fold.turns.values():
        for step in t.no_tool_steps:
            b.no_tool_steps += 1
            if step.reason in NO_TOOL_KINDS:
                setattr(b, step.reason, getattr(b, step.reason) + 1)
            else:
                b.other_no_tool += 1
        b.malformed_calls += len(t.malformed_calls)
        b.refused_calls += len(t.refused_calls)
        b.tool_errors += sum(1 for c in t.calls if c.executed and c.error)
        b.fallbacks += t.answer_source in ("budget_fallback", "limit_fallback")
    b.retries = len(retries)
    b.failed_requests = len(failed)
    if failed:  # trace v5: every failed attempt is a model_call with its error
        b.timeouts = sum(1 for m in failed if "timed out" in (m.error or ""))
    else:  # older traces: the retried attempts, and the last one in the episode's provider error
        b.timeouts = (sum(1 for r in retries if "timed out" in r.error)
                      + sum(1 for e in fold.errors if e.bucket == "provider" and "timed out" in e.message))
    return b


def summarize_behaviour(behaviours: list[ModelBehaviour]) -> ModelBehaviour:
    total = ModelBehaviour()
    for b in behaviours:
        total = total.plus(b)
    return total


def behaviour_rows(splits: list[tuple[str, ModelBehaviour]]) -> list[str]:
    """The report's table of what the model did, one row per split."""
    cols = [("no_tool_steps", "No-tool steps"), ("empty", "empty"), ("plan", "plan"), ("over_long", "over-long"),
            ("unparseable", "unparseable"), ("other_no_tool", "other"), ("malformed_calls", "Malformed calls"),
            ("refused_calls", "Refused calls"), ("tool_errors", "Tool errors"), ("retries", "Retries"),
            ("timeouts", "Timeouts"), ("failed_requests", "Failed requests"), ("fallbacks", "Fallbacks")]
    out = ["| Split | " + " | ".join(label for _, label in cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for name, b in splits:
        out.append(f"| {name} | " + " | ".join(str(getattr(b, k)) for k, _ in cols) + " |")
    return out
