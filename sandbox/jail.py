"""The sandbox's code-execution jail. The runner lives in tools/_jail.py so the code_exec tool can use it
without importing the sandbox (tools import nothing of ours); this module is its sandbox-side name."""
from tools._jail import (JailLimits, JailResult, JailStatus, JailUnavailable, LimitName, check_jail,
                         jail_unavailable_reason, run_python)

__all__ = ["JailLimits", "JailResult", "JailStatus", "JailUnavailable", "LimitName", "check_jail",
           "jail_unavailable_reason", "run_python"]
