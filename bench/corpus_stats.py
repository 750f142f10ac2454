"""Benchmark: the habits of corpus v3 as numbers (issue 26, item 3), and how long it takes to build.

Builds the corpus (default: v3 at its default size, seed 7) into a temporary folder with 2 render
processes, or reads an already built one (`--dir`), and prints every number of item 3 beside its
threshold: areas and their own datasets, metrics and sweep axes; sweeps coherent with the plotted
methods' families; whether a method name gives its area away; references across areas and with a
stated reason; the most repeated sentence; title patterns; abstracts claiming the best result; pages
and section structures; appendices with floats; figure kinds and their shares; crossing and non-monotone
curves; "Ours" in legends; raster, exact-vector and rasterised-mark vector figures and raster
resolution (planned, and measured on the PDFs). Build time is wall and CPU seconds, and CPU seconds over
2 cores (what an otherwise idle 2-core machine would wait), against the `make run` budget of 600 s.

    .venv/bin/python bench/corpus_stats.py [--papers 480] [--seed 7] [--workers 2] [--dir sandbox/build | --into DIR] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sandbox.corpus.build import build_corpus, load_ground_truth  # noqa: E402
from sandbox.corpus import habits as S  # noqa: E402
from sandbox.corpus.versions import corpus_version  # noqa: E402

BUDGET_S = 600  # `make run` on a fresh 2-core machine, install included


def _cpu() -> tuple[float, float]:
    """CPU seconds of this process and of its finished children (the render workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _print(h: dict, timing: dict | None) -> None:
    ok = lambda b: "ok  " if b else "FAIL"  # noqa: E731
    print(f"corpus {h['generator_version']}: {h['papers']} papers, {h['figures']} figures, {h['references']} references")
    if timing:
        idle = timing["main_cpu_s"] + timing["worker_cpu_s"] / timing["workers"]
        print(f"build: {timing['wall_s']:.0f} s wall, {timing['cpu_s']:.0f} CPU s ({timing['worker_cpu_s']:.0f} in "
              f"{timing['workers']} workers, {timing['main_cpu_s']:.0f} in the main process) -> about {idle:.0f} s on an "
              f"idle {timing['workers']}-core machine; budget of make run {BUDGET_S} s, install and agent runs included "
              f"[{timing['rendered']} papers rendered, index built, load average {timing['load']:.1f}]")
    print(f"{ok(h['areas'] >= S.MIN_AREAS)} areas: {h['areas']} (>= {S.MIN_AREAS})")
    for a, v in h["per_area"].items():
        print(f"       {a} ({v['papers']} papers): {v['metric']}; datasets {', '.join(v['datasets'])}; "
              f"sweeps {', '.join(v['sweep_axes'])}")
    print(f"{ok(h['datasets_shared_between_areas'] == 0)} datasets shared between areas: {h['datasets_shared_between_areas']}")
    print(f"{ok(h['sweeps_incoherent_with_families'] == 0)} sweep plots whose axis does not apply to a plotted method's "
          f"family: {h['sweeps_incoherent_with_families']} of {h['sweep_plots']}")
    g = h["area_from_method_name"]
    print(f"{ok(g['accuracy'] <= g['chance'] + 0.1)} area guessed from a method name's last 3 letters: {g['accuracy']:.1%} "
          f"(always the largest area: {g['chance']:.1%})")
    print(f"{ok(h['cross_area_reference_share'] <= S.MAX_CROSS_AREA_REFS)} references across areas: "
          f"{h['cross_area_reference_share']:.1%} of {h['references']} (<= {S.MAX_CROSS_AREA_REFS:.0%})")
    print(f"{ok(h['references_with_reason_share'] >= 0.99)} references cited in a sentence giving a reason: "
          f"{h['references_with_reason_share']:.1%}")
    print(f"{ok(h['max_sentence_papers'] <= h['sentence_limit_papers'])} most repeated sentence is in "
          f"{h['max_sentence_papers']} papers, {h['max_sentence_paper_share']:.2%} (<= {S.MAX_SENTENCE_SHARE:.0%} of papers, "
          f"never fewer than {S.MIN_SENTENCE_LIMIT}: {h['sentence_limit_papers']}): \"{h['most_repeated_sentence']}\"")
    print(f"{ok(h['sentences_with_template_markup'] == 0)} sentences with template markup left in them ([a|b], {{slot}}): "
          f"{h['sentences_with_template_markup']}" + (f" e.g. {h['template_markup_example']}" if h['template_markup_example'] else ""))
    print(f"{ok(h['title_pattern_count'] >= S.MIN_TITLE_PATTERNS and h['max_title_pattern_share'] <= S.MAX_TITLE_PATTERN_SHARE)} "
          f"title patterns: {h['title_pattern_count']} (>= {S.MIN_TITLE_PATTERNS}), largest {h['max_title_pattern_share']:.1%} "
          f"(<= {S.MAX_TITLE_PATTERN_SHARE:.0%}): " + ", ".join(f"{k} {v}" for k, v in h["title_patterns"].items()))
    print(f"{ok(h['abstracts_claiming_best_share'] <= S.MAX_BEST_CLAIMS)} abstracts claiming the best result: "
          f"{h['abstracts_claiming_best_share']:.1%} (<= {S.MAX_BEST_CLAIMS:.0%})")
    print(f"     author surnames: {h['author_surnames']}")
    pg = h["pages"]
    print(f"{ok(pg['min'] >= S.MIN_PAGES and pg['max'] <= S.MAX_PAGES and pg['median'] >= S.MIN_MEDIAN_PAGES)} pages: "
          f"{pg['min']} to {pg['max']}, median {pg['median']} ({S.MIN_PAGES}-{S.MAX_PAGES}, median >= {S.MIN_MEDIAN_PAGES})")
    print(f"{ok(h['section_structures'] >= 4)} section structures: {h['section_structures']}, largest "
          f"{h['max_section_structure_share']:.1%}; papers with floats in an appendix: {h['papers_with_appendix_floats_share']:.1%}")
    print(f"{ok(h['figure_kinds_at_min_share'] >= S.MIN_FIGURE_KINDS)} figure kinds asked about at >= 3% of figures: "
          f"{h['figure_kinds_at_min_share']} (>= {S.MIN_FIGURE_KINDS})")
    for k, v in h["figure_kinds"].items():
        print(f"       {k}: {v['count']} ({v['share']:.1%})")
    print(f"     sweep plots (lines and panels): {h['line_plots']}; with crossing curves {h['line_plots_with_crossing_share']:.1%}; "
          f"with a non-monotone curve {h['line_plots_non_monotone_share']:.1%}; figures with a log axis: {h['log_axis_figures']}")
    print(f"{ok(h['figures_with_ours_in_legend_share'] <= S.MAX_OURS_SHARE)} data figures whose legend says 'Ours': "
          f"{h['figures_with_ours_in_legend_share']:.1%} (<= {S.MAX_OURS_SHARE:.0%})")
    v = h["visual"]
    print(f"     figures: {v['raster']} raster, {v['vector exact']} vector (drawing gives values exactly), "
          f"{v['vector, marks as image']} vector with marks as an image (values not in the drawing)")
    if h.get("raster_dpi_planned"):
        d = h["raster_dpi_planned"]
        print(f"     raster resolution planned: {d['min']}-{d['max']} dpi, median {d['median']}")
    if h.get("raster_ppi_measured_in_pdfs"):
        d = h["raster_ppi_measured_in_pdfs"]
        print(f"     embedded images measured in the PDFs: {d['images']}, {d['min']}-{d['max']} pixels per inch as placed, "
              f"median {d['median']}")
    bad = S.problems(h)
    print("ALL THRESHOLDS HOLD" if not bad else "BROKEN: " + "; ".join(bad))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=None)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=None, help="an already built v3 corpus (no build, no timing)")
    ap.add_argument("--into", type=Path, default=None, help="build into this folder and keep it (default: a temporary one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    timing = None
    with tempfile.TemporaryDirectory(prefix="epi-v3-stats-") as tmp:
        root = args.dir
        if root is None:
            root = args.into or Path(tmp)
            n = args.papers or corpus_version("v3").default_papers
            w, (m0, k0) = time.perf_counter(), _cpu()
            r = build_corpus(root, seed=args.seed, n_papers=n, workers=args.workers, corpus="v3")
            (m1, k1), wall = _cpu(), time.perf_counter() - w
            timing = {"wall_s": wall, "cpu_s": m1 - m0 + k1 - k0, "main_cpu_s": m1 - m0, "worker_cpu_s": k1 - k0,
                      "rendered": r.rendered, "workers": args.workers, "load": os.getloadavg()[0]}
        h = S.corpus_habits(load_ground_truth(root), root)
        if args.json:
            print(json.dumps({**h, "timing": timing}, indent=1))
        else:
            _print(h, timing)
    sys.exit(1 if S.problems(h) else 0)


if __name__ == "__main__":
    main()
