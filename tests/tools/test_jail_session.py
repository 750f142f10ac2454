"""The long-lived jail (tools/_jail_session.py): frames both ways, calls back to the harness, limits kept from
outside (wall clock, CPU, a frame too large), a fresh jail after a stop, nothing left after close, and what
code that got past smol-code's evaluator would find in there: the same box as code_exec, with smolagents'
packages bound, and nothing of the harness (its environment, files, paths or modules)."""
from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tools._jail_box import packages_site
from tools._jail_session import JailSession, JailStopped, SessionLimits

from .jail_attacks import CHECKOUT, host_processes_of

# a program that runs the code of each request with exec and replies with what it printed; `call(x)` asks the harness
RAW = r'''
import io, json, os, struct, sys, contextlib
H = struct.Struct(">I")
def send(m):
    d = json.dumps(m).encode(); os.write(1, H.pack(len(d)) + d)
def recv():
    def exact(n):
        b = b""
        while len(b) < n:
            c = os.read(0, n - len(b))
            if not c: os._exit(0)
            b += c
        return b
    return json.loads(exact(H.unpack(exact(4))[0]))
def call(x):
    send({"op": "call", "x": x}); return recv()["value"]
send({"op": "ready"})
g = {"call": call, "send": send, "H": H}
while True:
    req = recv()
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(req["code"], g)
    except BaseException as e:
        out.write(f"{type(e).__name__}: {e}")
    send({"op": "done", "out": out.getvalue()})
'''
FAST = SessionLimits(wall_seconds=5, cpu_seconds=5, memory_mb=512, start_seconds=30)


def _no_calls(msg: dict) -> dict:
    raise AssertionError(f"unexpected call {msg}")


@pytest.fixture
def session() -> JailSession:
    s = JailSession(RAW, FAST)
    yield s
    s.close()


def test_requests_keep_state_and_calls_reach_the_harness_with_their_clock_stopped():
    served = []

    def serve(msg: dict) -> dict:
        served.append(msg["x"])
        time.sleep(1.5)  # the harness's own work: longer than the code's whole allowance, and not counted
        return {"op": "result", "value": msg["x"] * 2}

    s = JailSession(RAW, SessionLimits(wall_seconds=1, cpu_seconds=1, start_seconds=30))
    try:
        assert s.request({"code": "v = 20"}, _no_calls)["out"] == ""
        assert s.request({"code": "print(call(v + 1))"}, serve)["out"] == "42\n"
        assert served == [21] and s.starts == 1
    finally:
        s.close()


@pytest.mark.parametrize("limit,limits", [
    ("wall", SessionLimits(wall_seconds=1, cpu_seconds=30, start_seconds=30)),
    ("cpu", SessionLimits(wall_seconds=30, cpu_seconds=0.5, start_seconds=30)),
])
def test_a_limit_kills_the_jail_from_outside_and_the_next_request_gets_a_fresh_one(limit, limits):
    s = JailSession(RAW, limits)
    try:
        s.request({"code": "v = 1"}, _no_calls)
        t0 = time.monotonic()
        with pytest.raises(JailStopped) as stop:
            s.request({"code": "while True:\n    pass"}, _no_calls)
        assert stop.value.reason == limit
        assert time.monotonic() - t0 < (3 if limit == "wall" else 10)
        assert "NameError" in s.request({"code": "print(v)"}, _no_calls)["out"]  # a fresh interpreter
        assert s.starts == 2
    finally:
        s.close()


def test_a_frame_past_the_cap_is_a_protocol_violation(session: JailSession):
    with pytest.raises(JailStopped) as stop:
        session.request({"code": "import os\nos.write(1, H.pack(1 << 30))"}, _no_calls)
    assert stop.value.reason == "protocol"
    assert session.request({"code": "print('again')"}, _no_calls)["out"] == "again\n"


def test_the_program_reads_its_requests_from_a_pipe_it_cannot_be_tricked_into_closing(session: JailSession):
    # a code step that closes its own stdout ends the jail: the harness notices, says so, and starts another
    with pytest.raises(JailStopped) as stop:
        session.request({"code": "import os\nos.close(1)"}, _no_calls)
    assert stop.value.reason == "died"
    assert session.request({"code": "print(1 + 1)"}, _no_calls)["out"] == "2\n"


def test_close_leaves_no_process_and_no_control_group():
    s = JailSession(RAW, FAST)
    s.request({"code": "import os\nprint(os.getuid())"}, _no_calls)
    jail = s._jail
    assert jail is not None
    uid = int(s.request({"code": "print(os.getuid())"}, _no_calls)["out"])
    group_dirs = list(jail.group.dirs) if jail.group else []
    assert host_processes_of(uid)
    s.close()
    deadline = time.monotonic() + 5
    while host_processes_of(uid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not host_processes_of(uid)
    assert not any(d.exists() for d in group_dirs)


@pytest.mark.parametrize("audit_hook", [True, False], ids=["hook", "os_layer_alone"])
def test_code_past_the_evaluator_finds_nothing_of_the_harness(audit_hook, tmp_path, monkeypatch):
    """As if the model's code got out of smolagents' evaluator: full Python in smol-code's jail (smolagents'
    packages bound), with and without the audit hook."""
    canary = f"canary-{secrets.token_hex(6)}"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    secret = tmp_path / "secret.txt"
    secret.write_text(canary)
    secret.chmod(0o600)
    limits = SessionLimits(wall_seconds=60, cpu_seconds=60, start_seconds=30)
    s = JailSession(RAW, limits, sites=(packages_site(("smolagents",)),), audit_hook=audit_hook)
    probe = f"""
import os, sys
print('ENV', dict(os.environ))
print('PREFIX', sys.prefix, sys.executable, sys.path)
for name in ('harness', 'tools', 'agents', 'sandbox'):
    try:
        __import__(name)
        print('IMPORTED', name)
    except ImportError as e:
        print('NOIMPORT', name, type(e).__name__)
for i, path in enumerate(({str(secret)!r}, '/proc/self/mountinfo', '/proc/1/cmdline', '/proc/cmdline',
                          {str(CHECKOUT / 'pyproject.toml')!r})):
    try:
        print('READ', i, open(path).read()[:2000])
    except OSError as e:
        print('NOREAD', i, type(e).__name__)
found = []
for root, dirs, files in os.walk('/'):
    dirs[:] = [d for d in dirs if root != '/' or d not in ('dev', 'usr')]  # /usr: the system's own files
    found += [os.path.join(root, f) for f in files if f in ('secret.txt', 'ground_truth.json')]
    if 'harness' in dirs and 'pyproject.toml' in files:
        found.append(root)
print('FOUND', found)
import smolagents.local_python_executor as lpe
print('SMOL', lpe.__file__)
"""
    try:
        out = s.request({"code": probe}, _no_calls)["out"]
    finally:
        s.close()
    assert canary not in out
    for host in {str(CHECKOUT), os.path.realpath(CHECKOUT), os.path.realpath(sys.prefix),
                 os.path.realpath(sys.base_prefix), str(tmp_path), os.path.expanduser("~")} - {"/", "/usr"}:
        assert host not in out, f"the host path {host} is visible inside:\n{out}"
    for name in ("harness", "tools", "agents", "sandbox"):
        assert f"NOIMPORT {name} ModuleNotFoundError" in out, out
    assert "IMPORTED" not in out and "\nREAD " not in "\n" + out and out.count("NOREAD") == 5
    assert "FOUND []" in out and "'HOME': '/scratch'" in out
    assert "SMOL /opt/epi-jail/lib/site-0/smolagents/local_python_executor.py" in out


def test_the_jails_lifetime_cpu_is_capped_by_the_kernel_too():
    """A backstop beside the watchdog: the rlimit over the jail's whole life (here 1 s) ends it, named as such."""
    s = JailSession(RAW, SessionLimits(wall_seconds=30, cpu_seconds=30, lifetime_cpu_seconds=1, start_seconds=30))
    try:
        with pytest.raises(JailStopped) as stop:
            s.request({"code": "while True:\n    pass"}, _no_calls)
        assert (stop.value.reason, stop.value.detail) == ("cpu", "lifetime")
    finally:
        s.close()


def test_smolagents_is_bound_read_only_in_smol_codes_jail(tmp_path):
    """Issue 23 item 1 ("smolagents bound read-only"): code in the jail, the audit hook off, cannot change the
    executor that runs it, nor add a module beside it; the same writes work on a copy outside (positive control)."""
    import shutil

    site = packages_site(("smolagents",))
    probe = """
import os, smolagents.local_python_executor as lpe
for what, path, mode in (('patch', lpe.__file__, 'a'), ('add', os.path.join(os.path.dirname(lpe.__file__), 'planted.py'), 'w')):
    try:
        with open(path, mode) as f:
            f.write('\\n# changed by the jailed code\\n')
        print('WROTE', what)
    except OSError as e:
        print('REFUSED', what, type(e).__name__)
"""
    outside = tmp_path / "copy"
    shutil.copytree(Path(site) / "smolagents", outside / "smolagents")
    control = subprocess.run([sys.executable, "-c", probe], env={**os.environ, "PYTHONPATH": str(outside)},
                             capture_output=True, text=True, timeout=120)
    assert "WROTE patch" in control.stdout and "WROTE add" in control.stdout, control.stdout + control.stderr
    before = (Path(site) / "smolagents" / "local_python_executor.py").read_bytes()
    s = JailSession(RAW, SessionLimits(wall_seconds=60, cpu_seconds=60, start_seconds=30), sites=(site,), audit_hook=False)
    try:
        out = s.request({"code": probe}, _no_calls)["out"]
    finally:
        s.close()
    assert "WROTE" not in out and out.count("REFUSED") == 2, out
    assert (Path(site) / "smolagents" / "local_python_executor.py").read_bytes() == before
    assert not (Path(site) / "smolagents" / "planted.py").exists()
