"""Your own agent without editing the package (issue 28): `--agent path/to/file.py:Class`, `--agent module:Class` and
the `epiharness.agents` entry point run an agent written against harness/agent.py, labelled "in-process (trusted)" in
run.json, the scores and the report; a run folder never names code that gets run; every bad name is one line, exit 2."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import agents
from harness.cli import main

REPO = Path(__file__).resolve().parents[2]

AGENT_SRC = '''
from pathlib import Path

from harness.agent import BaseAgent, FinalAnswer, ToolCall
import my_helpers  # a module beside this file

Path(__file__).with_name("imported.marker").write_text("imported")


class MyAgent(BaseAgent):
    """Searches once per tool turn, then answers what my_helpers says."""

    name = "my-agent"

    def __init__(self, config):
        self.config = config

    async def step(self, ctx):
        v = ctx.view
        if v.tools and not v.fallback and not any(o.turn == v.turn for o in v.memory):
            return ToolCall(tool="web_search", args={"query": v.cue_text or v.question})
        return FinalAnswer(answer=my_helpers.ANSWER)


class NotAnAgent:
    pass


def make():
    return MyAgent(None)
'''


def epi(args: list[str], capsys, monkeypatch, sandbox: Path) -> tuple[int, str]:
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(sandbox))
    monkeypatch.setattr(sys, "argv", ["epi", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    cap = capsys.readouterr()
    return code, cap.out + cap.err


@pytest.fixture
def agent_file(tmp_path: Path, monkeypatch) -> Path:
    """my_agent.py (with a helper module beside it) in a folder outside the checkout."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "my_agent.py").write_text(AGENT_SRC)
    (folder / "my_helpers.py").write_text("ANSWER = '1999'\n")
    assert REPO not in folder.parents
    return folder / "my_agent.py"


@pytest.fixture(autouse=True)
def _fresh_imports(monkeypatch):
    """Each test loads its own files: the loader's cache, sys.path and the user's modules are put back after it."""
    monkeypatch.setattr(agents, "_FILE_MODULES", {})
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith(("epi_user_agent_", "my_helpers", "ep_agent_pkg", "no_such")):
            del sys.modules[name]


def test_an_agent_file_outside_the_checkout_runs_and_is_labelled(agent_file, tiny_sandbox, tiny_episodes, tmp_path,
                                                                  capsys, monkeypatch):
    spec = f"{agent_file}:MyAgent"
    code, out = epi(["run", "--agent", spec, "--episodes", str(tiny_episodes), "--results", str(tmp_path / "r"),
                     "--run-id", "mine", "--limit", "2", "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    run = tmp_path / "r" / "mine"
    cfg = json.loads((run / "run.json").read_text())
    assert cfg["agent"] == spec
    assert cfg["agent_origin"]["kind"] == "in-process (trusted)" and cfg["agent_origin"]["source"] == str(agent_file)
    assert len(cfg["agent_origin"]["sha256"]) == 64
    trace = (run / "traces").glob("*.jsonl").__next__().read_text()
    assert '"agent":"my-agent"' in trace.replace(" ", "") and '"tool":"web_search"' in trace.replace(" ", "")
    scores = json.loads((run / "scores.json").read_text())
    assert scores["agent_origin"] == "in-process (trusted)" and str(agent_file) in scores["agent_source"]
    assert "**in-process (trusted)**" in (run / "report.md").read_text()
    # the same file through --config
    toml = tmp_path / "run.toml"
    toml.write_text(f'[run]\nagent = "{spec}"\nepisodes = "{tiny_episodes}"\nlimit = 1\n')
    code, out = epi(["run", "--config", str(toml), "--results", str(tmp_path / "r"), "--run-id", "cfg", "-q", "--no-score"],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    assert json.loads((tmp_path / "r" / "cfg" / "run.json").read_text())["agent_origin"]["kind"] == "in-process (trusted)"


def test_a_run_folder_never_names_code_that_runs(agent_file, tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    """run.json may come from someone else: resuming needs the agent again on the command line, and the file the
    run names is not imported without it."""
    spec = f"{agent_file}:MyAgent"
    code, out = epi(["run", "--agent", spec, "--episodes", str(tiny_episodes), "--results", str(tmp_path / "r"),
                     "--run-id", "mine", "--limit", "1", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    marker = agent_file.with_name("imported.marker")
    assert marker.is_file()
    marker.unlink()
    monkeypatch.setattr(agents, "_FILE_MODULES", {})
    code, out = epi(["run", "--resume", "mine", "--results", str(tmp_path / "r")], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "which you did not give" in out and f"--agent {spec}" in out and "Traceback" not in out
    assert not marker.exists()  # the file the run folder names was never imported
    code, out = epi(["score", str(tmp_path / "r" / "mine")], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    code, out = epi(["view", str(tmp_path / "r" / "mine"), "--out", str(tmp_path / "v")], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    assert not marker.exists()  # nor by scoring or viewing the run
    code, out = epi(["run", "--resume", "mine", "--agent", spec, "--results", str(tmp_path / "r"), "-q", "--no-score"],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out


def _entry_point_dist(root: Path) -> None:
    """An installed distribution, as pip leaves one: a package and its dist-info with entry_points.txt."""
    pkg = root / "ep_agent_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "from harness.agent import BaseAgent, FinalAnswer\n\n\n"
        "class EpAgent(BaseAgent):\n    name = 'ep-agent'\n\n"
        "    async def step(self, ctx):\n        return FinalAnswer(answer='2001')\n")
    (pkg / "bad.py").write_text("raise RuntimeError('the package is broken')\n")
    info = root / "ep_agent_pkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-agent-pkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[epiharness.agents]\nmy-ep-agent = ep_agent_pkg:EpAgent\n"
                                           "broken-ep = ep_agent_pkg.bad:Nothing\n")


def test_an_agent_installed_through_the_entry_point_runs(tiny_sandbox, tiny_episodes, tmp_path, capsys, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    _entry_point_dist(site)
    monkeypatch.syspath_prepend(str(site))
    assert "my-ep-agent" in agents.known_names()  # found by the real importlib.metadata lookup
    code, out = epi(["run", "--agent", "my-ep-agent", "--episodes", str(tiny_episodes), "--results", str(tmp_path / "r"),
                     "--run-id", "ep", "--limit", "1", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    origin = json.loads((tmp_path / "r" / "ep" / "run.json").read_text())["agent_origin"]
    assert origin == {"kind": "in-process (trusted)", "source": "entry point epiharness.agents:my-ep-agent = ep_agent_pkg:EpAgent"}
    # the same class by module name
    code, out = epi(["run", "--agent", "ep_agent_pkg:EpAgent", "--episodes", str(tiny_episodes), "--results",
                     str(tmp_path / "r"), "--run-id", "mod", "--limit", "1", "-q", "--no-score"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    assert json.loads((tmp_path / "r" / "mod" / "run.json").read_text())["agent_origin"]["source"] == "module ep_agent_pkg"
    # an entry point whose module fails to import: one line
    code, out = epi(["run", "--agent", "broken-ep", "--episodes", str(tiny_episodes), "--results", str(tmp_path / "r2"),
                     "-q"], capsys, monkeypatch, tiny_sandbox)
    assert code == 2 and "RuntimeError: the package is broken" in out and "bad.py line 1" in out, out
    assert "Traceback" not in out and not (tmp_path / "r2").exists()


@pytest.mark.parametrize("name, source, needle", [
    ("nope.py:MyAgent", None, "no file"),
    ("my_agent.py:Nope", AGENT_SRC, "defines no 'Nope' (its classes: MyAgent, NotAnAgent)"),
    ("my_agent.py:NotAnAgent", AGENT_SRC, "is not an agent (harness.agent.Agent): it lacks preflight"),
    ("my_agent.py:make", AGENT_SRC, "is a function, not an agent class"),
    ("my_agent.py:MyAgent", "import numpy\nimport no_such_module_xyz\n",
     "ModuleNotFoundError: No module named 'no_such_module_xyz' ({dir}/my_agent.py line 2)"),
    ("my_agent.py:MyAgent", "def broken(:\n", "SyntaxError"),
    ("my_agent.py:MyAgent", "import sys\nsys.exit(3)\n", "SystemExit: 3"),
    ("no_such_pkg_xyz.agent:Agent", None, "no module named 'no_such_pkg_xyz' on the Python path"),
    ("my_agent.py:", AGENT_SRC, "expected path/to/file.py:Class or package.module:Class"),
    ("nobody", None, "unknown agent 'nobody'; known agents: oracle"),
])
def test_a_bad_agent_name_is_one_line_and_exit_2(name, source, needle, tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                 monkeypatch):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    if source is not None:
        (folder / "my_agent.py").write_text(source)
        (folder / "my_helpers.py").write_text("ANSWER = '1'\n")
    spec = str(folder / name) if ".py:" in name else name
    code, out = epi(["run", "--agent", spec, "--episodes", str(tiny_episodes), "--results", str(tmp_path / "r"), "-q"],
                    capsys, monkeypatch, tiny_sandbox)
    assert code == 2, out
    assert needle.format(dir=folder) in out and "Traceback" not in out
    assert len([line for line in out.splitlines() if line.strip()]) == 1, out
    assert not (tmp_path / "r").exists()


CHATTY_SRC = '''
from harness.agent import BaseAgent, FinalAnswer, TokenUsage


class Chatty(BaseAgent):
    """Reports two model calls in every step, and answers."""

    name = "chatty"

    async def step(self, ctx):
        for _ in range(2):
            ctx.record_model_call(model="m", request={"x": 1}, response={"ok": 1}, usage=TokenUsage(input_tokens=3),
                                  latency_s=0.0, tools_offered=ctx.view.tool_names)
        return FinalAnswer(answer="1999")
'''


def test_the_checks_reach_the_scores_the_report_and_the_viewer(tiny_sandbox, tiny_episodes, tmp_path, capsys,
                                                                monkeypatch):
    from harness.viewer import build_viewer

    src = tmp_path / "chatty.py"
    src.write_text(CHATTY_SRC)
    code, out = epi(["run", "--agent", f"{src}:Chatty", "--episodes", str(tiny_episodes), "--results",
                     str(tmp_path / "r"), "--run-id", "chatty", "--limit", "2", "-q"], capsys, monkeypatch, tiny_sandbox)
    out = " ".join(out.split())  # the terminal may wrap
    assert code == 0, out
    run = tmp_path / "r" / "chatty"
    assert "agent checks: model_call_in_step 6" in out and "agent in-process (trusted)" in out  # the terminal says it
    scores = json.loads((run / "scores.json").read_text())
    assert scores["scorer_version"] == "20"
    assert scores["agent_checks"] == {"model_call_in_step": 6}  # 2 episodes x 3 turns, one extra call each
    assert len(scores["flagged_episodes"]) == 2
    per_episode = [json.loads(line) for line in (run / "episode_scores.jsonl").read_text().splitlines()]
    assert all(e["agent_checks"] == {"model_call_in_step": 3} for e in per_episode)
    report = (run / "report.md").read_text()
    assert "**agent checks**: model_call_in_step 6" in report and "in 2 episode(s)" in report
    assert "**in-process (trusted)**" in report
    viewer = build_viewer([run]).parent
    index = json.loads((viewer / "data" / "index.js").read_text().split("=", 1)[1].strip().rstrip(";"))
    (r,) = index["runs"]
    assert r["agent_origin"] == "in-process (trusted)" and str(src) in r["agent_source"]
    assert [e["checks"] for e in r["episodes"]] == [3, 3]
    ep_file = next((viewer / "data" / "ep" / "0").glob("*.js")).read_text()
    assert '"agent_checks":{"model_call_in_step":3}' in ep_file.replace(" ", "")
    assert ep_file.count('"kind": "agent_check"') + ep_file.count('"kind":"agent_check"') == 3  # a row per check
    eid = per_episode[0]["episode_id"]
    code, out = epi(["replay", str(run), eid, "--width", "200"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0 and out.count("agent check: model call in step (charged)") == 3 and "charged as model step 2" in out, out


def test_an_ablation_of_an_agent_file_stays_in_the_results_folder(agent_file, tiny_sandbox, tiny_episodes, tmp_path,
                                                                   capsys, monkeypatch):
    code, out = epi(["ablate", "--agent", f"{agent_file}:MyAgent", "--max-steps", "2", "--episodes", str(tiny_episodes),
                     "--limit", "1", "--results", str(tmp_path / "r"), "--json"], capsys, monkeypatch, tiny_sandbox)
    assert code == 0, out
    (group,) = (tmp_path / "r").iterdir()  # named by the class, not by the file's path
    assert group.name.startswith("ablate-MyAgent-") and (group / "all" / "run.json").is_file()


def test_a_retry_with_your_own_agent_makes_the_run_in_process():
    from harness.scoring.run import _agent_origin

    built_in = {"kind": "built-in", "source": "agents.heuristic:HeuristicAgent"}
    mine = {"kind": "in-process (trusted)", "source": "/x/my_agent.py", "sha256": "ab" * 32}
    assert _agent_origin({"agent_origin": built_in}) == (built_in, "agents.heuristic:HeuristicAgent")
    origin, source = _agent_origin({"agent_origin": built_in, "retries": [{"agent_origin": mine}]})
    assert origin == mine and source == "/x/my_agent.py (sha256 abababababab) (by `epi retry`)"
    assert _agent_origin({}) == ({}, None)  # a run made before origins were recorded
