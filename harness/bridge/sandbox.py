"""The agent program's sandbox: a bubblewrap command line, and whether one can run here.

Inside, the program sees: the system's read-only `/usr` (and the `/bin`, `/lib*` links), a minimal
`/dev`, its own `/proc` (its PID namespace only), an empty `/tmp`, its scratch folder at `/scratch`
(writable, deleted after the episode; HOME points there), each `--agent-dir` read-only at its own path,
and the bridge's unix socket. Not the checkout, the corpus, the episode files, the results, the home
folder or the harness's environment (the environment is built from nothing: PATH, HOME, the bridge's
variables and the `--agent-env` ones). It gets new user, mount, PID, network, IPC, UTS and cgroup
namespaces, no capabilities, an unprivileged uid, and dies with the harness. Its network namespace is
empty but for loopback, where `_forward.py` listens on BRIDGE_PORT and forwards to the bridge's socket:
the harness's endpoints are all it can reach.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Sequence

BRIDGE_PORT = 8400  # the loopback port inside the sandbox
SOCKET_DIR = "/run/epi-bridge"  # the bridge's socket inside
SCRATCH = "/scratch"
FORWARDER = Path(__file__).with_name("_forward.py")
_FORWARDER_INSIDE = "/run/epi-forward/_forward.py"
MCP_STDIO = Path(__file__).with_name("mcp_stdio.py")  # the stdio MCP server an agent may spawn (its own Python)
MCP_STDIO_INSIDE = "/run/epi-forward/mcp_stdio.py"
SYSTEM_PYTHON = "/usr/bin/python3"  # runs the forwarder (standard library only)
UNPRIVILEGED = 65534


def find_bwrap() -> str | None:
    return shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for link in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(link):
            args += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            args += ["--ro-bind", link, link]
    for f in ("/etc/ld.so.cache", "/etc/localtime", "/etc/ssl", "/etc/alternatives", "/etc/nsswitch.conf"):
        args += ["--ro-bind-try", f, f]
    return args


def bwrap_argv(argv: Sequence[str], *, agent_dirs: Sequence[tuple[Path, Path]], scratch: Path,
               socket_dir: Path) -> list[str]:
    """The command line that runs `argv` in the sandbox, with the forwarder in front of it."""
    bwrap = find_bwrap()
    assert bwrap is not None
    cmd = [bwrap, "--unshare-all", "--unshare-user", "--uid", str(UNPRIVILEGED), "--gid", str(UNPRIVILEGED),
           "--die-with-parent", "--new-session", "--cap-drop", "ALL", *_system_binds(),
           "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
           "--bind", str(scratch), SCRATCH, "--ro-bind", str(socket_dir), SOCKET_DIR,
           "--ro-bind", str(FORWARDER), _FORWARDER_INSIDE, "--ro-bind", str(MCP_STDIO), MCP_STDIO_INSIDE]
    for real, seen in agent_dirs:
        cmd += ["--ro-bind", str(real), str(seen)]
    cmd += ["--chdir", str(agent_dirs[0][1]) if agent_dirs else SCRATCH]
    cmd += [SYSTEM_PYTHON, "-I", "-S", _FORWARDER_INSIDE, str(BRIDGE_PORT), f"{SOCKET_DIR}/bridge.sock", "--", *argv]
    return cmd


@lru_cache(maxsize=1)
def sandbox_unavailable_reason() -> str | None:
    """None when the sandbox starts here; else why not (no bubblewrap, no user namespaces, no system Python)."""
    bwrap = find_bwrap()
    if bwrap is None:
        return "bubblewrap (`bwrap`) is not installed (apt-get install bubblewrap)"
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        return f"the sandbox runs its forwarder on {SYSTEM_PYTHON}, which is missing"
    probe = [bwrap, "--unshare-all", "--unshare-user", "--uid", str(UNPRIVILEGED), "--gid", str(UNPRIVILEGED),
             "--die-with-parent", "--cap-drop", "ALL", *_system_binds(), "--dev", "/dev", "--proc", "/proc",
             SYSTEM_PYTHON, "-I", "-S", "-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0))"]
    try:
        r = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap did not start: {e}"
    if r.returncode != 0:
        return f"bubblewrap cannot make the sandbox here (user namespaces?): {(r.stderr or r.stdout).strip()[:300]}"
    return None


def forbidden_roots() -> list[Path]:
    """Host folders an --agent-dir must not contain: the checkout, the corpus, the home folder."""
    from sandbox.paths import REPO_DIR

    roots = {REPO_DIR, Path.home(), Path(os.getcwd())}
    for var in ("EPI_SANDBOX_DIR",):
        if os.environ.get(var):
            roots.add(Path(os.environ[var]))
    return sorted({Path(os.path.realpath(r)) for r in roots if str(r) not in ("", "/")})


def check_agent_dirs(dirs: Sequence[Path], also_hidden: Sequence[Path] = ()) -> list[tuple[Path, Path]]:
    """(the folder resolved, the path the user gave made absolute) for each; ValueError naming one that is missing
    or would show what the agent must not see."""
    out = []
    hidden = forbidden_roots() + [Path(os.path.realpath(h)) for h in also_hidden]
    for d in dirs:
        real = Path(os.path.realpath(d))
        if not real.is_dir():
            raise ValueError(f"agent folder {d} (an --agent-dir, or the folder of a file --agent-cmd names): not a folder")
        for h in hidden:
            if h == real or h.is_relative_to(real):
                raise ValueError(f"agent folder {d} (an --agent-dir, or the folder of a file --agent-cmd names) contains "
                                 f"{h}, which the agent program must not see; put its files in a folder of their own")
        out.append((real, Path(os.path.abspath(d))))
    return out


def resolve_command(argv: Sequence[str], dirs: Sequence[Path]) -> tuple[list[str], list[Path]]:
    """The command with its files made absolute, and the folders it needs beside `dirs`.

    `python`/`python3` is the harness's own interpreter with its packages (its venv and installation are
    bound read-only); an argument that names an existing file (the agent's script) is made absolute and
    its folder bound. Everything else must be on the system's /usr or in an --agent-dir."""
    import sys

    out = list(argv)
    need: list[Path] = []
    if os.path.basename(out[0]) in ("python", "python3"):
        out[0] = sys.executable
        need += [Path(sys.prefix), Path(sys.base_prefix)]
    for i, arg in enumerate(out):
        if i == 0 and out[0] == sys.executable:
            continue
        if arg.startswith("-") or ("/" not in arg and i == 0) or not os.path.isfile(arg):
            continue
        full = Path(os.path.abspath(arg))
        out[i] = str(full)
        need.append(full.parent)
    have = [Path(os.path.abspath(d)) for d in dirs]
    extra = []
    for n in need:
        if not any(n == h or n.is_relative_to(h) for h in have + extra):
            extra.append(n)
    return out, extra
