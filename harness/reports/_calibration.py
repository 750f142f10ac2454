"""How far a report judge can be trusted (issue 32 item 3): its support verdicts against the deterministic ones on
the sandbox, as Cohen's kappa with a bootstrap interval over episodes, and the registry that lets every later judged
number name that measurement.

The registry is `judge_calibration.json` in the results folder (beside the run folders): one entry per judge model
and support prompt version, the latest measurement (`epi agreement RUN --on support` writes it). It is a record of
a measurement, not a cache: `epi score` reads it, never writes it. A judge or prompt with no entry is "not calibrated".
"""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Iterable

from pydantic import ValidationError

from harness.rundir import atomic_write_text

from ._judged_model import Calibration, SupportAgreement, SupportJudgement

REGISTRY = "judge_calibration.json"


def _key(judge: str, prompt_version: str) -> str:
    return f"{judge} | {prompt_version}"


def support_agreement(per_episode: dict[str, list[SupportJudgement]], judge: str, prompt_version: str) -> SupportAgreement:
    """Agreement of judged and deterministic support over the pairs both labelled, overall and per unit kind."""
    from harness.scoring.agreement import cohen_kappa, kappa_interval

    def fill(out: SupportAgreement, groups: Iterable[list[SupportJudgement]]) -> SupportAgreement:
        clusters: list[tuple[int, int, int, int]] = []
        a: list[bool] = []
        b: list[bool] = []
        for js in groups:
            c = [0, 0, 0, 0]
            for j in js:
                if j.rules is None:
                    continue
                if j.judged is None:
                    out.no_verdict += j.why is not None and j.why.startswith("judge error")
                    continue
                c[(0 if j.rules else 2) + (0 if j.judged else 1)] += 1
                a.append(j.rules)
                b.append(j.judged)
            if sum(c):
                clusters.append((c[0], c[1], c[2], c[3]))
                out.episodes += 1
        out.both, out.rules_only, out.judge_only, out.neither = (sum(x[i] for x in clusters) for i in range(4))
        out.n = len(a)
        if a:
            out.agreement, out.p_e, out.kappa = cohen_kappa(a, b)
            out.interval = kappa_interval(clusters)
        return out

    total = fill(SupportAgreement(judge=judge, prompt_version=prompt_version), per_episode.values())
    kinds = sorted({j.kind for js in per_episode.values() for j in js})
    for k in kinds:
        one = fill(SupportAgreement(judge=judge, prompt_version=prompt_version),
                   ([j for j in js if j.kind == k] for js in per_episode.values()))
        if one.n or one.no_verdict:
            total.by_unit[k] = one
    return total


def read_registry(results: Path) -> dict[str, Calibration]:
    path = Path(results) / REGISTRY
    if not path.is_file():
        return {}
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, Calibration] = {}
    for k, v in (raw.items() if isinstance(raw, dict) else []):
        try:
            out[k] = Calibration.model_validate(v)
        except ValidationError:
            continue  # an entry this version cannot read is no calibration
    return out


def find_calibration(results: Path, judge: str, prompt_version: str) -> Calibration | None:
    return read_registry(results).get(_key(judge, prompt_version))


def record_calibration(results: Path, agreement: SupportAgreement, run_id: str) -> Calibration:
    """Write this measurement as the judge's calibration (the latest one wins)."""
    iv = agreement.interval
    cal = Calibration(judge=agreement.judge, prompt_version=agreement.prompt_version, run_id=run_id,
                      measured_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), n=agreement.n,
                      agreement=agreement.agreement, kappa=agreement.kappa,
                      low=iv.low if iv is not None else None, high=iv.high if iv is not None else None)
    reg = read_registry(results)
    reg[_key(cal.judge, cal.prompt_version)] = cal
    atomic_write_text(Path(results) / REGISTRY, json.dumps({k: v.model_dump() for k, v in sorted(reg.items())}, indent=2))
    return cal
