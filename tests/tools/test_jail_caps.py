"""The jail's caps hold though the harness runs as root: fork bombs, memory bombs, disk fill, endless
output, sleeping past the wall limit, detached children and killing the parent. Each bounded attack
first runs outside the jail, where it succeeds (the positive control); the unbounded bombs, which
cannot safely run outside, share their mechanism with a bounded one that did."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tools._jail import JailLimits, run_python
from tools._jail_box import UID_RANGE
from tools.code_exec import code_exec, format_run

from .jail_attacks import BYPASS, host_processes_of, run_outside

CAPS = JailLimits(cpu_seconds=3, wall_seconds=8, memory_mb=256, file_mb=8, scratch_mb=16, max_processes=16,
                  max_output_chars=20_000)


async def _seen(code: str, limits: JailLimits = CAPS) -> object:
    class W:
        jail_limits = limits
    return await code_exec(W(), {"code": code})


def _jail_uids_now(uids: range = range(*UID_RANGE)) -> dict[int, int]:
    """uid -> number of live host processes (zombies are already dead and wait to be reaped), for these uids."""
    counts: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                status = (d / "status").read_text()
                line = next(x for x in status.splitlines() if x.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            if "\nState:\tZ" in status:
                continue
            uid = int(line.split()[1])
            if uid in uids:
                counts[uid] = counts.get(uid, 0) + 1
    return counts


class _ProcessWatch:
    """Samples the host's process table while a jail runs: the most processes any jail uid had at once."""

    def __init__(self, uids: range = range(*UID_RANGE)) -> None:
        self.peak, self.uids = 0, uids
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.peak = max([self.peak, *_jail_uids_now(self.uids).values()])
            time.sleep(0.02)

    def __enter__(self) -> "_ProcessWatch":
        self._t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._t.join()


SPAWN_40 = BYPASS + '''
import subprocess, time
procs = []
for i in range(40):
    try:
        procs.append(subprocess.Popen(["sleep", "3"]))
    except OSError as e:
        print("spawn failed:", e)
        break
print("started", len(procs))
time.sleep(0.5)  # long enough for the watcher outside to see them all
for p in procs:
    p.kill()
'''


@pytest.mark.slow
async def test_bounded_fork_bomb_is_capped_at_the_process_limit():
    outside = run_outside(SPAWN_40, Path("/tmp"))
    assert "started 40" in outside, outside
    with _ProcessWatch() as watch:
        seen = await _seen(SPAWN_40)
    assert "started 40" not in seen.text and "Resource temporarily unavailable" in seen.text, seen.text
    assert 1 <= watch.peak <= CAPS.max_processes, watch.peak


@pytest.mark.slow
def test_unbounded_fork_bomb_is_contained_and_leaves_nothing_behind():
    # a CPU limit the bomb cannot reach in 3 s: no process dies and is replaced, so the count sampled is exact
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    t0 = time.monotonic()
    with _ProcessWatch() as watch:
        r = run_python(bomb, JailLimits(cpu_seconds=20, wall_seconds=3, max_processes=16), audit_hook=False)
    assert r.limit == "wall" and time.monotonic() - t0 < 10
    assert watch.peak <= 16, f"{watch.peak} processes of one jail uid at once"
    time.sleep(0.2)
    assert r.host_uid is not None and host_processes_of(r.host_uid) == []
    assert run_python("print('still fine')").stdout == "still fine\n"  # the harness and the next run are unharmed


MEM_4x150 = BYPASS + '''
import subprocess
src = "import time; b = bytearray(150 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096]); print('held', flush=True); time.sleep(1.5)"
procs = [subprocess.Popen([_sys.executable, "-c", src], stdout=subprocess.PIPE, text=True) for _ in range(4)]
print("children holding 150 MB each:", sum("held" in p.communicate()[0] for p in procs))
'''


@pytest.mark.slow
def test_memory_spread_over_processes_is_capped_in_total():
    # each child stays under the per-process limit (256 MB); together they need 600 MB
    outside = run_outside(MEM_4x150, Path("/tmp"))
    assert "150 MB each: 4" in outside, outside
    r = run_python(MEM_4x150, CAPS)
    assert r.cgroup, "the total-memory cap needs the run's control group"
    seen = format_run(r, CAPS)  # what the model reads
    assert "150 MB each: 4" not in seen and "stopped: it tried to use more than 256 MB of memory" in seen, seen
    assert r.peak_memory_mb is not None and r.peak_memory_mb <= CAPS.memory_mb + 1


async def test_single_huge_allocation_says_memory_limit():
    seen = await _seen("x = bytearray(3 * 1024**3)\nprint('allocated')")
    assert "allocated" not in seen.text and "stopped: it tried to use more than 256 MB of memory" in seen.text


DISK_48 = '''
import os
written = 0
try:
    for i in range(48):
        with open(f"fill{i}.bin", "wb") as f:
            f.write(b"0" * (1024 * 1024))
        written += 1
finally:
    print("wrote MB:", written)
'''


async def test_disk_fill_stops_at_the_scratch_size(tmp_path):
    outside = run_outside(DISK_48, tmp_path)
    assert "wrote MB: 48" in outside
    seen = await _seen(DISK_48)
    assert "wrote MB: 48" not in seen.text and "No space left on device" in seen.text, seen.text


FLOOD = "for i in range(20000):\n    print('y' * 99)"


async def test_endless_output_is_cut_at_the_cap():
    outside = run_outside(FLOOD, Path("/tmp"))
    assert len(outside) >= 2_000_000
    seen = await _seen(FLOOD)
    assert "stopped: it printed more than 20000 characters" in seen.text and len(seen.text) < 21_000


async def test_sleeping_past_the_wall_limit_is_stopped():
    code = "import time\ntime.sleep(2.5)\nprint('woke up')"
    assert "woke up" in run_outside(code, Path("/tmp"))
    limits = JailLimits(wall_seconds=1.0)
    seen = await _seen(code, limits)
    assert "woke up" not in seen.text and "stopped: it ran longer than 1 s" in seen.text


DETACH = BYPASS + '''
import subprocess
p = subprocess.Popen(["sleep", "30"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("detached", p.pid)
'''


def test_a_detached_child_does_not_outlive_the_run():
    out = run_outside(DETACH, Path("/tmp"))
    pid = int(out.split("detached")[1].split()[0])
    try:
        os.kill(pid, 0)  # outside, the detached sleeper outlives its parent
    finally:
        os.kill(pid, signal.SIGKILL)
    r = run_python(DETACH, CAPS)
    assert "detached" in r.stdout and r.host_uid is not None
    time.sleep(0.2)
    assert host_processes_of(r.host_uid) == []


KILL_PARENT = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint('sent')"


def test_killing_the_parent_harms_neither_harness_nor_jail():
    # outside, under a sacrificial shell: the shell dies before it can say so
    r = subprocess.run(["/bin/sh", "-c", '"$0" -c "$1"; echo parent-survived', sys.executable, KILL_PARENT],
                       capture_output=True, text=True, timeout=30)
    assert "sent" in r.stdout and "parent-survived" not in r.stdout
    alone = run_python(KILL_PARENT, CAPS, audit_hook=False)
    assert "sent" not in alone.stdout and "PermissionError" in alone.stderr and alone.limit is None
    with_hook = run_python(KILL_PARENT, CAPS)
    assert "os.kill is not allowed" in with_hook.stderr
    assert run_python("print(2)").stdout == "2\n"


def test_a_host_process_cannot_be_signalled_from_inside():
    victim = subprocess.Popen(["sleep", "30"])
    code = f"import os, signal\nos.kill({victim.pid}, signal.SIGKILL)\nprint('killed')"
    try:
        r = run_python(code, CAPS, audit_hook=False)
        assert "killed" not in r.stdout and "ProcessLookupError" in r.stderr
        assert victim.poll() is None
        assert "killed" in run_outside(code, Path("/tmp"))  # the positive control
        victim.wait(5)
    finally:
        victim.kill()


NOBODY = 65534
NON_ROOT_HARNESS = """
import sys, types
pkg = types.ModuleType("tools"); pkg.__path__ = [sys.argv[1] + "/tools"]; sys.modules["tools"] = pkg
from tools._jail import JailLimits, check_jail, run_python
print(check_jail().summary())
print(run_python("import os, resource, json; print('inside', os.getuid(), resource.getrlimit(resource.RLIMIT_NPROC)[0], json.dumps([1]))").stdout)
bomb = "import os\\nwhile True:\\n    try:\\n        os.fork()\\n    except OSError:\\n        pass"
print("bomb", run_python(bomb, JailLimits(cpu_seconds=20, wall_seconds=3, max_processes=16), audit_hook=False).limit)
"""


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or not os.access("/usr/bin/python3", os.X_OK),
                    reason="needs root (to become another user) and the system Python")
def test_a_harness_that_is_not_root_gets_a_user_namespace_jail_whose_process_cap_holds():
    # the jail's modules use only the standard library, so the system Python can load them as user `nobody`
    folder = Path(tempfile.mkdtemp(prefix="epi-jail-nonroot-"))  # pytest's own tmp folders are closed to others
    try:
        folder.chmod(0o755)
        script = folder / "harness.py"
        script.write_text(NON_ROOT_HARNESS)
        script.chmod(0o644)
        env = {"PATH": "/usr/bin:/bin", "EPI_JAIL_ALLOW_NO_CGROUP": "1", "EPI_JAIL_DIR": str(folder / "jail")}
        with _ProcessWatch(range(NOBODY, NOBODY + 1)) as watch:
            r = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "/usr/bin/python3",
                                str(script), str(Path(__file__).resolve().parents[2])],
                               capture_output=True, text=True, timeout=120, cwd=folder, env=env)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert r.returncode == 0, r.stderr
    assert "in a user namespace" in r.stdout and "seccomp filter on" in r.stdout, r.stdout
    assert "inside 1000 16 [1]" in r.stdout and "bomb wall" in r.stdout, r.stdout  # a /usr Python imports its stdlib
    # the harness and bubblewrap's outer process run as `nobody` too; bubblewrap's init counts among the 16
    assert watch.peak <= 16 + 2, watch.peak
