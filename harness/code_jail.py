"""The jail agents run model-written code in: no model-written code runs in the harness's own process (DESIGN.md).

Agents never import tools; an agent that runs the model's code itself (smol-code runs smolagents'
executor) reaches the sandbox's jail here: a `JailSession` is one long-lived jailed interpreter per
episode that talks to the agent over a pipe (tools/_jail_session.py, tools/README.md).
"""
from sandbox.jail import (JailSession, JailStopped, JailUnavailable, SessionLimits, jail_unavailable_reason,
                          packages_site)

__all__ = ["JailSession", "JailStopped", "JailUnavailable", "SessionLimits", "jail_unavailable_reason", "packages_site"]
