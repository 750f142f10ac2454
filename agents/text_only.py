"""The text-only adversary: how far text alone goes on a benchmark that claims to need figures.

Like the oracle it navigates with the gold checklists (right papers, right units; `uses_gold = True`, and
every report says so), but it never looks at an image and never reads a gold answer or an annotated value.
It reads what the tools return as text (captions, nearby text, table cells, body text, pdf_rag passages),
may make extra pdf_extract / table_extract calls to look for a value (pdf_rag when the rest of the body does not
fit in the turn's budget), and answers with its best
text-derived guess: a number printed next to the series on a table row or in a sentence, or the option
the text favours. Its accuracy on figure turns bounds what a benchmark's figures can be read from text.
"""
from __future__ import annotations

import json
import re

from harness.agent import (
    AgentConfig, BaseAgent, EpisodeInfo, FinalAnswer, Observation, ToolCall, TurnContext, TurnView,
)
from harness.episode import Episode, Turn

from ._report_writing import tables_report
from ._reading import first_number, fmt_number, latest_table, letter_for, method_name, table_cell
from ._text_finals import solve_constraint
from ._text_guess import FigureAsk, guess_choice, guess_figure_value, paper_lines, parse_figure_ask
from .heuristic import HeuristicAgent

_QUOTED = re.compile(r'"([^"]+)"')
_TABLE = re.compile(r"\bTable (\d+)")
_FIGURE = re.compile(r"\bFigure (\d+)")
_THRESHOLD = re.compile(r"\b(greater|more|higher|larger|above|lower|less|smaller|below)(?: than)? (-?\d+(?:\.\d+)?)")


class TextOnlyAgent(BaseAgent):
    """Gold checklist navigation, extra text reading, text-derived answers; never an image."""

    name = "text-only"
    uses_gold = True

    def __init__(self, config: AgentConfig):
        self.config = config
        self._episode: Episode | None = None
        self._turn = 0
        self._issued = 0
        self._extra: set[str] = set()
        self._fuser = HeuristicAgent(config)  # combines earlier answers on memory-only finals
        self._answers: dict[int, str | None] = {}

    async def start_episode(self, info: EpisodeInfo) -> None:
        if info.episode is None:
            raise ValueError("the text-only adversary navigates with gold checklists (uses_gold agents get info.episode)")
        self._episode = info.episode
        self._turn, self._issued, self._extra, self._answers = 0, 0, set(), {}
        self._fuser.paper_by_turn = {}

    async def end_episode(self) -> None:
        self._episode = None

    async def step(self, ctx: TurnContext) -> ToolCall | FinalAnswer:
        assert self._episode is not None, "start_episode was not called"
        view = ctx.view
        if view.turn != self._turn:
            self._turn, self._issued, self._extra = view.turn, 0, set()
        if view.answer_spec.format == "report" and self._episode.report is not None:
            return self._report(view)
        turn = self._episode.turns[view.turn - 1]
        papers = _checklist_papers(turn)
        if papers:
            self._fuser.paper_by_turn[view.turn] = papers[0]
        can_call = not view.fallback and view.budget_left > 0 and not view.memory_only
        if can_call and self._issued < len(turn.checklist):
            item = turn.checklist[self._issued]
            self._issued += 1
            if item.tool in view.tool_names:
                return ToolCall(tool=item.tool, args=dict(item.args),
                                reasoning=f"gold checklist step {self._issued}/{len(turn.checklist)}: {json.dumps(item.args)}")
        if can_call and papers:
            call = self._more_reading(view, turn, papers[0])
            if call is not None:
                return call
        answer = self._answer(view, turn, papers[0] if papers else None)
        self._answers[view.turn] = answer
        if answer is None:  # no text gives it away: still a (wrong-by-default) guess, so the turn is scored
            spec = view.answer_spec
            answer = sorted(spec.choices)[0] if spec.format == "choice" and spec.choices else \
                ("0" if spec.format == "number" else "none")
            return FinalAnswer(answer=answer, reasoning="no text evidence found: a placeholder guess")
        return FinalAnswer(answer=answer, reasoning="best text-derived guess (no image was looked at)")

    def _report(self, view: TurnView) -> ToolCall | FinalAnswer:
        """A report turn: the gold report checklist for navigation, then what table text says (no image, no gold value)."""
        assert self._episode is not None and self._episode.report is not None
        steps = self._episode.report.checklist
        if not view.fallback and view.budget_left > 0 and self._issued < len(steps):
            item = steps[self._issued]
            self._issued += 1
            if item.tool in view.tool_names:
                return ToolCall(tool=item.tool, args=dict(item.args), reasoning="gold report checklist (navigation only)")
        return FinalAnswer(answer=tables_report(view.memory, view.answer_spec.report, view.episode_id),
                           reasoning="table text in memory, written out (no image looked at)")

    # -- reading more text ----------------------------------------------------------------
    def _more_reading(self, view: TurnView, turn: Turn, paper: str) -> ToolCall | None:
        """The next extra call that could show the value as text: the paper's body, its tables, a passage."""
        if not any(e.unit.startswith("figure:") for e in turn.evidence) and view.answer_spec.format != "choice":
            return None  # a table or text turn: the checklist already shows what is asked

        def want(tool: str, args: dict[str, object], key: str) -> ToolCall | None:
            if key in self._extra or tool not in view.tool_names:
                return None
            self._extra.add(key)
            return ToolCall(tool=tool, args=args, reasoning=f"text-only: look for the value as text ({key})")

        body = _latest(view.memory, "pdf_extract", paper)
        if body is None:
            return want("pdf_extract", {"paper": paper}, "pdf_extract")
        for n in [int(t["n"]) for t in (body.data or {}).get("tables") or []]:
            if latest_table(view.memory, paper, n) is None and (call := want("table_extract", {"paper": paper, "table": n}, f"table {n}")):
                return call
        parts = int((body.data or {}).get("parts") or 1)
        unread = [part for part in range(2, parts + 1) if not _has_part(view.memory, paper, part) and f"part {part}" not in self._extra]
        # pdf_rag's passages are pieces of the body: once the whole body is read they add no text (on sandbox-v3 every
        # answer is the same with and without them, turn by turn), so a passage is asked for only when the rest of the
        # body does not fit in the turn's budget; embedding a paper's passages is most of a cold run's work
        ask = parse_figure_ask(view.question)
        if ask is not None and ask.series and len(unread) >= view.budget_left:
            query = f"{ask.series} {ask.x_text or ask.category or ''} Figure {ask.figure}".strip()
            if call := want("pdf_rag", {"paper": paper, "query": query, "k": 5}, "pdf_rag"):
                return call
        for part in unread:
            if call := want("pdf_extract", {"paper": paper, "part": part}, f"part {part}"):
                return call
        return None

    # -- answering ------------------------------------------------------------------------
    def _answer(self, view: TurnView, turn: Turn, paper: str | None) -> str | None:
        if view.memory_only or paper is None:
            return self._fuse(view, turn)
        spec = view.answer_spec
        lines = paper_lines(view.memory, paper)
        q = view.question
        quoted = _QUOTED.findall(q)
        fig, tab = _FIGURE.search(q), _TABLE.search(q)
        if spec.format == "text":
            body = _latest(view.memory, "pdf_extract", paper)
            return method_name(body.text if body else "", (body.data or {}).get("title") if body else None)
        if tab and not (fig and fig.start() < tab.start()):
            rows = latest_table(view.memory, paper, int(tab.group(1)))
            if spec.format == "number" and rows and len(quoted) >= 2:
                v = table_cell(rows, quoted[-2], quoted[-1])
                return None if v is None else fmt_number(v)
            if spec.format == "choice" and rows and quoted:
                return guess_choice(spec.choices or {}, q, lines, rows_column=(rows, quoted[-1]))
        ask = parse_figure_ask(q)
        if spec.format == "number" and ask is not None:
            v = guess_figure_value(ask, lines)
            return None if v is None else fmt_number(v)
        if spec.format == "choice":
            body = _latest(view.memory, "pdf_extract", paper)
            own = method_name(body.text if body else "", (body.data or {}).get("title") if body else None)
            return guess_choice(spec.choices or {}, q, lines, own_method=own, ask=ask)
        return None

    def _fuse(self, view: TurnView, turn: Turn) -> str | None:
        """A final from the answers this agent gave earlier: the annotated operation if the turn has one,
        else the heuristic's reading of the question."""
        d = turn.derivation
        operands = [r for r in turn.reads if r.turn is not None]
        if d is not None and operands and d.op in ("difference", "sum", "mean", "ratio"):
            values = [first_number(self._answers.get(r.turn)) for r in operands]  # type: ignore[arg-type]
            if all(v is not None for v in values):
                nums = [float(v) for v in values if v is not None]
                if d.op == "difference" and len(nums) == 2:
                    return fmt_number(nums[0] - nums[1])
                if d.op == "sum":
                    return fmt_number(sum(nums))
                if d.op == "mean":
                    return fmt_number(sum(nums) / len(nums))
                if d.op == "ratio" and len(nums) == 2 and nums[1]:
                    return fmt_number(nums[0] / nums[1])
        if d is not None and operands and d.op == "count" and (m := _THRESHOLD.search(view.question)):
            values = [first_number(self._answers.get(r.turn)) for r in operands]  # type: ignore[arg-type]
            limit, above = float(m.group(2)), m.group(1) in ("greater", "more", "higher", "larger", "above")
            return str(sum(v is not None and ((v > limit) if above else (v < limit)) for v in values))
        if d is not None and operands and d.op in ("argmax", "argmin") and view.answer_spec.choices and \
                len(d.candidates) == len(operands):
            values = [first_number(self._answers.get(r.turn)) for r in operands]  # type: ignore[arg-type]
            known = {c: v for c, v in zip(d.candidates, values) if v is not None}
            if known:
                pick = (max if d.op == "argmax" else min)(known, key=lambda c: known[c])
                return letter_for(view.answer_spec.choices, pick) or pick
        if view.question.startswith("Consider every"):
            solved = solve_constraint(view, self._fuser.paper_by_turn, lambda ref: self._fuser._value(view, ref))
            if solved is not None:
                return solved
        return self._fuser._fuse(view)


def _checklist_papers(turn: Turn) -> list[str]:
    out: list[str] = []
    for step in turn.checklist:
        p = step.args.get("paper")
        if isinstance(p, str) and p not in out:
            out.append(p)
    for e in turn.evidence:
        if e.paper not in out:
            out.append(e.paper)
    return out


def _about(obs: Observation, paper: str) -> bool:
    return any(p.paper == paper for p in obs.provenance) or obs.args.get("paper") == paper


def _latest(memory: list[Observation], tool: str, paper: str) -> Observation | None:
    for obs in reversed(memory):
        if obs.tool == tool and not obs.error and _about(obs, paper) and (tool != "pdf_extract" or obs.args.get("part", 1) == 1):
            return obs
    return None


def _has_part(memory: list[Observation], paper: str, part: int) -> bool:
    return any(o.tool == "pdf_extract" and not o.error and _about(o, paper) and o.args.get("part", 1) == part for o in memory)


__all__ = ["TextOnlyAgent", "FigureAsk"]
