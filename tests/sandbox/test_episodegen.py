"""The v1 episode generator (frozen: sandbox-v1.jsonl over corpus v1): deterministic, valid against the
catalog, replayable checklists, unique cues, answers that re-derive from the ground truth, and the EpiBench
composition. The v2 generator has its own tests (test_episodegen_v2.py)."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli._apps import UserError, app
from harness.episode import Episode
from harness.episodes_io import checklist_coverage_problems, episode_stats, exposed_units, load_episodes
from sandbox.corpus.model import Catalog, GroundTruth
from sandbox.corpus.versions import corpus_version
from sandbox.legacy.episodegen_v1 import (
    CUE_DPI,
    IMAGE_SHARE,
    GenerationError,
    generate_episodes,
    legend_identifies,
    write_cue_images,
    write_episodes,
)
from sandbox.legacy.episodegen_v1._facts import CorpusFacts
from tests.sandbox.episode_reader import EpisodeReader
from tests.sandbox.gt_fixture import catalog_of, make_ground_truth

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "episodes" / "sandbox-v1.jsonl"
COUNT = 40
# The synthetic ground truth has no PDFs: its cue images are stood in by a real cue PNG (the loader only
# checks they exist); rendering from PDFs is tested on the built sandbox below.
STAND_IN_PNG = REPO / "episodes" / "examples" / "images" / "P003-figure2.png"


@pytest.fixture(scope="module")
def gt() -> GroundTruth:
    return make_ground_truth()


@pytest.fixture(scope="module")
def episode_file(gt, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("eps") / "gen.jsonl"
    eps = generate_episodes(gt, seed=3, count=COUNT, image_share=IMAGE_SHARE, image_dir="gen-cues")
    write_episodes(eps, out)
    (out.parent / "gen-cues").mkdir()
    for ep in eps:
        if ep.turns[0].cue and ep.turns[0].cue.image:
            (out.parent / ep.turns[0].cue.image).write_bytes(STAND_IN_PNG.read_bytes())
    return out


@pytest.fixture(scope="module")
def episodes(gt, episode_file) -> list[Episode]:
    return load_episodes(episode_file, catalog=catalog_of(gt)).episodes


def test_same_seed_same_file_other_seed_other_file(gt, episode_file, tmp_path):
    again = tmp_path / "again.jsonl"
    assert write_episodes(generate_episodes(gt, seed=3, count=COUNT, image_share=IMAGE_SHARE, image_dir="gen-cues"), again) == hashlib.sha256(episode_file.read_bytes()).hexdigest()
    other = tmp_path / "other.jsonl"
    write_episodes(generate_episodes(gt, seed=4, count=COUNT, image_share=IMAGE_SHARE, image_dir="gen-cues"), other)
    assert other.read_bytes() != episode_file.read_bytes()


def test_every_episode_validates_and_has_the_protocol_shape(gt, episodes):
    own_method = {p.id: p.method for p in gt.papers}
    assert len(episodes) == COUNT
    for ep in episodes:
        assert 4 <= len(ep.turns) <= 6 and ep.requires_reuse and ep.source and "episodegen" in ep.source
        assert all(t.evidence for t in ep.turns)
        assert [t.memory_only for t in ep.turns] == [False] * (len(ep.turns) - 1) + [True]
        assert len({e.paper for e in ep.turns[-1].evidence}) >= 2, f"{ep.id}: final turn fuses one paper only"
        first = ep.turns[0]
        # A text cue is searched as written; an image cue by the method name its legend shows.
        query = own_method[first.evidence[0].paper] if first.cue.image else first.cue.text
        assert first.checklist[0].tool == "web_search" and first.checklist[0].args == {"query": query}


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


def _assert_image_cue_identifies(gt, ep, target: str) -> None:
    """The searched name belongs to one paper (title/abstract) and the turn-1 text names nothing."""
    first = ep.turns[0]
    name = first.checklist[0].args["query"]
    assert [p.id for p in gt.papers if name in p.title or name in p.abstract] == [target], (ep.id, name)
    shown = first.question + " " + (first.cue.text or "")
    for p in gt.papers:
        named = [w for w in (p.method, p.title, p.venue, f"{p.authors[0].split()[-1]} et al.") if w in shown]
        assert named == [], (ep.id, named, shown)
    assert ep.initiation == "indirect_hint"


def test_image_cues_are_a_spread_share_of_indirect_hints(episodes):
    image = [ep for ep in episodes if ep.turns[0].cue and ep.turns[0].cue.image]
    assert 0.15 <= len(image) / len(episodes) <= 0.20
    assert {ep.initiation for ep in image} == {"indirect_hint"}
    assert {ep.split for ep in image} == {"easy", "hard"} and len({ep.task_type for ep in image}) >= 2
    assert all(ep.turns[0].cue.image == f"gen-cues/{ep.id}.png" for ep in image)
    # Only the first turn of an episode carries an image.
    assert not any(t.cue and t.cue.image for ep in episodes for t in ep.turns[1:])


def test_every_cue_designates_exactly_one_paper(gt, episodes):
    corpus = gt.papers
    by_id = {p.id: p for p in corpus}
    for ep in episodes:
        for ti, t in enumerate(ep.turns):
            if t.cue is None:
                continue
            target = t.evidence[0].paper
            if t.cue.image is not None:
                _assert_image_cue_identifies(gt, ep, target)
                continue
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


def test_default_library_call_makes_text_cues_only(gt):
    eps = generate_episodes(gt, seed=3, count=12)
    assert all(t.cue is None or (t.cue.image is None and t.cue.text) for ep in eps for t in ep.turns)


def test_too_small_a_corpus_is_refused_with_a_reason():
    with pytest.raises(GenerationError, match="could not build|no paper"):
        generate_episodes(make_ground_truth(n_papers=2), seed=1, count=5)


def test_cli_generates_and_the_file_validates(gt, tmp_path):
    gt_path, out = tmp_path / "ground_truth.json", tmp_path / "eps.jsonl"
    gt_path.write_text(gt.model_dump_json())
    r = CliRunner().invoke(app, ["sandbox", "episodes", "--benchmark", "v1", "--ground-truth", str(gt_path),
                                 "--out", str(out), "--seed", "3", "--count", "12", "--image-share", "0"])
    assert r.exit_code == 0, r.output
    assert "wrote 12 episodes" in r.output
    cat = tmp_path / "catalog.json"
    cat.write_text(catalog_of(gt).model_dump_json())
    r = CliRunner().invoke(app, ["episodes", "validate", str(out), "--catalog", str(cat)])
    assert r.exit_code == 0 and "OK: 12 episodes" in r.output, r.output


def test_cli_without_corpus_pdfs_refuses_image_cues_with_a_reason(gt, tmp_path):
    gt_path, out = tmp_path / "ground_truth.json", tmp_path / "eps.jsonl"
    gt_path.write_text(gt.model_dump_json())
    r = CliRunner().invoke(app, ["sandbox", "episodes", "--benchmark", "v1", "--ground-truth", str(gt_path),
                                 "--out", str(out), "--seed", "3", "--count", "12"])
    msg = str(r.exception)
    assert isinstance(r.exception, UserError) and "corpus PDF not found" in msg and "--image-share 0" in msg, r.output
    assert not out.exists()


V1_DIR = corpus_version("v1").default_dir()
BUILT = (V1_DIR / "ground_truth.json").is_file() and (V1_DIR / "catalog.json").is_file()


@pytest.mark.skipif(not BUILT, reason="corpus v1 is not built (run `epi sandbox build --corpus v1`, or `make sandbox-v1`)")
@pytest.mark.slow
def test_committed_benchmark_matches_the_built_sandbox(tmp_path):
    """episodes/sandbox-v1.jsonl regenerates byte for byte from the built ground truth and validates."""
    gt = GroundTruth.model_validate_json((V1_DIR / "ground_truth.json").read_bytes())
    catalog = Catalog.model_validate_json((V1_DIR / "catalog.json").read_bytes())
    eps = load_episodes(COMMITTED, catalog=catalog)
    assert len(eps.episodes) >= 100
    regenerated = tmp_path / "sandbox-v1.jsonl"
    episodes = generate_episodes(gt, image_share=IMAGE_SHARE)
    write_episodes(episodes, regenerated)
    assert regenerated.read_bytes() == COMMITTED.read_bytes()
    # Cue PNGs re-render byte for byte (fixed dpi), and the committed folder holds exactly those.
    digests = write_cue_images(episodes, gt, V1_DIR / "corpus", tmp_path)
    committed = {f"sandbox-v1-cues/{f.name}": hashlib.sha256(f.read_bytes()).hexdigest()
                 for f in (COMMITTED.parent / "sandbox-v1-cues").glob("*")}
    assert digests == committed and 0.15 <= len(digests) / len(episodes) <= 0.20
    st = episode_stats(eps.episodes)
    assert 0.35 <= st.by_split["easy"] / st.episodes <= 0.45
    assert {json.loads(line)["source"] for line in COMMITTED.read_text().splitlines()} == {eps.episodes[0].source}
    # Answers re-derive and cues are unique on the real ground truth too.
    test_answers_rederive_from_the_ground_truth(gt, eps.episodes)
    test_every_cue_designates_exactly_one_paper(gt, eps.episodes)
    test_image_cue_first_answer_is_not_given_by_another_paper(gt, eps.episodes)
    load_episodes(REPO / "episodes" / "examples" / "handwritten.jsonl", catalog=catalog)


@pytest.mark.skipif(not BUILT, reason="corpus v1 is not built (run `epi sandbox build --corpus v1`, or `make sandbox-v1`)")
def test_committed_cue_images_show_the_legend_but_not_the_caption():
    """Each cue PNG is the figure's chart at 150 dpi: a figure whose legend names the paper's method
    (ground truth series labels), cropped above its caption."""
    import pymupdf

    gt = GroundTruth.model_validate_json((V1_DIR / "ground_truth.json").read_bytes())
    cf = CorpusFacts(gt)
    checked = 0
    for ep in load_episodes(COMMITTED).episodes:
        first = ep.turns[0]
        if not (first.cue and first.cue.image):
            continue
        m = re.match(r"cue image: Figure (\d+) of (P\d+)", first.note or "")
        assert m, (ep.id, first.note)
        pid, fig = m.group(2), cf.figure(m.group(2), int(m.group(1)))
        assert fig is not None and legend_identifies(cf, pid, fig)
        png = pymupdf.Pixmap(str(COMMITTED.parent / first.cue.image))
        with pymupdf.open(V1_DIR / "corpus" / cf.papers[pid].pdf) as doc:
            page = doc[fig.page - 1]
            box = pymupdf.Rect(fig.bbox)
            # Width at 150 dpi equals the bbox width; the height is cut above the caption.
            assert abs(png.width - box.width * CUE_DPI / 72) <= 2, ep.id
            assert png.height < box.height * CUE_DPI / 72 - 10, ep.id
            shown = page.get_text(clip=pymupdf.Rect(box.x0, box.y0, box.x1, box.y0 + png.height * 72 / CUE_DPI))
            # The chart is drawn as an image (its legend is not PDF text); the caption is text and is cut off.
            assert f"Figure {fig.n}" in page.get_text(clip=box) and f"Figure {fig.n}" not in shown, (ep.id, shown)
        checked += 1
    assert checked >= 15


def _values_elsewhere(gt, target: str, label: str, at: str) -> list[float]:
    """Values other papers report for the same row/series label and column/x."""
    out: list[float] = []
    for p in gt.papers:
        if p.id == target:
            continue
        for t in p.tables:
            if at in t.columns:
                ci = t.columns.index(at)
                out += [float(m.group(0)) for r in t.rows if r and r[0] == label and ci < len(r)
                        if (m := re.match(r"[-+]?\d+(?:\.\d+)?", r[ci].replace("**", "").strip()))]
        for f in p.figures:
            for s in f.series:
                out += [float(y) for x, y in zip(s.x, s.y) if s.label == label and str(x) in (at, f"{at}.0")]
    return out


def test_image_cue_first_answer_is_not_given_by_another_paper(gt, episodes):
    """Turn 1 of an image episode asks a value only the pictured paper reports: a wrong paper cannot answer it."""
    image = [ep for ep in episodes if ep.turns[0].cue and ep.turns[0].cue.image]
    assert image
    for ep in image:
        first = ep.turns[0]
        quoted = re.findall(r'"([^"]+)"', first.question)
        label, at = quoted[0], quoted[-1] if len(quoted) > 1 else re.search(r"= ([^?]+)\?", first.question).group(1)
        a = first.answer
        clash = [v for v in _values_elsewhere(gt, first.evidence[0].paper, label, at)
                 if abs(v - a.value) <= 2 * a.tolerance + 0.01]
        assert not clash, (ep.id, label, at, a.value, clash)
