"""The episode generator: deterministic, valid against the catalog, replayable checklists, unique cues,
answers that re-derive from the ground truth, and the EpiBench composition."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli._apps import app
from harness.episode import Episode
from harness.episodes_io import checklist_coverage_problems, episode_stats, exposed_units, load_episodes
from sandbox import paths
from sandbox.corpus.model import Catalog, GroundTruth
from sandbox.episodegen import GenerationError, generate_episodes, write_episodes
from tests.sandbox.episode_reader import EpisodeReader
from tests.sandbox.gt_fixture import catalog_of, make_ground_truth

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "episodes" / "sandbox-v1.jsonl"
COUNT = 40


@pytest.fixture(scope="module")
def gt() -> GroundTruth:
    return make_ground_truth()


@pytest.fixture(scope="module")
def episode_file(gt, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eps") / "gen.jsonl"
    write_episodes(generate_episodes(gt, seed=3, count=COUNT), out)
    return out


@pytest.fixture(scope="module")
def episodes(gt, episode_file) -> list[Episode]:
    return load_episodes(episode_file, catalog=catalog_of(gt)).episodes


def test_same_seed_same_file_other_seed_other_file(gt, episode_file, tmp_path):
    again = tmp_path / "again.jsonl"
    assert write_episodes(generate_episodes(gt, seed=3, count=COUNT), again) == hashlib.sha256(episode_file.read_bytes()).hexdigest()
    other = tmp_path / "other.jsonl"
    write_episodes(generate_episodes(gt, seed=4, count=COUNT), other)
    assert other.read_bytes() != episode_file.read_bytes()


def test_every_episode_validates_and_has_the_protocol_shape(episodes):
    assert len(episodes) == COUNT
    for ep in episodes:
        assert 4 <= len(ep.turns) <= 6 and ep.requires_reuse and ep.source and "episodegen" in ep.source
        assert all(t.evidence for t in ep.turns)
        assert [t.memory_only for t in ep.turns] == [False] * (len(ep.turns) - 1) + [True]
        assert len({e.paper for e in ep.turns[-1].evidence}) >= 2, f"{ep.id}: final turn fuses one paper only"
        first = ep.turns[0]
        assert first.checklist[0].tool == "web_search" and first.checklist[0].args == {"query": first.cue.text}


def test_replayed_checklists_expose_all_evidence_and_only_existing_units(gt, episodes):
    units = {(p.id, "text") for p in gt.papers}
    units |= {(p.id, f"figure:{f.n}") for p in gt.papers for f in p.figures}
    units |= {(p.id, f"table:{t.n}") for p in gt.papers for t in p.tables}
    for ep in episodes:
        assert checklist_coverage_problems(ep) == [], ep.id
        for t in ep.turns:
            for step in t.checklist:
                assert exposed_units(step.tool, step.args) <= units, (ep.id, step)
                if step.tool == "web_search":
                    assert set(step.args) == {"query"}


def test_composition_follows_epibench(episodes):
    st = episode_stats(episodes)
    assert st.by_split == {"easy": 16, "hard": 24}
    assert st.by_task_type == {"aggregation": 10, "comparison": 16, "constraint": 14}
    assert st.by_initiation == {"citation": 18, "direct_title": 8, "indirect_hint": 14}
    assert max(st.turns_per_episode, key=st.turns_per_episode.get) == "5"
    assert set(st.by_answer_format) == {"choice", "number", "text", "set"}


def _mentioned(names: set[str], text: str) -> set[str]:
    found = {n for n in names if n and n in text}
    return {n for n in found if not any(n != m and n in m for m in found)}


def _consistent(p, text: str, corpus) -> bool:
    """Could paper `p` be the one this cue text describes? Checks every kind of metadata the text states."""
    surnames = {q.authors[0].split()[-1] for q in corpus}
    checks = [
        (_mentioned({f"{s} et al." for s in surnames}, text), {f"{p.authors[0].split()[-1]} et al."}),
        (_mentioned({q.venue for q in corpus}, text), {p.venue}),
        (set(re.findall(r"(?<![-\w])(?:19|20)\d\d\b", text)), {str(p.year)}),
        (_mentioned({q.task for q in corpus}, text), {p.task}),
        (_mentioned({q.method for q in corpus}, text), {p.method}),
        (_mentioned({q.title.split(":", 1)[1].split(" for ")[0].strip().lower() for q in corpus}, text.lower()),
         {p.title.split(":", 1)[1].split(" for ")[0].strip().lower()}),
    ]
    if not all(found <= own for found, own in checks if found):
        return False
    datasets = _mentioned({d for q in corpus for d in q.datasets}, text)
    titles = re.findall(r'"(.+?)"', text)
    return datasets <= set(p.datasets) and all(t == p.title for t in titles)


def test_every_cue_designates_exactly_one_paper(gt, episodes):
    corpus = gt.papers
    by_id = {p.id: p for p in corpus}
    for ep in episodes:
        for ti, t in enumerate(ep.turns):
            if t.cue is None:
                continue
            target = t.evidence[0].paper
            pool = corpus
            if m := re.search(r"the paper from turn (\d+)", t.cue.text):
                src = by_id[ep.turns[int(m.group(1)) - 1].evidence[0].paper]
                cites = "A paper that cites" not in t.cue.text
                pool = [by_id[r] for r in src.references] if cites else [q for q in corpus if src.id in q.references]
            hits = [p.id for p in pool if _consistent(p, t.cue.text, corpus)]
            assert hits == [target], (ep.id, ti + 1, t.cue.text, hits)


def test_answers_rederive_from_the_ground_truth(gt, episodes):
    """Every value, sum, mean, count, difference, ranking and set re-computed from the question text."""
    for ep in episodes:
        r = EpisodeReader(gt, ep)
        for i, t in enumerate(ep.turns):
            a = t.answer
            if not t.memory_only and a.format == "number":
                v = r.reading_value(i)
                assert v is not None and abs(a.value - v) < 1e-3, (ep.id, i + 1, t.question)
            if not t.memory_only and a.format == "choice":
                assert a.choices[a.value] == r.ranking_label(i), (ep.id, i + 1)
            if not t.memory_only and a.format == "text":
                assert a.value == r.papers[t.evidence[0].paper].method and t.evidence[0].unit == "text"
            if not t.memory_only:
                continue
            q = t.question
            if a.format == "set" or "Exactly one of them" in q:
                first, second, word, ref, t2 = r.candidates(q)
                passing = {c for c, x in first.items() if (x > ref if word == "higher" else x < ref)
                           and (second is None or t2 is None or second[c] > t2)}
                if a.format == "set":
                    assert passing == set(a.value), (ep.id, passing, a.value)
                else:
                    assert [a.choices[a.value]] == sorted(passing), ep.id
            elif m := re.search(r"(sum|mean) of these values you read earlier: (.+)\?", q):
                vals = [r.phrase_value(x) for x in re.split(r"; \(\d\) ", m.group(2).removeprefix("(1) "))]
                want = sum(vals) if m.group(1) == "sum" else sum(vals) / len(vals)
                assert abs(a.value - want) < 1e-3 and a.tolerance > 0, ep.id
            elif m := re.search(r"greater than ([\d.]+): (.+)\?", q):
                vals = [r.phrase_value(x) for x in re.split(r"; \(\d\) ", m.group(2).removeprefix("(1) "))]
                assert a.value == sum(x > float(m.group(1)) for x in vals) and a.tolerance == 0, ep.id
                assert all(abs(x - float(m.group(1))) > 0.005 for x in vals), ep.id
            elif m := re.search(r"these values you read earlier: (.+)\. By how much does the highest of them exceed", q):
                vals = [r.phrase_value(x) for x in re.split(r"; \(\d\) ", m.group(1).removeprefix("(1) "))]
                assert abs(a.value - (max(vals) - min(vals))) < 1e-3, ep.id
                assert sorted(vals)[1] - min(vals) > a.tolerance / 2 and max(vals) - sorted(vals)[-2] > a.tolerance / 2, ep.id
            elif m := re.search(r"Which is higher, (.+?) or (the .+?), and by how much", q):
                x, y = r.phrase_value(m.group(1)), r.phrase_value(m.group(2))
                assert abs(a.value - (x - y)) < 1e-3 and abs(x - y) > a.tolerance, ep.id
            else:
                word = re.search(r"Which of these is the (highest|lowest)", q).group(1)
                vals = {k: r.phrase_value(p) for k, p in a.choices.items()}
                best = (max if word == "highest" else min)(vals, key=vals.get)
                assert best == a.value and sorted(vals.values()).count(vals[best]) == 1, ep.id


def test_too_small_a_corpus_is_refused_with_a_reason():
    with pytest.raises(GenerationError, match="could not build|no paper"):
        generate_episodes(make_ground_truth(n_papers=2), seed=1, count=5)


def test_cli_generates_and_the_file_validates(gt, tmp_path):
    gt_path, out = tmp_path / "ground_truth.json", tmp_path / "eps.jsonl"
    gt_path.write_text(gt.model_dump_json())
    r = CliRunner().invoke(app, ["sandbox", "episodes", "--ground-truth", str(gt_path), "--out", str(out),
                                 "--seed", "3", "--count", "12"])
    assert r.exit_code == 0, r.output
    assert "wrote 12 episodes" in r.output
    cat = tmp_path / "catalog.json"
    cat.write_text(catalog_of(gt).model_dump_json())
    r = CliRunner().invoke(app, ["episodes", "validate", str(out), "--catalog", str(cat)])
    assert r.exit_code == 0 and "OK: 12 episodes" in r.output, r.output


BUILT = paths.ground_truth_path().is_file() and paths.catalog_path().is_file()


@pytest.mark.skipif(not BUILT, reason="the sandbox is not built (run `epi sandbox build`)")
@pytest.mark.slow
def test_committed_benchmark_matches_the_built_sandbox(tmp_path):
    """episodes/sandbox-v1.jsonl regenerates byte for byte from the built ground truth and validates."""
    gt = GroundTruth.model_validate_json(paths.ground_truth_path().read_bytes())
    catalog = Catalog.model_validate_json(paths.catalog_path().read_bytes())
    eps = load_episodes(COMMITTED, catalog=catalog)
    assert len(eps.episodes) >= 100
    regenerated = tmp_path / "regen.jsonl"
    write_episodes(generate_episodes(gt), regenerated)
    assert regenerated.read_bytes() == COMMITTED.read_bytes()
    st = episode_stats(eps.episodes)
    assert 0.35 <= st.by_split["easy"] / st.episodes <= 0.45
    assert {json.loads(line)["source"] for line in COMMITTED.read_text().splitlines()} == {eps.episodes[0].source}
    # Answers re-derive and cues are unique on the real ground truth too.
    test_answers_rederive_from_the_ground_truth(gt, eps.episodes)
    test_every_cue_designates_exactly_one_paper(gt, eps.episodes)
    load_episodes(REPO / "episodes" / "examples" / "handwritten.jsonl", catalog=catalog)
