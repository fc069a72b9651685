"""Schemas from type hints: inputSchema from the parameters, outputSchema from the return type (P4, P5, T5)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal, TypedDict

import msgspec
from msgspec import Meta

from gates.plugin import Listing, Plugin, ToolDefinition


class Currency(enum.Enum):
    GIL = "gil"
    MGP = "mgp"


class Point(msgspec.Struct):
    x: float
    y: float


class FlagPlaced(msgspec.Struct, rename="camel"):
    zone: str
    map_opened: bool


class Totals(TypedDict):
    kills: int
    gil: int


@dataclasses.dataclass
class Weather:
    zone: str
    sky: str


def definition_of(plugin: Plugin, name: str) -> ToolDefinition:
    return next(d for d in plugin.definitions if d.name == name)


def test_each_kind_of_hint_becomes_its_json_schema() -> None:
    # SPEC: P4
    plugin = Plugin("Kinds")

    @plugin.tool(read_only=True)
    def kinds_all(
        x: Annotated[float, Meta(ge=1, le=42)],
        count: int,
        name: str,
        flag: bool,
        currency: Currency,
        kind: Literal["near", "far"],
        tags: list[str],
        prices: dict[str, int],
        point: Point,
        zone: str | None,
    ) -> None:
        """Every kind of parameter."""

    schema = definition_of(plugin, "kinds_all").input_schema
    assert schema is not None
    properties = schema["properties"]
    assert properties["x"] == {"type": "number", "minimum": 1, "maximum": 42}
    assert properties["count"] == {"type": "integer"}
    assert properties["name"] == {"type": "string"}
    assert properties["flag"] == {"type": "boolean"}
    assert properties["currency"] == {"$ref": "#/$defs/Currency"}
    assert properties["kind"] == {"enum": ["far", "near"]}
    assert properties["tags"] == {"type": "array", "items": {"type": "string"}}
    assert properties["prices"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert properties["point"] == {"$ref": "#/$defs/Point"}
    assert properties["zone"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert schema["$defs"]["Currency"]["enum"] == ["gil", "mgp"]
    assert schema["$defs"]["Point"]["required"] == ["x", "y"]
    assert schema["type"] == "object"
    assert schema["required"] == list(properties)  # none has a default


def test_a_parameter_with_a_default_is_optional_and_its_default_is_stated() -> None:
    # SPEC: P4
    plugin = Plugin("Defaults")

    @plugin.tool(capabilities=["game_ui"])
    def defaults_set_flag(x: float, y: float, zone: str | None = None, open_map: bool = True) -> None:
        """Places the flag."""

    schema = definition_of(plugin, "defaults_set_flag").input_schema
    assert schema is not None
    assert schema["required"] == ["x", "y"]
    assert schema["properties"]["open_map"] == {"type": "boolean", "default": True}
    assert schema["properties"]["zone"]["default"] is None
    assert "$defs" not in schema


def test_a_tool_without_parameters_leaves_the_input_schema_out() -> None:
    # SPEC: T5
    plugin = Plugin("NoArgs")

    @plugin.tool(read_only=True)
    def noargs_status() -> dict[str, Any]:
        """The status."""
        return {}

    definition = definition_of(plugin, "noargs_status")
    assert definition.input_schema is None
    assert "inputSchema" not in msgspec.json.decode(msgspec.json.encode(definition))


def test_a_struct_return_type_advertises_its_output_schema_with_the_wire_names() -> None:
    # SPEC: P5
    plugin = Plugin("Out")

    @plugin.tool(capabilities=["game_ui"])
    def out_flag() -> FlagPlaced:
        """Places it."""
        return FlagPlaced("Kozama'uka", True)

    schema = definition_of(plugin, "out_flag").output_schema
    assert schema is not None
    assert schema["type"] == "object"
    assert schema["properties"] == {"zone": {"type": "string"}, "mapOpened": {"type": "boolean"}}
    assert schema["required"] == ["zone", "mapOpened"]
    assert "$defs" not in schema  # nothing left to refer to once the root is inlined


def test_typed_dicts_dataclasses_and_listings_advertise_object_schemas() -> None:
    # SPEC: P5
    plugin = Plugin("Shapes")

    @plugin.tool(read_only=True)
    def shapes_totals() -> Totals:
        """Totals."""
        return Totals(kills=1, gil=2)

    @plugin.tool(read_only=True)
    def shapes_weather() -> Weather:
        """Weather."""
        return Weather("Kozama'uka", "clear")

    @plugin.tool(read_only=True)
    def shapes_points(limit: Annotated[int, Meta(ge=1, le=50)] = 10, offset: int = 0) -> Listing[Point]:
        """Points."""
        return Listing.page([], limit=limit, offset=offset)

    totals = definition_of(plugin, "shapes_totals").output_schema
    weather = definition_of(plugin, "shapes_weather").output_schema
    points = definition_of(plugin, "shapes_points").output_schema
    assert totals is not None and totals["type"] == "object" and set(totals["properties"]) == {"kills", "gil"}
    assert weather is not None and weather["required"] == ["zone", "sky"]
    assert points is not None and points["type"] == "object"
    assert set(points["properties"]) == {"total", "showing", "offset", "items"}
    assert points["properties"]["items"] == {"type": "array", "items": {"$ref": "#/$defs/Point"}}
    assert points["$defs"]["Point"]["type"] == "object"


def test_a_recursive_return_type_keeps_the_definition_it_refers_to() -> None:
    # SPEC: P5
    plugin = Plugin("Tree")

    @plugin.tool(read_only=True)
    def tree_root() -> Node:
        """The root."""
        return Node("root")

    schema = definition_of(plugin, "tree_root").output_schema
    assert schema is not None and schema["type"] == "object"
    assert schema["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


class Node(msgspec.Struct):
    name: str
    children: list[Node] = []


def test_plain_return_types_advertise_no_output_schema() -> None:
    # SPEC: P5
    plugin = Plugin("Plain")

    @plugin.tool(read_only=True)
    def plain_dict() -> dict[str, int]:
        """A dict."""
        return {}

    @plugin.tool(read_only=True)
    def plain_text() -> str:
        """Text."""
        return ""

    @plugin.tool(read_only=True)
    def plain_nothing():  # type: ignore[no-untyped-def]
        """No annotation."""

    assert [d.output_schema for d in plugin.definitions] == [None, None, None]


def test_a_listing_states_the_default_and_maximum_of_its_paging() -> None:
    # SPEC: P5
    plugin = Plugin("Paged")

    @plugin.tool(read_only=True)
    def paged_spots(query: str = "", limit: Annotated[int, Meta(ge=1, le=100)] = 20, offset: int = 0) -> Listing[Point]:
        """Spots.

        Args:
            limit: How many spots to return.
        """
        return Listing.page([], limit=limit, offset=offset)

    schema = definition_of(plugin, "paged_spots").input_schema
    assert schema is not None
    limit, offset = schema["properties"]["limit"], schema["properties"]["offset"]
    assert limit["description"] == "How many spots to return. Default 20, max 100."
    assert limit["maximum"] == 100 and limit["default"] == 20
    assert offset["description"] == "How many items to skip, for paging. Default 0."


def test_listing_page_counts_what_it_shows_and_what_there_is() -> None:
    # SPEC: P5
    page = Listing.page(list(range(57)), limit=20, offset=40)
    assert (page.total, page.showing, page.offset, page.items) == (57, 17, 40, list(range(40, 57)))
    past_the_end = Listing.page([1, 2], limit=5, offset=9)
    assert (past_the_end.total, past_the_end.showing, past_the_end.items) == (2, 0, [])
    assert msgspec.to_builtins(Listing.page(["a"], limit=1)) == {"total": 1, "showing": 1, "offset": 0, "items": ["a"]}
