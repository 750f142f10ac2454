"""The program smol-code runs INSIDE the jail: smolagents' LocalPythonExecutor serving the harness over a pipe.

Never imported by the harness: agents/_smol_jail.py sends this file's text into a JailSession (the
harness's packages are not even visible in there). It imports smolagents' executor module from the
read-only copy of smolagents bound into the jail (without the package's __init__, which would load the
agents, models and hub code the executor never uses; huggingface_hub is a stand-in, see `_HubStandIn`),
says it is ready, then answers requests, one
frame each way (4-byte big-endian length, UTF-8 JSON) on the descriptors that were stdin and stdout:

- `setup`: authorized imports, print cap and memory limit: a fresh executor.
- `exec`: the code of one step, with the tools (when they changed), variables to add, or `reset` to
  clear them; the reply is the step's output (typed so the harness can show and read it as smolagents
  would), its print logs and whether it was a final answer, or the error smolagents raised.
A tool the code calls becomes a `call` frame to the harness, which runs it through its tool session
and answers with a `result` frame (its value, or the error it raised, raised here under the same name).
`final_answer` is smolagents' own FinalAnswerTool here: its value comes back in the `exec` reply.
"""
import importlib.machinery
import importlib.util
import json
import os
import struct
import sys
import types

_HEADER = struct.Struct(">I")
_TEXT_CAP = 1_000_000  # characters of a shown value, and of all of one reply's values together: a frame stays
_ITEMS_CAP = 10_000  # well under the session's cap
_ERROR_CAP = 100_000

# the frames travel on private copies of stdin and stdout; the originals point at /dev/null, so nothing the
# code or a library prints can break the protocol
_IN, _OUT = os.dup(0), os.dup(1)
_null = os.open("/dev/null", os.O_RDWR)
os.dup2(_null, 0)
os.dup2(_null, 1)
os.close(_null)


def _send(msg):
    data = json.dumps(msg, ensure_ascii=False).encode("utf-8", "surrogatepass")
    data = _HEADER.pack(len(data)) + data
    while data:
        data = data[os.write(_OUT, data):]


def _read_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(_IN, n - len(buf))
        if not chunk:
            os._exit(0)  # the harness closed the pipe: the episode is over
        buf += chunk
    return buf


def _recv():
    (n,) = _HEADER.unpack(_read_exact(_HEADER.size))
    return json.loads(_read_exact(n).decode("utf-8"))


class _HubStandIn(types.ModuleType):
    """huggingface_hub as the jail sees it: smolagents.tools imports its upload and download functions (for
    sharing tools on the Hub), which the executor never calls; loading the real package would double the time
    the jail takes to start. Any name imported from it is a function that refuses."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)

        def unavailable(*args, **kwargs):
            raise RuntimeError(f"huggingface_hub.{name} is not available in the jail")
        return unavailable


class _HubFinder:
    def find_spec(self, name, path=None, target=None):
        if name == "huggingface_hub" or name.startswith("huggingface_hub."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _HubStandIn(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def _import_executor():
    sys.meta_path.insert(0, _HubFinder())
    spec = importlib.util.find_spec("smolagents")
    if spec is None:
        raise ImportError("smolagents is not in the jail's package folder")
    pkg = types.ModuleType("smolagents")
    pkg.__path__, pkg.__spec__, pkg.__file__ = list(spec.submodule_search_locations), spec, spec.origin
    sys.modules["smolagents"] = pkg
    from smolagents.default_tools import FinalAnswerTool
    from smolagents.local_python_executor import InterpreterError, LocalPythonExecutor
    from smolagents.tools import Tool

    return FinalAnswerTool, InterpreterError, LocalPythonExecutor, Tool


try:
    FinalAnswerTool, InterpreterError, LocalPythonExecutor, Tool = _import_executor()
except BaseException as e:  # noqa: BLE001 - anything that stops the import is reported, then the jail ends
    _send({"op": "failed", "error": f"{type(e).__name__}: {e}"})
    os._exit(1)


def _text(fn, value, cap):
    try:
        out = fn(value)
    except BaseException as e:  # noqa: BLE001 - a value whose __str__ fails is still shown
        out = f"<unprintable {type(value).__name__}: {type(e).__name__}>"
    return out if len(out) <= cap else out[:cap] + "..."


def _shown(value, budget, depth=0):
    """A value as the harness rebuilds it: plain data as itself, sequences item by item, anything else as its
    str and repr; `budget` ([characters left]) keeps the whole reply well under the session's frame cap."""
    cap = max(100, min(_TEXT_CAP, budget[0]))
    if value is None or type(value) in (bool, float) or (type(value) is int and abs(value) < 10**1000):
        return {"v": value}
    if type(value) is str:
        budget[0] -= min(len(value), cap)
        return {"v": value if len(value) <= cap else value[:cap] + "..."}
    shown = {"s": _text(str, value, cap), "r": _text(repr, value, cap)}
    budget[0] -= len(shown["s"]) + len(shown["r"])
    if type(value) in (list, tuple, set, frozenset) and depth < 8:
        items = []
        for v in value:
            if budget[0] <= 0 or len(items) >= _ITEMS_CAP:
                break
            items.append(_shown(v, budget, depth + 1))
        shown["seq"] = items
    return shown


_host_errors = {}


def _host_error(name, message):
    """The harness's exception, raised here under its own name, so smolagents words the failure as it would."""
    if name not in _host_errors:
        _host_errors[name] = type(name if name.isidentifier() else "ToolError", (Exception,), {})
    return _host_errors[name](message)


def _call_host(name, args, kwargs):
    try:
        msg = {"op": "call", "tool": name, "args": list(args), "kwargs": kwargs}
        json.dumps(msg)
    except (TypeError, ValueError):
        raise TypeError(f"the arguments of {name} must be plain data (text, numbers, lists, dicts)") from None
    _send(msg)
    reply = _recv()
    if reply.get("error"):
        raise _host_error(reply["error"].get("type", "ToolError"), reply["error"].get("message", ""))
    return reply.get("value")


def _proxy(spec):
    """A smolagents Tool standing for a harness tool: smolagents' own call handling, then the harness runs it."""
    def forward(self, *args, **kwargs):
        return _call_host(self.name, args, kwargs)

    cls = type(f"Harness_{spec['name']}", (Tool,), {
        "name": spec["name"], "description": spec["description"], "inputs": spec["inputs"],
        "output_type": spec["output_type"], "skip_forward_signature_validation": True, "forward": forward})
    return cls()


_executor = None
_memory_mb = 0


def _setup(msg):
    global _executor, _memory_mb
    _memory_mb = msg.get("memory_mb", 0)
    _executor = LocalPythonExecutor(msg["authorized_imports"], max_print_outputs_length=msg.get("max_print_outputs_length"),
                                    timeout_seconds=None)  # the harness keeps the time from outside
    return {"op": "done", "ok": True}


def _memory_note(text):
    text = text if len(text) <= _ERROR_CAP else text[:_ERROR_CAP] + "..."
    return f"{text} (the code's memory limit of {_memory_mb} MB was reached)" if "MemoryError" in text else text


def _exec(msg):
    if _executor is None:
        return {"op": "done", "ok": False, "error": "the executor was not set up"}
    if msg.get("reset"):
        _executor.state = {"__name__": "__main__"}
    if "tools" in msg:
        _executor.send_tools({s["name"]: FinalAnswerTool() if s.get("final") else _proxy(s) for s in msg["tools"]})
    if msg.get("variables"):
        _executor.send_variables(msg["variables"])
    try:
        out = _executor(msg["code"])
    except MemoryError:
        _executor.state["_print_outputs"] = ""
        return {"op": "done", "ok": False, "logs": "", "error": _memory_note("MemoryError")}
    except InterpreterError as e:
        return {"op": "done", "ok": False, "logs": str(_executor.state.get("_print_outputs", "")),
                "error": _memory_note(str(e)), "type": "InterpreterError"}
    except BaseException as e:  # noqa: BLE001 - SystemExit, KeyboardInterrupt... in the code end the step, not the jail
        return {"op": "done", "ok": False, "logs": str(_executor.state.get("_print_outputs", "")),
                "error": _memory_note(f"{type(e).__name__}: {e}"), "type": type(e).__name__}
    return {"op": "done", "ok": True, "output": _shown(out.output, [_TEXT_CAP]), "logs": out.logs,
            "is_final_answer": bool(out.is_final_answer)}


_send({"op": "ready"})
while True:
    request = _recv()
    op = request.get("op")
    try:
        reply = _setup(request) if op == "setup" else _exec(request) if op == "exec" else \
            {"op": "done", "ok": False, "error": f"unknown request {op!r}"}
        _send(reply)
    except MemoryError:
        _send({"op": "done", "ok": False, "logs": "", "error": _memory_note("MemoryError")})
