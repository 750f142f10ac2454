"""The adversaries that know the generator: learned on a second benchmark, scored on the audited file. Each gives
one figure of the audit's table with its threshold: the calibrated guess and the learned regressor (figure values
from text), the answer priors per group of turns, the geometry reader (vector charts) and the no-vision composite.
With `advisory`, a broken threshold here is reported but does not fail the audit (until the default benchmark
passes them)."""
from __future__ import annotations

import re
from collections import defaultdict

from harness.episode import Episode
from harness.scoring.stats import wilson_interval

from ._answer_priors import PriorTurn, group_of, honest_accuracy, prior_turns, right, rules_for
from ._composite import Composite, needs_annotation, score
from ._features import FigureCase, make_case
from ._geometry import Chart, read_chart, value_at
from ._guessers import MIN_TRAIN, CalibratedGuess, LearnedRegressor, guesses, held_out, hit_rate, within
from ._items import AskedValue, asked_values
from ._model import Breakdown, CheckResult, Finding, pct, rate_shown
from ._texts import PaperReader
from ._training import TrainingSet
from ._views import PaperView, view_from_text

MAX_FIGURE_GUESSED = 5.0  # % of figure values a text guesser or the geometry reader may get within tolerance
MAX_POINTS_OVER_CHANCE = 5.0
MIN_GROUP = 20  # groups of fewer turns are listed, not judged
MAX_COMPOSITE_FINAL = 10.0  # % Acc_final of the no-vision composite
NO_FIGURE_VALUE = "the file asks no figure value (no number turn read from a figure)"
_TITLE_METHOD = re.compile(r"^([A-Z][\w\-]*[A-Z0-9][\w\-]*)\s*:")


def method_years(views: dict[str, PaperView]) -> dict[str, int | None]:
    """Method name -> year of the paper that introduced it (the name before ':' in its title)."""
    return {m.group(1): v.year for v in views.values() if (m := _TITLE_METHOD.match(v.title))}


def _status(value: float, limit: float, advisory: bool) -> tuple[str, bool]:
    return ("fail" if value > limit else "pass"), advisory and value > limit


def _not_checked(cid: str, title: str, threshold: str, why: str) -> CheckResult:
    return CheckResult(id=cid, title=title, shown="not checked", threshold=threshold, status="not checked",
                       not_checked_why=why, note=why)


def training_cases(ts: TrainingSet) -> tuple[list[FigureCase], list[FigureCase]]:
    """(to learn from, to validate on): every plotted point of the training papers (or, for a user's file, its
    annotated figure reads), and the second benchmark's asked figure values on the held-out papers."""
    learn: list[FigureCase] = []
    if ts.plotted:
        for (pid, n), f in ts.plotted.items():
            if held_out(pid):
                continue
            for s in f.series:  # type: ignore[attr-defined]
                for x, y in zip(s.x, s.y):
                    line = f.kind == "line"  # type: ignore[attr-defined]
                    d = f.dataset if line else str(x)  # type: ignore[attr-defined]
                    a = AskedValue("-", 0, pid, f"figure:{n}", y, 0.0, s.label, None, float(x) if line else None, True,
                                   "", None if line else str(x), d)
                    learn.append(make_case(a, ts.views[pid], ts.areas.get(pid)))
    asked = [make_case(a, ts.views[a.paper], ts.areas.get(a.paper) or ep.area)
             for ep in ts.episodes for a in asked_values(ep) if a.kind == "figure" and a.paper in ts.views]
    if not ts.plotted:
        learn = [c for c in asked if not held_out(c.item.paper)]
    return learn, [c for c in asked if held_out(c.item.paper)]


class LearnedAudit:
    """Runs the learned checks of one audit; reads the audited papers through `reader`."""

    def __init__(self, episodes: list[Episode], reader: PaperReader, areas: dict[str, str | None],
                 training: TrainingSet | None, why_not: str | None, advisory: bool):
        self.eps, self.reader, self.areas = episodes, reader, areas
        self.training, self.why_not, self.advisory = training, why_not, advisory
        self.views: dict[str, PaperView] = {}
        self.charts: dict[tuple[str, int], Chart | None] = {}

    async def _load(self, paper: str) -> PaperView:
        if paper not in self.views:
            pt = await self.reader.paper(paper)
            self.views[paper] = view_from_text(pt, pt.year)
        return self.views[paper]

    async def _charts(self, paper: str, figures: set[int]) -> None:
        """The paper's figures `figures` read by the geometry reader (from the PDF bytes the world serves)."""
        import pymupdf

        pt = await self.reader.paper(paper)
        todo = sorted(n for n in figures if n in pt.figure_where and (paper, n) not in self.charts)
        if not todo:
            return
        try:
            data = await self.reader.world.pdf_bytes(await self.reader.world.resolve(paper))
            doc = pymupdf.open(stream=data, filetype="pdf")
        except (OSError, ValueError, RuntimeError, LookupError):
            self.charts.update({(paper, n): None for n in todo})
            return
        with doc:
            for n in todo:
                page, bbox = pt.figure_where[n]
                self.charts[(paper, n)] = read_chart(doc[page - 1], bbox) if 1 <= page <= doc.page_count else None

    async def run(self) -> list[CheckResult]:
        from threadpoolctl import threadpool_limits

        # one thread for the models: OpenMP threads spin against each other on a busy 2-core machine, and
        # limiting them per call costs more than the call (threadpoolctl inspects every loaded library)
        with threadpool_limits(1):
            return await self._run()

    async def _run(self) -> list[CheckResult]:
        items = [(ep, a) for ep in self.eps for a in asked_values(ep) if a.kind == "figure"]
        papers = sorted({r.paper for ep in self.eps for t in ep.turns for r in t.reads} |
                        {e.paper for ep in self.eps for t in ep.turns for e in t.evidence})
        figures: dict[str, set[int]] = defaultdict(set)  # every figure a turn reads or needs as evidence
        for ep in self.eps:
            for t in ep.turns:
                for paper, unit in [(r.paper, r.unit) for r in t.reads] + [(e.paper, e.unit) for e in t.evidence]:
                    if unit.startswith("figure:"):
                        figures[paper].add(int(unit.split(":")[1]))
        for p in papers:
            await self._load(p)
            await self._charts(p, figures.get(p, set()))
        geometry = self._geometry(items)
        if self.training is None:
            why = self.why_not or "no second benchmark to learn from"
            return [_not_checked("calibrated_guess", "figure values: calibrated text guess", f"<= {MAX_FIGURE_GUESSED:g}%", why),
                    _not_checked("learned_regressor", "figure values: learned text regressor", f"<= {MAX_FIGURE_GUESSED:g}%", why),
                    _not_checked("learned_priors", "answer priors learned on a second benchmark",
                                 f"<= chance + {MAX_POINTS_OVER_CHANCE:g} points per group of >= {MIN_GROUP}", why),
                    geometry,
                    _not_checked("no_vision_composite", "no-vision composite (gold navigation)",
                                 f"ESR 0, Acc_final <= {MAX_COMPOSITE_FINAL:g}%", why)]
        return self._with_training(items, geometry, self.training)

    def _area(self, ep: Episode, paper: str) -> str | None:
        return self.areas.get(paper) or ep.area

    def _geometry(self, items: list[tuple[Episode, AskedValue]]) -> CheckResult:
        findings, vector, hits = [], 0, 0
        for ep, a in items:
            chart = self.charts.get((a.paper, int(a.unit.split(":")[1])))
            if chart is None:
                continue
            vector += 1
            v = value_at(chart, a.series or "", a.x, a.category if a.x is None else None)
            if v is not None and a.tolerance is not None and abs(v - a.value) <= a.tolerance + 1e-9:
                hits += 1
                findings.append(Finding(episode=ep.id, turn=a.turn, message=f"{a.paper} {a.unit} {a.series!r}: the drawing "
                                        f"gives {v:.2f} (gold {a.value:g} +/- {a.tolerance:g})"))
        share = pct(hits, len(items))
        status, adv = _status(share, MAX_FIGURE_GUESSED, self.advisory)
        return CheckResult(id="geometry_reader", title="figure values: vector geometry reader", count=hits, total=len(items),
                           value=share, shown=rate_shown(hits, len(items)), threshold=f"<= {MAX_FIGURE_GUESSED:g}%",
                           status=status if items else "not checked", advisory=adv, findings=findings,
                           not_checked_why=None if items else NO_FIGURE_VALUE,
                           breakdown=[Breakdown(label="figure values on charts drawn as vectors", count=vector, total=len(items))],
                           note="reads the PDF's drawing commands and tick labels (page.get_drawings, text spans)")

    def _cases(self, items: list[tuple[Episode, AskedValue]]) -> list[FigureCase]:
        return [make_case(a, self.views[a.paper], self._area(ep, a.paper)) for ep, a in items if a.paper in self.views]

    def _with_training(self, items: list[tuple[Episode, AskedValue]], geometry: CheckResult, ts: TrainingSet) -> list[CheckResult]:
        learn, validate = training_cases(ts)
        cases = self._cases(items)
        out: list[CheckResult] = []
        fitted: list[tuple[CalibratedGuess | LearnedRegressor, float]] = []
        for cid, title, g in (("calibrated_guess", "figure values: calibrated text guess", CalibratedGuess()),
                              ("learned_regressor", "figure values: learned text regressor", LearnedRegressor())):
            if len([c for c in learn if c.table is not None]) < MIN_TRAIN:
                out.append(_not_checked(cid, title, f"<= {MAX_FIGURE_GUESSED:g}%", f"the second benchmark has fewer than "
                                        f"{MIN_TRAIN} figure values with a table value to learn from ({ts.origin})"))
                continue
            g.fit(learn)
            vh, vn = hit_rate(g, validate)
            fitted.append((g, vh / vn if vn else 0.0))
            got = guesses(g, cases)
            hits = [(c, v) for c, v in zip(cases, got) if within(v, c)]
            share = pct(len(hits), len(items))
            status, adv = _status(share, MAX_FIGURE_GUESSED, self.advisory)
            out.append(CheckResult(
                id=cid, title=title, count=len(hits), total=len(items), value=share, shown=rate_shown(len(hits), len(items)),
                threshold=f"<= {MAX_FIGURE_GUESSED:g}%", status=status if items else "not checked", advisory=adv,
                not_checked_why=None if items else NO_FIGURE_VALUE,
                breakdown=[Breakdown(label="held-out papers of the second benchmark (validation)", count=vh, total=vn),
                           Breakdown(label="figure values with a table value of the same method and dataset",
                                     count=sum(c.table is not None for c in cases), total=len(items))],
                findings=[Finding(episode=c.item.episode, turn=c.item.turn, message=f"{c.item.paper} {c.item.unit} "
                                  f"{c.item.series!r}: guessed {v:.2f} from text (gold {c.value:g} +/- {c.tolerance:g})")
                          for c, v in hits if v is not None],
                note=f"learned on {len(learn)} plotted values; {ts.origin}"))
        priors_check, turns, prior_groups = self._priors(ts)
        out += [priors_check, geometry]
        best = max(fitted, key=lambda gv: gv[1])[0] if fitted else None
        out.append(self._composite(best, turns, prior_groups, ts))
        return out

    def _priors(self, ts: TrainingSet) -> tuple[CheckResult, tuple[list[PriorTurn], list[PriorTurn]], dict]:
        """The check, the (training, audited) prior turns, and per group the rule chosen with its training accuracy."""
        train = prior_turns(ts.episodes, ts.views, method_years(ts.views))
        audited = prior_turns(self.eps, self.views, method_years(self.views))
        by_group: dict[str, list[PriorTurn]] = defaultdict(list)
        for t in train:
            by_group[t.group].append(t)
        lines, findings, worst, judged, chosen = [], [], None, 0, {}
        groups: dict[str, list[PriorTurn]] = defaultdict(list)
        for t in audited:
            groups[t.group].append(t)
        for g in sorted(groups):
            turns = groups[g]
            chance = 100 * sum(t.chance for t in turns) / len(turns)
            if not by_group.get(g):
                lines.append(Breakdown(label=f"{g}: nothing to learn from (the second benchmark has no such turn)",
                                       count=0, total=len(turns)))
                continue
            rules = rules_for(g, by_group[g])
            scores = {n: honest_accuracy(n, r, by_group[g]) for n, r in rules.items()}
            name = max(scores, key=lambda n: scores[n])
            chosen[g] = (rules[name], scores[name])
            ok = [t for t in turns if right(rules[name], t)]
            acc = pct(len(ok), len(turns))
            over = acc - chance
            tag = "" if len(turns) >= MIN_GROUP else f" (fewer than {MIN_GROUP} turns: listed, not judged)"
            lines.append(Breakdown(label=f"{g}: {name}: {acc:.1f}% vs chance {chance:.1f}% ({over:+.1f} points){tag}",
                                   count=len(ok), total=len(turns)))
            if len(turns) >= MIN_GROUP:
                judged += 1
                if worst is None or over > worst[0]:
                    worst = (over, g, name, acc, chance)
                if over > MAX_POINTS_OVER_CHANCE:
                    findings += [Finding(episode=t.episode, turn=t.turn, message=f"{g}: {name} is right") for t in ok]
        threshold = f"<= chance + {MAX_POINTS_OVER_CHANCE:g} points per group of >= {MIN_GROUP} turns"
        if worst is None:
            return (CheckResult(id="learned_priors", title="answer priors learned on a second benchmark", shown="no group of "
                                f">= {MIN_GROUP} turns", threshold=threshold, status="not checked", breakdown=lines,
                                not_checked_why=f"no group of answer format and op has {MIN_GROUP} turns"), (train, audited), chosen)
        over, g, name, acc, chance = worst
        status, adv = _status(over, MAX_POINTS_OVER_CHANCE, self.advisory)
        return (CheckResult(id="learned_priors", title="answer priors learned on a second benchmark", count=judged,
                            total=len(groups), value=over, shown=f"{g}: {name}: {acc:.1f}% vs chance {chance:.1f}% ({over:+.1f})",
                            threshold=threshold, status=status, advisory=adv, breakdown=lines, findings=findings,
                            note=f"rule per group chosen on the second benchmark ({ts.origin})"),
                (train, audited), chosen)

    def _composite(self, guesser: CalibratedGuess | LearnedRegressor | None,
                   turns: tuple[list[PriorTurn], list[PriorTurn]], chosen: dict, ts: TrainingSet) -> CheckResult:
        def answerer(prior_turns_: list[PriorTurn]):  # noqa: ANN202
            by_key = {(t.episode, t.turn): t for t in prior_turns_}

            def prior(ep: Episode, ti: int) -> str | None:
                """The chosen prior's answer to a turn, written as the turn's format wants it."""
                t = by_key.get((ep.id, ti + 1))
                rule = chosen.get(t.group) if t is not None else None
                if t is None or rule is None:
                    return None
                pick = rule[0](t)
                if t.group == "count":
                    return None if pick is None else str(pick)
                if not isinstance(pick, set) or not pick:
                    return None
                turn = ep.turns[ti]
                if turn.answer.format == "choice" and turn.answer.choices:
                    name = next(iter(pick))
                    return next((k for k, v in turn.answer.choices.items() if v == name), None)
                return ", ".join(c for c in t.candidates if c in pick)
            return prior

        def estimator(views: dict[str, PaperView], charts: dict, areas: dict):
            memo: dict[tuple, float | None] = {}

            def estimate(paper: str, unit: str, series: str, x: float | None, dataset: str | None) -> float | None:
                key = (paper, unit, series, x, dataset)
                if key not in memo:
                    memo[key] = _estimate(paper, unit, series, x, dataset)
                return memo[key]

            def prime(episodes: list[Episode]) -> None:
                """Estimate every figure read of the episodes at once (one model call instead of one per value)."""
                keys = {(r.paper, r.unit, r.series, r.x, r.dataset) for ep in episodes for t in ep.turns for r in t.reads
                        if r.unit.startswith("figure:") and r.series and r.paper in views}
                todo = []
                for k in keys:
                    chart = charts.get((k[0], int(k[1].split(":")[1])))
                    v = value_at(chart, k[2], k[3], k[4] if k[3] is None else None) if chart is not None else None
                    if v is not None:
                        memo[k] = v
                    else:
                        todo.append(k)
                if guesser is None or not todo:
                    return
                cases = [make_case(AskedValue("-", 0, p, u, 0.0, 0.0, se, None, x, True, "", d if x is None else None, d),
                                   views[p], areas.get(p)) for p, u, se, x, d in todo]
                memo.update(zip(todo, guesses(guesser, cases)))

            estimate.prime = prime  # type: ignore[attr-defined]

            def _estimate(paper: str, unit: str, series: str, x: float | None, dataset: str | None) -> float | None:
                chart = charts.get((paper, int(unit.split(":")[1])))
                if chart is not None:
                    v = value_at(chart, series, x, dataset if x is None else None)
                    if v is not None:
                        return v
                if guesser is None or paper not in views:
                    return None
                a = AskedValue("-", 0, paper, unit, 0.0, 0.0, series, None, x, True, "", dataset if x is None else None, dataset)
                return guesser.predict(make_case(a, views[paper], areas.get(paper)))
            return estimate

        # which groups the prior answers: those where it scored better on the second benchmark than computing
        train_estimate = estimator(ts.views, {}, ts.areas)
        train_estimate.prime(ts.episodes)
        trained = Composite(train_estimate, ts.views, answerer(turns[0]), lambda turn: False)
        compute: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        from harness.scoring.match import match_answer

        for ep in ts.episodes:
            for ti, turn in enumerate(ep.turns):
                g = group_of(turn)
                if g in chosen:
                    ans, _ = trained.answer(ep, ti)
                    compute[g][0] += bool(ans is not None and match_answer(ans, turn.answer, turn.question).correct)
                    compute[g][1] += 1
        use = {g for g, (_, acc) in chosen.items() if acc > compute[g][0] / max(1, compute[g][1])}
        audited_estimate = estimator(self.views, self.charts, self.areas)
        audited_estimate.prime(self.eps)
        comp = Composite(audited_estimate, self.views, answerer(turns[1]),
                         lambda turn: group_of(turn) in use)
        title, threshold = "no-vision composite (gold navigation)", f"ESR 0, Acc_final <= {MAX_COMPOSITE_FINAL:g}%"
        judged = [ep for ep in self.eps if not any(needs_annotation(t) for t in ep.turns)]
        skipped = len(self.eps) - len(judged)
        skipped_why = "episodes with a number or set turn that has no `reads`/`derivation` annotation"
        if not judged:
            return _not_checked("no_vision_composite", title, threshold, f"{skipped_why} (all {skipped}): the composite "
                                "computes those answers from the annotations")
        s = score(comp, judged)
        esr = pct(s.successes, s.episodes)
        ci = wilson_interval(s.successes, s.episodes) if s.episodes else None
        acc_final, acc_pre = pct(s.finals_right, s.episodes), pct(s.pre_right, s.pre_total)
        bad = s.successes > 0 or acc_final > MAX_COMPOSITE_FINAL
        ci_text = f" [{100 * ci.low:.1f}, {100 * ci.high:.1f}]" if ci is not None else ""
        if guesser is None and not bad:  # a pass without the text guessers would be a pass of a weaker adversary
            return _not_checked("no_vision_composite", title, threshold, "no text guesser could be learned from the "
                                f"second benchmark ({ts.origin}); without figure estimates the composite proves nothing "
                                f"by passing (it reached ESR {esr:.1f}%, Acc_final {acc_final:.1f}%)")
        return CheckResult(
            id="no_vision_composite", title=title, count=s.successes, total=s.episodes,
            value=acc_final, shown=f"ESR {esr:.1f}%{ci_text}, Acc_final {acc_final:.1f}%, Acc_pre {acc_pre:.1f}%",
            threshold=threshold, status="fail" if bad else "pass", advisory=self.advisory and bad,
            not_checked=skipped, not_checked_why=skipped_why if skipped else None,
            breakdown=[Breakdown(label=f"turns answered by {how}", count=r, total=n) for how, (r, n) in sorted(s.by_source.items())],
            findings=[Finding(episode=e, message="every turn right without looking at an image") for e in s.wins],
            note=(f"finals right {s.finals_right}/{s.episodes}; the answer prior answers: {', '.join(sorted(use)) or 'no group'}; "
                  f"figure values: the geometry reader on vector charts, else "
                  f"{'the ' + guesser.name if guesser else 'no estimate (no text guesser learned)'}"))
