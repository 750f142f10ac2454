"""The OS sandbox around code_exec: a bubblewrap command line, the jail's own numpy, and a preflight.

Inside the box the snippet sees a read-only Python installation (at a fixed neutral path when it lives
outside /usr, so the host's layout is not shown), read-only copies of the packages it may use made
outside the checkout, a fresh size-limited tmpfs as its working folder and a minimal /dev, and
nothing else of the host: not the checkout, the sandbox corpus, the results, the home folder, the
caller's environment, nor a /proc (which would show the kernel command line, pid 1's bubblewrap
command line with its host paths, and the host paths of every bound folder in mountinfo). It gets
new mount, PID, network, IPC, UTS and cgroup namespaces and dies with the harness.

When the harness runs as root, bubblewrap runs privileged (it can bind the interpreter even from
a home folder closed to others) and `setpriv` switches to a fresh unprivileged uid before Python
starts: the kernel enforces RLIMIT_NPROC only for non-root users, and a uid that owns nothing on
the host reads only what is world-readable. Otherwise bubblewrap makes a user namespace itself.
"""
from __future__ import annotations

import compileall
import hashlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

DEBIAN_PACKAGE = "bubblewrap"
SCRATCH = "/scratch"  # the working folder inside the jail
SITE = "/opt/epi-jail/site-packages"  # where the jail's numpy appears inside
PYTHON_HOME = "/opt/epi-jail/python"  # where a Python installed outside /usr appears inside
LIB_ROOT = "/opt/epi-jail/lib"  # where extra package folders (`sites`) appear inside, one folder each
UID_RANGE = (2_000_000_000, 2_100_000_000)  # fresh uids for jailed code when the harness is root
_SYSTEM_DIRS = ("/usr",)
_SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class JailUnavailable(RuntimeError):
    """The OS sandbox cannot run here; code_exec refuses rather than run code in a weaker jail."""


def install_hint() -> str:
    return f"install the Debian package `{DEBIAN_PACKAGE}` (apt-get install {DEBIAN_PACKAGE}), or run `make install-system`"


@dataclass(frozen=True)
class BoxPlan:
    """What the box binds and hides; computed once per process."""

    bwrap: str
    setpriv: str | None  # set when the harness is root: jailed code runs as a fresh uid
    interpreter: str  # the interpreter's path inside the box
    read_only: tuple[tuple[str, str], ...]  # (host folder, where it appears inside), bound read-only
    masks: tuple[str, ...]  # folders inside those (inside paths) that are covered by an empty tmpfs
    site: str | None  # the host folder holding the jail's numpy (bound at SITE)
    python_dirs: tuple[str, ...] = ()  # the installation's own folders as seen inside (possibly inside /usr)
    library_path: str | None = None  # LD_LIBRARY_PATH inside when the installation was moved to PYTHON_HOME

    def python_roots(self) -> list[str]:
        """What the audit hook lets the snippet read: the installation and the jail's site-packages."""
        return list(self.python_dirs) + ([SITE] if self.site else []) + ["/dev/null", "/dev/urandom"]


def _checkout_root() -> Path:
    return Path(__file__).resolve().parent.parent


def _hidden_paths() -> list[str]:
    """Host folders that must never be visible inside, even when they sit inside a bound folder."""
    hidden = {str(_checkout_root()), os.path.expanduser("~"), os.getcwd()}
    for var in ("EPI_SANDBOX_DIR", "VIRTUAL_ENV"):
        if os.environ.get(var):
            hidden.add(os.environ[var])
    return sorted({os.path.realpath(h) for h in hidden if h and h != "/"})


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _interpreter_roots(interpreter: str) -> list[str]:
    """The installation's prefix (stdlib, libpython, extension modules), never a virtualenv."""
    roots = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    if not any(_inside(interpreter, r) for r in roots):
        roots.add(os.path.dirname(os.path.dirname(interpreter)))
    for key in ("stdlib", "platstdlib"):
        p = sysconfig.get_path(key, vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})
        if p and not any(_inside(os.path.realpath(p), r) for r in roots):
            roots.add(os.path.realpath(p))
    return sorted(roots)


def jail_home() -> Path:
    """Where the jail's site-packages is kept: outside the checkout, readable by the jail's uid."""
    if os.environ.get("EPI_JAIL_DIR"):
        return Path(os.environ["EPI_JAIL_DIR"])
    if os.geteuid() == 0:
        return Path("/var/cache/epiharness/jail")
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "epiharness" / "jail"


def jail_site() -> str | None:
    """A site-packages with numpy only, copied once from the harness's own numpy (same interpreter ABI)."""
    if find_spec("numpy") is None:
        return None
    return packages_site(("numpy",))


def _distributions(names: tuple[str, ...]) -> list[Any]:
    """These installed distributions and, recursively, what they require (extras left out)."""
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement

    found: dict[str, Any] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in found:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            if name in names:
                raise JailUnavailable(f"the jail needs the Python package {name!r}, which is not installed") from None
            continue  # an optional requirement whose marker we cannot judge: not needed to import
        found[key] = dist
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return sorted(found.values(), key=lambda d: d.metadata["Name"].lower())


@lru_cache(maxsize=8)
def packages_site(names: tuple[str, ...]) -> str:
    """A folder holding these distributions and their requirements, copied once from the harness's own
    installation (same interpreter ABI), world-readable and compiled, outside the checkout; bound read-only."""
    dists = _distributions(names)
    key = repr((sys.version_info[:2], [(d.metadata["Name"], d.version) for d in dists]))
    home = jail_home()
    target = home / f"site-{'-'.join(names)}-{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    if (target / ".complete").exists():
        return str(target)
    if _inside(os.path.realpath(home), str(_checkout_root())):
        raise JailUnavailable(f"EPI_JAIL_DIR {home} is inside the checkout; the jail's files must live outside it")
    home.mkdir(parents=True, exist_ok=True)
    tmp = home / f".tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        for dist in dists:
            for rel in dist.files or []:
                if rel.parts and rel.parts[0] == "..":
                    continue  # scripts installed outside site-packages
                src, dst = Path(str(dist.locate_file(rel))), tmp / rel
                if src.is_file():
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, dst)  # keeps the mtime the bytecode was compiled against
        _make_world_readable(tmp)
        compileall.compile_dir(tmp, quiet=2, workers=1)  # the jail runs with -B: import from ready bytecode
        _make_world_readable(tmp)
        (tmp / ".complete").write_text(key)
        os.chmod(tmp, 0o755)
        try:
            os.rename(tmp, target)
        except OSError:  # another process made it first
            if not (target / ".complete").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return str(target)


def _make_world_readable(root: Path) -> None:
    for dirpath, _, filenames in os.walk(root):
        os.chmod(dirpath, 0o755)
        for f in filenames:
            p = os.path.join(dirpath, f)
            if not os.path.islink(p):
                os.chmod(p, 0o755 if os.access(p, os.X_OK) else 0o644)


def find_bwrap() -> str | None:
    return shutil.which("bwrap") or ("/usr/bin/bwrap" if os.access("/usr/bin/bwrap", os.X_OK) else None)


@lru_cache(maxsize=1)
def plan() -> BoxPlan:
    """Find bubblewrap and decide what to bind; raise JailUnavailable naming what to install."""
    bwrap = find_bwrap()
    if not bwrap:
        raise JailUnavailable(f"code_exec needs bubblewrap (`bwrap`), which is not installed: {install_hint()}")
    setpriv = None
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv") or ("/usr/bin/setpriv" if os.access("/usr/bin/setpriv", os.X_OK) else None)
        if not setpriv or not _inside(os.path.realpath(setpriv), "/usr"):
            raise JailUnavailable("code_exec runs as root and needs `setpriv` under /usr (Debian package util-linux) "
                                  "to run jailed code as an unprivileged user")
    interpreter = os.path.realpath(sys.executable)
    roots = _interpreter_roots(interpreter)
    outside = [r for r in roots if not any(_inside(r, s) for s in _SYSTEM_DIRS)]
    binds = [(d, d) for d in _SYSTEM_DIRS]
    library_path = None
    if len(outside) == 1 and _inside(interpreter, outside[0]):
        # one installation folder outside /usr (pyenv, a custom prefix): shown at a neutral path, so neither its
        # host path nor the home folder it sits in is visible; libpython is found through LD_LIBRARY_PATH there
        binds.append((outside[0], PYTHON_HOME))
        inside = {outside[0]: PYTHON_HOME}
        library_path = PYTHON_HOME + "/lib"
    else:
        binds += [(r, r) for r in outside]
        inside = {r: r for r in outside}
    masks = []
    for h in _hidden_paths():
        for src, dst in binds:
            if os.path.isdir(h) and _inside(h, src) and h != src:
                masks.append(dst + h[len(src):])
    seen_roots = tuple(next((inside[o] + r[len(o):] for o in inside if _inside(r, o)), r) for r in roots)
    jail_interpreter = next((inside[o] + interpreter[len(o):] for o in inside if _inside(interpreter, o)), interpreter)
    return BoxPlan(bwrap=bwrap, setpriv=setpriv, interpreter=jail_interpreter, read_only=tuple(binds),
                   masks=tuple(masks), site=jail_site(), python_dirs=seen_roots, library_path=library_path)


def _dirs_for(path: str) -> list[str]:
    """bwrap creates missing parents mode 0700; make them 0755 so an unprivileged uid can pass."""
    out, cur = [], ""
    for part in Path(path).parts[1:-1]:
        cur += "/" + part
        out += ["--perms", "0755", "--dir", cur]
    return out


def command(p: BoxPlan, prelude: str, *, scratch_bytes: int, seccomp_fd: int | None,
            sites: tuple[str, ...] = ()) -> list[str]:
    """The full argv: bubblewrap, then (as root) setpriv to a fresh uid, then the jail's Python.

    `sites` are extra host folders of packages, each bound read-only at `site_path(i)` inside."""
    cmd = [p.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
           "--hostname", "jail", "--die-with-parent", "--new-session", "--clearenv"]
    if seccomp_fd is not None:
        cmd += ["--seccomp", str(seccomp_fd)]
    if p.setpriv is None:
        cmd += ["--unshare-user", "--uid", "1000", "--gid", "1000", "--disable-userns"]
    for src, dst in p.read_only:
        cmd += _dirs_for(dst) + ["--ro-bind", src, dst]
    for link in _SYSTEM_LINKS:
        if os.path.islink(link):
            cmd += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link):
            cmd += ["--ro-bind", link, link]
    for m in p.masks:
        cmd += ["--tmpfs", m]
    if p.site:
        cmd += _dirs_for(SITE) + ["--ro-bind", p.site, SITE]
    for i, host in enumerate(sites):
        cmd += _dirs_for(site_path(i)) + ["--ro-bind", host, site_path(i)]
    # no /proc: nothing the jail runs needs it, and it would show host paths (mountinfo, pid 1's command line)
    cmd += ["--dev", "/dev", "--remount-ro", "/dev",
            "--perms", "01777", "--size", str(scratch_bytes), "--tmpfs", SCRATCH, "--chdir", SCRATCH, "--remount-ro", "/"]
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": SCRATCH, "TMPDIR": SCRATCH, "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}
    if p.library_path:
        env["LD_LIBRARY_PATH"] = p.library_path
    for k, v in env.items():
        cmd += ["--setenv", k, v]
    if p.setpriv is not None:
        uid = str(secrets.randbelow(UID_RANGE[1] - UID_RANGE[0]) + UID_RANGE[0])
        cmd += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP", "--",
                p.setpriv, "--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all"]
    cmd += ["--", p.interpreter, "-I", "-S", "-B", "-c", prelude]
    return cmd


def site_path(i: int) -> str:
    """Where the i-th extra package folder of a command appears inside the box."""
    return f"{LIB_ROOT}/site-{i}"


def cgroup_wrapper(procs_files: list[str]) -> list[str]:
    """A shell that joins the run's control group(s) and then becomes the sandbox, so all of it is counted."""
    if not procs_files:
        return []
    script = 'for f in "$@"; do [ "$f" = -- ] && break; echo $$ > "$f" || { echo "epi-jail: cannot join $f" >&2; exit 125; }; shift; done; shift; exec "$@"'
    return ["/bin/sh", "-c", script, "jail", *procs_files, "--"]


def host_uid_of(cmd: list[str]) -> int | None:
    """The uid the jailed code runs as on the host (root harness), read back from the command."""
    if "--reuid" in cmd:
        return int(cmd[cmd.index("--reuid") + 1])
    return None


def bwrap_version(p: BoxPlan) -> str:
    try:
        return subprocess.run([p.bwrap, "--version"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "bwrap (version unknown)"
