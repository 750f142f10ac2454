"""The attack suite: every escape attempt in `jail_attacks` works outside the jail and fails inside.

For each attack, three runs: outside the jail (the positive control: the snippet really does
escape there), through the code_exec tool (what the model sees: the expected refusal, and no
secret), and in the jail without its audit hook (the OS sandbox must hold on its own, since the
hook can be bypassed). Issue 12's escapes are among them: a fork_exec child reading a planted
secret and the answer key, writing outside the scratch folder, sqlite3 creating files, and the
editable install's finder naming the checkout. Issue 24's families follow: kernel interfaces the seccomp
filter refuses (bpf, userfaultfd, io_uring, keyrings, clone3 and setns into namespaces, 32-bit system
calls), mknod and host devices, netlink, setuid programs, /proc of the parent and pid 1; and, as tests of
their own, persistence from one run to the next and two jails at once.
"""
from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from tools._jail import JailLimits, run_python
from tools.code_exec import code_exec

from .jail_attacks import ATTACKS, ENV_SECRET_NAME, Attack, LoopbackServers, Target, host_processes_of, run_outside

LIMITS = JailLimits(cpu_seconds=3, wall_seconds=15, memory_mb=512, file_mb=4, max_output_chars=12_000)


class _JailWorld:
    """The only thing code_exec reads from its world is `jail_limits`."""

    jail_limits = LIMITS


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackServers]:
    srv = LoopbackServers(tmp_path_factory.mktemp("srv"))
    yield srv
    srv.close()


@pytest.fixture
def target(tmp_path: Path, servers: LoopbackServers, monkeypatch: pytest.MonkeyPatch) -> Iterator[Target]:
    t = Target(tmp_path, servers)
    monkeypatch.setenv(ENV_SECRET_NAME, t.secret_text)  # the harness's environment holds a secret too
    yield t
    t.cleanup()


def _ids(attacks: list[Attack]) -> list[str]:
    return [a.name for a in attacks]


def test_the_suite_covers_the_issue_list():
    names = " ".join(a.name for a in ATTACKS)
    assert len(ATTACKS) >= 25
    for needed in ("by_path", "file_descriptor", "proc", "symlink", "dotdot", "list_", "os_system", "subprocess", "os_fork",
                   "fork_exec", "pty", "ctypes", "tcp", "udp", "ipv6", "unix_socket", "abstract", "sqlite3", "shutil",
                   "environment"):
        assert needed in names, needed


@pytest.mark.parametrize("attack", ATTACKS, ids=_ids(ATTACKS))
async def test_attack_escapes_outside_and_is_contained_inside(attack: Attack, target: Target):
    with open(target.secret, "rb") as held:
        fds = (held.fileno(),) if attack.hands_secret_fd else ()
        outside = run_outside(attack.code(target), target.outside.parent, pass_fds=fds)
    assert attack.escaped(target, outside), f"positive control: {attack.name} should work outside the jail:\n{outside[-1500:]}"

    fresh = Target(target.folder, target.servers)  # new names, so the control's side effects cannot count here
    os.environ[ENV_SECRET_NAME] = fresh.secret_text
    held = open(fresh.secret, "rb")  # the harness has the secret open while the jail runs
    try:
        seen = await code_exec(_JailWorld(), {"code": attack.code(fresh)})
        text = seen.text
        assert not attack.escaped(fresh, text), f"{attack.name} escaped the jail:\n{text}"
        assert fresh.secret_text not in text
        assert re.search(attack.seen, text, re.S), f"{attack.name}: the model should see /{attack.seen}/, saw:\n{text}"

        alone = run_python(attack.code(fresh), LIMITS, audit_hook=False)
        assert not attack.escaped(fresh, alone.stdout + alone.stderr), \
            f"{attack.name} got past the OS sandbox without the hook:\n{alone.stdout}\n{alone.stderr}"
        assert fresh.secret_text not in alone.stdout + alone.stderr
    finally:
        held.close()
        fresh.cleanup()


def test_the_suite_covers_the_kernel_and_process_families_of_issue_24():
    names = " ".join(a.name for a in ATTACKS)
    for needed in ("mknod", "host_devices", "abstract", "netlink", "io_uring", "userfaultfd", "bpf", "keyctl", "clone3",
                   "setns", "setuid", "proc_of_the_parent"):
        assert needed in names, needed
    if os.uname().machine == "x86_64":
        assert "syscall_32bit" in names


def test_nothing_persists_from_one_run_to_the_next(tmp_path: Path):
    """A file in the scratch folder and a detached child of one run are gone for the next (the OS layer alone)."""
    marker = f"persist-{os.urandom(6).hex()}"
    first = (f"import os\nopen({marker!r}, 'w').write('x')\n"
             "if os.fork() == 0:\n    os.setsid()\n    import time\n    time.sleep(30)\n    os._exit(0)\nprint('left', os.getuid())")
    second = f"import os\nprint('seen' if os.path.exists({marker!r}) else 'gone', sorted(os.listdir('.')))"
    run_outside(first.replace("time.sleep(30)", "time.sleep(0)"), tmp_path)
    assert "seen" in run_outside(second, tmp_path), "positive control: outside, the file outlives its run"

    one = run_python(first, LIMITS, audit_hook=False)
    two = run_python(second, LIMITS, audit_hook=False)
    assert one.exit_code == 0 and "left" in one.stdout, one.stderr
    assert two.exit_code == 0 and two.stdout.startswith("gone []"), two.stdout + two.stderr
    assert not host_processes_of(int(one.stdout.split()[-1]))  # the detached sleeper went with its jail


def test_two_jails_at_once_cannot_see_or_signal_each_other(tmp_path: Path):
    """While jail A holds a file and sleeps, jail B looks for the file everywhere and kills every process it
    may signal; A finishes untouched and B found nothing (the OS layer alone)."""
    marker = f"twin-{os.urandom(6).hex()}"
    hold = f"import os, time\nopen({marker!r}, 'w').write('x')\nprint('A', os.getuid(), flush=True)\ntime.sleep(3)\nprint('A done')"
    look = (f"import os, signal\nfound = []\nfor root, dirs, files in os.walk('/'):\n"
            "    dirs[:] = [d for d in dirs if root != '/' or d not in ('usr', 'dev')]\n"
            f"    found += [os.path.join(root, f) for f in files if f == {marker!r}]\n"
            "print('B', os.getuid(), 'found', found)\n")
    run_outside(hold.replace("time.sleep(3)", "time.sleep(0)"), tmp_path)
    assert marker in run_outside(look.replace("os.walk('/')", f"os.walk({str(tmp_path)!r})"), tmp_path), \
        "positive control: two processes sharing a folder see each other's files"

    results: dict[str, object] = {}
    a = threading.Thread(target=lambda: results.__setitem__("a", run_python(hold, LIMITS, audit_hook=False)))
    a.start()
    time.sleep(1.0)
    b = run_python(look + "try:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError as e:\n    print('kill', e)\n",
                   LIMITS, audit_hook=False)
    a.join(30)
    ra = results["a"]
    assert ra.exit_code == 0 and "A done" in ra.stdout, (ra.stdout, ra.stderr)  # B's kill(-1) did not reach A
    assert "found []" in b.stdout, b.stdout + b.stderr
    assert ra.stdout.split()[1] != b.stdout.split()[1]  # different uids on the host
