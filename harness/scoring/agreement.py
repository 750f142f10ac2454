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
