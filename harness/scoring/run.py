"""score_run: score one run directory from its files alone (run.json, traces, the episode file).

Never runs an agent or a tool, so any old run can be scored again with the current scorer
(`epi score RUN`); scores.json and report.md name the scorer version. Writes scores.json,
episode_scores.jsonl (one line per episode and epoch), plots/ and report.md. A run with several epochs
reduces each episode's epochs with a reducer (`epochs.py`): the one asked for, else the run's own
(`--reducer` of `epi run`), else the mean. A judge pass that fails (endpoint down) writes nothing:
the matcher scores already there stay as they were (and are written first if the run had none).
Errored episodes (a provider, data-access or pipeline error before any wrong turn) are counted apart and
left out of the numbers, unless `errors_as_failures` (`epi score --score-errors-as-failures`) counts them
as failed, the paper's convention; scores.json records which.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.episode import Episode
from harness.rundir import RunDir, atomic_write_text, safe_name
from harness.trace_fold import fold_trace
from sandbox.corpus.identity import CorpusIdentity

from .epochs import Reducer, ReducerError
from .judge import Judge, JudgeConfig, JudgeUnavailable
from .metrics import bucket_counts, counted, score_episode, split_scores
from .model import SCORER_VERSION, gold_note, AblationSettings, EpisodeScore, RunScores, Uncertainty
from .process_judge import ProcessJudge, summarize_judged
from .uncertainty import pass_at_k_table
from harness.reports import summarize_reports

if TYPE_CHECKING:
    from harness.plot_worker import PlotWorker

    from .prescore import Prescored


class ScoringError(Exception):
    """A run that cannot be scored as asked: the message names the file and what is wrong."""


def _setting(cfg: dict[str, Any], key: str, default: Any = None) -> Any:
    if key in cfg:
        return cfg[key]
    return (cfg.get("settings") or {}).get(key, default)


def _images(cfg: dict[str, Any]) -> bool:
    """Whether the run sent images to the model: `agent_config.images` (before issue 27: `agent_config.extra.images`)."""
    ac = _setting(cfg, "agent_config") or {}
    return bool(ac.get("images", (ac.get("extra") or {}).get("images", True)))


def load_run_config(rd: RunDir) -> dict[str, Any]:
    if not rd.path.is_dir():
        raise ScoringError(f"{rd.path} does not exist")
    if not rd.exists():
        raise ScoringError(f"{rd.path} is not a run directory: no run.json in it")
    try:
        return rd.load_config()
    except ValueError as e:
        raise ScoringError(f"{rd.run_json} is not valid JSON: {e}") from None


def resolve_episodes(rd: RunDir, cfg: dict[str, Any], override: Path | None, allow_mismatch: bool,
                     loaded: Any = None) -> tuple[Any, bool]:
    """Load the run's episode file (or the override); refuse one whose hash differs unless allowed. `loaded` is
    the episode set the run itself loaded (the runner's): taken when it is the one run.json names, by hash."""
    from harness.episodes_io import EpisodeFileError, load_episodes

    raw = override or _setting(cfg, "episodes_path") or _setting(cfg, "episodes")
    if loaded is not None and override is None and raw and cfg.get("episodes_sha256") == getattr(loaded, "sha256", None):
        return loaded.model_copy(update={"path": Path(raw)}), False  # the path as run.json names it, as if read again
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
    traced = traced_names(rd)
    extra = [e for e in episodes if e.id not in have and safe_name(e.id) in traced]
    return chosen + extra


def traced_names(rd: RunDir) -> set[str]:
    """File-safe names of the episodes with a trace in any epoch."""
    return {p.stem for k in rd.epochs() for p in rd.epoch_dir(k).glob("*.jsonl")}


def run_epochs(cfg: dict[str, Any], rd: RunDir) -> int:
    """Epochs to score: what run.json asked for (1 for runs made before epochs); an epoch whose trace is
    missing is scored as a missing trace, like any other."""
    asked = cfg.get("epochs") or _setting(cfg, "epochs") or 1
    if not isinstance(asked, int) or asked < 1:
        raise ScoringError(f"{rd.run_json}: epochs is {asked!r}, not a whole number of 1 or more")
    return asked


def run_reducer(cfg: dict[str, Any], reducer: str | Reducer | None, epochs: int, where: str) -> Reducer:
    """The reducer asked for, else the one the run was made with (`epi run --reducer`), else the mean."""
    try:
        r = reducer if isinstance(reducer, Reducer) else Reducer.parse(reducer or _setting(cfg, "reducer"))
        r.check(epochs, where)
    except ReducerError as e:
        raise ScoringError(str(e)) from None
    return r


def _corpus(cfg: dict[str, Any]) -> CorpusIdentity | None:
    """The corpus run.json records (runs made before it was recorded, or over the live web, have none)."""
    try:
        return CorpusIdentity.model_validate(cfg["corpus"]) if cfg.get("corpus") else None
    except ValueError:
        return None


@dataclass(frozen=True)
class ErroredJob:
    """An (episode, epoch) whose trace ended in an outage before any wrong turn, or that has no whole trace."""

    episode_id: str
    epoch: int
    bucket: str
    why: str
    has_trace: bool


def errored_jobs(run_dir: Path, episodes: list[Episode], epochs: int) -> list[ErroredJob]:
    """What `epi retry` runs again: every (episode, epoch) of `episodes` that scoring would count as errored:
    its first error a provider, data_access or pipeline error with no wrong turn before it, or no finished
    trace at all (never run, lost, cut off). Read-only; the matcher labels the turns."""
    rd = RunDir(run_dir)
    out = []
    for k in range(1, epochs + 1):
        done = rd.completed_episodes(k)
        for ep in episodes:
            if ep.id not in done:
                out.append(ErroredJob(ep.id, k, "pipeline", "no finished trace", False))
                continue
            es = score_episode(ep, fold_trace(rd.read_trace(ep.id, epoch=k)), epoch=k)
            if es.errored:
                out.append(ErroredJob(ep.id, k, es.bucket or "pipeline", es.failure.why if es.failure else "", True))
    return out


def _agent_origin(cfg: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """Where the run's agent came from (run.json), and a line naming it; an `epi retry` that ran the user's own code
    makes the run in-process too, whatever the first agent was."""
    found = [cfg.get("agent_origin")] + [r.get("agent_origin") for r in cfg.get("retries") or [] if isinstance(r, dict)]
    origins = [o for o in found if isinstance(o, dict) and o.get("kind")]
    if not origins:
        return {}, None
    origin = next((o for o in origins if o["kind"] != "built-in"), origins[0])
    source = str(origin.get("source") or "") or None
    if source and origin.get("sha256"):
        source += f" (sha256 {str(origin['sha256'])[:12]})"
    if source and origin is not origins[0]:
        source += " (by `epi retry`)"
    return origin, source


def _sum_checks(scored: list[EpisodeScore]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in scored:
        for k, n in e.agent_checks.items():
            out[k] = out.get(k, 0) + n
    return out


def _label(episode_id: str, epoch: int) -> str:
    return episode_id if epoch == 1 else f"{episode_id} (epoch {epoch})"


def score_run(
    run_dir: Path, *, episodes_path: Path | None = None, judge: JudgeConfig | None = None,
    allow_mismatch: bool = False, write: bool = True, process_judge: JudgeConfig | None = None,
    reducer: str | Reducer | None = None, proportions: str = "wilson", report_judge: JudgeConfig | None = None,
    report_parts: tuple[str, ...] | None = None, errors_as_failures: bool = False, plotter: PlotWorker | None = None,
    prescored: Prescored | None = None, episode_set: Any = None,
) -> RunScores:
    """Score a run from its files; write scores.json, episode_scores.jsonl, plots/ and report.md.
    `process_judge` also has an LLM judge score each episode's process (MiroEval dimensions).
    `reducer` (mean, majority, pass@K, pass^K) reduces the epochs of repeated runs; `proportions` is the
    interval of ESR, Acc_final and Acc_pre (wilson or clopper-pearson). `report_judge` also has an LLM judge read
    each report (`report_parts`: extract, quality, persona, support; default all), beside the rules' numbers.
    `errors_as_failures` counts errored episodes as failed instead of leaving them out. With a `plotter` (a run's
    plot worker, harness/plot_worker.py), the plots are drawn by it after this returns. `prescored` holds
    episode scores the runner computed as each episode finished (used while its trace is unchanged) and
    `episode_set` the episode set it loaded (used when run.json names it): a run's scoring then starts warm."""
    rd = RunDir(run_dir)
    if (judge is not None or process_judge is not None or report_judge is not None) and write and not rd.scores_json.is_file():
        score_run(run_dir, episodes_path=episodes_path, allow_mismatch=allow_mismatch, reducer=reducer,
                  proportions=proportions, errors_as_failures=errors_as_failures)  # matcher scores first
    cfg = load_run_config(rd)
    eset, mismatch = resolve_episodes(rd, cfg, episodes_path, allow_mismatch, episode_set)
    if judge is not None and judge.log_path is None and write:  # the judge's own log, beside the scores
        judge = judge.model_copy(update={"log_path": rd.path / "judge_log.jsonl"})
    if process_judge is not None and process_judge.log_path is None and write:  # its log too, beside the scores
        process_judge = process_judge.model_copy(update={"log_path": rd.path / "process_judge_log.jsonl"})
    if report_judge is not None and report_judge.log_path is None and write:  # and the report judge's
        report_judge = report_judge.model_copy(update={"log_path": rd.path / "report_judge_log.jsonl"})
    rjudge = _report_judge(report_judge, report_parts, rd)
    epochs = run_epochs(cfg, rd)
    red = run_reducer(cfg, reducer, epochs, f"run {rd.run_id!r}")
    labeller = Judge(judge) if judge is not None else None
    scored: list[EpisodeScore] = []
    known = {safe_name(e.id) for e in eset.episodes}
    unknown = sorted(traced_names(rd) - known)
    pjudge = ProcessJudge(process_judge) if process_judge is not None else None
    planned = planned_episodes(cfg, eset.episodes, rd)
    try:
        for k in range(1, epochs + 1):
            for ep in planned:
                warm = prescored is not None and labeller is None and pjudge is None and rjudge is None
                es = prescored.get(rd, ep, k) if warm and prescored is not None else None
                if es is None:
                    fold = fold_trace(rd.read_trace(ep.id, epoch=k, include_partial=True))
                    es = score_episode(ep, fold, labeller, epoch=k)
                    if pjudge is not None and es.process is not None:
                        es.process.judged = pjudge.judge_episode(fold)
                    if rjudge is not None and ep.report is not None:
                        es.report = rjudge(ep.report, fold, len(ep.turns) + 1)
                scored.append(es)
    except JudgeUnavailable as e:
        kept = "the matcher scores in scores.json are unchanged" if rd.scores_json.is_file() else "nothing was written"
        raise JudgeUnavailable(f"{e}; the judge pass stopped and {kept}") from None
    agent = str(_setting(cfg, "agent", "") or "")
    # an agent program the bridge could not sandbox, or one that took episode after episode, is named so in every
    # episode (bridge-unconfined, bridge-long-lived, bridge-unconfined-long-lived): the run's name says it too
    agent = next((e.agent for e in scored if agent and e.agent.startswith(agent + "-")), agent)
    uses_gold = any(e.uses_gold for e in scored) or agent == "oracle"
    eaf = errors_as_failures
    origin, source = _agent_origin(cfg)
    scores = RunScores(
        run_id=str(cfg.get("run_id") or rd.run_id), agent=agent,
        agent_origin=str(origin["kind"]) if origin.get("kind") else None, agent_source=source,
        model=cfg.get("model"), uses_gold=uses_gold, note=gold_note(agent) if uses_gold else None,
        labeller=labeller.name if labeller else "matcher", scorer_version=SCORER_VERSION,
        search_engine=cfg.get("search_engine"), corpus=_corpus(cfg),
        judge_errors=sum(1 for e in scored for t in e.turns if t.verdict.judge_error),
        easy=split_scores([e for e in scored if e.split == "easy"], red, proportions, eaf),
        hard=split_scores([e for e in scored if e.split == "hard"], red, proportions, eaf),
        all=split_scores(scored, red, proportions, eaf), buckets=bucket_counts(scored),
        errors_as_failures=eaf, errored_episodes=[_label(e.episode_id, e.epoch) for e in scored if e.errored],
        truncated_episodes=[_label(e.episode_id, e.epoch) for e in scored if e.truncated],
        missing_episodes=[_label(e.episode_id, e.epoch) for e in scored if e.missing], unknown_traces=unknown,
        agent_checks=_sum_checks(scored), flagged_episodes=[_label(e.episode_id, e.epoch) for e in scored if e.agent_checks],
        damaged_traces={_label(e.episode_id, e.epoch): e.bad_lines for e in scored if e.bad_lines},
        episodes_path=str(eset.path), episodes_sha256=eset.sha256, episodes_mismatch=mismatch,
        ablation=AblationSettings(
            max_steps=_setting(cfg, "max_steps"), final_turn_tools=_setting(cfg, "final_turn_tools"),
            disable_tools=list(_setting(cfg, "disable_tools") or []), images=_images(cfg),
        ),
        judged_process=summarize_judged(scored, pjudge.name) if pjudge is not None else None,
        scored_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        epochs=epochs, reducer=red.name, uncertainty=Uncertainty(proportions=proportions, evidence=f"{proportions}-effective-units"),
        pass_k=pass_at_k_table(counted(scored, eaf), proportions),
        report=summarize_reports([(e.episode_id, e.report) for e in counted(scored, eaf) if e.report is not None]),
    )
    if write:
        write_outputs(rd, scores, scored, plotter)
    return scores


def _report_judge(config: JudgeConfig | None, parts: tuple[str, ...] | None, rd: RunDir):  # noqa: ANN202
    """A function scoring one report turn with the judge (None without a judge): the rules' metrics with judged
    extraction, then the judged numbers, each with the judge's calibration from the results folder's registry."""
    if config is None:
        return None
    from harness.reports import score_report
    from harness.reports._calibration import find_calibration
    from harness.reports._judged import PARTS, VERSIONS, judge_report

    parts = tuple(parts or PARTS)
    bad = [p for p in parts if p not in PARTS]
    if bad:
        raise ScoringError(f"report judge parts {bad} unknown; choose from {', '.join(PARTS)}")
    judge = Judge(config)
    calibration = find_calibration(rd.path.parent, judge.name, VERSIONS["support"])

    def score(turn, fold, number):  # noqa: ANN001, ANN202
        rep = score_report(turn, fold, number, judge=judge if "extract" in parts else None)
        judge_report(judge, turn, fold, number, rep, parts, calibration)
        return rep
    return score


def reduce_again(scores: RunScores, episodes: list[EpisodeScore], reducer: Reducer) -> RunScores:
    """The same run's numbers with another reducer of epochs, from its episode scores (labels kept: a judge's
    verdicts are not asked again). Refuses a pass@k / pass^k that needs more epochs than the run has."""
    try:
        reducer.check(scores.epochs, f"run {scores.run_id!r}")
    except ReducerError as e:
        raise ScoringError(str(e)) from None
    prop, eaf = scores.uncertainty.proportions, scores.errors_as_failures
    return scores.model_copy(update={
        "easy": split_scores([e for e in episodes if e.split == "easy"], reducer, prop, eaf),
        "hard": split_scores([e for e in episodes if e.split == "hard"], reducer, prop, eaf),
        "all": split_scores(episodes, reducer, prop, eaf), "reducer": reducer.name,
    })


def write_outputs(rd: RunDir, scores: RunScores, episodes: list[EpisodeScore], plotter: PlotWorker | None = None) -> None:
    """scores.json, episode_scores.jsonl, report.md and the plots; with a plotter, the plots are handed to it
    (drawn from the two score files, after this returns), else drawn here."""
    from .report import render_report
    from .run_plots import planned_plots

    atomic_write_text(rd.scores_json, scores.model_dump_json(indent=2))
    atomic_write_text(rd.path / "episode_scores.jsonl", "".join(e.model_dump_json() + "\n" for e in episodes))
    plots_dir = rd.path / "plots"
    plots = planned_plots(scores, episodes, plots_dir)
    if plotter is None or not plots or not plotter.submit(plots_dir):
        from .plots import plot_run

        plots = plot_run(scores, episodes, plots_dir)
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
