"""`epi episodes audit` over a real (tiny) corpus, read through the tools: a leaky benchmark fails and
names its problems, a sound one passes, and bad input exits 2 with file, line, episode and field."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from sandbox.corpus.model import GroundTruth, PaperGT


def _run_epi(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    from harness.cli import main

    monkeypatch.setattr(sys, "argv", ["epi", *args])
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit) as e:
        main()
    out = capsys.readouterr()
    return int(e.value.code or 0), out.out + out.err


def _gt(root: Path) -> GroundTruth:
    from sandbox.corpus.build import load_ground_truth

    return load_ground_truth(root)


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text.replace("*", ""))]


def _printed_numbers(p: PaperGT, series: str) -> list[float]:
    """Every number the paper prints on a row or in a paragraph that names `series` (from the ground truth)."""
    out = [v for t in p.tables for r in t.rows if r[0].replace("*", "").strip() == series for c in r[1:] for v in _numbers(c)]
    out += [v for s in p.sections for para in s.paragraphs if series in para for v in _numbers(para)]
    return out


def leaky_figure_value(gt: GroundTruth) -> tuple[PaperGT, int, str, str, float]:
    """A bar of a bar chart whose height the paper's Table 1 prints on the same row: (paper, figure, series, category, value)."""
    for p in gt.papers:
        for f in p.figures:
            if f.kind != "bar":
                continue
            t = p.tables[0]
            for s in f.series:
                row = next((r for r in t.rows if r[0].replace("*", "").strip() == s.label), None)
                for cat in s.x:
                    if row is not None and cat in t.columns:
                        return p, f.n, s.label, str(cat), _numbers(row[t.columns.index(cat)])[0]
    raise AssertionError("the tiny corpus has no bar chart with a table row")


def hidden_figure_value(gt: GroundTruth, visual: str | None = None) -> tuple[PaperGT, int, str, float, float]:
    """A point of a line chart (drawn as `visual`, if given) whose value no text of the paper prints near its series:
    (paper, figure, series, x, y)."""
    for p in gt.papers:
        for f in p.figures:
            if f.kind != "line" or visual is not None and f.visual != visual:
                continue
            for s in f.series:
                printed = _printed_numbers(p, s.label)
                for x, y in list(zip(s.x, s.y))[1:-1]:
                    if all(abs(y - v) > 1.0 for v in printed):
                        return p, f.n, s.label, float(x), y
    raise AssertionError("the tiny corpus has no hidden line-chart value")


def _episode(ep_id: str, paper: PaperGT, fig: int, series: str, value: float, *, x: float | None = None,
             category: str | None = None, cue: str | None = None, tol: float = 0.2) -> dict:
    where = f"at x = {x:g}" if x is not None else f'at "{category}"'
    first = {"question": f'In Figure {fig}, what is the value of "{series}" {where}? Read it from the figure.',
             "answer": {"format": "number", "value": value, "tolerance": tol},
             "evidence": [{"paper": paper.id, "unit": f"figure:{fig}"}],
             "checklist": [{"tool": "figure_extract", "args": {"paper": paper.id, "figure": fig}}],
             "reads": [{"paper": paper.id, "unit": f"figure:{fig}", "series": series, "x": x,
                        "dataset": category, "value": value}]}
    if cue:
        first["cue"] = {"text": cue}
        first["checklist"].insert(0, {"tool": "web_search", "args": {"query": cue}})
    final = {"question": "What is the value you read in turn 1 minus 10?", "memory_only": True,
             "answer": {"format": "number", "value": round(value - 10, 4), "tolerance": tol},
             "evidence": [{"paper": paper.id, "unit": f"figure:{fig}"}],
             "reads": [dict(first["reads"][0], turn=1)], "derivation": {"op": "difference"}}
    return {"id": ep_id, "split": "hard", "task_type": "comparison", "initiation": "citation", "area": paper.area,
            "turns": [first, final]}


def _write(path: Path, *episodes: dict) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in episodes), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tiny_sandbox: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    gt = _gt(tiny_sandbox)
    lp, lfig, lseries, lcat, lvalue = leaky_figure_value(gt)
    hp, hfig, hseries, hx, hy = hidden_figure_value(gt)
    out = tmp_path_factory.mktemp("audit_files")
    sound = _write(out / "sound.jsonl", _episode("hidden", hp, hfig, hseries, hy, x=hx))
    leaky = _write(out / "leaky.jsonl", _episode("hidden", hp, hfig, hseries, hy, x=hx),
                   _episode("leaky", lp, lfig, lseries, lvalue, category=lcat, cue=lp.title, tol=0.5))
    return {"sound": sound, "leaky": leaky, "leaky_paper": Path(lp.id)}


def test_sound_file_passes_with_every_threshold_printed(files, tiny_sandbox, monkeypatch, capsys):
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox))
    assert code == 0, out
    assert re.search(r"ok\s+figure values printed in text\s+0/1 \(0\.0%\)\s+<= 2%", out)
    for title, threshold in [("vacuous conditions", "= 0"), ("mixed-setting comparisons", "= 0"), ("unused papers", "= 0"),
                             ("duplicate turns", "= 0"), ("ambiguous series", "= 0"),
                             ("best answer-free prior against chance", "<= chance + 5 points"),
                             ("cue pasted verbatim ranks the target first", "<= 35% of cue turns")]:
        assert re.search(rf"{re.escape(title)}\s.*{re.escape(threshold)}", out), title
    assert out.strip().splitlines()[-1].startswith("PASS: all")


def test_leaky_file_fails_naming_the_printed_value_and_the_pasted_cue(files, tiny_sandbox, monkeypatch, capsys):
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["leaky"]), "--sandbox", str(tiny_sandbox),
                         "--json")
    assert code == 1
    report = json.loads(out)
    assert report["passed"] is False
    checks = {c["id"]: c for c in report["checks"]}
    fig = checks["figure_values_in_text"]
    assert (fig["count"], fig["total"], fig["status"]) == (1, 2, "fail")
    assert fig["findings"][0]["episode"] == "leaky" and "printed in table:" in fig["findings"][0]["message"]
    cue = checks["cue_paste_top1"]
    assert (cue["count"], cue["total"], cue["status"]) == (1, 1, "fail")
    assert str(files["leaky_paper"]) in cue["findings"][0]["message"]
    assert checks["unused_papers"]["status"] == "pass" and checks["duplicate_turns"]["count"] == 0


def test_text_output_of_a_failing_audit_lists_problems_and_says_fail(files, tiny_sandbox, monkeypatch, capsys):
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["leaky"]), "--sandbox", str(tiny_sandbox))
    assert code == 1
    assert re.search(r"FAIL\s+figure values printed in text\s+1/2 \(50\.0%\)\s+<= 2%", out)
    assert "leaky turn 1:" in out
    assert "FAIL: 2 of" in out and "figure values printed in text, cue pasted verbatim ranks the target first" in out


@pytest.mark.parametrize("content, what", [
    ("", "empty file"),
    ('{"id": "x1", "split": "easy"\n', "invalid JSON"),
    (None, "turns[0].evidence[0].paper: no paper 'P999' in the catalog"),
], ids=["empty", "malformed", "unknown-paper"])
def test_bad_input_exits_2_with_file_line_episode_and_field(files, tiny_sandbox, tmp_path, monkeypatch, capsys, content, what):
    bad = tmp_path / "bad.jsonl"
    if content is None:
        ep = json.loads(files["sound"].read_text().splitlines()[0])
        ep["turns"][0]["evidence"][0]["paper"] = "P999"
        content = json.dumps(ep) + "\n"
    bad.write_text(content, encoding="utf-8")
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(bad), "--sandbox", str(tiny_sandbox))
    assert code == 2 and "Traceback" not in out
    assert str(bad) in out and what in out
    if content.startswith('{"id": "hidden"'):
        assert f"{bad}:1: episode 'hidden': " in out


def test_unbuilt_corpus_and_bad_ground_truth_exit_2(files, tiny_sandbox, tmp_path, monkeypatch, capsys):
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tmp_path))
    assert code == 2 and "not built" in out
    junk = tmp_path / "gt.json"
    junk.write_text("{}")
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox),
                         "--ground-truth", str(junk))
    assert code == 2 and "not a ground-truth file" in out and "Traceback" not in out


def test_ground_truth_lets_plain_files_be_checked_for_ambiguous_series(files, tiny_sandbox, tmp_path, monkeypatch, capsys):
    gt = _gt(tiny_sandbox)
    hp, hfig, hseries, hx, hy = hidden_figure_value(gt)
    plain = _episode("plain", hp, hfig, hseries, hy, x=hx + 0.5)  # an x the series has no point at
    for t in plain["turns"]:
        t.pop("reads")
        t.pop("derivation", None)
    plain["turns"][0]["question"] = f'Figure {hfig} plots it. What is the value of "{hseries}" at x = {hx + 0.5:g}?'
    f = _write(tmp_path / "plain.jsonl", plain)
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(f), "--sandbox", str(tiny_sandbox), "--json")
    amb = next(c for c in json.loads(out)["checks"] if c["id"] == "ambiguous_series")
    assert amb["status"] == "not checked" and amb["not_checked"] == 1
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(f), "--sandbox", str(tiny_sandbox), "--json",
                         "--ground-truth", str(tiny_sandbox / "ground_truth.json"))
    amb = next(c for c in json.loads(out)["checks"] if c["id"] == "ambiguous_series")
    assert amb["status"] == "fail" and "has no point at x =" in amb["findings"][0]["message"]


LEARNED = ("calibrated_guess", "learned_regressor", "learned_priors", "no_vision_composite")


def _learned(out: str) -> dict[str, dict]:
    report = json.loads(out)
    return {c["id"]: c for c in report["checks"] if c["id"] in LEARNED or c["id"] == "geometry_reader"}


def test_learned_checks_say_why_they_are_not_checked_and_never_count_as_passed(files, tiny_sandbox, monkeypatch, capsys):
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox), "--json")
    assert code == 0
    checks = _learned(out)
    for cid in LEARNED:
        assert checks[cid]["status"] == "not checked", cid
        assert "names no generator" in checks[cid]["not_checked_why"] and "--train-on" in checks[cid]["not_checked_why"]
    assert checks["geometry_reader"]["status"] in ("pass", "fail")  # needs no training: it reads the PDF
    code, text = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox))
    assert "not checked: figure values: calibrated text guess" in text.splitlines()[-1] or "not checked:" in text.splitlines()[-1]


def test_a_file_from_another_corpus_seed_is_refused_in_one_line(files, tiny_sandbox, tmp_path, monkeypatch, capsys):
    ep = json.loads(files["sound"].read_text().splitlines()[0])
    ep["source"] = "sandbox.episodegen episodegen-1 seed=1 ground_truth=corpus-1.1/seed=99"
    f = _write(tmp_path / "other.jsonl", ep)
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(f), "--sandbox", str(tiny_sandbox), "--json")
    # issue 26: a corpus that does not match the file is one line naming the corpus and its build command, exit 2
    assert code == 2 and len([x for x in out.splitlines() if x.strip()]) == 1, out
    assert "corpus-1.1/seed=99" in out and "corpus-1.1/seed=11" in out and "epi sandbox build --corpus v1 --seed 99" in out


def test_train_on_bad_input(files, tiny_sandbox, tmp_path, monkeypatch, capsys):
    # unreadable: exit 2 naming file, line and field
    bad = tmp_path / "bad.jsonl"
    ep = json.loads(files["sound"].read_text().splitlines()[0])
    ep["turns"][0]["answer"] = {"format": "number"}
    bad.write_text(json.dumps(ep) + "\n")
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox),
                         "--train-on", str(bad))
    assert code == 2 and f"{bad}:1: episode 'hidden': turns[0].answer" in out and "Traceback" not in out
    # no annotations: not checked, why, exit 0
    plain = json.loads(files["sound"].read_text().splitlines()[0])
    for t in plain["turns"]:
        t.pop("reads", None)
        t.pop("derivation", None)
    f = _write(tmp_path / "plain.jsonl", plain)
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox),
                         "--train-on", str(f), "--json")
    assert code == 0 and "no `reads` annotations" in _learned(out)["learned_regressor"]["not_checked_why"]
    # a corpus that does not match: not checked, why, exit 0
    line = files["sound"].read_text().splitlines()[0]
    paper = json.loads(line)["turns"][0]["evidence"][0]["paper"]
    f = _write(tmp_path / "elsewhere.jsonl", json.loads(line.replace(f'"{paper}"', '"P999"')))
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox),
                         "--train-on", str(f), "--json")
    assert code == 0 and "does not match its corpus" in _learned(out)["calibrated_guess"]["not_checked_why"]
    # too small to learn from: the guessers say so; nothing counts as passed
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox),
                         "--train-on", str(files["leaky"]), "--json")
    assert code in (0, 1)
    checks = _learned(out)
    assert checks["calibrated_guess"]["status"] == "not checked" and "fewer than 60" in checks["calibrated_guess"]["not_checked_why"]
    # the composite without a text guesser is a weaker adversary: its pass is no pass
    comp = checks["no_vision_composite"]
    assert comp["status"] == "not checked" and "no text guesser could be learned" in comp["not_checked_why"]


def test_learned_advisory_reports_a_broken_learned_threshold_while_every_other_check_still_fails(
        files, tiny_sandbox, tmp_path, monkeypatch, capsys):
    # a value on a chart drawn as vectors: the geometry reader (a learned-adversary check) reads it from the PDF
    p, fig, series, x, y = hidden_figure_value(_gt(tiny_sandbox), visual="vector")
    f = _write(tmp_path / "vector.jsonl", _episode("vector", p, fig, series, y, x=x))
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(f), "--sandbox", str(tiny_sandbox), "--json")
    checks = {c["id"]: c for c in json.loads(out)["checks"]}
    assert code == 1 and (checks["geometry_reader"]["status"], checks["geometry_reader"]["advisory"]) == ("fail", False)
    assert [c for c, v in checks.items() if v["status"] == "fail"] == ["geometry_reader"]
    # --learned-advisory (make test): reported, marked, not failing
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(f), "--sandbox", str(tiny_sandbox), "--learned-advisory")
    assert code == 0, out
    assert re.search(r"fail\*\s+figure values: vector geometry reader\s+1/1 \(100\.0%\)\s+<= 5%", out)
    assert "ADVISORY (fail*, --learned-advisory" in out and out.strip().splitlines()[-1].startswith("PASS: ")
    # every other check keeps failing the audit (and the build) under the flag
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["leaky"]), "--sandbox", str(tiny_sandbox),
                         "--learned-advisory")
    assert code == 1 and re.search(r"FAIL\s+figure values printed in text", out)
    assert out.strip().splitlines()[-1].startswith("FAIL: 2 of")


@pytest.fixture
def generated(files, tiny_sandbox, tmp_path_factory, monkeypatch) -> dict[str, Path]:
    """The sound file as if generator episodegen-1 had made it over the tiny corpus (so the audit builds a second
    benchmark, in a cache of the test's own), with and without its reads/derivation annotations."""
    from sandbox.corpus.build import load_ground_truth

    gt = load_ground_truth(tiny_sandbox)
    cache = tmp_path_factory.getbasetemp() / "audit-cache"  # one second benchmark for every test here
    monkeypatch.setenv("EPI_CACHE_DIR", str(cache))
    out = tmp_path_factory.getbasetemp() / "generated"
    out.mkdir(exist_ok=True)
    ep = json.loads(files["sound"].read_text().splitlines()[0])
    ep["source"] = f"sandbox.episodegen episodegen-1 seed=1 ground_truth={gt.generator_version}/seed={gt.seed}"
    annotated = _write(out / "annotated.jsonl", ep)
    for t in ep["turns"]:
        t.pop("reads", None)
        t.pop("derivation", None)
    return {"annotated": annotated, "plain": _write(out / "plain.jsonl", ep)}


@pytest.mark.slow
def test_the_composite_says_not_checked_on_a_file_without_annotations(generated, tiny_sandbox, monkeypatch, capsys):
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(generated["plain"]), "--sandbox", str(tiny_sandbox),
                         "--json")
    report = json.loads(out)
    assert code == 0 and "second benchmark: episodegen-1" in report["learned_from"]
    comp = _learned(out)["no_vision_composite"]
    assert comp["status"] == "not checked" and "no `reads`/`derivation` annotation" in comp["not_checked_why"]
    assert _learned(out)["calibrated_guess"]["status"] == "pass"  # the question names the value: still judged
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(generated["annotated"]), "--sandbox",
                         str(tiny_sandbox), "--json")
    comp = _learned(out)["no_vision_composite"]
    assert comp["status"] == "pass" and (comp["total"], comp["not_checked"]) == (1, 0)
    # scored like an agent: ESR with its Wilson 95% interval, Acc_final, Acc_pre
    assert re.fullmatch(r"ESR 0\.0% \[0\.0, \d+\.\d\], Acc_final 0\.0%, Acc_pre \d+\.\d%", comp["shown"]), comp["shown"]


def test_figure_value_checks_say_why_a_file_without_figure_values_is_not_checked(tiny_episodes, tiny_sandbox, monkeypatch,
                                                                                  capsys):
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(tiny_episodes), "--sandbox", str(tiny_sandbox))
    assert code in (0, 1) and "Traceback" not in out  # table reads and recall: figure-free finals fail, as they should
    assert re.search(r"n/c\s+figure values: vector geometry reader[^\n]*\n(?:[^\n]*\n){0,2}\s+not checked: "
                     r"the file asks no figure value",
                     out), out


def test_train_on_a_users_annotated_file_teaches_the_learned_checks(files, tiny_sandbox, tmp_path, monkeypatch, capsys):
    """A corpus without a generator: --train-on names an annotated file over it, read through the tools."""
    gt = _gt(tiny_sandbox)
    eps = [_episode(f"t{p.id}-{f.n}-{i}-{j}", p, f.n, s.label, y, x=float(x))
           for p in gt.papers for f in p.figures if f.kind == "line"
           for i, s in enumerate(f.series) for j, (x, y) in enumerate(zip(s.x, s.y))]
    train = _write(tmp_path / "train.jsonl", *eps)
    code, out = _run_epi(monkeypatch, capsys, "episodes", "audit", str(files["sound"]), "--sandbox", str(tiny_sandbox),
                         "--train-on", str(train), "--json")
    report = json.loads(out)
    assert code in (0, 1) and report["learned_from"].startswith(f"{train} ({len(eps)} episodes")
    for cid in ("calibrated_guess", "learned_regressor"):
        c = _learned(out)[cid]
        assert c["status"] in ("pass", "fail") and c["total"] == 1, c  # judged on the audited file's figure value
        assert "validation" in c["breakdown"][0]["label"] and c["breakdown"][0]["total"] > 0
