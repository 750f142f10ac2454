"""The sandbox's code-execution jail. The runner lives in tools/_jail*.py so the code_exec tool can use it
without importing the sandbox (tools import nothing of ours); this module is its sandbox-side name:
`run_python` for one snippet per jail (code_exec), `JailSession` for one jailed interpreter kept for an
episode (smol-code), `packages_site` for read-only copies of the packages such a program needs."""
from tools._jail import (JailLimits, JailResult, JailStatus, JailUnavailable, LimitName, check_jail,
                         jail_unavailable_reason, run_python)
from tools._jail_box import packages_site
from tools._jail_session import JailSession, JailStopped, SessionLimits

__all__ = ["JailLimits", "JailResult", "JailSession", "JailStatus", "JailStopped", "JailUnavailable", "LimitName",
           "SessionLimits", "check_jail", "jail_unavailable_reason", "packages_site", "run_python"]
