"""Declaring a tool: the name, and each misuse refused when the module is imported (P1, G4, T1, T6).

Every refusal is a `ToolDeclarationError` whose message starts with the function
(`module.qualname`) and says what to write instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from gates.plugin import Listing, McpCall, Plugin, ToolDeclarationError

if TYPE_CHECKING:
    from decimal import Decimal


class Opaque:
    """A class msgspec has no JSON form for."""


class Row(msgspec.Struct, array_like=True):
    a: int


class Holder(msgspec.Struct):
    thing: Opaque


def refusal(declare: Callable[[Plugin], object]) -> str:
    """The message of the `ToolDeclarationError` that `declare(plugin)` raises."""
    with pytest.raises(ToolDeclarationError) as refused:
        declare(Plugin("Refusals"))
    assert isinstance(refused.value, TypeError)
    return str(refused.value)


def where(function_name: str) -> str:
    return f"{__name__}.{function_name}: "


def test_the_name_is_the_function_name_and_name_overrides_it() -> None:
    # SPEC: P1
    plugin = Plugin("Names")

    @plugin.tool(read_only=True)
    def names_status() -> None:
        """Status."""

    @plugin.tool(read_only=True)
    def FindCars() -> None:
        """C#-style name, snake_case tool."""

    @plugin.tool(read_only=True, name="names_renamed")
    def anything() -> None:
        """Named explicitly."""

    assert [d.name for d in plugin.definitions] == ["names_status", "find_cars", "names_renamed"]


def test_a_decorated_function_is_the_plain_function() -> None:
    # SPEC: K4
    plugin = Plugin("Plain")

    def plain_add(a: int, b: int = 2) -> int:
        """Adds."""
        return a + b

    async def plain_wait(call: McpCall, seconds: float = 0) -> None:
        """Waits."""

    assert plugin.tool(read_only=True)(plain_add) is plain_add
    assert plugin.long_running_tool(read_only=True)(plain_wait) is plain_wait
    assert plain_add(1) == 3


def f_not_read_only(plugin: Plugin) -> None:
    @plugin.tool()
    def refusals_act() -> None:
        """Acts."""


def f_both(plugin: Plugin) -> None:
    @plugin.tool(read_only=True, destructive=True)
    def refusals_both() -> None:
        """Both."""


def f_read_only_acting(plugin: Plugin) -> None:
    @plugin.tool(read_only=True, capabilities=["game_ui"])
    def refusals_reads() -> None:
        """Reads."""


def f_unknown_capability(plugin: Plugin) -> None:
    @plugin.tool(capabilities=["gameui"])
    def refusals_unknown() -> None:
        """Unknown capability."""


def f_capabilities_string(plugin: Plugin) -> None:
    @plugin.tool(capabilities="game_ui")
    def refusals_string() -> None:
        """A string."""


@pytest.mark.parametrize(
    ("declare", "function", "says"),
    [
        (
            f_not_read_only,
            "refusals_act",
            'so it must say what it changes for the player to allow: add capabilities=["game_ui"]',
        ),
        (
            f_both,
            "refusals_both",
            "read_only=True and destructive=True, but a read-only tool changes nothing; drop one",
        ),
        (f_read_only_acting, "refusals_reads", "read_only=True but declares capabilities=['game_ui']; a read-only"),
        (f_unknown_capability, "refusals_unknown", "XIV MCP knows no capability 'gameui'; did you mean 'game_ui'? the"),
        (
            f_capabilities_string,
            "refusals_string",
            "capabilities must be a list of capability ids, such as capabilities=['game_ui'], not a string",
        ),
    ],
    ids=[
        "not-read-only-without-capabilities",
        "read-only-and-destructive",
        "read-only-acting",
        "unknown-capability",
        "a-string",
    ],
)
def test_capability_misuse_is_refused_with_what_to_write(
    declare: Callable[[Plugin], None], function: str, says: str
) -> None:
    # SPEC: G4, T1
    message = refusal(declare)
    assert message.startswith(where(f"{declare.__name__}.<locals>.{function}"))
    assert says in message


def test_a_bad_tool_name_is_refused() -> None:
    # SPEC: P1, G4
    def declare(plugin: Plugin) -> None:
        @plugin.tool(read_only=True, name="My Tool")
        def anything() -> None:
            """Named badly."""

    assert "the tool name 'My Tool' is not a valid tool name: use 3 to 64 characters a-z, 0-9 and _" in refusal(declare)

    def declare_short(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def go() -> None:
            """Too short a name."""

    assert 'rename the function, or name the tool with name="myplugin_do_thing"' in refusal(declare_short)


def test_one_of_xiv_mcps_own_tool_names_is_refused() -> None:
    # SPEC: T6
    def declare(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def take_screenshot(text: str) -> str:
            """Takes one."""
            return text

    expected = "'take_screenshot' is one of XIV MCP's own tools, which a plugin cannot register; prefix it"
    assert expected in refusal(declare)


def test_a_parameter_type_with_no_json_form_is_refused() -> None:
    # SPEC: P4
    def declare(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_opaque(thing: Opaque) -> None:
            """Takes an opaque thing."""

    message = refusal(declare)
    assert "parameter 'thing' has the type Opaque, which has no JSON form" in message
    assert "use a type with a JSON form: str, int, float, bool" in message


def test_a_return_type_with_no_json_form_or_not_an_object_is_refused() -> None:
    # SPEC: P5
    def declare(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_holder() -> Holder:
            """Returns a holder."""
            raise NotImplementedError

    def declare_row(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_row() -> Row:
            """Returns a row."""
            raise NotImplementedError

    assert "its return type Holder has no JSON form" in refusal(declare)
    assert "is encoded as JSON array, not as an object" in refusal(declare_row)


def test_parameters_the_assistant_could_not_fill_are_refused() -> None:
    # SPEC: P4
    def untyped(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_untyped(query) -> None:  # type: ignore[no-untyped-def]
            """Untyped."""

    def variadic(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_variadic(**options: Any) -> None:
            """Variadic."""

    def positional(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_positional(query: str, /) -> None:
            """Positional."""

    def unjsonable_default(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_default(thing: Any = Opaque()) -> None:  # noqa: B008
            """A default with no JSON form."""

    assert "its parameter 'query' has no type hint" in refusal(untyped)
    assert "it takes **options, but each argument the assistant may send must be a parameter" in refusal(variadic)
    assert "its parameter 'query' is positional-only, but arguments arrive by name" in refusal(positional)
    assert "the default of its parameter 'thing' has no JSON form" in refusal(unjsonable_default)


def test_hints_that_cannot_be_resolved_are_refused() -> None:
    # SPEC: P4
    def declare(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_money(amount: Decimal) -> None:
            """Only imported for type checking."""

    assert "its type hints cannot be resolved (NameError" in refusal(declare)


def test_long_running_tools_are_coroutines_that_take_the_call_first() -> None:
    # SPEC: P1
    def sync(plugin: Plugin) -> None:
        @plugin.long_running_tool(capabilities=["combat"])  # type: ignore[type-var]
        def refusals_farm(call: McpCall) -> None:
            """Farms."""

    def without_call(plugin: Plugin) -> None:
        @plugin.long_running_tool(capabilities=["combat"])
        async def refusals_farm(minutes: int = 60) -> None:
            """Farms."""

    def quick_with_call(plugin: Plugin) -> None:
        @plugin.tool(capabilities=["combat"])
        def refusals_fight(call: McpCall) -> None:
            """Fights."""

    assert "so it must be a coroutine: write `async def`" in refusal(sync)
    assert "write `async def tool(call: McpCall, ...)`" in refusal(without_call)
    assert "only a long-running tool gets the call" in refusal(quick_with_call)


def test_a_listing_without_paging_is_refused() -> None:
    # SPEC: P5
    def unpaged(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_all() -> Listing[int]:
            """Everything."""
            raise NotImplementedError

    def unbounded(plugin: Plugin) -> None:
        @plugin.tool(read_only=True)
        def refusals_all(limit: int = 20, offset: int = 0) -> Listing[int]:
            """Everything."""
            raise NotImplementedError

    paging = "limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20, offset: int = 0"
    assert f"it returns a Listing, so it pages: give it the parameters {paging}." in refusal(unpaged)
    assert "needs a whole-number type with a maximum and a default, so the assistant knows" in refusal(unbounded)


def test_two_tools_of_one_name_are_refused() -> None:
    # SPEC: P1
    plugin = Plugin("Twice")

    @plugin.tool(read_only=True, name="twice_status")
    def first() -> None:
        """First."""

    def second() -> None:
        """Second."""

    with pytest.raises(ToolDeclarationError, match="already declares the tool 'twice_status' in Twice; give one"):
        plugin.tool(read_only=True, name="twice_status")(second)


def test_the_decorator_used_without_parentheses_says_how_to_call_it() -> None:
    # SPEC: P1
    def refusals_bare() -> None:
        """Bare."""

    with pytest.raises(
        ToolDeclarationError, match=r"@plugin.tool needs to be called, .* @plugin.tool\(read_only=True\)"
    ):
        Plugin("Bare").tool(refusals_bare)  # type: ignore[arg-type]
