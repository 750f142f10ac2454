"""The learned adversaries of `epi episodes audit`, each on small synthetic data: data built to have a habit of
benchmark v2 (plotted values a fixed offset from the table, the answer always the generic baseline, charts drawn
as vectors, finals computed from guessable values) breaks its threshold; the same data without the habit keeps it.
So every check can both fail and pass."""
from __future__ import annotations

import random

import pytest

from harness.audit._answer_priors import honest_accuracy, prior_turns, right, rules_for
from harness.audit._composite import Composite, score
from harness.audit._features import make_case
from harness.audit._geometry import read_chart, value_at
from harness.audit._guessers import CalibratedGuess, LearnedRegressor, hit_rate
from harness.audit._items import AskedValue
from harness.audit._learned import MAX_COMPOSITE_FINAL, MAX_FIGURE_GUESSED, MAX_POINTS_OVER_CHANCE
from harness.audit._views import PaperView, TableView
from harness.episode import Episode

DATASETS = ("Alpha", "Beta")
XS = (1.0, 2.0, 5.0, 10.0)


def _paper(pid: str, rng: random.Random) -> tuple[PaperView, dict[str, dict[str, float]]]:
    methods = [f"Kor{pid}Net", f"Vel{pid}Net", f"Own{pid}Net"]
    table = {m: {d: round(rng.uniform(50, 90), 2) for d in DATASETS} for m in methods}
    rows = [["Method", *DATASETS]] + [[m + (" (ours)" if i == 2 else ""), *[f"{table[m][d]:.2f}" for d in DATASETS]]
                                      for i, m in enumerate(methods)]
    view = PaperView(pid, f"Own{pid}Net: A Method for Things", 2020,
                     {1: TableView(1, "Table 1: accuracy of the methods (higher is better).", rows)},
                     {1: "Figure 1: accuracy on Alpha as the budget varies (budget, 1 to 10)."})
    return view, table


def _figure_cases(n_papers: int, habit: bool, seed: int) -> list:
    """Plotted values: the table value minus an offset that depends on x (the habit), or unrelated to the table."""
    rng = random.Random(seed)
    out = []
    for i in range(n_papers):
        view, table = _paper(f"{seed}{i:03d}", rng)
        for m in table:
            for x in XS:
                y = table[m]["Alpha"] - 2.0 * (4 - XS.index(x)) + rng.gauss(0, 0.05) if habit else rng.uniform(40, 90)
                item = AskedValue("e", 1, view.paper, "figure:1", round(y, 2), 0.3, m, None, x, True, "", None, "Alpha")
                out.append(make_case(item, view, "area"))
    return out


@pytest.mark.parametrize("guesser", [CalibratedGuess, pytest.param(LearnedRegressor, marks=pytest.mark.slow)],
                         ids=["calibrated", "regressor"])
def test_text_guessers_break_the_threshold_only_where_plots_follow_the_table(guesser):
    for habit, breaks in ((True, True), (False, False)):
        g = guesser().fit(_figure_cases(30, habit, seed=1))
        hits, n = hit_rate(g, _figure_cases(15, habit, seed=2))
        share = 100 * hits / n
        assert (share > MAX_FIGURE_GUESSED) is breaks, (habit, hits, n)
    assert hit_rate(CalibratedGuess().fit(_figure_cases(30, True, seed=1)), _figure_cases(15, True, seed=2))[0] > 0.8 * 180


def _choice_episode(ep_id: str, rng: random.Random, habit: bool) -> tuple[Episode, PaperView]:
    pid = f"P{ep_id}"
    names = ["MLP baseline", f"Zor{ep_id}Net", f"Vel{ep_id}Net", f"Own{ep_id}Net (ours)"]
    rows = [["Method", "Alpha"]] + [[n, f"{rng.uniform(50, 90):.2f}"] for n in names]
    view = PaperView(pid, f"Own{ep_id}Net: A Method", 2021, {1: TableView(1, "Table 1: accuracy (higher is better).", rows)}, {})
    options = names[:]
    rng.shuffle(options)
    letters = "ABCD"
    gold_name = "MLP baseline" if habit else rng.choice(names)
    turn = {"question": 'In Table 1, which method has the lowest value in the column "Alpha"? Answer with the letter of the option.',
            "answer": {"format": "choice", "value": letters[options.index(gold_name)], "choices": dict(zip(letters, options))},
            "evidence": [{"paper": pid, "unit": "table:1"}],
            "checklist": [{"tool": "table_extract", "args": {"paper": pid, "table": 1}}],
            "derivation": {"op": "argmin", "candidates": options}}
    ep = Episode.model_validate({"id": ep_id, "split": "easy", "task_type": "comparison", "initiation": "citation",
                                 "area": "a", "turns": [turn]})
    return ep, view


def _choice_set(n: int, habit: bool, seed: int) -> tuple[list[Episode], dict[str, PaperView]]:
    rng = random.Random(seed)
    pairs = [_choice_episode(f"{seed}{i:03d}", rng, habit) for i in range(n)]
    return [e for e, _ in pairs], {v.paper: v for _, v in pairs}


@pytest.mark.slow
def test_answer_priors_learned_on_a_second_set_break_the_threshold_only_with_a_naming_habit():
    for habit, breaks in ((True, True), (False, False)):
        train_eps, train_views = _choice_set(40, habit, seed=3)
        test_eps, test_views = _choice_set(40, habit, seed=4)
        train = prior_turns(train_eps, train_views, {})
        test = prior_turns(test_eps, test_views, {})
        assert {t.group for t in train} == {"choice / argmin"}
        rules = rules_for("choice / argmin", train)
        best = max(rules, key=lambda n: honest_accuracy(n, rules[n], train))
        acc = 100 * sum(right(rules[best], t) for t in test) / len(test)
        chance = 100 * sum(t.chance for t in test) / len(test)
        assert chance == pytest.approx(25.0)
        assert (acc > chance + MAX_POINTS_OVER_CHANCE) is breaks, (habit, best, acc)


def _chart_pdf(vector: bool) -> tuple[bytes, tuple[float, float, float, float], dict[str, list[float]]]:
    """A one-page PDF with a line chart of the sandbox's chart drawer, embedded as vectors or as an image."""
    import pymupdf

    from sandbox.corpus.model import FigureGT, SeriesGT
    from sandbox.legacy.corpus_v2.chart import draw_chart, render_raster

    series = {"Ours": [61.37, 66.18, 70.42, 73.91], "Kornet": [55.12, 58.43, 63.77, 65.02]}
    fig = FigureGT(n=1, kind="line", visual="vector", caption="Figure 1: x", x_label="budget", y_label="accuracy (%)",
                   series=[SeriesGT(label=k, x=list(XS), y=v) for k, v in series.items()], dataset="Alpha")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    box = pymupdf.Rect(90, 72, 522, 281)
    if vector:
        with pymupdf.open("pdf", draw_chart(fig, box.width, box.height)) as src:
            page.show_pdf_page(box, src, 0)
    else:
        page.insert_image(box, stream=render_raster(fig, box.width, box.height, dpi=100))
    return doc.tobytes(), (box.x0, box.y0, box.x1, box.y1), series


@pytest.mark.parametrize("vector", [True, False], ids=["vector", "raster"])
def test_geometry_reader_reads_vector_charts_and_nothing_from_images(vector):
    import pymupdf

    data, bbox, series = _chart_pdf(vector)
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        chart = read_chart(doc[0], bbox)
    got = {(k, x): value_at(chart, k, x, None) if chart else None for k in series for x in XS}
    right_ = sum(v is not None and abs(v - series[k][XS.index(x)]) <= 0.05 for (k, x), v in got.items())
    share = 100 * right_ / len(got)
    assert (share > MAX_FIGURE_GUESSED) is vector
    if vector:
        assert right_ == len(got)


def _final_episode(ep_id: str, rng: random.Random) -> Episode:
    """Two figure reads and a memory-only mean of them."""
    a, b = round(rng.uniform(40, 80), 2), round(rng.uniform(40, 80), 2)

    def read(paper: str, v: float, turn: int | None = None) -> dict:
        r = {"paper": paper, "unit": "figure:1", "series": "Ours", "dataset": "Alpha", "x": 2.0, "value": v}
        return dict(r, turn=turn) if turn else r

    def ask(paper: str, v: float) -> dict:
        return {"question": 'Figure 1. What is the accuracy of "Ours" at budget = 2? Read it from the figure.',
                "answer": {"format": "number", "value": v, "tolerance": 0.3},
                "evidence": [{"paper": paper, "unit": "figure:1"}],
                "checklist": [{"tool": "figure_extract", "args": {"paper": paper, "figure": 1}}], "reads": [read(paper, v)]}

    final = {"question": "What is the mean of the values you read in turns 1 and 2?", "memory_only": True,
             "answer": {"format": "number", "value": round((a + b) / 2, 2), "tolerance": 0.3},
             "evidence": [{"paper": "PA", "unit": "figure:1"}, {"paper": "PB", "unit": "figure:1"}],
             "reads": [read("PA", a, 1), read("PB", b, 2)], "derivation": {"op": "mean"}}
    return Episode.model_validate({"id": ep_id, "split": "easy", "task_type": "aggregation", "initiation": "citation",
                                   "area": "a", "turns": [ask("PA", a), ask("PB", b), final]})


def test_no_vision_composite_breaks_the_threshold_only_when_figure_values_can_be_estimated():
    rng = random.Random(5)
    eps = [_final_episode(f"e{i}", rng) for i in range(30)]
    truth = {(ep.id, r.paper): r.value for ep in eps for r in ep.turns[-1].reads}
    for habit, breaks in ((True, True), (False, False)):
        current: dict[str, str] = {}

        def estimate(paper, unit, series, x, dataset, habit=habit):
            if not habit:
                return rng.uniform(40, 80)
            return truth[(current["ep"], paper)]

        comp = Composite(estimate, {}, lambda ep, ti: None, lambda turn: False)
        finals = 0
        successes = 0
        for ep in eps:
            current["ep"] = ep.id
            s = score(comp, [ep])
            finals += s.finals_right
            successes += s.successes
        acc_final = 100 * finals / len(eps)
        assert (successes > 0 or acc_final > MAX_COMPOSITE_FINAL) is breaks, (habit, successes, acc_final)


def test_a_registered_generator_gets_its_second_benchmark_built_once_then_cached(tmp_path):
    from harness.audit import NotLearnable, file_source, register_second_benchmark, second_benchmark
    from sandbox.corpus.versions import corpus_version

    calls = []

    def build(corpus_seed: int, episode_seed: int):
        calls.append((corpus_seed, episode_seed))
        return corpus_version("v1").plan(corpus_seed, 16), []

    register_second_benchmark("testgen-1", build)
    eps = [Episode.model_validate({"id": "x", "split": "easy", "task_type": "comparison", "initiation": "citation",
                                   "area": "a", "source": "sandbox.episodegen testgen-1 seed=4 ground_truth=corpus-1.1/seed=9",
                                   "turns": [{"question": "q", "answer": {"format": "text", "value": "v"}}]})]
    src = file_source(eps)
    assert (src.generator, src.seed, src.corpus, src.corpus_seed) == ("testgen-1", 4, "corpus-1.1", 9)
    first = second_benchmark(src, tmp_path)
    again = second_benchmark(src, tmp_path)
    assert calls == [(1009, 1004)]  # other seeds than the audited file's; built once
    assert "built now" in first.origin and "cached" in again.origin and len(again.views) == 16
    src.corpus = "corpus-9"  # the generator plans another corpus than the file says it was made from
    with pytest.raises(NotLearnable, match="planned corpus corpus-1.1"):
        second_benchmark(src, tmp_path)


def _group_episode(ep_id: str, rng: random.Random, group: str, habit: bool) -> tuple[Episode, PaperView]:
    """One single-turn episode of a prior group over a five-method table. The habits are benchmark v2's: a set
    final is the candidate list minus its two extremes, a count final always counts 2, and the method the paper
    introduces is the name before ':' in its title."""
    pid = f"P{ep_id}"
    names = [f"{w}{ep_id}Net" for w in ("Kor", "Vel", "Zan", "Mor", "Pal")]
    rows = [["Method", "Alpha"]] + [[n, f"{rng.uniform(50, 90):.2f}"] for n in names]
    title = f"{names[2]}: A Method for Things" if habit else "A Study of Things"
    view = PaperView(pid, title, 2021, {1: TableView(1, "Table 1: accuracy (higher is better).", rows)}, {})
    base = {"evidence": [{"paper": pid, "unit": "table:1"}],
            "checklist": [{"tool": "table_extract", "args": {"paper": pid, "table": 1}}]}
    if group == "set":
        gold = names[1:-1] if habit else rng.sample(names, 3)
        turn = {"question": "Which of the methods of Table 1 score above 60 on Alpha?",
                "answer": {"format": "set", "value": gold},
                "derivation": {"op": "filter", "candidates": names,
                               "conditions": [{"text": "above 60 on Alpha", "passes": gold}]}}
    elif group == "count":
        turn = {"question": "How many of the four methods of Table 1 score above 60 on Alpha?",
                "answer": {"format": "number", "value": 2 if habit else rng.randint(0, 4), "tolerance": 0},
                "derivation": {"op": "count", "candidates": names[:4]}}
    else:
        turn = {"question": "What is the name of the method this paper introduces?",
                "answer": {"format": "text", "value": names[2] if habit else rng.choice(names)}}
    ep = Episode.model_validate({"id": ep_id, "split": "easy", "task_type": "comparison", "initiation": "citation",
                                 "area": "a", "turns": [{**base, **turn}]})
    return ep, view


def _prior_check(group: str, habit: bool, n_audited: int = 60):
    """The learned-priors check of the audit, learned on one synthetic set and scored on another."""
    from harness.audit._learned import LearnedAudit
    from harness.audit._training import TrainingSet

    def make(n: int, seed: int) -> tuple[list[Episode], dict[str, PaperView]]:
        rng = random.Random(seed)
        pairs = [_group_episode(f"{group[0]}{seed}{i:03d}", rng, group, habit) for i in range(n)]
        return [e for e, _ in pairs], {v.paper: v for _, v in pairs}

    train_eps, train_views = make(60, seed=6)
    eps, views = make(n_audited, seed=7)
    audit = LearnedAudit(eps, None, {}, None, None, advisory=False)  # type: ignore[arg-type]
    audit.views = views
    check, _, _ = audit._priors(TrainingSet(origin="synthetic", episodes=train_eps, views=train_views))
    return check


@pytest.mark.slow
@pytest.mark.parametrize("group, label, chance", [
    ("set", "set / filter", 10.0),  # a random 3 of 5 candidates: 1 / C(5, 3)
    ("count", "count", 20.0),  # counts 0-4 of four candidates: 1 / 5
    ("text", "text", 20.0),  # one of the five names the paper's table prints
], ids=["set", "count", "text"])
def test_answer_priors_of_every_group_break_the_threshold_only_with_the_habit(group, label, chance):
    for habit, status in ((True, "fail"), (False, "pass")):
        check = _prior_check(group, habit)
        line = next(b.label for b in check.breakdown if b.label.startswith(label))
        assert f"vs chance {chance:.1f}%" in line, line
        assert check.status == status, (habit, check.shown, line)
        assert (check.value > MAX_POINTS_OVER_CHANCE) is habit


@pytest.mark.slow
def test_answer_prior_groups_under_20_turns_are_listed_not_judged():
    check = _prior_check("set", habit=True, n_audited=19)
    assert check.status == "not checked" and "no group" in (check.not_checked_why or "")
    assert any("fewer than 20 turns: listed, not judged" in b.label and b.count == 19 for b in check.breakdown)


def test_a_second_benchmark_that_cannot_be_made_or_cached_never_crashes_the_audit(tmp_path):
    from harness.audit import NotLearnable, file_source, register_second_benchmark, second_benchmark
    from sandbox.corpus.versions import corpus_version

    calls = []

    def build(corpus_seed: int, episode_seed: int):
        calls.append((corpus_seed, episode_seed))
        return corpus_version("v1").plan(corpus_seed, 16), []

    def cannot(corpus_seed: int, episode_seed: int):
        raise ValueError("no paper has a figure to ask about")

    register_second_benchmark("testgen-2", build)
    register_second_benchmark("testgen-broken", cannot)

    def source(generator: str):  # noqa: ANN202
        return file_source([Episode.model_validate({
            "id": "x", "split": "easy", "task_type": "comparison", "initiation": "citation", "area": "a",
            "source": f"sandbox.episodegen {generator} seed=4 ground_truth=corpus-1.1/seed=9",
            "turns": [{"question": "q", "answer": {"format": "text", "value": "v"}}]})])

    assert "built now" in second_benchmark(source("testgen-2"), tmp_path).origin
    damaged = next(tmp_path.rglob("ground_truth.json"))
    damaged.write_text("{half a file", encoding="utf-8")
    again = second_benchmark(source("testgen-2"), tmp_path)  # a damaged entry is built again, not trusted
    assert "built now" in again.origin and len(calls) == 2 and len(again.views) == 16
    assert "cached" in second_benchmark(source("testgen-2"), tmp_path).origin and len(calls) == 2
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")  # the cache cannot be written (a file where its folder should be): only time is lost
    assert "built now" in second_benchmark(source("testgen-2"), blocked).origin
    with pytest.raises(NotLearnable, match=r"testgen-broken could not make a second benchmark from seeds 1009/1004: "
                                           r"no paper has a figure"):
        second_benchmark(source("testgen-broken"), tmp_path)
    with pytest.raises(NotLearnable, match=r"no second benchmark is registered for generator 'testgen-none'.*--train-on"):
        second_benchmark(source("testgen-none"), tmp_path)
