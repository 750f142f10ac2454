"""Loading episode files: every kind of bad input is refused before anything runs, with file, line,
episode id and field named, exit code 2 and no traceback; good files load and are counted."""
from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.episodes_io import EpisodeFileError, episode_stats, load_episodes
from tests.sandbox.gt_fixture import catalog_of, make_ground_truth

REPO = Path(__file__).resolve().parents[2]


def _episode(ep_id: str = "ep1") -> dict:
    return {
        "id": ep_id, "split": "easy", "task_type": "comparison", "initiation": "citation", "area": "vision",
        "turns": [
            {"question": "Find the paper. What does Table 1 report for MLP baseline on Cora?",
             "cue": {"text": "Okafor et al. (CVPR 2016)"},
             "answer": {"format": "number", "value": 71.2, "tolerance": 0.005, "unit": "%"},
             "evidence": [{"paper": "P001", "unit": "table:1"}],
             "checklist": [{"tool": "web_search", "args": {"query": "Okafor et al. (CVPR 2016)"}},
                           {"tool": "table_extract", "args": {"paper": "P001", "table": 1}}]},
            {"question": "Which is higher?", "answer": {"format": "choice", "value": "A", "choices": {"A": "x", "B": "y"}},
             "evidence": [{"paper": "P001", "unit": "table:1"}], "memory_only": True},
        ],
    }


def _write(tmp_path: Path, *episodes: dict | str, name: str = "eps.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("\n".join(e if isinstance(e, str) else json.dumps(e) for e in episodes) + "\n", encoding="utf-8")
    return p


def _run_epi(monkeypatch, capsys, *args: str) -> tuple[int, str]:
    """Run the real `epi` entry point in-process; returns (exit code, stdout+stderr with wrapping undone)."""
    from harness.cli import main

    monkeypatch.setattr(sys, "argv", ["epi", *args])
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit) as e:
        main()
    out = capsys.readouterr()
    return int(e.value.code or 0), out.out + out.err


def _mutate(path: str, value) -> dict:
    ep = _episode()
    node = ep
    keys = path.split(".")
    for k in keys[:-1]:
        node = node[int(k)] if k.isdigit() else node[k]
    last = keys[-1]
    if value is KeyError:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return ep


SCHEMA_CASES = [
    ("missing gold answer", "turns.0.answer", KeyError, "turns[0].answer", "required field is missing"),
    ("unknown answer format", "turns.1.answer.format", "essay", "turns[1].answer.format", "'choice'"),
    ("bad evidence unit", "turns.0.evidence.0.unit", "fig 2", "turns[0].evidence[0].unit", "figure:N"),
    ("no turns", "turns", [], "turns", "at least 1"),
    ("number that is not a number", "turns.0.answer.value", "high", "turns[0].answer", "numeric value"),
    ("unknown field", "turns.0.hint", "x", "turns[0].hint", "unknown field"),
    ("unknown tool", "turns.0.checklist.1.tool", "pdf_magic", "turns[0].checklist[1].tool", "unknown tool 'pdf_magic'"),
    ("misspelled tool argument", "turns.0.checklist.1.args", {"paper": "P001", "tabel": 1}, "turns[0].checklist[1].args",
     "unknown argument(s) 'tabel'; missing argument(s) 'table'"),
    ("missing cue image", "turns.0.cue.image", "crops/fig1.png", "turns[0].cue.image", "image file not found"),
]


@pytest.mark.parametrize("name, path, value, field, what", SCHEMA_CASES, ids=[c[0] for c in SCHEMA_CASES])
def test_bad_episode_names_file_line_id_and_field(tmp_path, monkeypatch, capsys, name, path, value, field, what):
    f = _write(tmp_path, _episode("ok0"), _mutate(path, value))
    code, out = _run_epi(monkeypatch, capsys, "episodes", "validate", str(f), "--catalog", str(_catalog_file(tmp_path)))
    assert code == 2
    assert "Traceback" not in out
    assert f"{f}:2: episode 'ep1': {field}:" in out
    assert what in out


def _catalog_file(tmp_path: Path) -> Path:
    p = tmp_path / "catalog.json"
    p.write_text(catalog_of(make_ground_truth(n_papers=6)).model_dump_json())
    return p


CATALOG_CASES = [
    ("unknown evidence paper", "turns.0.evidence.0.paper", "P999", "turns[0].evidence[0].paper", "no paper 'P999'"),
    ("missing table", "turns.0.evidence.0.unit", "table:7", "turns[0].evidence[0].unit", "has no table 7 (its tables: 1)"),
    ("missing figure in memory turn", "turns.1.evidence.0.unit", "figure:9", "turns[1].evidence[0].unit", "has no figure 9"),
    ("checklist paper", "turns.0.checklist.1.args.paper", "P404", "turns[0].checklist[1].args.paper", "no paper 'P404'"),
    ("checklist table number", "turns.0.checklist.1.args.table", 3, "turns[0].checklist[1].args.table", "has no table 3"),
]


@pytest.mark.parametrize("name, path, value, field, what", CATALOG_CASES, ids=[c[0] for c in CATALOG_CASES])
def test_references_to_missing_papers_and_floats_are_refused(tmp_path, monkeypatch, capsys, name, path, value, field, what):
    f = _write(tmp_path, _mutate(path, value))
    code, out = _run_epi(monkeypatch, capsys, "episodes", "validate", str(f), "--catalog", str(_catalog_file(tmp_path)))
    assert code == 2 and "Traceback" not in out
    assert f"{f}:1: episode 'ep1': {field}: " in out and what in out


@pytest.mark.parametrize(
    "content, what",
    [
        (b"", "empty file"),
        (b"\n  \n", "empty file"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a text file"),
        ('{"id": "caf\u00e9"}'.encode("latin-1"), "not UTF-8"),
    ],
    ids=["empty", "blank-lines-only", "binary", "latin-1"],
)
def test_unusable_files_are_refused(tmp_path, monkeypatch, capsys, content, what):
    f = tmp_path / "bad.jsonl"
    f.write_bytes(content)
    code, out = _run_epi(monkeypatch, capsys, "episodes", "validate", str(f))
    assert code == 2 and "Traceback" not in out
    assert str(f) in out and what in out


def test_missing_file_is_refused(tmp_path, monkeypatch, capsys):
    code, out = _run_epi(monkeypatch, capsys, "episodes", "stats", str(tmp_path / "nope.jsonl"), "--json")
    assert code == 2 and "nope.jsonl: no such file" in out and "Traceback" not in out


def test_line_problems_invalid_json_non_object_and_duplicate_id_are_all_listed(tmp_path):
    f = _write(tmp_path, _episode("a"), '{"id": "b", "split": ', "", "[1, 2]", _episode("a"))
    with pytest.raises(EpisodeFileError) as e:
        load_episodes(f)
    msg = str(e.value)
    assert f"{f}:2: episode 'b': invalid JSON (Expecting value, column 22)" in msg  # the id is read from the broken line
    assert f"{f}:4: episode ?: expected a JSON object" in msg
    assert f"{f}:5: episode 'a': id: duplicate episode id (first used on line 1)" in msg
    assert len(e.value.problems) == 3


def test_problems_are_capped_with_a_count_of_the_rest(tmp_path):
    f = _write(tmp_path, *["not json"] * 30)
    with pytest.raises(EpisodeFileError) as e:
        load_episodes(f)
    assert len(e.value.problems) == 20 and e.value.more == 10 and "10 more problem(s)" in str(e.value)


def test_good_file_with_blank_lines_and_cue_image_loads(tmp_path):
    (tmp_path / "crops").mkdir()
    (tmp_path / "crops" / "fig1.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(8))  # a PNG by its first bytes
    ep = _episode("b")
    ep["turns"][0]["cue"]["image"] = "crops/fig1.png"
    f = _write(tmp_path, _episode("a"), "", ep)
    s = load_episodes(f, catalog=catalog_of(make_ground_truth(n_papers=6)))
    assert [e.id for e in s.episodes] == ["a", "b"] and s.lines == {"a": 1, "b": 3}
    assert len(s.sha256) == 64


def test_validate_uses_built_sandbox_catalog_or_says_structure_only(tmp_path, monkeypatch, capsys):
    f = _write(tmp_path, _mutate("turns.0.evidence.0.paper", "P999"))
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tmp_path / "unbuilt"))
    code, out = _run_epi(monkeypatch, capsys, "episodes", "validate", str(f))
    assert code == 0 and "OK: 1 episodes" in out and "structure only" in out
    built = tmp_path / "built"
    built.mkdir()
    (built / "catalog.json").write_text(_catalog_file(tmp_path).read_text())
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(built))
    code, out = _run_epi(monkeypatch, capsys, "episodes", "validate", str(f))
    assert code == 2 and "no paper 'P999'" in out


def test_validate_warns_when_evidence_is_not_reached_by_the_checklist(tmp_path, monkeypatch, capsys):
    ep = _episode()
    ep["turns"][0]["evidence"].append({"paper": "P002", "unit": "text"})
    built = tmp_path / "built"  # a sandbox whose catalog has P001 and P002, whichever corpus is built by default
    built.mkdir()
    (built / "catalog.json").write_text(_catalog_file(tmp_path).read_text())
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(built))
    code, out = _run_epi(monkeypatch, capsys, "episodes", "validate", str(_write(tmp_path, ep)))
    assert code == 0 and "warning:" in out and "P002 text is not exposed by this turn's or an earlier turn's checklist" in out


def test_a_tool_turn_may_rely_on_what_an_earlier_checklist_exposed_but_nothing_else():
    """A minimal checklist opens a table once: a later tool turn reading another cell of it has no step of
    its own (EC credits the table from memory), and only units an earlier turn exposed are reachable so."""
    from harness.episode import Episode
    from harness.episodes_io import checklist_coverage_problems

    ep = _episode()
    again = {"question": "Stay with the paper. What does Table 1 report for GCN on Cora?",
             "answer": {"format": "number", "value": 81.5, "tolerance": 0.005},
             "evidence": [{"paper": "P001", "unit": "table:1"}], "checklist": []}
    ep["turns"].insert(1, again)
    assert checklist_coverage_problems(Episode.model_validate(ep)) == []
    again["evidence"].append({"paper": "P001", "unit": "figure:1"})
    assert checklist_coverage_problems(Episode.model_validate(ep)) == [
        ("turns[1].evidence[1]", "P001 figure:1 is not exposed by this turn's or an earlier turn's checklist")]


def test_stats_json_counts_composition(tmp_path, monkeypatch, capsys):
    hard = copy.deepcopy(_episode("h"))
    hard.update(split="hard", task_type="aggregation", initiation="indirect_hint", area="graphs")
    hard["turns"].insert(1, copy.deepcopy(hard["turns"][0]))
    hard["turns"][1]["evidence"] = [{"paper": "P002", "unit": "figure:1"}]
    code, out = _run_epi(monkeypatch, capsys, "episodes", "stats", str(_write(tmp_path, _episode("e"), hard)), "--json")
    assert code == 0
    st = json.loads(out)
    assert st["episodes"] == 2 and st["by_split"] == {"easy": 1, "hard": 1}
    assert st["by_task_type"] == {"aggregation": 1, "comparison": 1}
    assert st["by_initiation"] == {"citation": 1, "indirect_hint": 1}
    assert st["turns_per_episode"] == {"2": 1, "3": 1} and st["turns"] == 5 and st["memory_only_turns"] == 2
    assert st["by_answer_format"] == {"choice": 2, "number": 3} and st["papers_per_episode_mean"] == 1.5


def test_python_dash_m_harness_exits_2_without_traceback(tmp_path):
    f = _write(tmp_path, _mutate("turns.1.answer.format", "essay"))
    r = subprocess.run([sys.executable, "-m", "harness", "episodes", "validate", str(f)], cwd=REPO,
                       capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "COLUMNS": "1000"}, timeout=120)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "episode 'ep1': turns[1].answer.format" in r.stderr


def test_episode_stats_of_empty_list_is_zero():
    assert episode_stats([]).episodes == 0


def test_handwritten_examples_load_and_their_checklists_reach_their_evidence():
    from harness.episodes_io import checklist_coverage_problems

    s = load_episodes(REPO / "episodes" / "examples" / "handwritten.jsonl")
    assert len(s.episodes) >= 2 and any(t.cue and t.cue.image for e in s.episodes for t in e.turns)
    assert [checklist_coverage_problems(e) for e in s.episodes] == [[] for _ in s.episodes]


def test_checklist_arguments_are_checked_against_the_tools_own_schemas(tmp_path):
    """No copy of the tool signatures: the loader asks the tools, so a checklist naming an argument a tool
    does not take (or missing one it needs) is refused with the tool's real parameter list."""
    from harness.episodes_io import tool_parameters
    from tools import ALL_TOOLS, get_tool

    for name in ALL_TOOLS:
        required, optional = tool_parameters(name)
        schema = get_tool(name).parameters
        assert set(required) == set(schema.get("required", [])) and set(required) | set(optional) == set(schema["properties"])
    ep = {"id": "e", "split": "easy", "task_type": "comparison", "initiation": "citation", "area": "a",
          "turns": [{"question": "q", "answer": {"format": "text", "value": "v"},
                     "checklist": [{"tool": "table_extract", "args": {"paper": "P1", "figure": 2}}]}]}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(ep) + "\n")
    with pytest.raises(EpisodeFileError, match=r"unknown argument\(s\) 'figure'; missing argument\(s\) 'table'; "
                                               r"table_extract takes paper, table"):
        load_episodes(bad)


def test_committed_benchmark_image_cues_are_pngs_and_a_missing_one_is_refused(tmp_path, monkeypatch, capsys):
    """sandbox-v1's image cues resolve relative to the file's folder; copied without its cue folder, the
    file is refused with the episode, line and field of each missing image."""
    committed = REPO / "episodes" / "sandbox-v1.jsonl"
    s = load_episodes(committed)
    images = [(e.id, t.cue.image) for e in s.episodes for t in e.turns if t.cue and t.cue.image]
    assert 0.15 <= len(images) / len(s.episodes) <= 0.20
    for _, rel in images:
        assert (committed.parent / rel).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", rel
    moved = tmp_path / "sandbox-v1.jsonl"
    moved.write_bytes(committed.read_bytes())
    code, out = _run_epi(monkeypatch, capsys, "episodes", "validate", str(moved))
    assert code == 2 and "Traceback" not in out
    ep_id = images[0][0]
    assert f"episode '{ep_id}': turns[0].cue.image: image file not found" in out, out
