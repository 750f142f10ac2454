"""The code jail and the code_exec tool: results come back, limits stop runaway code, nothing leaves the scratch
folder; bad code is refused before the jail starts; a machine without the sandbox gets a refusal, never a weaker jail."""
from __future__ import annotations

import os
import stat

import pytest

from sandbox.jail import JailLimits, JailUnavailable, check_jail, run_python
from tools import _jail_box, _jail_cgroup
from tools.code_exec import code_exec

from .tiny_world import TinyWorld  # noqa: F401  (import check: tools and sandbox load together)

FAST = JailLimits(cpu_seconds=1, wall_seconds=4, memory_mb=256, file_mb=1, max_output_chars=4000)


def test_arithmetic_and_numpy_work_and_scratch_files_are_usable():
    r = run_python("import numpy as np\nopen('a.txt','w').write('41')\nprint(int(open('a.txt').read()) + int(np.ones(1).sum()))", FAST)
    assert r.ok and r.stdout == "42\n" and r.stderr == ""


def test_infinite_loop_is_stopped_by_cpu_or_wall_limit():
    r = run_python("while True:\n    pass", FAST)
    assert r.limit in ("cpu", "wall") and r.exit_code != 0 and r.duration_s < 10


def test_sleeping_forever_is_stopped_by_the_wall_limit():
    r = run_python("import time\ntime.sleep(60)", JailLimits(wall_seconds=1.5))
    assert r.limit == "wall" and r.duration_s < 5


def test_huge_allocation_is_stopped_by_the_memory_limit():
    r = run_python("x = bytearray(3 * 1024**3)\nprint('allocated')", FAST)
    assert r.limit == "memory" and "allocated" not in r.stdout


@pytest.mark.parametrize("code,needle", [
    ("print(open('/etc/passwd').read())", "access to '/etc/passwd' is refused"),
    ("open('/tmp/outside.txt', 'w').write('x')", "access to '/tmp/outside.txt' is refused"),
    ("open('../escape.txt', 'w').write('x')", "is refused"),
    ("import os\nos.symlink('/etc/passwd', 'p')\nprint(open('p').read())", "refused"),
    ("import os\nprint(os.listdir('/home'))", "listing '/home' is refused"),
    ("import socket\ns = socket.socket()\ns.connect(('127.0.0.1', 80))", "socket"),
    ("import urllib.request\nurllib.request.urlopen('http://example.com')", "not allowed"),
    ("import subprocess\nsubprocess.run(['cat', '/etc/passwd'])", "subprocess.Popen is not allowed"),
    ("import ctypes\nctypes.CDLL(None).system(b'id')", "ctypes"),
])
def test_files_outside_scratch_network_and_subprocesses_are_refused(code, needle):
    r = run_python(code, FAST)
    assert r.exit_code != 0 and needle in r.stderr and "root:" not in r.stdout


def test_output_is_capped_and_the_flood_stopped():
    r = run_python("while True:\n    print('y' * 100)", FAST)
    assert r.limit == "output" and len(r.stdout) <= FAST.max_output_chars


def test_large_file_write_is_stopped():
    r = run_python("open('big.bin', 'wb').write(b'0' * (5 * 1024 * 1024))", FAST)
    assert r.limit == "file_size" and r.exit_code != 0


def test_environment_is_stripped():
    r = run_python("import os\nprint(sorted(os.environ))", FAST)
    assert "HF_HUB_OFFLINE" not in r.stdout and "PATH" in r.stdout and "OPENAI" not in r.stdout


async def test_code_exec_tool_reports_status_output_and_limits(tmp_path):
    from tools import World

    class NoWorld(World):
        async def search(self, q, k): return []
        async def resolve(self, ref): raise LookupError(ref)
        async def pdf_bytes(self, p): return b""

    world = NoWorld(tmp_path)
    world.jail_limits = JailLimits(cpu_seconds=1, wall_seconds=1.5, memory_mb=256)
    ok = await code_exec(world, {"code": "print(6 * 7)"})
    assert ok.text.startswith("exit status: 0") and "42" in ok.text and ok.data["limit"] is None
    boom = await code_exec(world, {"code": "raise ValueError('bad value')"})
    assert "exit status: 1" in boom.text and "ValueError: bad value" in boom.text
    slow = await code_exec(world, {"code": "import time\ntime.sleep(30)"})
    assert "stopped:" in slow.text and slow.data["limit"] in ("wall", "cpu")
    empty = await code_exec(world, {"code": "  "})
    assert empty.is_error and "empty" in empty.error


class _W:
    jail_limits = FAST


async def test_legitimate_uses_numpy_scratch_files_and_a_table():
    code = (
        "import numpy as np\n"
        "a = np.arange(12, dtype=float).reshape(3, 4)\n"
        "np.save('m.npy', a)\n"
        "b = np.load('m.npy')\n"
        "open('notes.txt', 'w').write('mean=%.2f' % b.mean())\n"
        "print(open('notes.txt').read())\n"
        "print(f\"{'method':<8}|{'acc':>6}\")\n"
        "for name, acc in [('ours', 0.913), ('base', 0.874)]:\n"
        "    print(f'{name:<8}|{acc:>6.3f}')\n"
        "print(float(np.linalg.inv(np.eye(2) * 2)[0, 0]))"
    )
    seen = await code_exec(_W(), {"code": code})
    assert seen.text.startswith("exit status: 0"), seen.text
    assert "mean=5.50" in seen.text and "ours    | 0.913" in seen.text and "base    | 0.874" in seen.text and "0.5" in seen.text


@pytest.mark.parametrize("code,needle", [
    ("", "the code is empty"),
    ("   \n\t", "the code is empty"),
    ("x = 1\n" * 4000, "characters; keep it under 20000"),
    ("print('caf\udce9')", "not valid UTF-8 text (character 10, line 1"),
    ("x = 1\nfor i in range(3)\n    print(i)", "syntax error at line 2"),
    ("print('a')\x00", "null bytes"),
])
async def test_bad_code_is_one_clear_tool_error_and_the_jail_is_not_started(code, needle, monkeypatch):
    def never(*a, **k):
        raise AssertionError("the jail must not start for bad input")

    monkeypatch.setattr("tools.code_exec.run_python", never)
    seen = await code_exec(_W(), {"code": code})
    assert seen.is_error and needle in seen.error, seen.error
    assert seen.error.startswith("code_exec: ") and "Traceback" not in seen.text


async def test_a_syntax_error_names_line_column_and_shows_the_line():
    seen = await code_exec(_W(), {"code": "a = 1\nb = (a +\nprint(b)"})
    assert seen.is_error and "line 2" in seen.error and "b = (a +" in seen.error


@pytest.fixture
def fresh_jail_checks():
    """Forget what earlier tests learned about this machine's sandbox (and again after the test)."""
    for f in (_jail_box.plan, check_jail):
        f.cache_clear()
    yield
    for f in (_jail_box.plan, check_jail):
        f.cache_clear()


async def test_without_bubblewrap_code_exec_refuses_and_names_the_package(monkeypatch, fresh_jail_checks):
    monkeypatch.setattr(_jail_box, "find_bwrap", lambda: None)
    with pytest.raises(JailUnavailable, match="apt-get install bubblewrap"):
        check_jail()
    seen = await code_exec(_W(), {"code": "print(1)"})
    assert seen.is_error and "bubblewrap" in seen.error and "exit status" not in seen.text


async def test_a_bubblewrap_that_cannot_start_is_a_refusal(tmp_path, monkeypatch, fresh_jail_checks):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(_jail_box, "find_bwrap", lambda: str(fake))
    with pytest.raises(JailUnavailable, match="No permissions to create new namespace"):
        check_jail()
    seen = await code_exec(_W(), {"code": "print(1)"})
    assert seen.is_error and "did not start" in seen.error and "bubblewrap" in seen.error


def test_without_a_control_group_the_jail_refuses_unless_told_to_accept_per_process_caps(monkeypatch):
    monkeypatch.setattr(_jail_cgroup, "find_roots", lambda: None)
    monkeypatch.delenv("EPI_JAIL_ALLOW_NO_CGROUP", raising=False)
    with pytest.raises(JailUnavailable, match="EPI_JAIL_ALLOW_NO_CGROUP=1"):
        run_python("print(1)", FAST)
    monkeypatch.setenv("EPI_JAIL_ALLOW_NO_CGROUP", "1")
    r = run_python("print(1)", FAST)
    assert r.ok and r.stdout == "1\n" and not r.cgroup


def test_the_preflight_reports_a_working_sandbox_and_its_caps(fresh_jail_checks):
    status = check_jail()
    assert "bubblewrap" in status.bwrap and "cgroup" in status.total_caps and status.seccomp == "seccomp filter on"
    assert ("unprivileged" in status.runs_as) if os.geteuid() == 0 else ("user namespace" in status.runs_as)
