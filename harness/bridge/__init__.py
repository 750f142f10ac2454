"""The agent bridge (issue 30): an agent program of the user's own, in its own process (sandboxed where it can
be), given a model endpoint and the tools through the harness, exchanging turns as JSON lines.
Protocol reference: harness/bridge/PROTOCOL.md; the agent: harness.bridge.agent.BridgeAgent."""
