"""The habits of a built corpus, as numbers (what `bench/corpus_stats.py` prints and the v3 tests assert).

Every number is measured on the ground truth (and, for raster resolution, on the PDFs), independently of
how the generator meant to make it: sentences are split and counted across papers, titles are sorted
into patterns by their wording, a figure's kind is read off its data (error bars, log axes, panels), a
method name's area is guessed from its last letters by the names of the other papers.
"""
from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from .model import FigureGT, GroundTruth, PaperGT
from .vocab import AREA_BY_NAME

# thresholds of issue 26, item 3
MIN_AREAS = 6
MAX_CROSS_AREA_REFS = 0.10
MAX_SENTENCE_SHARE = 0.02
MIN_SENTENCE_LIMIT = 2  # papers: below 100 papers, 2% is under two papers, so one shared pair is the limit
MIN_TITLE_PATTERNS = 6
MAX_TITLE_PATTERN_SHARE = 0.30
MAX_BEST_CLAIMS = 0.70
MIN_PAGES, MAX_PAGES, MIN_MEDIAN_PAGES = 4, 12, 7
MIN_FIGURE_KINDS = 8
MIN_KIND_SHARE = 0.03
MAX_OURS_SHARE = 0.33

_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
_CITE = re.compile(r"\[(\d+(?:, \d+)*)\]")
_REASON = re.compile(r"\b(because|since|so that|so we|which is why|we compare|we follow|we borrow|builds? on|"
                     r"adapted from|follows|as a baseline|among the baselines|point of comparison|serves as|"
                     r"to keep results comparable|unlike)\b", re.I)
_BEST = re.compile(r"\b(best|state of the art|state-of-the-art|outperforms all)\b", re.I)
_TITLE_PATTERNS = (
    ("empirical study", re.compile(r"^An Empirical Study of ")),
    ("revisiting", re.compile(r"^Revisiting ")),
    ("closer look", re.compile(r"^A Closer Look at ")),
    ("question", re.compile(r"^(Do|When Does|Does|Is|Are|Can) .*\?$")),
    ("towards", re.compile(r"^Towards ")),
    ("learning", re.compile(r"^Learning ")),
    ("simple baseline", re.compile(r"^A Simple ")),
    ("rethinking", re.compile(r"^Rethinking ")),
    ("beyond", re.compile(r"^Beyond ")),
    ("name: scaling", re.compile(r"^[^ ]+: Scaling ")),
    ("name: technique", re.compile(r"^[^ ]+: ")),
    ("via", re.compile(r" via ")),
    ("technique for problem", re.compile(r" for ")),
)


def sentence_limit(n_papers: int) -> int:
    """How many papers one sentence may appear in: 2% of the corpus, and never fewer than two (in a corpus
    under 100 papers 2% is less than two papers, and a sentence in one paper is not a repeat)."""
    return max(MIN_SENTENCE_LIMIT, int(MAX_SENTENCE_SHARE * n_papers + 1e-9))


# what a template leaves behind when it is not filled: an unchosen `[a|b]`, a `{slot}`, a citation marker
_MARKUP = re.compile(r"\||[{}]|⟦|⟧|\[(?!\d)")


def sentences(p: PaperGT) -> list[str]:
    texts = [p.abstract, *(para for s in p.sections for para in s.paragraphs),
             *(f.caption.split(":", 1)[1] for f in p.figures), *(t.caption.split(":", 1)[1] for t in p.tables)]
    return [s.strip() for t in texts for s in _SENT.split(t) if len(s.strip()) > 12]


def title_pattern(title: str) -> str:
    return next((name for name, rx in _TITLE_PATTERNS if rx.search(title)), "other")


def figure_kind(f: FigureGT) -> str:
    """The kind a reader would name: error bars, bands and log axes are kinds of line chart."""
    if f.kind == "panels":
        return "multi-panel"
    if f.kind == "line":
        if f.err_style == "bars":
            return "line with error bars"
        if f.err_style == "band":
            return "line with shaded band"
        if f.log_y or f.log_x:
            return "line (log axis)"
        return "line"
    return {"bar": "grouped bar", "stacked_bar": "stacked bar", "hbar": "horizontal bar", "scatter": "scatter",
            "heatmap": "heatmap", "diagram": "diagram (procedural)", "image_grid": "image grid (procedural)"}[f.kind]


def _monotone(ys: list[float]) -> bool:
    d = [b - a for a, b in zip(ys, ys[1:])]
    return all(x >= 0 for x in d) or all(x <= 0 for x in d)


def _crosses(f: FigureGT) -> bool:
    ss = f.series
    return any((a.y[0] - b.y[0]) * (a.y[-1] - b.y[-1]) < 0 for i, a in enumerate(ss) for b in ss[i + 1:])


def _lines(f: FigureGT) -> list[FigureGT]:
    if f.kind == "line":
        return [f]
    if f.kind == "panels":
        return [FigureGT(n=f.n, kind="line", visual=f.visual, caption="", x_label=pn.x_label, y_label=pn.y_label,
                         series=pn.series) for pn in f.panels or []]
    return []


def name_area_guess(gt: GroundTruth, k: int = 3) -> tuple[float, float]:
    """(accuracy, chance): the area of each method name guessed as the majority area of the other papers'
    method names with the same last `k` letters (leave one out), against always guessing the largest area."""
    names = [(p.method, p.area) for p in gt.papers if p.method]
    by_end: dict[str, Counter] = defaultdict(Counter)
    for m, a in names:
        by_end[m[-k:].lower()][a] += 1
    overall = Counter(a for _, a in names)
    top = overall.most_common(1)[0][0]
    right = 0
    for m, a in names:
        c = by_end[m[-k:].lower()].copy()
        c[a] -= 1
        c = +c
        guess = c.most_common(1)[0][0] if c else top
        right += guess == a
    return right / len(names), overall[top] / len(names)


def _raster_dpis(root: Path, gt: GroundTruth, limit: int = 60) -> list[float]:
    """Effective resolution of embedded images on the pages of up to `limit` papers (pixels per inch as placed)."""
    import pymupdf

    out = []
    for p in gt.papers[:limit]:
        path = root / "corpus" / p.pdf
        if not path.is_file():
            continue
        with pymupdf.open(path) as doc:
            for page in doc:
                for info in page.get_image_info():
                    w_in = (info["bbox"][2] - info["bbox"][0]) / 72
                    if w_in > 0.8:
                        out.append(info["width"] / w_in)
    return out


def corpus_habits(gt: GroundTruth, root: Path | None = None) -> dict:
    papers = gt.papers
    n = len(papers)
    by_id = {p.id: p for p in papers}
    out: dict = {"papers": n, "generator_version": gt.generator_version}

    # areas: own datasets, metrics, sweep axes; coherence of sweeps with the plotted methods' families
    areas = Counter(p.area for p in papers)
    out["areas"] = len(areas)
    per_area = {}
    for a in sorted(areas):
        ps = [p for p in papers if p.area == a]
        axes = sorted({ln.x_label for p in ps for f in p.figures for ln in _lines(f)})
        per_area[a] = {"papers": len(ps), "datasets": sorted({d for p in ps for d in p.datasets}),
                       "metric": AREA_BY_NAME[a].metric if a in AREA_BY_NAME else "?", "sweep_axes": axes}
    out["per_area"] = per_area
    dsets = [set(v["datasets"]) for v in per_area.values()]
    out["datasets_shared_between_areas"] = sum(len(a & b) for i, a in enumerate(dsets) for b in dsets[i + 1:])
    incoherent = 0
    line_figs = 0
    fam_of = _families(gt)
    for p in papers:
        area = AREA_BY_NAME.get(p.area)
        for f in p.figures:
            for ln in _lines(f):
                line_figs += 1
                sweep = next((s for s in area.sweeps if s.x_label == ln.x_label), None) if area else None
                if sweep is None:
                    incoherent += 1
                    continue
                fams = {fam_of.get(s.method or "") for s in ln.series}
                if sweep.families and not fams <= set(sweep.families):
                    incoherent += 1
    out["sweeps_incoherent_with_families"] = incoherent
    out["sweep_plots"] = line_figs
    acc, chance = name_area_guess(gt)
    out["area_from_method_name"] = {"accuracy": round(acc, 3), "chance": round(chance, 3)}

    # references
    refs = [(p, by_id[r]) for p in papers for r in p.references if r in by_id]
    cross = sum(p.area != q.area for p, q in refs)
    out["references"] = len(refs)
    out["cross_area_reference_share"] = round(cross / max(1, len(refs)), 4)
    with_reason = 0
    for p in papers:
        sents = [s for para in (x for sec in p.sections for x in sec.paragraphs) for s in _SENT.split(para)]
        for i in range(1, len(p.references) + 1):
            citing = [s for s in sents if any(str(i) in m.group(1).split(", ") for m in _CITE.finditer(s))]
            with_reason += any(_REASON.search(s) for s in citing)
    out["references_with_reason_share"] = round(with_reason / max(1, len(refs)), 4)

    # sentences, titles, abstracts
    seen: dict[str, set[str]] = defaultdict(set)
    for p in papers:
        for s in sentences(p):
            seen[s].add(p.id)
    top_sentence, top_papers = max(seen.items(), key=lambda kv: (len(kv[1]), kv[0]))
    out["max_sentence_papers"] = len(top_papers)
    out["sentence_limit_papers"] = sentence_limit(n)
    out["max_sentence_paper_share"] = round(len(top_papers) / n, 4)
    out["most_repeated_sentence"] = top_sentence[:120] if len(top_papers) > 1 else ""
    out["distinct_sentences"] = len(seen)
    leaks = [(p.id, s) for p in papers for s in sentences(p) + [p.title] + [sec.title for sec in p.sections]
             if _MARKUP.search(s)]
    out["sentences_with_template_markup"] = len(leaks)
    out["template_markup_example"] = f"{leaks[0][0]}: {leaks[0][1][:120]}" if leaks else ""
    pats = Counter(title_pattern(p.title) for p in papers)
    out["title_patterns"] = dict(pats.most_common())
    out["title_pattern_count"] = len(pats)
    out["max_title_pattern_share"] = round(pats.most_common(1)[0][1] / n, 4)
    out["abstracts_claiming_best_share"] = round(sum(bool(_BEST.search(p.abstract)) for p in papers) / n, 4)
    surnames = {a.split()[-1] for p in papers for a in p.authors}
    out["author_surnames"] = len(surnames)

    # pages and structure
    pages = [p.pages or 0 for p in papers]
    out["pages"] = {"min": min(pages), "median": statistics.median(pages), "max": max(pages)}
    structs = Counter(tuple(re.sub(re.escape(p.method), "<M>", s.title) if p.method else s.title
                            for s in p.sections if "." not in s.number and s.number.isdigit()) for p in papers)
    out["section_structures"] = len(structs)
    out["max_section_structure_share"] = round(structs.most_common(1)[0][1] / n, 4)
    app_floats = 0
    for p in papers:
        text = " ".join(x for s in p.sections if s.number[0].isalpha() for x in s.paragraphs)
        app_floats += bool(re.search(r"\b(Figure|Table) \d+", text))
    out["papers_with_appendix_floats_share"] = round(app_floats / n, 4)

    # figures
    figs = [f for p in papers for f in p.figures]
    kinds = Counter(figure_kind(f) for f in figs)
    out["figures"] = len(figs)
    out["figure_kinds"] = {k: {"count": v, "share": round(v / len(figs), 4)} for k, v in kinds.most_common()}
    asked = [k for k in kinds if "procedural" not in k]
    out["figure_kinds_at_min_share"] = sum(kinds[k] / len(figs) >= MIN_KIND_SHARE for k in asked)
    lines = [ln for f in figs for ln in _lines(f)]
    out["line_plots"] = len(lines)
    out["line_plots_with_crossing_share"] = round(sum(_crosses(ln) for ln in lines) / max(1, len(lines)), 4)
    out["line_plots_non_monotone_share"] = round(sum(any(not _monotone(s.y) for s in ln.series) for ln in lines)
                                                 / max(1, len(lines)), 4)
    out["log_axis_figures"] = sum(f.log_x or f.log_y or any(pn.log_x or pn.log_y for pn in f.panels or []) for f in figs)
    out["procedural_figures"] = sum(f.procedural for f in figs)
    data_figs = [f for f in figs if not f.procedural]
    labels = [[s.label for s in f.series] + [s.label for pn in f.panels or [] for s in pn.series] for f in data_figs]
    out["figures_with_ours_in_legend_share"] = round(sum("Ours" in ls for ls in labels) / max(1, len(data_figs)), 4)
    out["visual"] = {"raster": sum(f.visual == "raster" for f in figs),
                     "vector exact": sum(f.visual == "vector" and f.vector_exact is True for f in figs),
                     "vector, marks as image": sum(f.visual == "vector" and f.vector_exact is False for f in figs)}
    dpis = sorted(f.dpi for f in figs if f.dpi)
    out["raster_dpi_planned"] = {"min": dpis[0], "median": statistics.median(dpis), "max": dpis[-1]} if dpis else {}
    if root is not None:
        measured = sorted(_raster_dpis(root, gt))
        if measured:
            out["raster_ppi_measured_in_pdfs"] = {"images": len(measured), "min": round(measured[0]),
                                                  "median": round(statistics.median(measured)), "max": round(measured[-1])}
    return out


def _families(gt: GroundTruth) -> dict[str, str]:
    """Method -> family key, recovered by replanning is not possible from the ground truth alone, so it is
    read from the v3 results model of the same seed and size."""
    from .plan import method_families

    return method_families(gt.seed, len(gt.papers))


def problems(h: dict) -> list[str]:
    """The thresholds of issue 26 item 3 that the habits `h` break (empty when all hold)."""
    out = []

    def need(ok: bool, what: str) -> None:
        if not ok:
            out.append(what)

    need(h["areas"] >= MIN_AREAS, f"areas {h['areas']} < {MIN_AREAS}")
    need(h["datasets_shared_between_areas"] == 0, "a dataset is shared by two areas")
    need(h["sweeps_incoherent_with_families"] == 0, f"{h['sweeps_incoherent_with_families']} sweeps incoherent with families")
    acc, chance = h["area_from_method_name"]["accuracy"], h["area_from_method_name"]["chance"]
    need(acc <= chance + 0.1, f"method names reveal the area ({acc:.0%} vs chance {chance:.0%})")
    need(h["cross_area_reference_share"] <= MAX_CROSS_AREA_REFS, f"cross-area references {h['cross_area_reference_share']:.1%}")
    need(h["references_with_reason_share"] >= 0.99, f"references with a reason {h['references_with_reason_share']:.1%}")
    need(h["max_sentence_papers"] <= h["sentence_limit_papers"],
         f"a sentence is in {h['max_sentence_papers']} papers ({h['max_sentence_paper_share']:.1%}, limit "
         f"{h['sentence_limit_papers']}): {h['most_repeated_sentence']!r}")
    need(h["sentences_with_template_markup"] == 0,
         f"{h['sentences_with_template_markup']} sentences keep template markup, e.g. {h['template_markup_example']!r}")
    need(h["title_pattern_count"] >= MIN_TITLE_PATTERNS, f"{h['title_pattern_count']} title patterns")
    need(h["max_title_pattern_share"] <= MAX_TITLE_PATTERN_SHARE, f"a title pattern has {h['max_title_pattern_share']:.1%}")
    need(h["abstracts_claiming_best_share"] <= MAX_BEST_CLAIMS, f"{h['abstracts_claiming_best_share']:.1%} abstracts claim the best")
    pg = h["pages"]
    need(pg["min"] >= MIN_PAGES and pg["max"] <= MAX_PAGES, f"pages {pg['min']}-{pg['max']}")
    need(pg["median"] >= MIN_MEDIAN_PAGES, f"median pages {pg['median']}")
    need(h["section_structures"] >= 4, f"{h['section_structures']} section structures")
    need(h["papers_with_appendix_floats_share"] > 0.3, "few appendices with floats")
    need(h["figure_kinds_at_min_share"] >= MIN_FIGURE_KINDS, f"{h['figure_kinds_at_min_share']} figure kinds at >= 3%")
    need(h["line_plots_with_crossing_share"] > 0.1, "few crossing curves")
    need(h["line_plots_non_monotone_share"] > 0.1, "few non-monotone curves")
    need(h["procedural_figures"] > 0, "no procedural figures")
    need(h["figures_with_ours_in_legend_share"] <= MAX_OURS_SHARE, f"'Ours' in {h['figures_with_ours_in_legend_share']:.1%} of legends")
    need(h["visual"]["raster"] > 0 and h["visual"]["vector exact"] > 0 and h["visual"]["vector, marks as image"] > 0,
         "raster, exact vector and rasterised-mark vector figures must all occur")
    return out
