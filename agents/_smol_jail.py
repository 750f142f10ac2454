"""smol-code's Python executor on the harness's side: smolagents' executor runs in the jail, this talks to it.

A `JailedPythonExecutor` is a smolagents PythonExecutor (what CodeAgent calls for each code step)
whose `__call__` sends the code to smolagents' own LocalPythonExecutor running inside the jail
(`_smol_in_jail.py`, one jail per episode) and serves the tool calls the code makes there by calling
the harness's tools, the same objects (and so the same tool session, budget and trace) as before.
The step's output, logs and final-answer flag come back; an error comes back as smolagents'
InterpreterError with smolagents' own words. A step that passes its time, CPU or memory allowance
is ended from outside and the model reads which one, and that the Python session was restarted
and its variables are lost.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.code_jail import JailSession, JailStopped, JailUnavailable, SessionLimits, packages_site

PROGRAM = Path(__file__).with_name("_smol_in_jail.py")
PACKAGES = ("smolagents",)  # bound read-only into the jail with what they require
_STOP_TEXT = {
    "wall": "Code execution exceeded the maximum execution time of {wall:g} seconds and was stopped",
    "cpu": "Code execution used more than {cpu:g} seconds of CPU time and was stopped",
    "lifetime_cpu": "Code execution used up the Python session's CPU time ({life} seconds in all) and was stopped",
    "memory": "Code execution used more than the memory limit of {mem} MB and was stopped",
    "died": "The Python session running the code ended unexpectedly ({detail})",
    "protocol": "The Python session running the code broke its protocol with the harness and was stopped",
}
_LOST = ("; the Python session was restarted, so the variables, functions and imports defined by earlier code are "
         "lost: define again what you still need.")


class _Shown:
    """A value of the jailed code that is not plain data, as it printed there (str and repr)."""

    def __init__(self, s: str, r: str):
        self._s, self._r = s, r

    def __str__(self) -> str:
        return self._s

    def __repr__(self) -> str:
        return self._r


class _ShownSeq(list):  # type: ignore[type-arg]
    """A list, tuple or set of the jailed code: its items (rebuilt), and how the whole printed there."""

    def __init__(self, items: list[Any], s: str, r: str):
        super().__init__(items)
        self._s, self._r = s, r

    def __str__(self) -> str:
        return self._s

    def __repr__(self) -> str:
        return self._r


def rebuild(shown: Any) -> Any:
    """The harness's view of a value the jail sent (see `_shown` there)."""
    if not isinstance(shown, dict):
        return None
    if "v" in shown:
        return shown["v"]
    s, r = str(shown.get("s", "")), str(shown.get("r", ""))
    if isinstance(shown.get("seq"), list):
        return _ShownSeq([rebuild(x) for x in shown["seq"]], s, r)
    return _Shown(s, r)


def jail_unavailable() -> str | None:
    """None if smol-code can run its code in the jail here; otherwise why not (what to install)."""
    from harness.code_jail import jail_unavailable_reason

    why = jail_unavailable_reason()
    if why is None:
        try:
            packages_site(PACKAGES)
        except (JailUnavailable, OSError) as e:
            why = f"smol-code cannot prepare smolagents for its jail: {e}"
    return why


def executor_class() -> type:
    """The executor class (smolagents is imported only when an agent is built)."""
    from smolagents.local_python_executor import CodeOutput, InterpreterError, PythonExecutor

    class JailedPythonExecutor(PythonExecutor):  # type: ignore[misc]
        def __init__(self, additional_authorized_imports: list[str], max_print_outputs_length: int | None = None,
                     limits: SessionLimits | None = None):
            from smolagents.utils import BASE_BUILTIN_MODULES

            self.limits = limits or SessionLimits()
            self.authorized_imports = sorted(set(BASE_BUILTIN_MODULES) | set(additional_authorized_imports))
            self.max_print_outputs_length = max_print_outputs_length
            # CodeAgent reads `state["_print_outputs"]` after a failed step; the variables live in the jail
            self.state: dict[str, Any] = {"_print_outputs": ""}
            self.tools: dict[str, Any] = {}
            self._pending: dict[str, Any] = {}
            self._jail_seen = 0  # the session's start count the jail was last set up for
            self.broken: JailUnavailable | None = None  # set when a jail could not be (re)started
            self.session = JailSession(PROGRAM.read_text(encoding="utf-8"), self.limits,
                                       sites=(packages_site(PACKAGES),))

        def send_tools(self, tools: dict[str, Any]) -> None:
            self.tools = dict(tools)
            self._pending["tools"] = self._specs()

        def send_variables(self, variables: dict[str, Any]) -> None:
            if variables:
                self._pending.setdefault("variables", {}).update(variables)

        def clear_variables(self) -> None:
            """Forget the variables of earlier code (summary memory compacts the conversation)."""
            self._pending["reset"] = True

        def _specs(self) -> list[dict[str, Any]]:
            from smolagents.default_tools import FinalAnswerTool

            return [{"name": n, "final": True} if isinstance(t, FinalAnswerTool) else
                    {"name": n, "description": t.description, "inputs": t.inputs, "output_type": t.output_type}
                    for n, t in self.tools.items()]

        def _serve(self, call: dict[str, Any]) -> dict[str, Any]:
            """A tool the jailed code called: run the harness's own tool (session, budget, trace) and answer."""
            name = call.get("tool")
            tool = self.tools.get(name) if isinstance(name, str) else None
            if tool is None:
                return {"op": "result", "error": {"type": "InterpreterError", "message": f"no tool {name!r}"}}
            args = call.get("args") if isinstance(call.get("args"), list) else []
            kwargs = call.get("kwargs") if isinstance(call.get("kwargs"), dict) else {}
            try:
                return {"op": "result", "value": tool(*args, **kwargs)}
            except Exception as e:  # what the tool raised is raised in the jailed code, under the same name
                return {"op": "result", "error": {"type": type(e).__name__, "message": str(e)}}

        def _request(self, msg: dict[str, Any]) -> dict[str, Any]:
            reply: dict[str, Any] = self.session.request(msg, self._serve)
            return reply

        def __call__(self, code_action: str) -> Any:
            self.state = {"_print_outputs": ""}
            try:
                if self._jail_seen != self.session.starts:  # a fresh jail (the first, or after a stop): set it up
                    self._request({"op": "setup", "authorized_imports": self.authorized_imports,
                                   "max_print_outputs_length": self.max_print_outputs_length,
                                   "memory_mb": self.limits.memory_mb})
                    self._jail_seen = self.session.starts
                    self._pending["tools"] = self._specs()
                msg = {"op": "exec", "code": code_action, **self._pending}
                self._pending = {}
                reply = self._request(msg)
            except JailStopped as e:
                reason = "lifetime_cpu" if (e.reason, e.detail) == ("cpu", "lifetime") else e.reason
                lim = self.limits
                text = _STOP_TEXT[reason].format(wall=lim.wall_seconds, cpu=lim.cpu_seconds, mem=lim.memory_mb,
                                                 life=lim.lifetime_cpu_seconds, detail=e.detail[:300])
                raise InterpreterError(text + _LOST) from None
            except JailUnavailable as e:  # our side, not the code's: the agent ends the episode with it
                self.broken = e
                raise InterpreterError(f"The jail could not run the code: {e}") from None
            self.state = {"_print_outputs": str(reply.get("logs") or "")}
            if not reply.get("ok"):
                raise InterpreterError(str(reply.get("error") or "the code failed"))
            return CodeOutput(output=rebuild(reply.get("output")), logs=self.state["_print_outputs"],
                              is_final_answer=bool(reply.get("is_final_answer")))

        def cleanup(self) -> None:
            self.session.close()

    return JailedPythonExecutor


__all__ = ["PACKAGES", "PROGRAM", "executor_class", "jail_unavailable", "rebuild"]
