"""The tool contract: schemas come from signatures and docstrings; bad arguments become error results."""
import pytest

from tools import EvidenceUnit, ToolError, ToolResult, World, tool
from tools._tool import Tool

from ..fakes import NullWorld


@tool
async def lookup(world: World, paper: str, figure: int, k: int = 3) -> ToolResult:
    """Look up a figure of a paper.

    Args:
        paper: paper id or title
        figure: figure number as printed
        k: how many neighbours to show
    """
    if figure > 2:
        raise ToolError(f"paper {paper} has no figure {figure}; it has figures 1, 2", kind="not_found")
    return ToolResult(text=f"{paper} fig {figure}", provenance=[EvidenceUnit(paper=paper, unit=f"figure:{figure}")])


def test_schema_is_generated_from_signature_and_docstring():
    assert isinstance(lookup, Tool)
    spec = lookup.spec()
    assert spec["name"] == "lookup"
    assert spec["description"] == "Look up a figure of a paper."
    props = spec["parameters"]["properties"]
    assert props["paper"] == {"type": "string", "description": "paper id or title"}
    assert props["figure"]["type"] == "integer"
    assert props["k"]["default"] == 3
    assert sorted(spec["parameters"]["required"]) == ["figure", "paper"]


def test_undocumented_argument_is_refused_at_definition():
    with pytest.raises(TypeError, match="not documented"):

        @tool
        async def bad(world: World, x: int) -> ToolResult:
            """No args section."""


async def test_bad_arguments_come_back_as_error_result_naming_the_field():
    res = await lookup(NullWorld("."), {"paper": "P1", "figure": "two"})
    assert res.is_error and res.error_kind == "bad_arguments"
    assert "figure" in res.error
    res = await lookup(NullWorld("."), {"paper": "P1", "figure": 1, "bogus": 1})
    assert res.is_error and "bogus" in res.error


async def test_tool_error_is_an_observation_with_recovery_hint():
    res = await lookup(NullWorld("."), {"paper": "P1", "figure": 7})
    assert res.is_error and res.error_kind == "not_found"
    assert "has figures 1, 2" in res.text


async def test_success_carries_provenance():
    res = await lookup(NullWorld("."), {"paper": "P1", "figure": 2})
    assert not res.is_error
    assert [u.key for u in res.provenance] == [("P1", "figure:2")]


def test_evidence_unit_rejects_malformed_units():
    with pytest.raises(ValueError):
        EvidenceUnit(paper="P1", unit="fig2")


@tool
async def bounded(world: World, query: str, k: int = 5, part: int = 1, mode: str = "fast") -> ToolResult:
    """A tool whose prose states its bounds.

    Args:
        query: what to look for
        k: how many results to return (1 to 20)
        part: which part to return, 1-based
        mode: how to search, one of: fast, exact
    """
    return ToolResult(text=f"{query} {k} {part} {mode}")


def test_bounds_stated_in_the_prose_are_in_the_schema():
    props = bounded.spec()["parameters"]["properties"]
    assert (props["k"]["minimum"], props["k"]["maximum"]) == (1, 20)
    assert props["part"]["minimum"] == 1 and "maximum" not in props["part"]
    assert props["mode"]["enum"] == ["fast", "exact"] and props["mode"]["default"] == "fast"
    assert "minimum" not in props["query"] and "enum" not in props["query"]


async def test_an_argument_outside_the_stated_bounds_fails_the_schema():
    for args, field in (({"query": "q", "k": 21}, "k"), ({"query": "q", "k": 0}, "k"), ({"query": "q", "part": 0}, "part"),
                        ({"query": "q", "mode": "slow"}, "mode")):
        res = await bounded(NullWorld("."), args)
        assert res.is_error and res.error_kind == "bad_arguments" and field in res.error, args
    assert not (await bounded(NullWorld("."), {"query": "q", "k": 20, "part": 3, "mode": "exact"})).is_error


def test_every_shipped_tool_carries_the_bounds_its_prose_states():
    from tools import get_tool

    assert {n: (get_tool(n).parameters["properties"][a].get("minimum"), get_tool(n).parameters["properties"][a].get("maximum"))
            for n, a in (("web_search", "k"), ("pdf_rag", "k"), ("pdf_extract", "part"), ("figure_extract", "figure"),
                         ("table_extract", "table"))} == {
        "web_search": (1, 20), "pdf_rag": (1, 20), "pdf_extract": (1, None), "figure_extract": (1, None),
        "table_extract": (1, None)}


def test_a_stated_range_on_a_string_is_refused_at_definition():
    with pytest.raises(TypeError, match="states a range"):

        @tool
        async def odd(world: World, name: str) -> ToolResult:
            """Odd.

            Args:
                name: a name (1 to 3)
            """
