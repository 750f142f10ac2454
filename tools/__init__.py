"""The tool environment: one contract, a world interface, and one module per tool.

Tools are plain async functions of (world, arguments) returning a ToolResult with provenance. They
know nothing of budgets, traces or agents; the harness's tool session wraps them.
"""
from ._tool import Tool, call_signature, exposed_units, tool
from ._types import EvidenceUnit, ToolError, ToolImage, ToolResult, UNIT_RE, Unit, check_unit
from ._world import PaperMeta, PaperNotFound, SearchHit, World
from .registry import ALL_TOOLS, AUX_TOOLS, CORE_TOOLS, UnknownTool, get_tool

__all__ = [
    "Tool", "call_signature", "exposed_units", "tool", "EvidenceUnit", "ToolError", "ToolImage", "ToolResult", "UNIT_RE", "Unit", "check_unit",
    "PaperMeta", "PaperNotFound", "SearchHit", "World",
    "ALL_TOOLS", "AUX_TOOLS", "CORE_TOOLS", "UnknownTool", "get_tool",
]
