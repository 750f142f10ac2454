"""The code jail and the code_exec tool: results come back, limits stop runaway code, nothing leaves the scratch folder."""
from __future__ import annotations

import pytest

from sandbox.jail import JailLimits, run_python
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
