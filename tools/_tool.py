"""The tool contract: a typed async function of (world, args) whose JSON schema comes from its signature.

Write a tool as::

    @tool
    async def figure_extract(world: World, paper: str, figure: int) -> ToolResult:
        '''Extract a figure from a paper as a PNG with its caption.

        Args:
            paper: paper id, title, URL or arXiv id
            figure: the figure number as printed in its caption
        '''

The first line of the docstring is the description; the `Args:` section documents each argument.
Undocumented arguments are refused when the tool is defined, so the schema can never drift.

Bounds the prose states become part of the schema and of validation, so a grammar-constrained server can
hold them and a call outside them is refused like any other that fails the schema: a number argument
documented with `(1 to 20)` (or `between 1 and 20`) gets `minimum` 1 and `maximum` 20, `1-based` or
`1 or more` gets `minimum` 1; a string argument documented with `one of: a, b, c` gets `enum`. A stated
range that contradicts the type hint (a range on a string) is refused at definition.
"""
from __future__ import annotations

import inspect
import json
import re
import typing
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ._types import ToolError, ToolResult
from ._watch import note
from ._world import PaperNotFound, World

ToolFn = Callable[..., Awaitable[ToolResult]]


def call_signature(tool: str, args: dict[str, Any]) -> tuple[str, str]:
    """Same tool and same arguments (key order ignored): what makes two calls the same call. The process
    metrics count such repeats as redundant; the episode generator keeps them out of gold checklists."""
    return tool, json.dumps(args, sort_keys=True, ensure_ascii=False, default=str)


def exposed_units(tool: str, args: dict[str, Any]) -> set[tuple[str, str]]:
    """The evidence units, as (paper, unit), that a call with these arguments puts before the agent when it
    succeeds: a paper's text, one figure or one table (web_search and code_exec expose none). Episode
    validation and the episode generator replay gold checklists with it."""
    paper = args.get("paper")
    if not isinstance(paper, str):
        return set()
    if tool in ("pdf_extract", "pdf_rag"):
        return {(paper, "text")}
    if tool == "figure_extract":
        return {(paper, f"figure:{args.get('figure')}")}
    if tool == "table_extract":
        return {(paper, f"table:{args.get('table')}")}
    return set()


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    doc = inspect.cleandoc(doc or "")
    parts = re.split(r"^\s*Args:\s*$", doc, maxsplit=1, flags=re.M)
    description = parts[0].strip()
    args: dict[str, str] = {}
    if len(parts) == 2:
        current = None
        for line in parts[1].splitlines():
            if re.match(r"^\s*(Returns|Raises|Examples?):\s*$", line):
                break
            m = re.match(r"^\s{0,8}(\w+)\s*(\([^)]*\))?:\s*(.*)$", line)
            if m:
                current = m.group(1)
                args[current] = m.group(3).strip()
            elif current and line.strip():
                args[current] += " " + line.strip()
    return description, args


_NUMBER = r"(-?\d+(?:\.\d+)?)"
_RANGE = re.compile(rf"\(\s*{_NUMBER}\s+to\s+{_NUMBER}\s*\)|\bbetween\s+{_NUMBER}\s+and\s+{_NUMBER}\b", re.I)
_AT_LEAST = re.compile(rf"\b{_NUMBER}-based\b|\b{_NUMBER}\s+or\s+more\b", re.I)
_ONE_OF = re.compile(r"\bone\s+of:\s*([^.;()]+)", re.I)


def _number(text: str, hint: Any) -> int | float:
    return int(text) if hint is int and "." not in text else float(text)


def prose_constraints(name: str, doc: str, hint: Any) -> tuple[Any, dict[str, Any]]:
    """The type and Field constraints an argument's prose states: `(lo to hi)`, `lo-based`, `lo or more` on
    numbers (ge/le), `one of: a, b` on strings (a Literal, which the schema shows as an enum)."""
    constraints: dict[str, Any] = {}
    numeric = hint in (int, float)
    if (m := _RANGE.search(doc)) is not None:
        lo, hi = (g for g in m.groups() if g is not None)
        if not numeric:
            raise TypeError(f"argument {name!r}: its description states a range ({m.group(0)}) but its type is {hint!r}")
        constraints.update(ge=_number(lo, hint), le=_number(hi, hint))
    elif (m := _AT_LEAST.search(doc)) is not None:
        if not numeric:
            raise TypeError(f"argument {name!r}: its description states a lower bound ({m.group(0)}) but its type is {hint!r}")
        constraints["ge"] = _number(next(g for g in m.groups() if g is not None), hint)
    if (m := _ONE_OF.search(doc)) is not None:
        if hint is not str:
            raise TypeError(f"argument {name!r}: its description lists choices ({m.group(0)}) but its type is {hint!r}")
        values = tuple(v.strip().strip("`'\"") for v in re.split(r",|\bor\b", m.group(1)) if v.strip())
        hint = Literal.__getitem__(values)
    return hint, constraints


@dataclass
class Tool:
    """A registered tool: name, description, JSON schema for its arguments, and the function."""

    name: str
    description: str
    fn: ToolFn
    args_model: type[BaseModel]
    parameters: dict[str, Any] = field(default_factory=dict)

    def spec(self) -> dict[str, Any]:
        """The OpenAI-style function spec the model sees."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def validate(self, args: dict[str, Any] | None) -> dict[str, Any]:
        """Check arguments against the schema; raise ToolError naming each bad field."""
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ToolError(f"{self.name}: arguments must be a JSON object, got {type(args).__name__}")
        try:
            return self.args_model.model_validate(args).model_dump()
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}" for err in e.errors()
            )
            raise ToolError(
                f"{self.name}: bad arguments ({problems}). Expected parameters: "
                f"{', '.join(self.parameters.get('properties', {}))}",
                kind="bad_arguments",
            ) from None

    async def __call__(self, world: World, args: dict[str, Any] | None) -> ToolResult:
        """Validate, run, and turn recoverable failures into error results.

        ToolError, PaperNotFound and fetch/parse failures come back as error results the agent can
        read; any other exception is a bug in our code and propagates to the harness.
        """
        note("tool", self.name)  # run by an agent itself, not through the harness's tool session: reported
        try:
            clean = self.validate(args)
            return await self.fn(world, **clean)
        except ToolError as e:
            return ToolResult.fail(e.message, e.kind, e.data)
        except PaperNotFound as e:
            return ToolResult.fail(str(e) or "paper not found", "not_found")


def tool(fn: ToolFn | None = None, *, name: str | None = None) -> Any:
    """Make a Tool from an async function whose first parameter is the world."""

    def wrap(f: ToolFn) -> Tool:
        if not inspect.iscoroutinefunction(f):
            raise TypeError(f"tool {f.__name__} must be an async function")
        description, arg_docs = _parse_docstring(f.__doc__ or "")
        if not description:
            raise TypeError(f"tool {f.__name__} needs a docstring: its first line is the description")
        hints = typing.get_type_hints(f)
        sig = inspect.signature(f)
        params = list(sig.parameters.values())
        if not params or params[0].name != "world":
            raise TypeError(f"tool {f.__name__}: the first parameter must be `world`")
        fields: dict[str, Any] = {}
        for p in params[1:]:
            if p.name not in arg_docs:
                raise TypeError(f"tool {f.__name__}: argument {p.name!r} is not documented under Args:")
            if p.name not in hints:
                raise TypeError(f"tool {f.__name__}: argument {p.name!r} has no type hint")
            default = ... if p.default is inspect.Parameter.empty else p.default
            try:
                hint, bounds = prose_constraints(p.name, arg_docs[p.name], hints[p.name])
            except TypeError as e:
                raise TypeError(f"tool {f.__name__}: {e}") from None
            fields[p.name] = (hint, Field(default, description=arg_docs[p.name], **bounds))
        model = create_model(
            f"{f.__name__}_args", __config__=ConfigDict(extra="forbid"), **fields
        )
        schema = model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return Tool(name=name or f.__name__, description=description, fn=f, args_model=model, parameters=schema)

    return wrap(fn) if fn is not None else wrap
