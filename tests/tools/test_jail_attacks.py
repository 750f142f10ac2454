"""The attack suite: every escape attempt in `jail_attacks` works outside the jail and fails inside.

For each attack, three runs: outside the jail (the positive control: the snippet really does
escape there), through the code_exec tool (what the model sees: the expected refusal, and no
secret), and in the jail without its audit hook (the OS sandbox must hold on its own, since the
hook can be bypassed). Issue 12's escapes are among them: a fork_exec child reading a planted
secret and the answer key, writing outside the scratch folder, sqlite3 creating files, and the
editable install's finder naming the checkout.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterator

import pytest

from tools._jail import JailLimits, run_python
from tools.code_exec import code_exec

from .jail_attacks import ATTACKS, ENV_SECRET_NAME, Attack, LoopbackServers, Target, run_outside

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
