"""Must show (issue 22): process metrics that an agent cannot pad or buy with one irrelevant read.

Two agents that game the process metrics run through the real runner, the real tools and the built default
sandbox, and their runs are scored like any other:
- the padding oracle follows every gold checklist but sends each search five times (a trailing period, lower
  case, "+ paper", "the + query") and each figure or table read twice more with other spellings of the same
  arguments (a lower-case paper id, the number as a string): 269 calls against the oracle's 73 on these ten
  episodes of sandbox-v3 (282 against 78 on sandbox-v2). Scorer 4 gave it redundancy 0.31 and efficiency 0.97
  on sandbox-v2 (identical-call checks compare raw arguments, so only the re-read tables and figures of a turn
  counted; the issue's search-only padding scored 0.00). Now a call that shows nothing new, or a search that
  repeats one up to case, spacing and punctuation, is redundant: 0.61, efficiency 0.37 on sandbox-v3 (scorer
  13, without the respelled-search rule: 0.56 and 0.42; the rest of the padding, "+ paper" and "the + query",
  are other queries, redundant only when they surface nothing new);
- the one-read agent opens one figure (or one table) of a paper no episode asks about in turn 1 and then
  answers random numbers. Scorer 4 gave the figure agent grounding 0.89 on sandbox-v2 (40 of 46 numbers
  credited to "figure": any figure opened in the episode grounded any number). Now a figure or table grounds a
  number only when the turn's evidence requires it: 0.00 on both channels on sandbox-v3 (44 of 44 numbers
  ungrounded; 0.02 on sandbox-v2, one coincidence with earlier answers).
"""
from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from agents.oracle import OracleAgent
from harness.agent import AgentConfig, BaseAgent, EpisodeInfo, FinalAnswer, ToolCall, TurnContext
from harness.episodes_io import load_episodes
from harness.runner import run_episodes
from harness.scoring import score_run
from harness.settings import RunSettings
from sandbox import paths

pytestmark = pytest.mark.slow

DEFAULT_EPISODES = Path(RunSettings.model_fields["episodes"].default)
N_EPISODES = 10


def _irrelevant() -> str:
    """The first paper of the default corpus with a Figure 1 and a Table 1 that no episode of the default benchmark
    asks about (the default corpus's ids: P0001 was one while v2 was the default)."""
    from sandbox.corpus.model import GroundTruth

    if not paths.ground_truth_path().is_file():
        return "none"
    asked = {u.paper for e in load_episodes(DEFAULT_EPISODES).episodes for t in e.turns for u in t.evidence}
    gt = GroundTruth.model_validate_json(paths.ground_truth_path().read_text(encoding="utf-8"))
    return next(p.id for p in gt.papers if p.id not in asked and any(f.n == 1 for f in p.figures)
                and any(t.n == 1 for t in p.tables))


IRRELEVANT = _irrelevant()


def _world():  # noqa: ANN202
    from sandbox import paths
    from sandbox.world import SandboxWorld

    if not (paths.sandbox_dir() / "index" / "ids.json").is_file():
        pytest.skip("the default sandbox is not built (`make sandbox`); CI builds it before the tests")
    return SandboxWorld()


def _episode_ids() -> list[str]:
    """Episodes with number answers that never ask about the irrelevant paper."""
    out = []
    for e in load_episodes(DEFAULT_EPISODES).episodes:
        papers = {u.paper for t in e.turns for u in t.evidence}
        if IRRELEVANT not in papers and sum(t.answer.format == "number" for t in e.turns) >= 3:
            out.append(e.id)
    return out[:N_EPISODES]


def _run(tmp_path: Path, run_id: str, factory, **settings) -> Path:  # noqa: ANN001
    world = _world()
    s = RunSettings(agent="oracle", results=tmp_path, run_id=run_id, episode_ids=_episode_ids(), concurrency=4,
                    score=False, agent_config=AgentConfig(), **settings)
    run = Path(asyncio.run(run_episodes(s, agent_factory=factory, world=world)).run_dir)
    score_run(run)
    return run


def _variants(query: str) -> list[str]:
    return [query, query + ".", query.lower(), query + " paper", "the " + query]


class PaddingOracle(OracleAgent):
    """The oracle, padded: every search five times in other spellings, every figure or table read three times."""

    name = "padding-oracle"

    async def start_episode(self, info: EpisodeInfo) -> None:
        await super().start_episode(info)
        self._queue: list[ToolCall] = []
        self._queued_for = 0

    async def step(self, ctx: TurnContext):  # noqa: ANN201
        if ctx.view.turn != self._queued_for:
            self._queued_for, self._queue = ctx.view.turn, []
            for item in self._episode.turns[ctx.view.turn - 1].checklist:  # type: ignore[union-attr]
                args = dict(item.args)
                if item.tool == "web_search":
                    self._queue += [ToolCall(tool=item.tool, args={**args, "query": q}) for q in _variants(args["query"])]
                elif item.tool in ("figure_extract", "table_extract"):
                    key = "figure" if item.tool == "figure_extract" else "table"
                    self._queue += [ToolCall(tool=item.tool, args=args),
                                    ToolCall(tool=item.tool, args={**args, "paper": args["paper"].lower()}),
                                    ToolCall(tool=item.tool, args={**args, key: str(args[key])})]
                else:
                    self._queue.append(ToolCall(tool=item.tool, args=args))
        if self._queue and not ctx.view.fallback:
            return self._queue.pop(0)
        self._issued = len(self._episode.turns[ctx.view.turn - 1].checklist)  # type: ignore[union-attr]
        self._turn = ctx.view.turn
        return await super().step(ctx)


@pytest.fixture(scope="module")
def padded(tmp_path_factory) -> tuple[dict, dict, Path]:  # noqa: ANN001
    root = tmp_path_factory.mktemp("padding")
    plain = _run(root, "oracle", lambda: OracleAgent(AgentConfig()), max_steps=40)
    pad = _run(root, "padded", lambda: PaddingOracle(AgentConfig()), max_steps=40)
    return (json.loads((plain / "scores.json").read_text())["all"], json.loads((pad / "scores.json").read_text())["all"], pad)


def test_the_padding_oracle_shows_its_padding_as_redundancy(padded):
    plain, pad, run = padded
    assert plain["esr"] == pad["esr"] == 100.0
    p0, p1 = plain["process"], pad["process"]
    assert (p0["redundancy"], p0["efficiency"]) == (0.0, 1.0)
    padding = pad["tool_calls"] - plain["tool_calls"]
    assert padding >= 2 * plain["tool_calls"]  # the padding triples the calls
    # the extra calls showed nothing new; a variant query that surfaces one more paper in its tail did show
    # something, so a part of the padded searches is not redundant
    redundant = round(p1["redundancy"] * pad["tool_calls"])
    assert redundant >= 0.7 * padding, (redundant, padding)
    assert p1["redundancy"] >= 0.5 and p1["efficiency"] <= 1 - p1["redundancy"] + 1e-9
    # every read asked again with another spelling (a lower-case paper id, the number as a string) is redundant
    rows = {json.loads(x)["episode_id"]: json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()}
    respelled = 0
    for trace in (run / "traces").glob("*.jsonl"):
        events = [json.loads(x) for x in trace.read_text().splitlines()]
        turns = {t["turn"]: t for t in rows[trace.stem]["process"]["turns"]}
        for ev in events:
            if ev["kind"] == "tool_call" and ev["tool"] in ("figure_extract", "table_extract") and (
                    ev["args"]["paper"].islower() or any(isinstance(v, str) and v.isdigit() for v in ev["args"].values())):
                respelled += 1
                assert ev["step"] in turns[ev["turn"]]["redundant_calls"], (trace.stem, ev["turn"], ev["step"], ev["args"])
    assert respelled >= 20
    # every search asked again with a trailing period or in lower case is the same search, even when the engine's
    # dense half lists another paper in its tail for it (17 of 38 period variants did on sandbox-v3 under scorer 14)
    resent = 0
    for trace in (run / "traces").glob("*.jsonl"):
        turns = {t["turn"]: t for t in rows[trace.stem]["process"]["turns"]}
        searches = [json.loads(x) for x in trace.read_text().splitlines()]
        searches = [ev for ev in searches if ev["kind"] == "tool_call" and ev["tool"] == "web_search" and ev["executed"]]
        for prev, ev in zip([None, *searches], searches):
            q, before = ev["args"]["query"], prev["args"]["query"] if prev else None
            period = before is not None and q == before + "."  # _variants: query, query + ".", query.lower(), ...
            lower = before is not None and before.endswith(".") and q == before[:-1].lower() and q != before[:-1]
            if period or lower:
                resent += 1
                assert ev["step"] in turns[ev["turn"]]["redundant_calls"], (trace.stem, ev["turn"], ev["step"], ev["args"])
    assert resent >= 40


class OneReadAgent(BaseAgent):
    """Opens one figure (or table) of a paper the episode never asks about, then answers random numbers."""

    name = "one-read"

    def __init__(self, tool: str):
        self.tool = tool
        self.rng = random.Random(7)
        self._opened: str | None = None

    async def start_episode(self, info: EpisodeInfo) -> None:
        self._opened = None
        self._episode = info.episode

    async def step(self, ctx: TurnContext):  # noqa: ANN201
        view = ctx.view
        if view.turn == 1 and self._opened is None and view.tools and not view.fallback:
            self._opened = self.tool
            key = "figure" if self.tool == "figure_extract" else "table"
            return ToolCall(tool=self.tool, args={"paper": IRRELEVANT, key: 1})
        fmt = view.answer_spec.format if view.answer_spec else "number"
        guess = {"number": f"{self.rng.uniform(5, 95):.2f}", "choice": "A", "text": "UnknownNet", "set": "UnknownNet"}
        return FinalAnswer(answer=guess.get(fmt, "A"))


@pytest.mark.parametrize("tool", ["figure_extract", "table_extract"])
def test_one_irrelevant_read_buys_no_grounding(tmp_path: Path, tool: str):
    run = _run(tmp_path, f"one-{tool}", lambda: OneReadAgent(tool))
    rows = [json.loads(x) for x in (run / "episode_scores.jsonl").read_text().splitlines()]
    opened = [c for e in rows for t in e["turns"] if t["turn"] == 1 for c in t["exposed"]]
    assert len(opened) == len(rows) == N_EPISODES and {c["paper"] for c in opened} == {IRRELEVANT}
    checks = [t["grounding"] for e in rows for t in e["process"]["turns"] if t["grounding"]]
    numbers = [g for g in checks if g["items"] is None]
    grounded = [g for g in numbers if g["source"] not in ("none", "figure_other")]
    assert len(numbers) >= 30
    # only a coincidence with a sum or difference of earlier random answers can trace a random number
    assert len(grounded) <= 0.1 * len(numbers), grounded
    assert all(g["source"] in ("none", "earlier_answers") for g in numbers)
    s = json.loads((run / "scores.json").read_text())["all"]["process"]
    assert s["grounding"] <= 0.1 and s["ungrounded"] >= 0.9 * len(numbers)
