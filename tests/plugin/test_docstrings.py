"""The docstring is the description, and its parameter docs are the parameters' descriptions (P3)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gates.plugin import Plugin, ToolDeclarationError, ToolDefinition

DESCRIPTION = (
    "Places the flag on the player's map at map coordinates in any zone, and opens the map at it.\n\n"
    "Only marks the spot: nothing moves.\n\n"
    "Returns: Where the flag is."
)
PARAMETERS = {
    "x": "Map X coordinate, as the in-game map shows it (about 1 to 42).",
    "zone": "Zone name or territory id. Default: the zone you are in.",
}


def declared(function: Callable[..., object], *, read_only: bool = True) -> ToolDefinition:
    """The definition `function` gets as a tool of a plugin of its own."""
    plugin = Plugin("Docs")
    plugin.tool(read_only=read_only)(function)
    (definition,) = plugin.definitions
    return definition


def descriptions(definition: ToolDefinition) -> dict[str, str]:
    assert definition.input_schema is not None
    return {name: p.get("description", "") for name, p in definition.input_schema["properties"].items()}


def google_style(x: float, zone: str | None = None) -> None:
    """Places the flag on the player's map at map coordinates in any zone,
    and opens the map at it.

    Only marks the spot: nothing moves.

    Args:
        x: Map X coordinate, as the in-game map shows it
            (about 1 to 42).
        zone (str): Zone name or territory id. Default: the zone you are in.

    Returns:
        Where the flag is.
    """


def numpy_style(x: float, zone: str | None = None) -> None:
    """Places the flag on the player's map at map coordinates in any zone,
    and opens the map at it.

    Only marks the spot: nothing moves.

    Parameters
    ----------
    x : float
        Map X coordinate, as the in-game map shows it
        (about 1 to 42).
    zone : str, optional
        Zone name or territory id. Default: the zone you are in.

    Returns
    -------
    FlagPlaced
        Where the flag is.
    """


def rest_style(x: float, zone: str | None = None) -> None:
    """Places the flag on the player's map at map coordinates in any zone,
    and opens the map at it.

    Only marks the spot: nothing moves.

    :param x: Map X coordinate, as the in-game map shows it
        (about 1 to 42).
    :param str zone: Zone name or territory id. Default: the zone you are in.
    :returns: Where the flag is.
    """


@pytest.mark.parametrize("function", [google_style, numpy_style, rest_style], ids=["google", "numpy", "rest"])
def test_each_docstring_style_gives_the_description_and_the_parameter_docs(function: Callable[..., None]) -> None:
    # SPEC: P3
    definition = declared(function)
    assert definition.description == DESCRIPTION
    assert descriptions(definition) == PARAMETERS


def test_a_plain_docstring_is_the_description_and_list_items_keep_their_lines() -> None:
    # SPEC: P3
    def docs_status() -> None:
        """What My Plugin does right now:

        - whom it follows,
          if anyone;
        - where its flag is.
        """

    assert declared(docs_status).description == (
        "What My Plugin does right now:\n\n- whom it follows, if anyone;\n- where its flag is."
    )


def test_an_undocumented_parameter_has_no_description_but_keeps_its_schema() -> None:
    # SPEC: P3
    def docs_find(query: str, limit: int = 5) -> None:
        """Finds things.

        Args:
            query: Words to look for.
        """

    definition = declared(docs_find)
    assert descriptions(definition) == {"query": "Words to look for.", "limit": ""}
    assert definition.input_schema is not None
    assert definition.input_schema["properties"]["limit"] == {"type": "integer", "default": 5}


def test_a_docstring_that_documents_a_parameter_the_function_lacks_is_refused() -> None:
    # SPEC: P3
    def docs_find(query: str) -> None:
        """Finds things.

        Args:
            querry: Words to look for.
        """

    with pytest.raises(ToolDeclarationError) as refused:
        declared(docs_find)
    assert str(refused.value) == (
        f"{__name__}.test_a_docstring_that_documents_a_parameter_the_function_lacks_is_refused.<locals>.docs_find: "
        "its docstring documents 'querry', which it does not take; its parameters are query. "
        "Fix the name in the docstring."
    )


def test_a_tool_without_a_docstring_is_refused_with_what_to_write() -> None:
    # SPEC: P3
    def docs_status() -> None:
        pass

    with pytest.raises(ToolDeclarationError, match=r"docs_status: it has no docstring, .* write one: what it does"):
        declared(docs_status)
