"""Several runs side by side: the leaderboard (EpiBench Tables 2, 3, 6) with 95% intervals, the ablation
comparison, and each run paired against a baseline (the first run unless another is named).

`write_comparison` is what `epi compare --out` and `epi ablate` use. Runs without scores.json are
scored first (from their files only). Runs scored with different reducers are shown with one (the one
asked for, else the baseline's), re-scored in memory.
"""
from __future__ import annotations

from pathlib import Path

from rich.markup import escape
from rich.table import Table

from harness.rundir import RunDir, atomic_write_text

from . import plots
from .epochs import Reducer
from .model import SCORER_VERSION, EpisodeScore, RunScores, gold_note, gold_tag
from .paired import PairedComparison, PairingError, check_pairable, pair_runs
from .paired_report import paired_markdown
from .process_model import Correlation
from .process_outcome import process_correlations
from .process_report import claims_header, claims_row, correlation_rows, process_header, process_row
from .report import (
    SPLITS, fmt, fmt_ci, table2_header, table2_row, table3_header, table3_row, table6_header, table6_row,
)
from .run import ScoringError, read_episode_scores, read_run_scores, reduce_again, score_run


def compare_runs(run_dirs: list[Path], reducer: str | None = None, baseline: int = 0) -> list[RunScores]:
    """The scores of each run, in the order given: runs not scored yet, or scored with the matcher by an
    older scorer, are scored now, so every row comes from the same scorer (a judge's labels are kept).
    Every row uses one reducer of epochs: `reducer` if given, else the baseline run's; a run scored with
    another is re-scored in memory (its files are left as they are)."""
    out = []
    for d in run_dirs:
        rd = RunDir(d)
        s = read_run_scores(rd.path) if rd.scores_json.is_file() else None
        if s is None or (s.scorer_version != SCORER_VERSION and s.labeller == "matcher"):
            s = score_run(rd.path, errors_as_failures=s.errors_as_failures if s is not None else False)
        out.append(s)
    want = Reducer.parse(reducer) if reducer else (Reducer.parse(out[baseline].reducer) if out else None)
    for i, (d, s) in enumerate(zip(run_dirs, out)):
        if want is not None and s.reducer != want.name:
            out[i] = reduce_again(s, read_episode_scores(Path(d)), want)
    return out


def run_names(runs: list[RunScores]) -> list[str]:
    """Row names: the run id, plus the ablation settings when they differ between runs."""
    differ = len({r.ablation.label() for r in runs}) > 1
    names = []
    for r in runs:
        name = r.run_id + (f" [{gold_tag(r.agent)}]" if r.uses_gold else "")
        names.append(f"{name} ({r.ablation.label()})" if differ else name)
    return names


def leaderboard_table(runs: list[RunScores]) -> Table:
    """One rich table, a row per run and split: ESR/Acc_final/Acc_pre (Table 2) and EC/MG (Table 3), each
    with its 95% interval."""
    epochs = {r.epochs for r in runs}
    note = "" if epochs == {1} else "; epochs reduced by " + ", ".join(sorted({r.reducer for r in runs}))
    t = Table(title="Leaderboard", caption="N episodes scored; Errored: provider, data-access or pipeline errors before "
              "any wrong turn, left out of the numbers (\"(failed)\": counted as failed); ESR, Acc, EC in %; MG = tool calls / checklist on successful episodes; "
              f"[95% interval]: Wilson for ESR, Acc and EC (evidence units), bootstrap over episodes for MG (\"all n equal\": "
              f"no episode differed){note}",
              box=None, pad_edge=False, padding=(0, 1), header_style="bold underline")
    t.add_column("Run", no_wrap=True)
    t.add_column("Split", no_wrap=True)
    t.add_column("N", justify="right", no_wrap=True)
    t.add_column("Errored", justify="right", no_wrap=True)
    for col in ("ESR", "Acc_final", "Acc_pre", "EC", "MG"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_column("Labeller", no_wrap=True)
    for name, r in zip(run_names(runs), runs):
        for k, (key, split) in enumerate((("easy", "Easy"), ("hard", "Hard"), ("all", "All"))):
            s, iv = r.split(key), r.split(key).intervals
            err = f"{s.errored}{' (failed)' if r.errors_as_failures and s.errored else ''}"
            cells = [fmt_ci(s.esr, iv and iv.esr, 1), fmt_ci(s.acc_final, iv and iv.acc_final, 1),
                     fmt_ci(s.acc_pre, iv and iv.acc_pre, 1), fmt_ci(s.ec, iv and iv.ec, 1), fmt_ci(s.mg, iv and iv.mg, 2)]
            t.add_row(escape(name) if k == 0 else "", split, str(s.episodes), err, *map(escape, cells),
                      escape(r.labeller) if k == 0 else "",
                      end_section=k == 2)
    return t


def process_table(runs: list[RunScores]) -> Table:
    """The second leaderboard: claim-level scores of set answers and the process ratios (all episodes)."""
    t = Table(title="Set answers (claim level) and process", box=None, pad_edge=False, padding=(0, 1),
              caption="precision/recall/F1 over set items (LiveDRBench), exact set %; process ratios 0-1 from the trace",
              header_style="bold underline")
    t.add_column("Run", no_wrap=True)
    for col in ("Set P", "Set R", "Set F1", "Exact set %", "Queries/ep", "Efficiency", "Redundancy", "Reuse", "Grounding"):
        t.add_column(col, justify="right", no_wrap=True)
    for name, r in zip(run_names(runs), runs):
        c, p = r.all.claims, r.all.process
        cells = [fmt(c.precision), fmt(c.recall), fmt(c.f1), fmt(c.exact, 1)] if c else ["n/a"] * 4
        cells += ([fmt(p.queries_per_episode), fmt(p.efficiency), fmt(p.redundancy), fmt(p.reuse), fmt(p.grounding)]
                  if p else ["n/a"] * 5)
        t.add_row(escape(name), *cells)
    return t


def report_leaderboard(runs: list[RunScores]) -> Table | None:
    """The report table (issue 31), a row per run with report episodes; None when no run has any."""
    from harness.reports import report_table

    rows = [(n, r.report) for n, r in zip(run_names(runs), runs) if r.report is not None]
    if not rows:
        return None
    t = Table(title="Reports (apart from ESR and the accuracies)", box=None, pad_edge=False, padding=(0, 1),
              caption="% with [95% bootstrap interval over episodes]; definitions: harness/README.md, Reports",
              header_style="bold underline")
    head, _, *body = report_table(rows)
    for col in head.strip("| ").split(" | "):
        t.add_column(col, justify="left" if col == "Run" else "right", no_wrap=col == "Run")
    for line in body:
        t.add_row(*[escape(c) for c in line.strip("| ").split(" | ")])
    return t


def pooled_episode_scores(run_dirs: list[Path]) -> list[EpisodeScore]:
    """The episode scores of every run, pooled (a run without episode_scores.jsonl adds none)."""
    out: list[EpisodeScore] = []
    for d in run_dirs:
        try:
            out += read_episode_scores(d)
        except ScoringError:
            continue
    return out


def process_markdown(names: list[str], runs: list[RunScores], corrs: list[Correlation] | None) -> list[str]:
    """Process metrics and claim-level scores per run (all episodes), and process against outcome, pooled."""
    lines = ["## Process from the trace (all episodes)", ""] + process_header("Run")
    lines += [process_row(n, r.all.process) for n, r in zip(names, runs)] + [""]
    lines += ["## Set answers, claim level (LiveDRBench)", ""] + claims_header("Run")
    lines += [claims_row(n, r.all.claims) for n, r in zip(names, runs)] + [""]
    if corrs:
        lines += ["## Process against outcome (episodes of all runs pooled)", ""] + correlation_rows(corrs) + [""]
    return lines


def paired_comparisons(run_dirs: list[Path], runs: list[RunScores], baseline: int = 0
                       ) -> tuple[list[PairedComparison], list[str]]:
    """Each run against the baseline run (with the baseline's reducer), and why any run could not be paired."""
    out: list[PairedComparison] = []
    skipped: list[str] = []
    if len(runs) < 2:
        return out, skipped
    base, base_eps = runs[baseline], read_episode_scores(Path(run_dirs[baseline]))
    reducer = Reducer.parse(base.reducer)
    for i, (d, r) in enumerate(zip(run_dirs, runs)):
        if i == baseline:
            continue
        try:
            out.append(pair_runs(r, read_episode_scores(Path(d)), base, base_eps, reducer))
        except PairingError as e:
            skipped.append(str(e))
    return out, skipped


def check_same_episodes(runs: list[RunScores], baseline: int = 0) -> None:
    """Raise PairingError naming the first run whose episode file differs from the baseline's."""
    for i, r in enumerate(runs):
        if i != baseline:
            check_pairable(r, runs[baseline])


def comparison_warnings(runs: list[RunScores]) -> list[str]:
    """What makes the rows of a comparison less comparable than they look, one sentence each: runs over
    different corpora (a paper added, another build), errors counted differently, different scorers."""
    out = []
    known = [r for r in runs if r.corpus is not None]
    if len({r.corpus.catalog_sha256 for r in known if r.corpus}) > 1:
        out.append("these runs searched different corpora, so their rankings and readings differ: "
                   + "; ".join(f"{r.run_id}: {r.corpus.describe()}" for r in known if r.corpus))
    if known and len(known) < len(runs):
        out.append("the corpus of " + ", ".join(r.run_id for r in runs if r.corpus is None)
                   + " is not recorded (a run made before corpora were recorded, or over the live web)")
    if len({r.errors_as_failures for r in runs}) > 1:
        out.append("errored episodes count as failed in " + ", ".join(r.run_id for r in runs if r.errors_as_failures)
                   + " and are left out in the others; score every run alike (`epi score RUN` with or without "
                   "--score-errors-as-failures)")
    if len({r.scorer_version for r in runs}) > 1:
        out.append("these runs were scored by different scorer versions (judge-labelled runs are not re-scored "
                   "automatically); run `epi score` on each to compare like with like")
    if len({r.episodes_sha256 for r in runs}) > 1:
        out.append("these runs were scored on different episode files; rows are not comparable")
    return out


def comparison_markdown(runs: list[RunScores], plot_paths: dict[str, Path], out_dir: Path,
                        corrs: list[Correlation] | None = None, paired: list[str] | None = None) -> str:
    names = run_names(runs)
    lines = ["# Comparison", ""]
    for n, r in zip(names, runs):
        if r.uses_gold:
            lines += [f"> **{r.note or gold_note(r.agent)}**: {n}", ""]
    for w in comparison_warnings(runs):
        lines += [f"> **WARNING: {w}.**", ""]
    lines += ["## Outcome (EpiBench Table 2)", "", "ESR, Acc_final, Acc_pre in %, [95% interval]: " + PROPORTION_NOTE
              + reducer_note(runs), ""]
    lines += table2_header() + [table2_row(n, r) for n, r in zip(names, runs)] + [""]
    lines += ["## Process (EpiBench Table 3)", "", "EC in %, MG a ratio, [95% interval]: " + BOOTSTRAP_NOTE, ""]
    lines += table3_header() + [table3_row(n, r) for n, r in zip(names, runs)] + [""]
    lines += paired or []
    lines += ["## Cost (EpiBench Table 6)", ""] + table6_header() + [table6_row(n, r.all) for n, r in zip(names, runs)] + [""]
    lines += ["## Failure types (all episodes)", "", "| Run | Retrieve | Perception | Reading-Memory | Reasoning | Others |",
              "|---|---|---|---|---|---|"]
    for n, r in zip(names, runs):
        f = r.all.failures
        lines.append(f"| {n} | {f.retrieve} | {f.perception} | {f.reading_memory} | {f.reasoning} | {f.others} |")
    lines.append("")
    lines += process_markdown(names, runs, corrs)
    if any(r.report is not None for r in runs):
        from harness.reports import report_table

        lines += ["## Reports (apart from ESR and the accuracies)", ""]
        lines += report_table([(n, r.report) for n, r in zip(names, runs) if r.report is not None]) + [""]
    for key, title in PLOT_TITLES.items():
        if key in plot_paths:
            lines += [f"## {title}", "", f"![{title}]({plot_paths[key].relative_to(out_dir)})", ""]
    lines += ["## Runs", "", "| Run | Agent | Model | Settings | Labeller | Scorer | Episodes | Errored | Epochs (reducer) | "
              "Corpus | Scored at |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for n, r in zip(names, runs):
        err = f"{r.all.errored} ({'counted as failed' if r.errors_as_failures else 'left out'})" if r.all.errored else "0"
        corpus = f"{r.corpus.name} ({r.corpus.catalog_sha256[:12]}, {len(r.corpus.added)} added)" if r.corpus else "not recorded"
        who = r.agent + (f" ({r.agent_origin})" if r.agent_origin and r.agent_origin != "built-in" else "")
        lines.append(f"| {n} | {who} | {r.model or ''} | {r.ablation.label()} | {r.labeller} | {r.scorer_version} | "
                     f"{r.all.episodes} | {err} | {r.epochs} ({r.reducer}) | {corpus} | {r.scored_at} |")
    return "\n".join(lines) + "\n"


PLOT_TITLES = {"paired_effects": "Paired effect of each factor", "failure_types": "Failure types", "ablation": "Ablations",
               "budget": "Step budget", "cost": "Cost against success", "process": "Process against outcome"}
PROPORTION_NOTE = ("Wilson over episodes (Acc_pre over non-final turns at their effective number: turns of one "
                   "episode are not independent).")
BOOTSTRAP_NOTE = ("EC: Wilson over evidence units (required units of correct turns) at their effective number (units of "
                  "one episode are not independent: Kish's design effect, never fewer than the episodes); MG: percentile "
                  "bootstrap over episodes, epochs resampled inside their episode (10,000 resamples, fixed seed), "
                  "\"all n equal\" where every episode has the same value.")


def reducer_note(runs: list[RunScores]) -> str:
    if all(r.epochs == 1 for r in runs):
        return ""
    return f" Repeated runs: each episode's epochs reduced by `{runs[0].reducer}` (every run alike)."


def write_comparison(run_dirs: list[Path], out_dir: Path, *, reducer: str | None = None, baseline: int = 0,
                     runs: list[RunScores] | None = None, paired: list[str] | None = None,
                     plot_paths: dict[str, Path] | None = None) -> Path:
    """Write comparison.md and plots/ under out_dir for the given runs; returns the comparison.md path.
    Every run is paired against run_dirs[baseline]; runs over another episode file are named as not paired.
    A sweep (`epi ablate`) gives its own `paired` section instead (each cell against its matched cell), its
    `runs` scored already and its own plots (`plot_paths`, by the keys of `PLOT_TITLES`)."""
    out_dir = Path(out_dir)
    run_dirs = [Path(d) for d in run_dirs]
    if runs is None:
        runs = compare_runs(run_dirs, reducer, baseline)
    names = run_names(runs)
    if paired is None:
        comparisons, skipped = paired_comparisons(run_dirs, runs, baseline)
        paired = paired_markdown(comparisons, runs[baseline].run_id, skipped) if len(runs) > 1 else []
    pdir = out_dir / "plots"
    paths: dict[str, Path] = dict(plot_paths or {})
    if any(r.all.failures.total() for r in runs):
        paths["failure_types"] = plots.failure_distribution(names, runs, pdir / "failure_types.png")
    if len({r.ablation.label() for r in runs}) > 1:
        paths["ablation"] = plots.ablation_bars([r.ablation.label() for r in runs], runs, pdir / "ablation.png")
    if len({r.ablation.max_steps for r in runs}) > 1:
        paths["budget"] = plots.budget_curve(runs, pdir / "budget.png")
    paths["cost"] = plots.cost_vs_success(names, runs, pdir / "cost_vs_success.png")
    episodes = pooled_episode_scores([Path(d) for d in run_dirs])
    corrs = process_correlations(episodes) if any(e.process for e in episodes) else None
    if corrs and any(c.rho is not None for c in corrs):
        paths["process"] = plots.process_correlations(corrs, pdir / "process_vs_outcome.png")
    md = out_dir / "comparison.md"
    atomic_write_text(md, comparison_markdown(runs, paths, out_dir, corrs, paired))
    return md
