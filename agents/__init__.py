"""Candidate agents behind the harness's agent protocol (harness.agent), named by `--agent`.

`--agent` takes one of:
- a built-in name (AGENT_FACTORIES below);
- a name an installed package registers in the entry-point group `epiharness.agents`
  (`[project.entry-points."epiharness.agents"] my-agent = "my_pkg.agent:MyAgent"`);
- `path/to/file.py:Class` or `package.module:Class`: a class written against harness/agent.py.
The last two are the user's own code: it runs inside the harness's process with everything the process
can reach, so reports and the viewer label such a run "in-process (trusted)" (SECURITY.md says what the
harness can and cannot enforce on it). A name like this is taken from the command line or `--config`
only, never from a run folder (harness.stored_run.user_choices): nothing here is called with a value
read from run.json.

Every way a name can fail to give an agent class is an AgentLoadError with one line that says what is
wrong and where (no such file, no such class, not an agent class, the user's module failed to import).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.agent import Agent, AgentConfig

AGENT_FACTORIES: dict[str, str] = {
    "oracle": "agents.oracle:OracleAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "text-only": "agents.text_only:TextOnlyAgent",
    "openai": "agents.openai_chat:OpenAIChatAgent",
    "smol-code": "agents.smol:SmolCodeAgent",
    "smol-tools": "agents.smol:SmolToolCallingAgent",
    "replay": "agents.replay:ReplayAgent",
    "human": "agents.human:HumanAgent",
    "bridge": "harness.bridge.agent:BridgeAgent",
}
ENTRY_POINT_GROUP = "epiharness.agents"
BUILT_IN = "built-in"
IN_PROCESS = "in-process (trusted)"
AGENT_PROGRAM = "agent program (bridge)"  # `--agent-cmd`: the user's program, out of process, under the bridge's rules
SPEC_FORMS = "path/to/file.py:Class or package.module:Class"
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_METHODS = ("preflight", "start_episode", "owns_turn", "step", "run_turn", "end_episode")
_ATTRS = ("name", "uses_gold", "memory_modes")


class AgentLoadError(ValueError):
    """`--agent` names nothing this process can load as an agent class: one line saying what and where."""


class UnknownAgent(AgentLoadError):
    """A plain name that is neither built in nor registered by an installed package."""


@dataclass(frozen=True)
class AgentOrigin:
    """Where an agent class comes from, as run.json, reports and the viewer describe it."""

    kind: str  # BUILT_IN, IN_PROCESS or AGENT_PROGRAM
    source: str  # the registry entry, the entry point, the module or the file
    sha256: str | None = None  # of the file, when the agent came from a file

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "source": self.source, **({"sha256": self.sha256} if self.sha256 else {})}


def is_spec(name: str) -> bool:
    """True for `file.py:Class` / `module:Class` (the user's code), False for a plain name."""
    return ":" in name


def check_name(name: str) -> str:
    """A syntax check only (nothing is imported): a plain name, or a spec of one of the two forms.
    Whether a plain name is registered is decided when the run starts (`agent_class`)."""
    if not name or not name.strip():
        raise AgentLoadError("--agent is empty: give a built-in agent, an installed one, or " + SPEC_FORMS)
    if is_spec(name):
        _split(name)
    return name


def agent_label(name: str) -> str:
    """A short name for run ids and progress bars: the class name of a spec, else the name itself."""
    return name.rpartition(":")[2] if is_spec(name) else name


def _split(spec: str) -> tuple[str, str]:
    target, _, cls_name = spec.rpartition(":")
    if not target or not cls_name.isidentifier():
        raise AgentLoadError(f"--agent {spec!r}: expected {SPEC_FORMS} (the class name after the last colon)")
    return target, cls_name


def _is_file_target(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def known_names() -> list[str]:
    """Built-in names, then the names installed packages register."""
    return [*AGENT_FACTORIES, *(n for n in sorted(_entry_points()) if n not in AGENT_FACTORIES)]


def _where(exc: BaseException, path: Path | None) -> str:
    """` (file.py line N)`: the last line of the user's file the error went through, if any."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" ({exc.filename} line {exc.lineno})"
    frames = traceback.extract_tb(exc.__traceback__)
    if path is not None:
        mine = [f for f in frames if Path(f.filename).resolve() == path]
        if mine:
            return f" ({path} line {mine[-1].lineno})"
    return f" ({frames[-1].filename} line {frames[-1].lineno})" if frames else ""


def _import_failed(spec: str, what: str, exc: BaseException, path: Path | None = None) -> AgentLoadError:
    msg = str(exc).splitlines()[0] if str(exc) else ""
    return AgentLoadError(f"--agent {spec!r}: importing {what} failed: {type(exc).__name__}"
                          + (f": {msg}" if msg else "") + _where(exc, path))


_FILE_MODULES: dict[Path, Any] = {}  # each file is executed once per process


def _load_file(spec: str, target: str) -> tuple[Any, Path]:
    path = Path(target).expanduser().resolve()
    if not path.is_file():
        raise AgentLoadError(f"--agent {spec!r}: no file {path}")
    if path in _FILE_MODULES:
        return _FILE_MODULES[path], path
    mod_name = "epi_user_agent_" + hashlib.sha256(str(path).encode()).hexdigest()[:12]
    mspec = importlib.util.spec_from_file_location(mod_name, path)
    if mspec is None or mspec.loader is None:
        raise AgentLoadError(f"--agent {spec!r}: {path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(mspec)
    folder = str(path.parent)
    if folder not in sys.path:  # the file may import modules that sit beside it
        sys.path.append(folder)
    sys.modules[mod_name] = module  # dataclasses and pydantic look their module up while the file runs
    try:
        mspec.loader.exec_module(module)
    except KeyboardInterrupt:
        sys.modules.pop(mod_name, None)
        raise
    except BaseException as e:  # the user's file (a SystemExit too): a clear line, never a traceback
        sys.modules.pop(mod_name, None)
        raise _import_failed(spec, str(path), e, path) from None
    _FILE_MODULES[path] = module
    return module, path


def _load_module(spec: str, target: str) -> Any:
    if not _MODULE.fullmatch(target):
        raise AgentLoadError(f"--agent {spec!r}: {target!r} is neither a .py file nor a dotted module name "
                             f"(expected {SPEC_FORMS})")
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        if e.name is not None and (target == e.name or target.startswith(e.name + ".")):
            raise AgentLoadError(f"--agent {spec!r}: no module named {e.name!r} on the Python path") from None
        raise _import_failed(spec, f"module {target}", e) from None
    except Exception as e:
        raise _import_failed(spec, f"module {target}", e) from None


def _checked_class(spec: str, obj: Any, where: str) -> type[Any]:
    if not inspect.isclass(obj):
        raise AgentLoadError(f"--agent {spec!r}: {where} is a {type(obj).__name__}, not an agent class "
                             "(subclass harness.agent.BaseAgent)")
    missing = [m for m in _METHODS if not callable(getattr(obj, m, None))]
    missing += [a for a in _ATTRS if not hasattr(obj, a)]
    if missing:
        raise AgentLoadError(f"--agent {spec!r}: {where} is not an agent (harness.agent.Agent): it lacks "
                             f"{', '.join(missing)}; subclass harness.agent.BaseAgent for the defaults")
    return obj


def _from_spec(spec: str) -> tuple[type[Any], AgentOrigin]:
    target, cls_name = _split(spec)
    if _is_file_target(target):
        module, path = _load_file(spec, target)
        origin = AgentOrigin(IN_PROCESS, str(path), hashlib.sha256(path.read_bytes()).hexdigest())
        where = str(path)
    else:
        module = _load_module(spec, target)
        origin = AgentOrigin(IN_PROCESS, f"module {target}")
        where = f"module {target}"
    if not hasattr(module, cls_name):
        classes = sorted(n for n, v in vars(module).items()
                         if inspect.isclass(v) and getattr(v, "__module__", None) == module.__name__)
        raise AgentLoadError(f"--agent {spec!r}: {where} defines no {cls_name!r}"
                             + (f" (its classes: {', '.join(classes)})" if classes else ""))
    return _checked_class(spec, getattr(module, cls_name), f"{cls_name} in {where}"), origin


def _from_entry_point(name: str, ep: importlib.metadata.EntryPoint) -> tuple[type[Any], AgentOrigin]:
    try:
        obj = ep.load()
    except Exception as e:
        raise _import_failed(name, f"entry point {name} = {ep.value}", e) from None
    origin = AgentOrigin(IN_PROCESS, f"entry point {ENTRY_POINT_GROUP}:{name} = {ep.value}")
    return _checked_class(name, obj, f"entry point {name} = {ep.value}"), origin


def resolve_agent(name: str) -> tuple[type[Any], AgentOrigin]:
    """The agent class `name` stands for and where it comes from (AgentLoadError with one line if none)."""
    check_name(name)
    if name in AGENT_FACTORIES:
        mod_name, cls_name = AGENT_FACTORIES[name].split(":")
        kind = AGENT_PROGRAM if name == "bridge" else BUILT_IN  # the bridge's class is ours, the program it runs is not
        return getattr(importlib.import_module(mod_name), cls_name), AgentOrigin(kind, AGENT_FACTORIES[name])
    if is_spec(name):
        return _from_spec(name)
    eps = _entry_points()
    if name in eps:
        return _from_entry_point(name, eps[name])
    raise UnknownAgent(f"unknown agent {name!r}; known agents: {', '.join(known_names())}; or your own: {SPEC_FORMS}")


def agent_class(name: str) -> type[Any]:
    """The class `name` stands for (its module is imported now; class attributes such as `memory_modes` can
    be read without building an agent)."""
    return resolve_agent(name)[0]


def agent_origin(name: str) -> AgentOrigin:
    return resolve_agent(name)[1]


def _takes_config(cls: type[Any]) -> bool:
    try:
        params = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        return True
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params)


def make_agent(name: str, config: AgentConfig | None = None) -> Agent:
    """Build the agent `name` stands for with its config (a constructor without parameters gets none)."""
    cls = agent_class(name)
    agent: Agent = cls(config or AgentConfig()) if _takes_config(cls) else cls()
    return agent
