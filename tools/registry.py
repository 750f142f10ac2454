"""Names of the tools and where they live; modules are imported on first use (heavy deps load late)."""
from __future__ import annotations

import importlib

from ._tool import Tool

TOOL_MODULES: dict[str, str] = {
    "web_search": "tools.web_search",
    "pdf_extract": "tools.pdf_extract",
    "pdf_rag": "tools.pdf_rag",
    "figure_extract": "tools.figure_extract",
    "table_extract": "tools.table_extract",
    "code_exec": "tools.code_exec",
}
CORE_TOOLS: tuple[str, ...] = ("web_search", "pdf_extract", "pdf_rag", "figure_extract", "table_extract")
AUX_TOOLS: tuple[str, ...] = ("code_exec",)
ALL_TOOLS: tuple[str, ...] = CORE_TOOLS + AUX_TOOLS


class UnknownTool(KeyError):
    """A tool name that is not registered."""

    def __str__(self) -> str:  # KeyError quotes its arg; say it plainly
        return self.args[0]


def get_tool(name: str) -> Tool:
    """The Tool registered under `name`; each tool module defines a module-level Tool named like it."""
    if name not in TOOL_MODULES:
        raise UnknownTool(f"unknown tool {name!r}; known tools: {', '.join(ALL_TOOLS)}")
    mod = importlib.import_module(TOOL_MODULES[name])
    t = getattr(mod, name)
    assert isinstance(t, Tool), f"{TOOL_MODULES[name]}.{name} is not a Tool"
    return t
