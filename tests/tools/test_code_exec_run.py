"""code_exec through a real run: `epi run --enable-tool code_exec` with the scripted model server sending
escape attempts. No secret planted outside the jail reaches a tool result (in the trace or in what the
model was sent), no file appears outside the scratch folder, bad code costs one step, and a machine
without the sandbox is refused before the first episode."""
from __future__ import annotations

import json
import os
import secrets
import socket
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.rundir import RunDir
from sandbox.model_server import Script, ScriptedModelServer, ScriptItem
from tools import _jail_box
from tools._jail import check_jail

from .jail_attacks import BYPASS, CHECKOUT

KEY_ENV = "EPI_TEST_KEY"


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


def _files_under(root: Path, skip: Path | None = None) -> set[str]:
    """Every file and folder under `root`, but `skip` and the bytecode caches the harness's own imports write."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != "__pycache__" and (skip is None or Path(dirpath, d) != skip)]
        out.update(os.path.join(dirpath, f) for f in filenames + dirnames)
    return out


def _child(src: str) -> str:
    return BYPASS + f"child({src!r})"


def _call(code: str) -> dict:
    return {"tool_calls": [{"name": "code_exec", "arguments": {"code": code}}]}


@pytest.mark.slow
def test_escape_attempts_through_a_real_run_leak_nothing_and_write_nothing(tiny_sandbox, tiny_episodes, tmp_path,
                                                                          capsys, monkeypatch):
    nonce = secrets.token_hex(6)
    secret_text = f"PLANTED-RUN-SECRET-{nonce}"
    planted = tmp_path / "planted"
    planted.mkdir()
    secret = planted / "secret.txt"
    secret.write_text(secret_text)
    outside = tmp_path / "outside"
    outside.mkdir()
    answer_keys = [tiny_sandbox / "ground_truth.json", CHECKOUT / "sandbox" / "build" / "ground_truth.json"]
    host_writes = [outside / f"w-{nonce}.txt", Path("/tmp") / f"epi-run-escape-{nonce}.txt",
                   CHECKOUT / f"epi-run-escape-{nonce}.txt", Path(os.path.expanduser("~")) / f"epi-run-escape-{nonce}.txt"]
    monkeypatch.setenv("EPI_RUN_SECRET", secret_text)
    monkeypatch.setenv(KEY_ENV, "sk-test")
    results = tmp_path / "results"

    with socket.socket() as probe:  # the model server's port, known before the script is written
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    reach_server = _child(f"import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:{port}/v1/models', timeout=3).read())")
    attempts = [
        _child(f"print(open({str(secret)!r}).read())"),
        *[_child(f"print(open({str(k)!r}).read()[:500])") for k in answer_keys],
        f"print(open({str(secret)!r}).read())",
        _child("; ".join(f"open({str(p)!r}, 'w').write('x')" for p in host_writes)),
        *[f"open({str(p)!r}, 'w').write('x')" for p in host_writes],
        f"import sqlite3\nsqlite3.connect({str(outside / ('db-' + nonce))!r}).execute('create table t(x)')",
        _child(f"import os; print(sorted(os.listdir({str(planted)!r})))"),
        _child("import os; print(dict(os.environ)); print(open('/proc/1/environ','rb').read())"),
        reach_server,
        "for i in range(3)\n    print(i)",  # a syntax error: one step, a clear error
        "import numpy as np\nprint('sum', int(np.arange(10).sum()))",
    ]
    items = [_call(c) for c in attempts] + [{"content": "Final answer: 2020"}]
    srv = ScriptedModelServer(Script(responses=[ScriptItem.model_validate(i) for i in items],
                                     default=ScriptItem(content="Final answer: unknown")), port=port).start()
    try:
        before = _files_under(CHECKOUT) | _files_under(tmp_path, skip=results)
        code, out = epi(["run", "--agent", "openai", "--model", "scripted-model", "--base-url", srv.base_url,
                         "--api-key-env", KEY_ENV, "--episodes", str(tiny_episodes), "--results", str(results),
                         "--run-id", "jailrun", "--limit", "1", "--max-steps", str(len(attempts) + 1),
                         "--enable-tool", "code_exec", "--no-score", "-q"], capsys, monkeypatch, tiny_sandbox)
        after = _files_under(CHECKOUT) | _files_under(tmp_path, skip=results)
        sent_to_model = [json.dumps(r.body) for r in srv.chat_requests]
    finally:
        srv.stop()
    assert code == 0, out
    rd = RunDir(results / "jailrun")
    ep_id = json.loads(tiny_episodes.read_text().splitlines()[0])["id"]
    calls = [e for e in rd.read_trace(ep_id).events if getattr(e, "kind", "") == "tool_call" and e.tool == "code_exec"]
    assert len(calls) == len(attempts), [c.args for c in calls]
    texts = [c.result_text or c.error or "" for c in calls]
    for t in texts + sent_to_model:
        assert secret_text not in t and "sk-test" not in t
        assert '"papers"' not in t and '\\"papers\\"' not in t  # no answer key
    assert "exit status: 0" in texts[-1] and "sum 45" in texts[-1]
    syntax = calls[-2]
    assert syntax.error and "syntax error at line 1" in syntax.error
    reach = texts[attempts.index(reach_server)]
    assert "child exit 1" in reach and ("Network is unreachable" in reach or "Connection refused" in reach), reach
    assert not any(p.exists() for p in host_writes) and not any(outside.iterdir())
    assert after - before == set(), f"files appeared outside the jail: {sorted(after - before)[:10]}"


def test_epi_run_with_code_exec_is_refused_before_any_episode_without_bubblewrap(tiny_sandbox, tiny_episodes, tmp_path,
                                                                                capsys, monkeypatch):
    monkeypatch.setattr(_jail_box, "find_bwrap", lambda: None)
    for f in (_jail_box.plan, check_jail):
        f.cache_clear()
    try:
        code, out = epi(["run", "--agent", "oracle", "--episodes", str(tiny_episodes), "--results", str(tmp_path / "r"),
                         "--enable-tool", "code_exec", "-q"], capsys, monkeypatch, tiny_sandbox)
    finally:
        for f in (_jail_box.plan, check_jail):
            f.cache_clear()
    assert code == 2 and "bubblewrap" in out and "apt-get install bubblewrap" in out and "Traceback" not in out
    assert not (tmp_path / "r").exists(), "nothing may be written before the preflight"
