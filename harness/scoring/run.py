"""score_run: score one run directory from its files alone (run.json, traces, the episode file).

Never runs an agent or a tool, so any old run can be scored again with the current scorer
(`epi score RUN`); scores.json and report.md name the scorer version. Writes scores.json,
episode_scores.jsonl, plots/ and report.md. A judge pass that fails (endpoint down) writes nothing:
the matcher scores already there stay as they were (and are written first if the run had none).
"""
from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from harness.episode import Episode
from harness.rundir import RunDir, atomic_write_text, safe_name

from .facts import read_episode_fold
from .judge import Judge, JudgeConfig, JudgeUnavailable
from .metrics import bucket_counts, score_episode, split_scores
from .model import SCORER_VERSION, gold_note, AblationSettings, EpisodeScore, RunScores
from .process_judge import ProcessJudge, summarize_judged


class ScoringError(Exception):
    """A run that cannot be scored as asked: the message names the file and what is wrong."""


def _setting(cfg: dict[str, Any], key: str, default: Any = None) -> Any:
    if key in cfg:
        return cfg[key]
    return (cfg.get("settings") or {}).get(key, default)


def load_run_config(rd: RunDir) -> dict[str, Any]:
    if not rd.path.is_dir():
        raise ScoringError(f"{rd.path} does not exist")
    if not rd.exists():
        raise ScoringError(f"{rd.path} is not a run directory: no run.json in it")
    try:
        return rd.load_config()
    except ValueError as e:
        raise ScoringError(f"{rd.run_json} is not valid JSON: {e}") from None


def resolve_episodes(rd: RunDir, cfg: dict[str, Any], override: Path | None, allow_mismatch: bool) -> tuple[Any, bool]:
    """Load the run's episode file (or the override); refuse one whose hash differs unless allowed."""
    from harness.episodes_io import EpisodeFileError, load_episodes

    raw = override or _setting(cfg, "episodes_path") or _setting(cfg, "episodes")
    if not raw:
        raise ScoringError(f"{rd.run_json} names no episode file; pass --episodes FILE")
    path = Path(raw)
    if not path.is_file():
        raise ScoringError(f"episode file {path} (from {'--episodes' if override else rd.run_json}) does not exist; pass --episodes FILE")
    try:
        eset = load_episodes(path)
    except EpisodeFileError as e:
        raise ScoringError(str(e)) from None
    want = cfg.get("episodes_sha256")
    mismatch = bool(want) and want != eset.sha256
    if mismatch and not allow_mismatch:
        raise ScoringError(
            f"episode file {path} has sha256 {eset.sha256[:12]}... but run {rd.run_id!r} was made with sha256 "
            f"{str(want)[:12]}... ({cfg.get('episodes_path')}); the gold answers may differ. "
            "Pass the original file with --episodes, or --allow-mismatch to score anyway"
        )
    return eset, mismatch


def planned_episodes(cfg: dict[str, Any], episodes: list[Episode], rd: RunDir) -> list[Episode]:
    """The episodes the run set out to run (episode_ids, then limit), plus any other with a trace."""
    chosen = episodes
    ids = _setting(cfg, "episode_ids") or []
    if ids:
        chosen = [e for e in episodes if e.id in set(ids)]
    limit = _setting(cfg, "limit")
    if isinstance(limit, int):
        chosen = chosen[:limit]
    have = {e.id for e in chosen}
    traced = {p.stem for p in rd.traces_dir.glob("*.jsonl")} if rd.traces_dir.is_dir() else set()
    extra = [e for e in episodes if e.id not in have and safe_name(e.id) in traced]
    return chosen + extra


def score_run(
    run_dir: Path, *, episodes_path: Path | None = None, judge: JudgeConfig | None = None,
    allow_mismatch: bool = False, write: bool = True, process_judge: JudgeConfig | None = None,
) -> RunScores:
    """Score a run from its files; write scores.json, episode_scores.jsonl, plots/ and report.md.
    `process_judge` also has an LLM judge score each episode's process (MiroEval dimensions)."""
    rd = RunDir(run_dir)
    if (judge is not None or process_judge is not None) and write and not rd.scores_json.is_file():
        score_run(run_dir, episodes_path=episodes_path, allow_mismatch=allow_mismatch)  # matcher scores first
    cfg = load_run_config(rd)
    eset, mismatch = resolve_episodes(rd, cfg, episodes_path, allow_mismatch)
    labeller = Judge(judge) if judge is not None else None
    scored: list[EpisodeScore] = []
    known = {safe_name(e.id) for e in eset.episodes}
    unknown = sorted(p.stem for p in rd.traces_dir.glob("*.jsonl") if p.stem not in known) if rd.traces_dir.is_dir() else []
    pjudge = ProcessJudge(process_judge) if process_judge is not None else None
    try:
        for ep in planned_episodes(cfg, eset.episodes, rd):
            fold = read_episode_fold(rd, ep.id)
            es = score_episode(ep, fold, labeller)
            if pjudge is not None and es.process is not None:
                es.process.judged = pjudge.judge_episode(fold)
            scored.append(es)
    except JudgeUnavailable as e:
        kept = "the matcher scores in scores.json are unchanged" if rd.scores_json.is_file() else "nothing was written"
        raise JudgeUnavailable(f"{e}; the judge pass stopped and {kept}") from None
    agent = str(_setting(cfg, "agent", "") or "")
    uses_gold = any(e.uses_gold for e in scored) or agent == "oracle"
    scores = RunScores(
        run_id=str(cfg.get("run_id") or rd.run_id), agent=agent,
        model=cfg.get("model"), uses_gold=uses_gold, note=gold_note(agent) if uses_gold else None,
        labeller=labeller.name if labeller else "matcher", scorer_version=SCORER_VERSION,
        search_engine=cfg.get("search_engine"),
        judge_errors=sum(1 for e in scored for t in e.turns if t.verdict.judge_error),
        easy=split_scores([e for e in scored if e.split == "easy"]),
        hard=split_scores([e for e in scored if e.split == "hard"]),
        all=split_scores(scored), buckets=bucket_counts(scored),
        truncated_episodes=[e.episode_id for e in scored if e.truncated],
        missing_episodes=[e.episode_id for e in scored if e.missing], unknown_traces=unknown,
        damaged_traces={e.episode_id: e.bad_lines for e in scored if e.bad_lines},
        episodes_path=str(eset.path), episodes_sha256=eset.sha256, episodes_mismatch=mismatch,
        ablation=AblationSettings(
            max_steps=_setting(cfg, "max_steps"), final_turn_tools=_setting(cfg, "final_turn_tools"),
            disable_tools=list(_setting(cfg, "disable_tools") or []),
        ),
        judged_process=summarize_judged(scored, pjudge.name) if pjudge is not None else None,
        scored_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    )
    if write:
        write_outputs(rd, scores, scored)
    return scores


def write_outputs(rd: RunDir, scores: RunScores, episodes: list[EpisodeScore]) -> None:
    from .plots import plot_run
    from .report import render_report

    atomic_write_text(rd.scores_json, scores.model_dump_json(indent=2))
    atomic_write_text(rd.path / "episode_scores.jsonl", "".join(e.model_dump_json() + "\n" for e in episodes))
    plots = plot_run(scores, episodes, rd.path / "plots")
    atomic_write_text(rd.report_md, render_report(scores, episodes, plots, rd.path))


def read_episode_scores(run_dir: Path) -> list[EpisodeScore]:
    """The per-episode scores written by score_run (for replay, viewer, agreement)."""
    p = Path(run_dir) / "episode_scores.jsonl"
    if not p.is_file():
        raise ScoringError(f"{p} does not exist; run `epi score {run_dir}` first")
    return [EpisodeScore.model_validate_json(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_run_scores(run_dir: Path) -> RunScores:
    p = RunDir(run_dir).scores_json
    if not p.is_file():
        raise ScoringError(f"{p} does not exist; run `epi score {run_dir}` first")
    try:
        return RunScores.model_validate_json(p.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ScoringError(f"{p} is not a scores file this version can read: {str(e)[:200]}") from None
