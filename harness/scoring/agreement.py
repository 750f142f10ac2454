"""Agreement between two labellers (matcher, judge, human file): agreement rate and Cohen's kappa.

kappa = (p_o - p_e) / (1 - p_e), with p_e from each labeller's own rate of "correct" (EpiBench app. 0.B).
When p_e == 1 (both labellers constant and equal) kappa is 1.0 if p_o == 1, else 0. Only labels a
labeller actually gave count: the matcher and a judge label turns that have an answer (a turn never
reached or left without an answer is wrong by rule, nobody judged it), a judge error is no label, a
human file labels what it lists. Turn level compares the (episode, turn) pairs both labelled; episode
level labels an episode correct iff all its turns are, using only episodes whose every turn both labelled.
"""
from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ValidationError

from harness.rundir import RunDir

from .facts import read_episode_fold
from .interval import DEFAULT_SEED, Interval
from .judge import Judge, JudgeConfig
from .metrics import score_turns
from .run import ScoringError, load_run_config, planned_episodes, resolve_episodes

TurnLabels = dict[tuple[str, int], bool]


class Agreement(BaseModel):
    level: str
    n: int
    agreement: float | None
    p_e: float | None
    kappa: float | None


class AgreementReport(BaseModel):
    a: str
    b: str
    turn: Agreement
    episode: Agreement


def cohen_kappa(a: list[bool], b: list[bool]) -> tuple[float, float, float]:
    """(p_o, p_e, kappa) for two equally long binary label lists."""
    if len(a) != len(b) or not a:
        raise ValueError("cohen_kappa needs two non-empty label lists of the same length")
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    p_e = pa * pb + (1 - pa) * (1 - pb)
    if p_e >= 1.0:
        return p_o, p_e, 1.0 if p_o == 1.0 else 0.0
    return p_o, p_e, (p_o - p_e) / (1 - p_e)


def kappa_interval(clusters: list[tuple[int, int, int, int]], *, confidence: float = 0.95, resamples: int = 2000,
                   seed: int = DEFAULT_SEED) -> Interval | None:
    """Cohen's kappa of pooled 2x2 counts (both yes, a only, b only, both no) with a percentile bootstrap interval
    that resamples clusters (episodes), since labels of one episode are not independent. None without labels."""
    import numpy as np

    counts = np.array([c for c in clusters if sum(c) > 0], dtype=float).reshape(-1, 4)
    if counts.shape[0] == 0:
        return None

    def kappa(t: np.ndarray) -> np.ndarray:
        n = t.sum(axis=-1)
        p_o = (t[..., 0] + t[..., 3]) / n
        pa, pb = (t[..., 0] + t[..., 1]) / n, (t[..., 0] + t[..., 2]) / n
        p_e = pa * pb + (1 - pa) * (1 - pb)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(p_e >= 1.0, np.where(p_o >= 1.0, 1.0, 0.0), (p_o - p_e) / np.where(p_e >= 1.0, 1.0, 1 - p_e))

    point = float(kappa(counts.sum(axis=0)))
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, counts.shape[0], size=(resamples, counts.shape[0]))
    reps = kappa(counts[picks].sum(axis=1))
    q = (1.0 - confidence) / 2
    low, high = np.quantile(reps, [q, 1 - q])
    return Interval(estimate=point, low=float(low), high=float(high), confidence=confidence, method="bootstrap-percentile",
                    n=float(counts.shape[0]))


def _agreement(level: str, a: list[bool], b: list[bool]) -> Agreement:
    if not a:
        return Agreement(level=level, n=0, agreement=None, p_e=None, kappa=None)
    p_o, p_e, k = cohen_kappa(a, b)
    return Agreement(level=level, n=len(a), agreement=p_o, p_e=p_e, kappa=k)


def compare_labels(a: TurnLabels, b: TurnLabels, n_turns: dict[str, int], names: tuple[str, str]) -> AgreementReport:
    """Turn- and episode-level agreement of two label sets over what both labelled."""
    keys = sorted(set(a) & set(b))
    turn = _agreement("turn", [a[k] for k in keys], [b[k] for k in keys])
    ea: list[bool] = []
    eb: list[bool] = []
    for ep, n in sorted(n_turns.items()):
        ks = [(ep, t) for t in range(1, n + 1)]
        if all(k in a and k in b for k in ks):
            ea.append(all(a[k] for k in ks))
            eb.append(all(b[k] for k in ks))
    return AgreementReport(a=names[0], b=names[1], turn=turn, episode=_agreement("episode", ea, eb))


def read_human_labels(path: Path) -> TurnLabels:
    """JSONL lines {"episode_id": str, "turn": int (1-based), "correct": bool}."""
    class _Line(BaseModel):
        episode_id: str
        turn: int
        correct: bool

    if not path.is_file():
        raise ScoringError(f"human label file {path} does not exist")
    out: TurnLabels = {}
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = _Line.model_validate(json.loads(line))
        except (ValueError, ValidationError) as e:
            msg = str(e).splitlines()[0] if not isinstance(e, ValidationError) else "; ".join(
                f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
            raise ScoringError(f"{path}:{i}: needs {{episode_id, turn, correct}}: {msg}") from None
        out[(rec.episode_id, rec.turn)] = rec.correct
    return out


def parse_labeller(spec: str) -> tuple[str, JudgeConfig | Path | None]:
    """`matcher`, `judge:<model>@<base_url>` or `human:<file.jsonl>` -> (kind, config)."""
    if spec == "matcher":
        return "matcher", None
    if spec.startswith("judge:"):
        model, sep, url = spec[len("judge:"):].partition("@")
        if not sep or not model or not url:
            raise ScoringError(f"labeller {spec!r}: write a judge as judge:<model>@<base_url>")
        return "judge", JudgeConfig(model=model, base_url=url)
    if spec.startswith("human:") and spec[len("human:"):]:
        return "human", Path(spec[len("human:"):])
    raise ScoringError(f"unknown labeller {spec!r}; use matcher, judge:<model>@<base_url> or human:<file.jsonl>")


def run_labels(run_dir: Path, spec: str, *, episodes_path: Path | None = None, allow_mismatch: bool = False,
               judge_cache: Path | None = None) -> tuple[TurnLabels, dict[str, int]]:
    """Every turn's label by one labeller for a run (from files only), and each episode's turn count."""
    rd = RunDir(run_dir)
    cfg = load_run_config(rd)
    eset, _ = resolve_episodes(rd, cfg, episodes_path, allow_mismatch)
    episodes = planned_episodes(cfg, eset.episodes, rd)
    n_turns = {e.id: len(e.turns) for e in episodes}
    kind, conf = parse_labeller(spec)
    if kind == "human":
        assert isinstance(conf, Path)
        return read_human_labels(conf), n_turns
    if isinstance(conf, JudgeConfig) and judge_cache is not None:
        conf = conf.model_copy(update={"cache_dir": judge_cache})
    judge = Judge(conf) if isinstance(conf, JudgeConfig) else None
    out: TurnLabels = {}
    for ep in episodes:
        for ts in score_turns(ep, read_episode_fold(rd, ep.id), judge):
            if ts.answer is None or not ts.answer.strip() or ts.verdict.judge_error:
                continue  # nobody judged this turn
            out[(ep.id, ts.turn)] = ts.verdict.correct
    return out, n_turns


def run_agreement(run_dir: Path, a: str, b: str, **kw) -> AgreementReport:
    la, n_turns = run_labels(run_dir, a, **kw)
    lb, _ = run_labels(run_dir, b, **kw)
    return compare_labels(la, lb, n_turns, (a, b))


def run_support_agreement(run_dir: Path, a: str, b: str, *, episodes_path: Path | None = None,
                          allow_mismatch: bool = False, judge_cache: Path | None = None, record: bool = True):  # noqa: ANN201
    """How a report judge's support verdicts agree with the deterministic ones on a sandbox run (issue 32): every
    (claim, cited unit) pair of every report whose unit the agent read, judged against the text the agent saw,
    set beside the unit facts' verdict. Writes support_agreement.json into the run folder and, unless `record` is
    False, the judge's calibration into the results folder's registry (judge_calibration.json)."""
    from harness.reports import FactBook, score_report
    from harness.reports._calibration import record_calibration, support_agreement
    from harness.reports._support import PROMPT_VERSION, SupportJudge, source_texts
    from harness.rundir import atomic_write_text

    kinds = {parse_labeller(x)[0] if x not in ("rules", "matcher") else "rules" for x in (a, b)}
    if kinds != {"rules", "judge"}:
        raise ScoringError("support agreement compares the rules with a judge: pass --a rules --b judge:<model>@<base_url>")
    conf = next(parse_labeller(x)[1] for x in (a, b) if x.startswith("judge:"))
    assert isinstance(conf, JudgeConfig)
    rd = RunDir(run_dir)
    conf = conf.model_copy(update={"log_path": rd.path / "report_judge_log.jsonl",
                                   **({"cache_dir": judge_cache} if judge_cache is not None else {})})
    cfg = load_run_config(rd)
    eset, _ = resolve_episodes(rd, cfg, episodes_path, allow_mismatch)
    episodes = [e for e in planned_episodes(cfg, eset.episodes, rd) if e.report is not None]
    if not episodes:
        raise ScoringError(f"run {rd.run_id!r} has no report episodes: support agreement needs reports with unit facts")
    checker = SupportJudge(Judge(conf))
    per_episode = {}
    for ep in episodes:
        assert ep.report is not None
        if not ep.report.facts:
            continue  # a live-world report: no deterministic verdict to agree with
        n = len(ep.turns) + 1
        fold = read_episode_fold(rd, ep.id)
        score = score_report(ep.report, fold, n)
        per_episode[ep.id] = checker.judge_report(score, source_texts(fold, n), FactBook(ep.report.facts, ep.report.papers))
    rep = support_agreement(per_episode, checker.judge.name, PROMPT_VERSION)
    atomic_write_text(rd.path / "support_agreement.json", rep.model_dump_json(indent=2))
    if record and rep.n > 0:
        record_calibration(rd.path.parent, rep, rd.run_id)
    return rep
