"""report.md of one run: tables laid out like EpiBench Tables 2, 3 and 6, failures, buckets, plots."""
from __future__ import annotations

import os
from pathlib import Path

from .behaviour import behaviour_rows
from .interval import Interval
from .model import BUCKETS, FAILURE_NAMES, FAILURE_TYPES, EpisodeScore, RunScores, SplitScores
from .process_outcome import process_correlations
from .process_report import process_sections

SPLITS = (("easy", "Easy"), ("hard", "Hard"), ("all", "Average"))


def fmt(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def ci(iv: Interval | None, digits: int = 2, sep: str = ", ") -> str:
    """`[low, high]` of an interval (`[all n equal]` for a bootstrap with no spread), or '' when there is none."""
    return "" if iv is None else iv.bracket(digits, sep)


def fmt_ci(x: float | None, iv: Interval | None, digits: int = 2) -> str:
    """`50.00 [15.00, 85.00]`: a number with its 95% interval (`n/a` when the number is)."""
    return fmt(x, digits) if x is None or iv is None else f"{fmt(x, digits)} {ci(iv, digits)}"


def interval_note(s: RunScores) -> str:
    """How the intervals of this run's numbers were made, in one paragraph."""
    u = s.uncertainty
    prop = "Wilson" if u.proportions == "wilson" else "Clopper-Pearson"
    return (f"[low, high]: {100 * u.confidence:.0f}% intervals. ESR and Acc_final: {prop} over episodes; Acc_pre: "
            f"{prop} over non-final turns at their effective number (turns of one episode are not independent: "
            "Kish's design effect, never fewer than the episodes)" + (", epochs counted the same way" if s.epochs > 1 else "")
            + (f". EC: {prop} over evidence units (required units of correct turns) at their effective number, the "
               "units of one episode one cluster" if u.evidence.endswith("effective-units") else
               ". EC: percentile bootstrap over episodes (scorer 8 and before)")
            + f". MG: percentile bootstrap over episodes{', epochs resampled inside their episode' if s.epochs > 1 else ''} "
            f"({u.resamples:,} resamples, seed {u.seed}); \"all n equal\" where every episode has the same value (a "
            "bootstrap then has nothing to resample; it is not certainty).")


def reducer_line(s: RunScores) -> str:
    """The run's epochs and how they reduce, for the report's header."""
    from .epochs import Reducer

    if s.epochs <= 1:
        return f"- epochs: 1 (reducer `{s.reducer}`: with one epoch every reducer gives the verdict itself)"
    r = Reducer.parse(s.reducer)
    return (f"- epochs: {s.epochs} per episode; ESR, Acc_final and Acc_pre reduce them with `{s.reducer}`: "
            f"{r.describe()}; EC, MG, cost, failures and process count every epoch's trace")


def agent_origin_text(s: RunScores) -> str:
    """`; in-process (trusted): <file> (sha256 ...)` for the user's own agent code; nothing for a built-in one."""
    if not s.agent_origin or s.agent_origin == "built-in":
        return ""
    return f"; **{s.agent_origin}**" + (f": {s.agent_source}" if s.agent_source else "")


def agent_checks_line(s: RunScores) -> str:
    """What the harness noticed the agent do against the protocol, per check, and how many episodes are marked."""
    counts = ", ".join(f"{k} {n}" for k, n in sorted(s.agent_checks.items()))
    shown = ", ".join(s.flagged_episodes[:5]) + (", ..." if len(s.flagged_episodes) > 5 else "")
    return (f"- **agent checks**: {counts} (agent_check events: the agent broke the protocol; refused, charged to the "
            f"budget or flagged) in {len(s.flagged_episodes)} episode(s): {shown}")


def run_label(s: RunScores) -> str:
    who = s.agent or s.run_id
    return f"{who} ({s.model})" if s.model else who


def table2_header() -> list[str]:
    head = "| Run | " + " | ".join(f"{n} ESR | {n} Acc_final | {n} Acc_pre" for _, n in SPLITS) + " |"
    return [head, "|---" * 10 + "|"]


def table2_row(name: str, s: RunScores) -> str:
    cells = []
    for k, _ in SPLITS:
        x, iv = s.split(k), s.split(k).intervals
        cells.append(f"{fmt_ci(x.esr, iv and iv.esr)} | {fmt_ci(x.acc_final, iv and iv.acc_final)} | "
                     f"{fmt_ci(x.acc_pre, iv and iv.acc_pre)}")
    return f"| {name} | " + " | ".join(cells) + " |"


def table3_header() -> list[str]:
    head = "| Run | " + " | ".join(f"{n} EC ↑ | {n} MG ↓ | {n} max-steps err % | {n} budget exhausted % | "
                                   f"{n} wrong after exhaustion %" for _, n in SPLITS) + " |"
    return [head, "|---" * 16 + "|"]


def table3_row(name: str, s: RunScores) -> str:
    cells = [f"{fmt_ci(s.split(k).ec, s.split(k).intervals and s.split(k).intervals.ec)} | "
             f"{fmt_ci(s.split(k).mg, s.split(k).intervals and s.split(k).intervals.mg)} | {fmt(s.split(k).max_steps_rate)} | "
             f"{fmt(s.split(k).budget_exhausted_rate)} | {fmt(s.split(k).wrong_after_exhaustion_rate)}" for k, _ in SPLITS]
    return f"| {name} | " + " | ".join(cells) + " |"


def table6_header(first: str = "Run") -> list[str]:
    return [f"| {first} | Input tokens | Output tokens | Total tokens | Model calls | Tool calls | Wall time (s) | Episodes |",
            "|---" * 8 + "|"]


def table6_row(name: str, c: SplitScores) -> str:
    return (f"| {name} | {c.input_tokens:,} | {c.output_tokens:,} | {c.total_tokens:,} | {c.model_calls:,} | "
            f"{c.tool_calls:,} | {c.wall_time_s:.1f} | {c.episodes} |")


def failure_rows(s: RunScores) -> list[str]:
    out = ["| Split | " + " | ".join(FAILURE_NAMES[f] for f in FAILURE_TYPES) + " | Failed |", "|---" * 7 + "|"]
    for key, name in SPLITS:
        f = s.split(key).failures
        tot = f.total()
        cells = [f"{getattr(f, t)} ({100.0 * getattr(f, t) / tot:.0f}%)" if tot else "0" for t in FAILURE_TYPES]
        out.append(f"| {name} | " + " | ".join(cells) + f" | {tot} |")
    return out


def bucket_rows(s: RunScores) -> list[str]:
    b = s.buckets
    out = ["| Bucket | Episodes | Validity weight |", "|---|---|---|"]
    out += [f"| {name} | {b.count(name)} | {b.weights.get(name, 0.0):.1f} |" for name in BUCKETS]
    out.append(f"| total | {b.total()} | weighted {b.weighted:.2f} |")
    return out


def errored_line(s: RunScores, retry: str | None = None) -> str | None:
    """One sentence on the errored episodes beside the scores, or None when there are none."""
    n = s.all.errored
    if not n:
        return None
    what = f"{n} errored episode{' trace' if s.epochs > 1 else ''}{'s' if n > 1 else ''}"
    kinds = ", ".join(f"{b} {s.buckets.count(b)}" for b in ("provider", "data_access", "pipeline") if s.buckets.count(b))
    cause = f"({kinds}: an outage before any wrong turn)"
    if s.errors_as_failures:
        return f"{what} {cause} counted as failed: scored with errors as failures, the paper's convention"
    return (f"{what} {cause} left out of ESR, the accuracies, EC, MG and the failure types: errors are not failures"
            + (f"; `{retry}` runs them again" if retry else "; `epi retry RUN` runs them again"))


def _damaged(s: RunScores) -> str:
    """`sbx-004 (lines 19, 20)`, ...: which trace lines scoring could not read."""
    return ", ".join(f"{ep} (line{'s' if len(ls) > 1 else ''} {', '.join(map(str, ls[:5]))}{', ...' if len(ls) > 5 else ''})"
                     for ep, ls in s.damaged_traces.items())


def header_lines(s: RunScores) -> list[str]:
    lines = [f"# Scores of run `{s.run_id}`", ""]
    if s.uses_gold:
        lines += [f"> **{s.note}**", ""]
    lines += [
        f"- agent: `{s.agent}`" + (f", model `{s.model}`" if s.model else "") + agent_origin_text(s),
        f"- labeller: `{s.labeller}`" + (" (deterministic matcher)" if s.labeller == "matcher" else " (LLM judge, cached)"),
        f"- scorer version {s.scorer_version} (`epi score {s.run_id}` re-scores the run with the installed scorer)"
        + (f"; search engine `{s.search_engine}`" if s.search_engine else ""),
        f"- episodes: `{s.episodes_path}` (sha256 `{(s.episodes_sha256 or '')[:12]}`), {s.all.episodes} scored"
        + (f", {s.all.errored} errored" + (" (counted as failed)" if s.errors_as_failures else " (left out)")
           if s.all.errored else ""),
        f"- settings: {s.ablation.label()}",
        *([f"- {s.corpus.describe()}"] if s.corpus else []),
        *(["- **text-only run** (`--no-images`): no cue or figure image was sent to the model; the prompts said "
            "the image was not available"] if not s.ablation.images else []),
        reducer_line(s),
        *([agent_checks_line(s)] if s.agent_checks else []),
        f"- scored at {s.scored_at}",
    ]
    if s.judge_errors:
        lines.append(f"- **the judge could not label {s.judge_errors} turn{'s' if s.judge_errors > 1 else ''} "
                     "(no verdict after a retry): the matcher labelled them**")
    if s.episodes_mismatch:
        lines.append("- **WARNING: the episode file differs from the one this run was made with (scored with --allow-mismatch)**")
    if s.truncated_episodes:
        lines.append(f"- **truncated traces (scored as far as they go): {', '.join(s.truncated_episodes)}**")
    if s.damaged_traces:
        lines.append(f"- **unreadable trace lines skipped: {_damaged(s)}**")
    if (line := errored_line(s, f"epi retry {s.run_id}")) is not None:
        lines.append(f"- **{line}: {', '.join(s.errored_episodes[:20])}{', ...' if len(s.errored_episodes) > 20 else ''}**")
    if s.missing_episodes:
        how = "counted as failed" if s.errors_as_failures else "errored, left out of the scores"
        lines.append(f"- **missing traces ({how}, bucket pipeline): {', '.join(s.missing_episodes)}**")
    if s.unknown_traces:
        lines.append(f"- **traces of episodes not in the episode file (not scored): {', '.join(s.unknown_traces)}**")
    return lines + [""]


def pass_k_rows(s: RunScores) -> list[str]:
    """Episode success over the epochs, tau-bench style (runs with more than one epoch)."""
    if not s.pass_k:
        return []
    out = ["### Episode success over epochs (tau-bench)", "",
           "pass@k: the chance that at least one of k epochs drawn at random succeeded; pass^k: that all k did "
           "(reliability). In %, averaged over episodes, with a Wilson interval over episodes.", "",
           "| k | pass@k | pass^k |", "|---|---|---|"]
    out += [f"| {p.k} | {fmt_ci(p.pass_at_k.estimate, p.pass_at_k)} | {fmt_ci(p.pass_hat_k.estimate, p.pass_hat_k)} |"
            for p in s.pass_k]
    return out + [""]


def _img(path: Path, base: Path, alt: str) -> str:
    return f"![{alt}]({os.path.relpath(path, base)})"


def episode_rows(episodes: list[EpisodeScore]) -> list[str]:
    out = ["| Episode | Split | Status | Turns correct | Success | Failure (turn/step) | Why | What the model did |",
           "|---" * 8 + "|"]
    for e in episodes:
        ok = sum(t.correct for t in e.turns)
        f = e.failure
        where = f"{FAILURE_NAMES[f.type]} ({f.turn}/{f.step})" if f else ""
        if e.errored:
            where = f"errored: {e.bucket} ({f.turn}/{f.step})" if f else f"errored: {e.bucket}"
        why = (f.why if f else "").replace("|", "\\|")
        success = "errored" if e.errored else ("yes" if e.success else "no")
        did = "; ".join(e.behaviour.parts())
        out.append(f"| {e.episode_id} | {e.split} | {e.status} | {ok}/{e.n_turns} | {success} | {where} "
                   f"| {why} | {did} |")
    return out


def render_report(s: RunScores, episodes: list[EpisodeScore], plots: dict[str, Path], base: Path) -> str:
    """The whole report.md text; plot paths are made relative to `base` (the run directory)."""
    name = run_label(s)
    lines = header_lines(s)
    lines += ["## Outcome (EpiBench Table 2)", "", "ESR, Acc_final, Acc_pre in %. " + interval_note(s), ""]
    lines += table2_header() + [table2_row(name, s), ""]
    if (line := errored_line(s, f"epi retry {s.run_id}")) is not None:
        lines += [f"Episodes scored: {s.all.episodes}; {line}.", ""]
    lines += pass_k_rows(s)
    lines += ["## Process (EpiBench Table 3)", "",
              "EC in % (higher is better; a turn's accessed evidence is what its calls exposed plus what memory "
              "held), MG as executed tool calls over the checklist on successful episodes (lower is better; n/a "
              "when no episode succeeded), the max-steps error rate (EpiBench Fig. 6b: episodes whose first error is a "
              "turn whose step budget ran out and whose answer was wrong, in % of episodes run), and two turn-level "
              "rates in % of turns run: budget exhausted (the step budget ran out) and wrong after exhaustion (it ran "
              "out and the answer was wrong).", ""]
    lines += table3_header() + [table3_row(name, s), ""]
    lines += ["## Cost (EpiBench Table 6)", ""] + table6_header("Split")
    lines += [table6_row(n, s.split(k)) for k, n in SPLITS] + [""]
    lines += ["## What the model did", "", "Steps without a tool call by kind (empty, plan, over-long: cut off at the "
              "length limit, unparseable: a tool call written as text or an answer repeating the instructions' placeholder, "
              "other: code that raised or called nothing), calls the model wrote wrong (malformed: arguments not JSON or "
              "failing the schema), well-formed calls the rules refused (a tool not offered, past the budget), calls that "
              "ran and failed, request attempts retried, timed out or failed, and turns answered by the fallback request "
              "(`harness/scoring/behaviour.py`; per episode in the last column of Episodes).", ""]
    lines += behaviour_rows([("Easy", s.easy.behaviour), ("Hard", s.hard.behaviour), ("All", s.all.behaviour)]) + [""]
    lines += ["## Failure types", "", "One label per failed episode at the first wrong turn "
              "(rule and order: `harness/scoring/attribution.py`)"
              + ("; errored episodes count as failed (Others)." if s.errors_as_failures else
                 "; errored episodes are not failures and are not counted here."), ""] + failure_rows(s) + [""]
    if "failure_types" in plots:
        lines += [_img(plots["failure_types"], base, "failure types"), ""]
    lines += ["## Reason buckets (episodes without a scorable answer)", ""] + bucket_rows(s) + [""]
    if "cost" in plots:
        lines += ["## Cost per episode", "", _img(plots["cost"], base, "cost per episode"), ""]
    pplot = os.path.relpath(plots["process"], base) if "process" in plots else None
    lines += process_sections(s, episodes, process_correlations(episodes), pplot)
    if s.report is not None:
        from harness.reports import report_section

        lines += report_section(s.report, name)
    lines += ["## Episodes", ""] + episode_rows(episodes) + [""]
    return "\n".join(lines)


def scores_table(s: RunScores):  # noqa: ANN201 - a rich Table
    """The run's numbers by split as a rich table (what `epi score` and `epi run` print); fits 80 columns."""
    from rich.table import Table

    from rich.markup import escape

    t = Table(title=escape(f"{run_label(s)} [{s.labeller}, scorer {s.scorer_version}]"
                           + (f", {s.epochs} epochs reduced by {s.reducer}" if s.epochs > 1 else "")),
              caption="N episodes scored, Err errored (" + ("counted as failed" if s.errors_as_failures else "left out")
              + "); ESR, Acc, EC, MaxErr (of episodes) in %; MG a ratio; Wall in s; 95% intervals below",
              box=None, pad_edge=False, padding=(0, 1, 0, 0), header_style="bold underline")
    for col in ("Split", "N", "Err", "ESR", "Acc_fin", "Acc_pre", "EC", "MG", "MaxErr", "Tokens", "Tools", "Wall"):
        t.add_column(col, justify="left" if col == "Split" else "right", no_wrap=True)
    for key, name in (("easy", "Easy"), ("hard", "Hard"), ("all", "All")):
        x = s.split(key)
        iv = x.intervals
        t.add_row(name, str(x.episodes), str(x.errored), _two(x.esr, iv and iv.esr, 1, 0), _two(x.acc_final, iv and iv.acc_final, 1, 0),
                  _two(x.acc_pre, iv and iv.acc_pre, 1, 0), _two(x.ec, iv and iv.ec, 1, 0), _two(x.mg, iv and iv.mg, 2, 1),
                  fmt(x.max_steps_rate, 1), f"{x.total_tokens:,}", str(x.tool_calls), f"{x.wall_time_s:.1f}")
    return t


def unscorable_line(s: RunScores, episodes: list[EpisodeScore]) -> str:
    """The episodes without a scorable answer, by bucket, and how many of them stopped on an error: one count
    with the buckets, so a summary never reads "0 ended with an error" beside "model 1"."""
    b = s.buckets
    stopped = sum(1 for e in episodes if e.bucket is not None and e.status == "failed")
    rest = b.total() - stopped
    return (f"without a scorable answer: {b.total()} episode{'s' if b.total() != 1 else ''} (buckets: provider {b.provider}, "
            f"data_access {b.data_access}, pipeline {b.pipeline}, model {b.model}): {stopped} stopped on an error, "
            f"{rest} ended without an answer the matcher can read")


def _two(x: float | None, iv: Interval | None, digits: int, iv_digits: int) -> str:
    """A number over its interval, on two lines (keeps the terminal table narrow)."""
    from rich.markup import escape

    return fmt(x, digits) if x is None or iv is None else f"{fmt(x, digits)}\n[dim]{escape(ci(iv, iv_digits, '-'))}[/]"


def print_scores(run_dir: Path, console, retry: str | None = None) -> None:  # noqa: ANN001 - a rich Console
    """Print a scored run: oracle note, warnings, the table by split, errored episodes (`retry`: the command that
    runs them again), failure counts and where the report is."""
    from rich.markup import escape

    from .run import read_episode_scores, read_run_scores

    s = read_run_scores(run_dir)
    if s.uses_gold:
        console.print(f"[bold yellow]{s.note}[/]")
    if s.agent_origin and s.agent_origin != "built-in":
        console.print(f"[bold yellow]agent {escape(s.agent_origin)}[/]: {escape(s.agent_source or s.agent)}", highlight=False)
    if s.agent_checks:
        console.print(f"[bold red]{escape(agent_checks_line(s)[2:].replace('**', ''))}[/]", highlight=False)
    if s.episodes_mismatch:
        console.print("[bold red]warning:[/] the episode file differs from the one this run was made with")
    if s.truncated_episodes:
        console.print(f"[bold red]truncated traces[/] (scored as far as they go): {escape(', '.join(s.truncated_episodes))}")
    if s.damaged_traces:
        console.print(f"[bold red]unreadable trace lines skipped[/]: {escape(_damaged(s))}")
    if s.missing_episodes:
        how = "counted as failed" if s.errors_as_failures else "errored, left out of the scores"
        console.print(f"[bold red]missing traces[/] ({how}): {escape(', '.join(s.missing_episodes))}")
    console.print(scores_table(s))
    if (line := errored_line(s, retry)) is not None:
        console.print(f"[bold yellow]{escape(line)}[/]: {escape(', '.join(s.errored_episodes[:10]))}"
                      + (", ..." if len(s.errored_episodes) > 10 else ""))
    f = s.all.failures
    b = s.buckets
    console.print(f"failures: retrieve {f.retrieve}, perception {f.perception}, reading-memory {f.reading_memory}, "
                  f"reasoning {f.reasoning}, others {f.others}")
    console.print(unscorable_line(s, read_episode_scores(run_dir)), highlight=False)
    did = s.all.behaviour.parts()
    console.print("what the model did: " + ("; ".join(did) if did else "nothing out of the way"), highlight=False)
    p, c = s.all.process, s.all.claims
    if p is not None:
        console.print(f"process: efficiency {fmt(p.efficiency)}, redundancy {fmt(p.redundancy)}, reuse {fmt(p.reuse)}, "
                      f"grounding {fmt(p.grounding)} ({p.ungrounded} ungrounded)"
                      + (f"; set answers: precision {fmt(c.precision)}, recall {fmt(c.recall)}, F1 {fmt(c.f1)}" if c else ""))
    console.print(f"report: {escape(str(Path(run_dir) / 'report.md'))}", highlight=False)
