"""The report benchmark over corpus v3 (issue 31, item 5): its generator reads the default corpus through the
v3 episode facts, is deterministic, writes the committed episodes/sandbox-v3-report.jsonl byte for byte, and
its rule check (`report_problems`) refuses gold the v3 rules would not ask; the frozen v2 report generator
still writes episodes/sandbox-v2-report.jsonl byte for byte.

The shared fixture loads the built corpus v3 once and generates the benchmark once with its search probe (the
committed file's recipe); the checks on flawed data edit copies of those episodes."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from harness.episode import Episode
from sandbox.corpus.model import GroundTruth
from sandbox.corpus.versions import corpus_version
from sandbox.episodegen import report as rg
from sandbox.episodegen.facts import printed_numbers
from sandbox.episodegen.report_facts import ReportCorpus

EPISODES = Path(__file__).resolve().parents[2] / "episodes"
COMMITTED = EPISODES / "sandbox-v3-report.jsonl"
_CACHE: dict[str, object] = {}


def _built(version: str) -> tuple[Path, GroundTruth]:
    root = corpus_version(version).default_dir()
    if not (root / "ground_truth.json").is_file() or not (root / "index" / "ids.json").is_file():
        pytest.skip(f"corpus {version} is not built in {root} (`epi sandbox build --corpus {version}`)")
    return root, GroundTruth.model_validate_json((root / "ground_truth.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def v3() -> tuple[GroundTruth, ReportCorpus, list[dict]]:
    if "v3" not in _CACHE:
        from sandbox.episodegen.probe import ToolProbe

        root, gt = _built("v3")
        corpus = ReportCorpus(gt)
        eps = rg.generate_report_episodes(gt, probe=ToolProbe(root), corpus=corpus)
        _CACHE["v3"] = (gt, corpus, eps)
    return _CACHE["v3"]  # type: ignore[return-value]


def _bytes(eps: list[dict], path: Path) -> bytes:
    rg.write_report_episodes(eps, path)
    return path.read_bytes()


def test_the_committed_v3_report_benchmark_is_what_the_generator_writes(v3, tmp_path: Path) -> None:  # noqa: ANN001
    gt, _, eps = v3
    if f"ground_truth={gt.generator_version}/seed={gt.seed}" not in COMMITTED.read_text().splitlines()[0]:
        pytest.skip("the built corpus v3 is not the one the committed file was made from")
    assert _bytes(eps, tmp_path / "a.jsonl") == COMMITTED.read_bytes()


def test_the_generator_is_deterministic(v3, tmp_path: Path) -> None:  # noqa: ANN001
    """Same ground truth and seed, same bytes (without a probe too); another seed, another benchmark."""
    gt, corpus, _ = v3
    a = _bytes(rg.generate_report_episodes(gt, questions=6, corpus=corpus), tmp_path / "a.jsonl")
    b = _bytes(rg.generate_report_episodes(gt, questions=6, corpus=ReportCorpus(gt)), tmp_path / "b.jsonl")
    c = _bytes(rg.generate_report_episodes(gt, questions=6, seed=32, corpus=corpus), tmp_path / "c.jsonl")
    assert a == b and a != c


def test_the_v3_report_benchmark_keeps_the_rules(v3) -> None:  # noqa: ANN001
    gt, corpus, eps = v3
    assert len(eps) >= 40 and len({e["report"]["persona"]["role"] for e in eps}) >= 10
    for e in eps:
        Episode.model_validate(e)
        assert "ground_truth=corpus-3.0/" in e["source"] and e["id"].startswith("rpt3-")
        # turn 1's cue takes rewording: never the title
        assert corpus.papers[e["turns"][0]["evidence"][0]["paper"]].title not in e["turns"][0]["cue"]["text"]
    assert rg.report_problems(eps, gt, corpus) == []
    figure_claims = [g for e in eps for g in e["report"]["gold"] if g["cites"][0]["unit"].startswith("figure:")]
    assert len(figure_claims) >= 48  # at least one per episode (report_problems checks each)


def _figure_claim(eps: list[dict]) -> tuple[dict, dict]:
    e = copy.deepcopy(eps[0])
    g = next(g for g in e["report"]["gold"] if g["kind"] == "value" and g["cites"][0]["unit"].startswith("figure:"))
    return e, g


@pytest.mark.slow
def test_a_figure_value_the_text_prints_is_refused(v3) -> None:  # noqa: ANN001
    gt, corpus, eps = v3
    e, g = _figure_claim(eps)
    pid, n = g["cites"][0]["paper"], int(g["cites"][0]["unit"].split(":")[1])
    printed = {v for v, _ in printed_numbers(corpus.papers[pid])}
    fig = next(f for f in corpus.line_figures(pid) if f.n == n)
    label, method, xs, ys = next(s for s in fig.series if g["subject"] in s[:2])
    # plant the flaw in the ground truth: the paper's text now prints that plotted value
    flawed = copy.deepcopy(gt)
    paper = next(p for p in flawed.papers if p.id == pid)
    paper.abstract += f" {label} reaches {g['value']:.2f} at that setting."
    assert g["value"] not in printed
    assert rg.report_problems([e], gt, corpus) == []
    found = rg.report_problems([e], flawed)
    assert any("given by the paper's text" in p for p in found), found


def test_a_figure_claim_on_an_exact_vector_chart_or_a_wrong_value_is_refused(v3) -> None:  # noqa: ANN001
    gt, corpus, eps = v3
    for ep in eps:  # an episode whose paper also draws a line chart as exact vectors (its values are in the PDF)
        e, g = _figure_claim([ep])
        pid = g["cites"][0]["paper"]
        exact = [f for f in corpus.papers[pid].figures if f.kind == "line" and f.vector_exact]
        if exact:
            break
    else:
        pytest.skip("no paper of the benchmark draws an exact vector line chart")
    moved = copy.deepcopy(e)
    next(x for x in moved["report"]["gold"] if x == g)["cites"] = [{"paper": pid, "unit": f"figure:{exact[0].n}"}]
    assert rg.report_problems([e], gt, corpus) == []
    assert any("not a figure the v3 rules ask about" in p for p in rg.report_problems([moved], gt, corpus))
    wrong = copy.deepcopy(e)
    next(x for x in wrong["report"]["gold"] if x == g)["value"] = g["value"] + 1.0
    assert any("is not the plotted value" in p for p in rg.report_problems([wrong], gt, corpus))


def test_two_personas_whose_gold_overlaps_too_much_are_refused(v3) -> None:  # noqa: ANN001
    gt, corpus, eps = v3
    a, b = copy.deepcopy(eps[0]), copy.deepcopy(eps[1])
    assert a["report"]["question"] == b["report"]["question"]
    assert rg.report_problems([a, b], gt, corpus) == []
    b["report"]["gold"] = copy.deepcopy(a["report"]["gold"])  # the second reader gets the first one's gold
    assert any("share more than 70%" in p for p in rg.report_problems([a, b], gt, corpus))


def test_a_corpus_v2_ground_truth_is_refused() -> None:
    _, gt = _built("v2")
    with pytest.raises(rg.ReportGenerationError, match="corpus v3"):
        rg.generate_report_episodes(gt, questions=1)


@pytest.mark.slow
def test_epi_sandbox_episodes_writes_a_report_benchmark_and_refuses_an_odd_count(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harness.cli._apps import UserError, app

    _built("v3")
    out = tmp_path / "r.jsonl"
    res = CliRunner().invoke(app, ["sandbox", "episodes", "--benchmark", "v3-report", "--count", "4", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "wrote 4 report episodes" in res.output and "validated against the sandbox catalog" in res.output
    assert len(out.read_text().splitlines()) == 4
    res = CliRunner().invoke(app, ["sandbox", "episodes", "--benchmark", "v3-report", "--count", "3", "--out", str(out)])
    assert isinstance(res.exception, UserError) and "even number" in str(res.exception)  # `epi` exits 2 on it


@pytest.mark.slow
def test_the_frozen_v2_report_benchmark_regenerates_byte_for_byte(tmp_path: Path) -> None:
    """`epi sandbox episodes --benchmark v2-report` runs the frozen generator: the committed file, same bytes."""
    from typer.testing import CliRunner

    from harness.cli._apps import app

    _built("v2")
    out = tmp_path / "sandbox-v2-report.jsonl"
    res = CliRunner().invoke(app, ["sandbox", "episodes", "--benchmark", "v2-report", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_bytes() == (EPISODES / "sandbox-v2-report.jsonl").read_bytes()
    assert json.loads(out.read_text().splitlines()[0])["source"].startswith("sandbox.episodegen.report reportgen-1.0 ")


def test_the_audit_knows_how_to_learn_its_adversaries_for_the_report_generator() -> None:
    """`epi episodes audit` reads the generator from the file's `source`: the living report generator's stamp has a
    second-benchmark recipe (a new stamp without one would leave the learned checks "not checked")."""
    from harness.audit._training import _RECIPES, file_source

    first = json.loads(COMMITTED.read_text().splitlines()[0])
    assert first["source"].startswith(f"sandbox.episodegen.report {rg.GENERATOR_VERSION} ")
    src = file_source([Episode.model_validate(first)])
    assert src is not None and src.generator == rg.GENERATOR_VERSION and src.corpus == "corpus-3.0"
    assert rg.GENERATOR_VERSION in _RECIPES
