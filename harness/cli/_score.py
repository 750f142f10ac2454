"""`epi score RUN`, `epi compare RUN...` and `epi agreement RUN --a L --b L`: numbers from files only."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from ._apps import UserError, app


def _wide_console() -> Console:
    """A console wide enough for the paper-style tables even when output is piped."""
    c = Console()
    return c if c.is_terminal and c.width >= 140 else Console(width=160)


def _user_errors(fn):  # noqa: ANN001, ANN202
    """Turn scoring's own errors (bad run dir, episode mismatch, judge down, runs that cannot be paired, an
    unknown reducer) into UserError (exit 2)."""
    from ..scoring.epochs import ReducerError
    from ..scoring.judge import JudgeUnavailable
    from ..scoring.paired import PairingError
    from ..scoring.run import ScoringError

    def wrapped(*a, **kw):  # noqa: ANN002, ANN003, ANN202
        try:
            return fn(*a, **kw)
        except (ScoringError, JudgeUnavailable, PairingError, ReducerError) as e:
            raise UserError(str(e)) from None
    return wrapped


REDUCER_HELP = ("how an episode's epochs reduce for ESR, Acc_final, Acc_pre: mean (share of epochs right), majority, "
                "pass@K (at least one of K right) or pass^K (all K right, tau-bench); default: the run's own, else mean")
INTERVAL_HELP = "interval of ESR, Acc_final, Acc_pre: wilson (default) or clopper-pearson (exact, wider)"


@app.command("score")
def score_cmd(
    run: Path = typer.Argument(..., help="run directory, e.g. results/<run_id>"),
    episodes: Optional[Path] = typer.Option(None, "--episodes", "-e", help="episode file (default: the one named in run.json)"),
    judge: Optional[str] = typer.Option(None, "--judge", help="label answers with this judge model instead of the matcher"),
    judge_base_url: Optional[str] = typer.Option(None, "--judge-base-url", help="OpenAI-compatible base URL of the judge"),
    judge_key_env: str = typer.Option("OPENAI_API_KEY", "--judge-key-env", help="environment variable with the judge's API key"),
    allow_mismatch: bool = typer.Option(False, "--allow-mismatch", help="score even if the episode file's hash differs from the run's"),
    as_json: bool = typer.Option(False, "--json", help="print scores.json instead of tables"),
    process_judge: Optional[str] = typer.Option(None, "--process-judge", help="also score each episode's process 1-10 (MiroEval dimensions) with this judge model"),
    process_judge_base_url: Optional[str] = typer.Option(None, "--process-judge-base-url", help="OpenAI-compatible base URL of the process judge"),
    reducer: Optional[str] = typer.Option(None, "--reducer", help=REDUCER_HELP),
    interval: str = typer.Option("wilson", "--interval", help=INTERVAL_HELP),
    errors_as_failures: bool = typer.Option(
        False, "--score-errors-as-failures",
        help="count errored episodes (a provider, data-access or pipeline error before any wrong turn) as failed, the "
             "paper's convention; by default they are left out of the scores and counted apart (recorded in scores.json)"),
    report_judge: Optional[str] = typer.Option(None, "--report-judge", help="also have this judge model read each report: "
                                               "claims the rules cannot parse, FLAE quality, PDR personalization, support "
                                               "by the cited source's text (each with the judge's calibration)"),
    report_judge_base_url: Optional[str] = typer.Option(None, "--report-judge-base-url",
                                                        help="OpenAI-compatible base URL of the report judge"),
    report_judge_parts: str = typer.Option("extract,quality,persona,support", "--report-judge-parts",
                                           help="comma-separated: extract, quality, persona, support"),
) -> None:
    """Score a run from its traces (never runs an agent or a tool); writes scores.json, episode_scores.jsonl, report.md.
    Every number has its 95% interval; a run with several epochs reduces them per episode (--reducer)."""
    from ..runlock import RunLocked, check_free
    from ..scoring import JudgeConfig, score_run
    from ..scoring.report import print_scores

    if (judge is None) != (judge_base_url is None):
        raise UserError("--judge and --judge-base-url go together: give both or neither")
    if (process_judge is None) != (process_judge_base_url is None):
        raise UserError("--process-judge and --process-judge-base-url go together: give both or neither")
    if (report_judge is None) != (report_judge_base_url is None):
        raise UserError("--report-judge and --report-judge-base-url go together: give both or neither")
    parts = tuple(p.strip() for p in report_judge_parts.split(",") if p.strip())
    unknown = [p for p in parts if p not in ("extract", "quality", "persona", "support")]
    if unknown or not parts:
        raise UserError(f"--report-judge-parts: {', '.join(unknown) or '(empty)'} not among extract, quality, persona, support")
    if interval not in ("wilson", "clopper-pearson"):
        raise UserError(f"--interval: {interval!r} is not wilson or clopper-pearson")
    cfg = JudgeConfig(model=judge, base_url=judge_base_url, api_key_env=judge_key_env) if judge and judge_base_url else None
    pcfg = (JudgeConfig(model=process_judge, base_url=process_judge_base_url, api_key_env=judge_key_env)
            if process_judge and process_judge_base_url else None)
    if run.is_dir():
        try:  # the run's owner scores it when it ends: a second writer of scores.json now would be overwritten
            check_free(run)
        except RunLocked as e:
            raise UserError(f"{e} (it is scored when it ends)") from None
    rcfg = (JudgeConfig(model=report_judge, base_url=report_judge_base_url, api_key_env=judge_key_env)
            if report_judge and report_judge_base_url else None)
    scores = _user_errors(score_run)(run, episodes_path=episodes, judge=cfg, allow_mismatch=allow_mismatch,
                                     process_judge=pcfg, reducer=reducer, proportions=interval, report_judge=rcfg,
                                     report_parts=parts, errors_as_failures=errors_as_failures)
    if as_json:
        print(scores.model_dump_json(indent=2))
    else:
        print_scores(run, _wide_console(), retry=f"epi retry {run}")


@app.command("compare")
def compare_cmd(
    runs: list[Path] = typer.Argument(..., help="run directories to put side by side"),
    out: Optional[Path] = typer.Option(None, "--out", help="write comparison.md and plots/ into this folder"),
    as_json: bool = typer.Option(False, "--json", help="print every run's scores and the paired comparisons as JSON"),
    baseline: Optional[Path] = typer.Option(None, "--baseline", help="pair every run against this one (default: the first run)"),
    reducer: Optional[str] = typer.Option(None, "--reducer", help=REDUCER_HELP.replace("the run's own", "the baseline's")),
    no_pair: bool = typer.Option(False, "--no-pair", help="the leaderboard only: no paired tests (runs over different episode files)"),
) -> None:
    """One leaderboard laid out like EpiBench Tables 2 and 3, with 95% intervals, and every run paired against the
    baseline over the same episodes: the difference with its interval, McNemar on episode success, a paired
    bootstrap on the rest, and the minimal detectable difference (runs not scored yet are scored first)."""
    from ..scoring import compare_runs, write_comparison
    from ..scoring.compare import (
        check_same_episodes, comparison_warnings, leaderboard_table, paired_comparisons, process_table,
        report_leaderboard,
    )
    from ..scoring.paired import PairingError
    from ..scoring.paired_report import paired_table

    runs, base = _with_baseline(runs, baseline)
    scores = _user_errors(compare_runs)(runs, reducer, base)
    pair = len(runs) > 1 and not no_pair
    if pair:
        try:  # refuse before anything is written
            check_same_episodes(scores, base)
        except PairingError as e:
            raise UserError(f"{e}. Compare runs of one episode file, or pass --no-pair for the leaderboard "
                            "without paired tests") from None
    path = _user_errors(write_comparison)(runs, out, reducer=reducer, baseline=base) if out is not None else None
    comparisons = _user_errors(paired_comparisons)(runs, scores, base)[0] if pair else []
    if as_json:
        payload = {"runs": [json.loads(s.model_dump_json()) for s in scores], "comparison": str(path) if path else None,
                   "baseline": scores[base].run_id if pair else None, "warnings": comparison_warnings(scores),
                   "paired": [json.loads(c.model_dump_json()) for c in comparisons]}
        print(json.dumps(payload, indent=2))
        return
    console = _wide_console()
    for w in comparison_warnings(scores):
        console.print(f"[bold yellow]warning:[/] {escape(w)}", highlight=False)
    console.print(leaderboard_table(scores))
    console.print(process_table(scores))
    if (reports := report_leaderboard(scores)) is not None:
        console.print(reports)
    if any(s.uses_gold for s in scores):
        console.print(f"[bold yellow]{next(s.note for s in scores if s.uses_gold)}[/]")
    if comparisons:
        how = "the first run" if baseline is None else "--baseline"
        if len(comparisons) > 1:
            console.print(f"\nPaired comparisons: each run against the baseline {scores[base].run_id} ({how}).")
        for c in comparisons:
            console.print()
            console.print(paired_table(c))
            console.print(c.verdict + ".", highlight=False, markup=False)
            for r in c.rows[1:]:  # ESR's note is in the verdict
                if r.note:
                    console.print(f"{r.metric}: {r.note}.", highlight=False, markup=False)
    if path:
        console.print(f"comparison: {path}")


def _with_baseline(runs: list[Path], baseline: Optional[Path]) -> tuple[list[Path], int]:
    """The runs and the index of the baseline: the first run, or --baseline (added in front if not listed)."""
    if baseline is None:
        return runs, 0
    for i, r in enumerate(runs):
        if r.resolve() == baseline.resolve():
            return runs, i
    return [baseline, *runs], 0


@app.command("agreement")
def agreement_cmd(
    run: Path = typer.Argument(..., help="run directory"),
    a: str = typer.Option(..., "--a", help="labeller: matcher, judge:<model>@<base_url> or human:<file.jsonl>"),
    b: str = typer.Option(..., "--b", help="the other labeller, same forms"),
    episodes: Optional[Path] = typer.Option(None, "--episodes", "-e", help="episode file (default: the one in run.json)"),
    allow_mismatch: bool = typer.Option(False, "--allow-mismatch", help="use an episode file whose hash differs"),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON"),
    on: str = typer.Option("answers", "--on", help="answers (turn labels) or support (report claims against their cited "
                                                   "units: --a rules --b judge:<model>@<base_url>, on a sandbox run)"),
    no_record: bool = typer.Option(False, "--no-record", help="--on support: do not write the judge's calibration into "
                                                              "the results folder's judge_calibration.json"),
) -> None:
    """Agreement rate and Cohen's kappa between two labellers, at turn and episode level; with --on support, a report
    judge's support verdicts against the deterministic ones (kappa with a bootstrap interval over episodes), recorded
    as that judge's calibration, which every later judged report number names."""
    from ..scoring.agreement import run_agreement, run_support_agreement

    if on not in ("answers", "support"):
        raise UserError(f"--on: {on!r} is not answers or support")
    if on == "support":
        srep = _user_errors(run_support_agreement)(run, a, b, episodes_path=episodes, allow_mismatch=allow_mismatch,
                                                   record=not no_record)
        if as_json:
            print(srep.model_dump_json(indent=2))
        else:
            _print_support(srep, run, recorded=not no_record)
        return
    rep = _user_errors(run_agreement)(run, a, b, episodes_path=episodes, allow_mismatch=allow_mismatch)
    if as_json:
        print(rep.model_dump_json(indent=2))
        return
    from rich.table import Table

    from ..scoring.report import fmt

    t = Table(title=f"{a}  vs  {b}")
    for col in ("Level", "N", "Agreement", "p_e", "Cohen's kappa"):
        t.add_column(col, justify="right")
    for lvl in (rep.turn, rep.episode):
        t.add_row(lvl.level, str(lvl.n), fmt(lvl.agreement, 3), fmt(lvl.p_e, 3), fmt(lvl.kappa, 3))
    _wide_console().print(t)


def _print_support(rep, run: Path, recorded: bool) -> None:  # noqa: ANN001 - a SupportAgreement
    from rich.table import Table

    from ..scoring.report import fmt

    t = Table(title=f"support verdicts: rules vs {rep.judge} ({rep.prompt_version})")
    for col in ("Units", "Pairs", "Reports", "Both", "Rules only", "Judge only", "Neither", "Agreement", "Cohen's kappa",
                "95% interval"):
        t.add_column(col, justify="right")
    for name, r in [("all", rep)] + sorted(rep.by_unit.items()):
        iv = f"[{r.interval.low:.3f}, {r.interval.high:.3f}]" if r.interval is not None else "–"
        t.add_row(name, str(r.n), str(r.episodes), str(r.both), str(r.rules_only), str(r.judge_only), str(r.neither),
                  fmt(r.agreement, 3), fmt(r.kappa, 3), iv)
    console = _wide_console()
    console.print(t)
    if rep.no_verdict:
        console.print(f"{rep.no_verdict} pair(s) without a readable verdict after a retry (not counted)", markup=False)
    where = Path(run) / "support_agreement.json"
    note = f"; calibration recorded in {Path(run).resolve().parent / 'judge_calibration.json'}" if recorded and rep.n else ""
    console.print(f"written: {where}{note}", markup=False, highlight=False)
