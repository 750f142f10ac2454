"""Process metrics from the trace (issue 17; MiroEval, seed 000, done deterministically from typed events).

How an agent searched, read and reused, not only whether it was right. Built on the shared trace fold
(`harness.trace_fold`) and the episode file only; harness/README.md defines each metric with an example.
- breadth: distinct search queries, papers surfaced in search results and opened, units read;
- depth: units read per opened paper, figure/table reads against text reads;
- refinement: a turn's search with a query new to that turn, and whether it moved a paper the turn
  requires up the results;
- redundancy (issue 22): a call that showed nothing new. A read is redundant when it exposed no
  (paper, unit, page) the episode had not already exposed (`read_identity`; text without a page is new
  when its content is); a search when it surfaced no new paper and moved no paper its turn requires up;
  and a search that repeats an earlier one of the episode up to the query's case, spacing and punctuation
  (`search_key`; the engine may list another paper in the tail of a respelled query: it is the same search);
  any other call when it repeats an earlier one (same tool, same arguments). So no spelling of the same
  call (`p0123`, `figure: "2"`, a query with a trailing period) escapes. A call that failed is not
  redundant (it is a tool error). `repeated_calls` still counts identical calls, `reread_units` the
  exposures the episode had seen; units a summary memory mode dropped are new again;
- reuse: on memory-only turns, the share of required units already in the episode's memory;
- efficiency: executed calls that were not redundant and touched a unit required in that turn, or (a
  search) listed a paper the turn requires, or are a step of the turn's checklist, over executed calls;
- grounding: whether each answer is traceable in the trace (`grounding.py`).
"""
from __future__ import annotations

import hashlib
import json
import re
import string
from typing import Any

from harness.episode import Episode, ReportTurn, Turn
from harness.trace import MemoryCompacted, ToolCallEvent
from harness.trace_fold import EpisodeFold, TurnFold
from tools import EvidenceUnit, call_signature

from .grounding import ground_answers
from .model import EpisodeScore
from .process_model import EpisodeProcess, GroundingCheck, ProcessSummary, Reformulation, TurnProcess

SEARCH_TOOL = "web_search"
# tools/web_search.format_hits: "N. title" at the start of a line, then "   paper id: X" under it
_HIT = re.compile(r"^(\d+)\.\s")
_HIT_ID = re.compile(r"^\s+paper id:\s*(\S+)")


def normalize_query(q: Any) -> str:
    """A query as a reader compares it: case, spacing and punctuation at the ends of its words folded
    (`GalvoGCN heterophily.` and `galvogcn  HETEROPHILY` are `galvogcn heterophily`; `PKHG-XL` keeps its hyphen)."""
    words = (w.strip(string.punctuation + "“”‘’") for w in str(q).lower().split())
    return " ".join(w for w in words if w)


def _plain(v: Any) -> Any:
    """`20`, `"20"` and `20.0` are one argument value."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return v
    return int(f) if f.is_integer() and not isinstance(v, bool) else f


def search_key(args: dict[str, Any]) -> tuple[str, str]:
    """What makes two searches the same search: the normalised query and the other arguments (`k`) as values."""
    rest = {k: _plain(v) for k, v in args.items() if k != "query"}
    return normalize_query(args.get("query", "")), json.dumps(rest, sort_keys=True, default=str)


def search_hits(text: str | None) -> list[str | None]:
    """The paper id at each rank of a web_search result (None for a hit without one), rank 1 first."""
    hits: list[str | None] = []
    for line in (text or "").splitlines():
        if _HIT.match(line):
            hits.append(None)
        elif hits and hits[-1] is None and (m := _HIT_ID.match(line)):
            hits[-1] = m.group(1)
    return hits


def read_identity(u: EvidenceUnit, content: str | None = None) -> tuple[str, str, int | None, str | None]:
    """What makes two exposures the same reading: a figure or table is the same content whoever shows it;
    text is the same on the same page; text without a page (pdf_extract names none) is the same when the
    call showed the same `content` (another part of a paper is new reading)."""
    if u.unit != "text":
        return u.paper, u.unit, None, None
    if u.page is not None:
        return u.paper, u.unit, u.page, None
    return u.paper, u.unit, None, hashlib.sha256((content or "").encode("utf-8")).hexdigest()


def _best_rank(hits: list[str | None], targets: set[str]) -> int | None:
    return next((r for r, p in enumerate(hits, 1) if p in targets), None)


class _EpisodeWalk:
    """State carried across the turns of one episode: what its calls have shown so far."""

    def __init__(self) -> None:
        self.done: set[tuple[str, str]] = set()  # signatures of error-free calls
        self.exposed: set[tuple[str, str, int | None, str | None]] = set()  # read identities shown
        self.rank: dict[str, int] = {}  # paper -> best rank in any search so far
        self.searches: set[tuple[str, str]] = set()  # search_key of error-free searches

    def _forget(self, dropped: list[EvidenceUnit]) -> None:
        """A summary memory mode took these units out of the model's view: reading them again is new."""
        keys = {u.key for u in dropped}
        self.exposed = {r for r in self.exposed if (r[0], r[1]) not in keys}

    def _search_adds(self, hits: list[str | None], targets: set[str]) -> bool:
        """A new paper surfaced, or a paper the turn requires ranks better than in any earlier search."""
        new = any(p is not None and p not in self.rank for p in hits)
        moved = any(p in targets and r < self.rank.get(p, r + 1) for r, p in enumerate(hits, 1) if p is not None)
        for r, p in enumerate(hits, 1):
            if p is not None:
                self.rank[p] = min(r, self.rank.get(p, r))
        return new or moved

    def turn(self, tf: TurnFold, gold: Turn | ReportTurn | None, memory_keys: set[tuple[str, str]]) -> TurnProcess:
        required = {u.key for u in gold.evidence} if gold else set()
        targets = {p for p, _ in required}
        checklist = {call_signature(s.tool, s.args) for s in gold.checklist} if gold else set()
        tp = TurnProcess(turn=tf.turn, memory_only=tf.memory_only or bool(isinstance(gold, Turn) and gold.memory_only))
        last_hits: list[str | None] | None = None
        last_query = ""
        for ev in tf.events:
            if isinstance(ev, MemoryCompacted):
                self._forget(ev.dropped)
            if not isinstance(ev, ToolCallEvent) or not ev.executed:
                continue
            c = ev
            tp.executed_calls += 1
            sig = call_signature(c.tool, c.args)
            keys = list(dict.fromkeys(u.key for u in c.exposed))
            reads = list(dict.fromkeys(read_identity(u, c.result_text) for u in c.exposed))
            again = [r for r in reads if r in self.exposed]
            tp.reread_units += len(again)
            searched = c.tool == SEARCH_TOOL and c.error is None
            hits = search_hits(c.result_text or c.result_summary) if searched else []
            if sig in self.done:
                tp.repeated_calls.append(c.step)
            if c.error is not None:
                redundant = False  # a failed call is a tool error, not padding
            elif reads:
                redundant = len(again) == len(reads)
            elif searched:
                adds = self._search_adds(hits, targets)  # (also records the ranks a respelled search showed)
                redundant = not adds or search_key(c.args) in self.searches
                self.searches.add(search_key(c.args))
            else:
                redundant = sig in self.done
            if redundant:
                tp.redundant_calls.append(c.step)
            elif set(keys) & required or set(hits) & targets or sig in checklist:
                tp.useful_calls.append(c.step)
            if keys:
                if any(u.startswith(("figure:", "table:")) for _, u in keys):
                    tp.float_reads += 1
                else:
                    tp.text_reads += 1
            self.exposed.update(reads)
            for k in keys:
                if k[0] not in tp.papers_opened:
                    tp.papers_opened.append(k[0])
                label = f"{k[0]} {k[1]}"
                if label not in tp.units_read:
                    tp.units_read.append(label)
            if searched:
                q = normalize_query(c.args.get("query", ""))
                if last_hits is not None and q not in tp.queries:
                    before, after = _best_rank(last_hits, targets), _best_rank(hits, targets)
                    moved = None if not targets else (after is not None and (before is None or after < before))
                    tp.reformulations.append(Reformulation(step=c.step, query=q, previous_query=last_query,
                                                           rank_before=before, rank_after=after, moved_up=moved))
                if q not in tp.queries:
                    tp.queries.append(q)
                for p in hits:
                    if p and p not in tp.papers_surfaced:
                        tp.papers_surfaced.append(p)
                last_hits, last_query = hits, q
            if c.error is None:
                self.done.add(sig)
        if tp.executed_calls:
            tp.efficiency = len(tp.useful_calls) / tp.executed_calls
        if tp.memory_only and required:
            tp.reuse_hit, tp.reuse_need = len(required & memory_keys), len(required)
            tp.reuse = tp.reuse_hit / tp.reuse_need
        return tp


def gold_turn(episode: Episode, turn: int) -> Turn | ReportTurn | None:
    """The gold of a 1-based turn: an answer turn, the report turn that follows them, or None past the end."""
    if 1 <= turn <= len(episode.turns):
        return episode.turns[turn - 1]
    return episode.report if episode.report is not None and turn == len(episode.turns) + 1 else None


def process_of(episode: Episode, fold: EpisodeFold) -> EpisodeProcess:
    """The process metrics of one episode from its folded trace (turns the trace never reached add nothing)."""
    walk = _EpisodeWalk()
    grounding: dict[int, GroundingCheck] = ground_answers(episode, fold)
    turns: list[TurnProcess] = []
    for tf in fold.ordered_turns:
        gold = gold_turn(episode, tf.turn)
        memory = {u.key for u in fold.memory_before(tf.turn)}
        tp = walk.turn(tf, gold, memory)
        tp.grounding = grounding.get(tf.turn)
        turns.append(tp)
    return summarize_episode(turns)


def summarize_episode(turns: list[TurnProcess]) -> EpisodeProcess:
    """Episode totals from its turns: unions for breadth, sums for counts, pooled ratios."""
    queries = {q for t in turns for q in t.queries}
    surfaced = {p for t in turns for p in t.papers_surfaced}
    opened = {p for t in turns for p in t.papers_opened}
    units = {u for t in turns for u in t.units_read}
    ep = EpisodeProcess(
        distinct_queries=len(queries), papers_surfaced=len(surfaced), papers_opened=len(opened), units_read=len(units),
        units_per_paper=len(units) / len(opened) if opened else None,
        float_reads=sum(t.float_reads for t in turns), text_reads=sum(t.text_reads for t in turns),
        reformulations=sum(len(t.reformulations) for t in turns),
        moved_up=sum(1 for t in turns for r in t.reformulations if r.moved_up),
        executed_calls=sum(t.executed_calls for t in turns),
        repeated_calls=sum(len(t.repeated_calls) for t in turns), reread_units=sum(t.reread_units for t in turns),
        redundant_calls=sum(len(t.redundant_calls) for t in turns), useful_calls=sum(len(t.useful_calls) for t in turns),
        turns=turns,
    )
    if ep.executed_calls:
        ep.redundancy = ep.redundant_calls / ep.executed_calls
        ep.efficiency = ep.useful_calls / ep.executed_calls
    ep.reuse_hit, ep.reuse_need = sum(t.reuse_hit for t in turns), sum(t.reuse_need for t in turns)
    ep.reuse = ep.reuse_hit / ep.reuse_need if ep.reuse_need else None
    checks = [t for t in turns if t.grounding is not None]
    ep.gradable = len(checks)
    ep.grounded = sum(1 for t in checks if t.grounding and t.grounding.grounded)
    ep.ungrounded_turns = [t.turn for t in checks if t.grounding and not t.grounding.grounded]
    ep.grounding = ep.grounded / ep.gradable if ep.gradable else None
    return ep


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def summarize_process(episodes: list[EpisodeScore]) -> ProcessSummary | None:
    """The process metrics of a group of episodes (a split, or all); None when none has them."""
    ps = [e.process for e in episodes if e.process is not None]
    if not ps:
        return None
    n = len(ps)
    reformulated = [r for p in ps for t in p.turns for r in t.reformulations if r.moved_up is not None]
    executed = sum(p.executed_calls for p in ps)
    return ProcessSummary(
        episodes=n,
        queries_per_episode=sum(p.distinct_queries for p in ps) / n,
        papers_surfaced_per_episode=sum(p.papers_surfaced for p in ps) / n,
        papers_opened_per_episode=sum(p.papers_opened for p in ps) / n,
        units_per_episode=sum(p.units_read for p in ps) / n,
        units_per_paper=_ratio(sum(p.units_read for p in ps), sum(p.papers_opened for p in ps)),
        float_share=_ratio(sum(p.float_reads for p in ps), sum(p.float_reads + p.text_reads for p in ps)),
        reformulations=sum(p.reformulations for p in ps), moved_up=sum(p.moved_up for p in ps),
        moved_up_rate=_ratio(sum(1 for r in reformulated if r.moved_up), len(reformulated)),
        repeated_calls=sum(p.repeated_calls for p in ps), reread_units=sum(p.reread_units for p in ps),
        redundancy=_ratio(sum(p.redundant_calls for p in ps), executed),
        reuse=_ratio(sum(p.reuse_hit for p in ps), sum(p.reuse_need for p in ps)),
        efficiency=_ratio(sum(p.useful_calls for p in ps), executed),
        grounding=_ratio(sum(p.grounded for p in ps), sum(p.gradable for p in ps)),
        ungrounded=sum(len(p.ungrounded_turns) for p in ps),
        grounding_sources={src: sum(1 for p in ps for t in p.turns if t.grounding and t.grounding.source == src)
                           for src in ("observation", "earlier_answers", "figure", "figure_other", "none")},
    )
