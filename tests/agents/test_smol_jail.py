"""smol-code runs the model's code in the jail, never in the harness (issue 23), proven through `epi run --agent
smol-code` against the scripted model server, with canaries planted in the harness's environment and files.

One run (in a subprocess, so its peak memory and its responsiveness are its own) plays the red team's
payloads in turn 1: the `str.format` traversal that printed the harness's environment, the same traversal
naming `sys.path` and the harness's own module, a read of a 0600 secret, an import of the harness, a 2 GB
allocation, a variable, `sum(range(2*10**9))` and a look at that variable afterwards. The tests then read
what the model server was sent and every file of the run.
"""
from __future__ import annotations

import ast
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from harness.rundir import RunDir
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem

CHECKOUT = Path(__file__).resolve().parents[2]
GADGET = "'{0.gi_frame.f_globals[inspect].%s}'.format((i for i in [1]))"
STEPS = {
    "env": f"print({GADGET % 'sys.modules[os].environ'})",  # the payload
    "path": f"print({GADGET % 'sys.path'})",
    "harness_module": f"print({GADGET % 'sys.modules[harness]'})",
    "secret": "print(open(SECRET).read())",
    "import": "import harness\nprint(harness.__file__)",
    "alloc": "x = 'a' * (2 * 10**9)\nprint(len(x))",
    "set": "y = 42\nprint('y is set')",
    "loop": "print(sum(range(2 * 10**9)))",
    "after": "print('y =', y)",
}
CODE_TIMEOUT_S = 2

_DRIVER = r'''
import json, resource, sys, threading, time
gap = [0.0]
def beat():
    last = time.monotonic()
    while True:
        time.sleep(0.05)
        now = time.monotonic()
        gap[0] = max(gap[0], now - last)
        last = now
threading.Thread(target=beat, daemon=True).start()
from harness.cli import main
sys.argv = ["epi", *json.loads(sys.argv[1])]
t0, code = time.monotonic(), 0
try:
    main()
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
print("RESULT " + json.dumps({"exit": code, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                              "max_gap_s": gap[0], "elapsed_s": time.monotonic() - t0}))
'''


def _host_paths() -> list[str]:
    """Where the harness lives on the host: the checkout, its virtualenv and the Python installation."""
    paths = {str(CHECKOUT), os.path.realpath(CHECKOUT), os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    return sorted(p for p in paths if p not in ("/", "/usr"))


class AttackRun:
    def __init__(self, root: Path, episodes: Path, sandbox: Path):
        nonce = secrets.token_hex(6)
        self.canaries = {"OPENAI_API_KEY": f"canary-openai-{nonce}", "EPI_CANARY_TOKEN": f"canary-env-{nonce}",
                         "EPI_TEST_KEY": f"sk-canary-{nonce}"}
        self.file_canary = f"canary-file-{nonce}"
        secret = root / "secret.txt"
        secret.write_text(self.file_canary)
        secret.chmod(0o600)
        self.order = list(STEPS)
        codes = [STEPS[k].replace("SECRET", repr(str(secret))) for k in self.order]
        items = [{"code": c} for c in codes] + [{"code": "final_answer('2020')"}, {"code": "final_answer('x')"},
                                                {"code": "final_answer('x')"}]
        self.server = ScriptedModelServer(Script(responses=[ScriptItem.model_validate(i) for i in items],
                                                 default=ScriptItem(content="Final answer: unknown"))).start()
        config = root / "run.toml"
        config.write_text(f"[agent_config.extra]\ncode_timeout_s = {CODE_TIMEOUT_S}\n")
        self.results = root / "results"
        args = ["run", "--agent", "smol-code", "--model", "scripted-model", "--base-url", self.server.base_url,
                "--api-key-env", "EPI_TEST_KEY", "--episodes", str(episodes), "--results", str(self.results),
                "--run-id", "smoljail", "--limit", "1", "--max-steps", "12", "--no-score", "-q", "--config", str(config)]
        script = root / "driver.py"
        script.write_text(_DRIVER)
        env = {**os.environ, **self.canaries, "EPI_SANDBOX_DIR": str(sandbox), "PYTHONPATH": str(CHECKOUT),
               "HF_HUB_OFFLINE": "1"}
        try:
            proc = subprocess.run([sys.executable, str(script), json.dumps(args)], cwd=root, env=env,
                                  capture_output=True, text=True, timeout=600)
        finally:
            self.server.stop()
        self.output = proc.stdout + proc.stderr
        line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
        assert line, f"the run did not finish:\n{self.output[-3000:]}"
        self.result: dict[str, Any] = json.loads(line[len("RESULT "):])
        self.requests = [json.dumps(r.body) for r in self.server.chat_requests]
        self.run_dir = RunDir(self.results / "smoljail")

    def after(self, step: str) -> str:
        """The request the model was sent right after this code step: it holds the step's observation."""
        return self.requests[self.order.index(step) + 1]

    def run_files(self) -> dict[str, str]:
        return {str(p): p.read_bytes().decode("utf-8", "replace") for p in self.results.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def attack_run(tmp_path_factory: pytest.TempPathFactory, tiny_sandbox: Path, tiny_episodes: Path) -> Iterator[AttackRun]:
    yield AttackRun(tmp_path_factory.mktemp("smoljail"), tiny_episodes, tiny_sandbox)


@pytest.mark.slow
def test_the_run_completes_and_every_answer_is_recorded(attack_run: AttackRun):
    assert attack_run.result["exit"] == 0, attack_run.output[-3000:]
    traces = list((attack_run.run_dir.traces_dir).glob("*.jsonl"))
    assert len(traces) == 1
    tr = attack_run.run_dir.read_trace(traces[0].stem)
    assert tr.complete and not tr.bad_lines
    finals = [e for e in tr.events if e.kind == "final_answer"]
    assert [(f.answer, f.source) for f in finals] == [("2020", "agent"), ("x", "agent"), ("x", "agent")]


@pytest.mark.slow
def test_no_environment_value_file_secret_or_host_path_reaches_the_model_or_the_run(attack_run: AttackRun):
    seen = {"request": attack_run.requests, **{f"file {k}": [v] for k, v in attack_run.run_files().items()}}
    for where, texts in seen.items():
        for text in texts:
            for name, value in attack_run.canaries.items():
                assert value not in text, f"{name}'s value reached the {where}"
            assert attack_run.file_canary not in text, f"the 0600 file reached the {where}"
            for path in _host_paths():
                assert path not in text, f"the host path {path} reached the {where}"
    env_seen = attack_run.after("env")
    assert "HOME" in env_seen and "/scratch" in env_seen, "the payload ran and printed the jail's own environment"


@pytest.mark.slow
def test_the_harness_modules_are_neither_loaded_nor_importable_where_the_code_runs(attack_run: AttackRun):
    assert "KeyError" in attack_run.after("harness_module") and "<module 'harness'" not in attack_run.after("harness_module")
    assert "Import of harness is not allowed" in attack_run.after("import")
    path_seen = attack_run.after("path")
    for pkg in ("harness", "agents", "tools", "sandbox"):
        assert f"/{pkg}'" not in path_seen


@pytest.mark.slow
def test_a_long_computation_ends_its_step_and_holds_neither_the_harness_nor_the_run(attack_run: AttackRun):
    stopped = attack_run.after("loop")
    assert f"maximum execution time of {CODE_TIMEOUT_S} seconds" in stopped
    assert "variables" in stopped and "lost" in stopped  # the model is told the session was restarted
    assert "is not defined" in attack_run.after("after")  # and so it was: y is gone
    assert attack_run.result["max_gap_s"] < 3, attack_run.result  # a thread of the harness was never starved
    assert attack_run.result["elapsed_s"] < 60, attack_run.result


@pytest.mark.slow
def test_a_2gb_allocation_meets_the_memory_cap_outside_the_harness(attack_run: AttackRun):
    seen = attack_run.after("alloc")
    assert "MemoryError" in seen and "memory limit" in seen
    assert "2000000000" not in seen
    assert attack_run.result["peak_mb"] < 1500, attack_run.result  # the harness never held the 2 GB


def test_smol_code_is_refused_before_any_episode_where_the_jail_cannot_run(tiny_sandbox, tiny_episodes, tmp_path,
                                                                         capsys, monkeypatch):
    from harness.cli import main
    from tools import _jail_box
    from tools._jail import check_jail

    monkeypatch.setattr(_jail_box, "find_bwrap", lambda: None)
    monkeypatch.setenv("EPI_SANDBOX_DIR", str(tiny_sandbox))
    monkeypatch.setenv("EPI_TEST_KEY", "sk-test")
    srv = ScriptedModelServer(Script(responses=[ScriptItem(code="final_answer('x')")])).start()
    for f in (_jail_box.plan, check_jail):
        f.cache_clear()
    monkeypatch.setattr(sys, "argv", ["epi", "run", "--agent", "smol-code", "--model", "scripted-model", "--base-url",
                                      srv.base_url, "--api-key-env", "EPI_TEST_KEY", "--episodes", str(tiny_episodes),
                                      "--results", str(tmp_path / "r"), "--limit", "1", "-q"])
    try:
        with pytest.raises(SystemExit) as done:
            main()
    finally:
        srv.stop()
        for f in (_jail_box.plan, check_jail):
            f.cache_clear()
    out = capsys.readouterr()
    text = out.out + out.err
    assert done.value.code == 2, text
    assert "smol-code runs the model's code in the jail" in text and "apt-get install bubblewrap" in text
    assert "Traceback" not in text
    assert not srv.chat_requests, "no episode may start"


async def test_a_jail_that_cannot_be_restarted_fails_the_episode_as_the_harnesses_fault(
        model_server, api_key_env, episodes_file, tmp_path, monkeypatch):
    """After a step is stopped, the fresh jail cannot start (bubblewrap vanished): the episode ends with the
    pipeline bucket and the reason, instead of the model spending its budget on a jail that is not there."""
    from tools import _jail_session
    from tools._jail_box import JailUnavailable

    from .conftest import agent_config, events, run_agent

    real, made = _jail_session._Jail, []

    def first_only(*args: Any, **kwargs: Any) -> Any:
        if made:
            raise JailUnavailable("bubblewrap vanished")
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_jail_session, "_Jail", first_only)
    srv = model_server([{"code": "print(sum(range(2 * 10**9)))"}], default={"code": "print('again')"})
    cfg = agent_config(srv, api_key_env, extra={"code_timeout_s": 1})
    summary, rd = await run_agent("smol-code", cfg, episodes_file, tmp_path / "res")
    outcome = summary.outcomes[0]
    assert outcome.status == "failed" and outcome.bucket == "pipeline", outcome
    (err,) = events(rd, "ep-search-1", "error")
    assert "bubblewrap vanished" in err.message
    assert len(srv.chat_requests) == 2  # the stopped step, the step that found no jail; then the episode ended


@pytest.mark.parametrize("extra", [{"code_timeout_s": "soon"}, {"code_timeout_s": 0}, {"code_memory_mb": -5}])
async def test_bad_code_limits_are_refused_before_the_run_naming_the_field(extra):
    from agents.smol import SmolCodeAgent
    from harness.agent import AgentConfig

    agent = SmolCodeAgent(AgentConfig(model="m", base_url="http://127.0.0.1:9/v1", extra=extra))
    with pytest.raises(ValueError, match=f"agent_config.extra.{next(iter(extra))} must be a positive number"):
        await agent.preflight()


VALUES = ["final_answer('Paper 1')", "final_answer(42)", "final_answer(3.0)", "final_answer(2.5)",
          "final_answer(['a', 'b'])", "final_answer(('x', 1))", "final_answer({'only'})", "final_answer({'a': 1})",
          "final_answer(None)", "final_answer(True)", "final_answer([[1, 2], [3]])", "final_answer(10**20)",
          "class A:\n    def __str__(self):\n        return 'custom'\nfinal_answer(A())",
          "final_answer(answer='keyword')", "final_answer({'answer': 'a dict of arguments'})",
          "final_answer('  padded  ')", "print('shown')\nx = [1, 'two', 3.5]\nx", "y = {'k': (1, 2)}\ny"]


ERRORS = ["import os", "print('before')\n1 / 0", "print(undefined_name)", "for i in range(3)\n    print(i)",
          "x = [1]\nx[5]", "raise ValueError('mine')", "print('a')\nfinal_answer()"]


def test_every_value_reads_as_it_did_with_the_executor_in_the_harness():
    """The same code steps through smolagents' executor in the harness (before issue 23) and in the jail: the
    recorded answer, the printed output, the logs and the final-answer flag are the same."""
    from smolagents.default_tools import FinalAnswerTool
    from smolagents.local_python_executor import LocalPythonExecutor

    from agents._answers import answer_value_text
    from agents._smol_jail import executor_class
    from agents.smol import AUTHORIZED_IMPORTS

    local = LocalPythonExecutor(list(AUTHORIZED_IMPORTS))
    jailed = executor_class()(list(AUTHORIZED_IMPORTS))
    try:
        for ex in (local, jailed):
            ex.send_tools({"final_answer": FinalAnswerTool()})
        for code in VALUES:
            want, got = local(code), jailed(code)
            assert (got.is_final_answer, got.logs) == (want.is_final_answer, want.logs), code
            assert answer_value_text(got.output) == answer_value_text(want.output), code
            assert str(got.output) == str(want.output), code
            assert re.sub(r"0x[0-9a-f]+", "0x", repr(got.output)) == re.sub(r"0x[0-9a-f]+", "0x", repr(want.output)), code
        for code in ERRORS:  # what the model reads after a failed step: the error and what was printed before it
            seen = []
            for ex in (local, jailed):
                with pytest.raises(Exception) as err:
                    ex(code)
                # the allowlist is printed in set order, which differs from one interpreter to the next
                text = re.sub(r"\[[^\]]*\]$", lambda m: str(sorted(ast.literal_eval(m.group(0)))), str(err.value))
                seen.append((type(err.value).__name__, text, str(ex.state["_print_outputs"])))
            assert seen[0] == seen[1], code
    finally:
        jailed.cleanup()


async def test_nothing_of_one_episodes_code_reaches_the_next(model_server, api_key_env, tmp_path):
    """Issue 23 item 3: a jail is kept within one episode (a variable of step 1 is there at step 2) and closed at its
    end: the next episode's code finds neither the variable nor the jail's processes."""
    from harness.code_jail import JailSession

    from .conftest import agent_config, run_agent, two_turn_episode, write_episodes

    eps = write_episodes(tmp_path / "eps.jsonl", [two_turn_episode("ep-a"), two_turn_episode("ep-b")])
    srv = model_server([
        {"code": "left_by_a = 'canary-of-episode-a'\nprint('set')"},  # episode a, turn 1
        {"code": "print('within the episode:', left_by_a)"},
        {"code": "final_answer('x')"},
        {"code": "final_answer('A')"},  # episode a, turn 2 (memory-only)
        {"code": "print('next episode:', left_by_a)"},  # episode b, turn 1
        {"code": "final_answer('x')"},
        {"code": "final_answer('A')"},
    ])
    opened: list[JailSession] = []
    real_init = JailSession.__init__

    def watch(self: JailSession, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        opened.append(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(JailSession, "__init__", watch)
        summary, _ = await run_agent("smol-code", agent_config(srv, api_key_env), eps, tmp_path / "res")
    assert [o.answers for o in summary.outcomes] == [["x", "A"], ["x", "A"]]
    shown = [json.dumps(r.body["messages"][-1]) for r in srv.chat_requests]
    assert "within the episode: canary-of-episode-a" in shown[2]  # the positive control: kept within an episode
    assert "is not defined" in shown[5] and "canary-of-episode-a" not in shown[5]
    assert len(opened) == 2 and all(s._closed and s._jail is None for s in opened), "a jail per episode, closed at its end"
