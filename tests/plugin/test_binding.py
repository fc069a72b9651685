"""Binding a call's arguments: tolerant of what assistants get wrong, loud about the rest (P4, T3).

Each call goes through `Plugin.call`, the way XIV MCP passes arguments: as they were sent.
"""

from __future__ import annotations

import enum
from typing import Annotated, Literal

import msgspec
import pytest
from msgspec import Meta

from gates.plugin import Plugin, ToolDeclarationError


class Currency(enum.Enum):
    GIL = "gil"
    MGP = "mgp"


class Point(msgspec.Struct):
    x: float
    y: float


plugin = Plugin("Binding")


@plugin.tool(capabilities=["game_ui"])
def binding_set_flag(
    x: Annotated[float, Meta(ge=1, le=42)], y: float, zone: str | None = None, open_map: bool = True
) -> dict[str, object]:
    """Places the flag."""
    return {"x": x, "y": y, "zone": zone, "open_map": open_map}


@plugin.tool(read_only=True)
def binding_kinds(
    counts: list[int] | None = None,
    prices: dict[str, int] | None = None,
    point: Point | None = None,
    currency: Currency = Currency.GIL,
    kind: Literal["near", "far"] = "near",
    note: str = "",
) -> dict[str, object]:
    """Takes every kind of value."""
    return {
        "counts": counts,
        "prices": prices,
        "point": point,
        "currency": currency.name,
        "kind": kind,
        "note": note,
    }


def result(name: str, arguments: dict[str, object]) -> object:
    outcome = plugin.call(name, arguments)
    assert outcome.error is None, outcome.error
    return outcome.result


def error(name: str, arguments: dict[str, object]) -> str:
    outcome = plugin.call(name, arguments)
    assert outcome.error is not None, outcome.result
    return outcome.error


def test_argument_names_in_another_case_or_style_are_bound() -> None:
    # SPEC: P4
    bound = result("binding_set_flag", {"X": 21.4, "Y": 9.8, "openMap": False, "ZONE": "Tuliyollal"})
    assert bound == {"x": 21.4, "y": 9.8, "zone": "Tuliyollal", "open_map": False}


def test_numbers_and_booleans_sent_as_strings_are_bound() -> None:
    # SPEC: P4
    assert result("binding_set_flag", {"x": "21.4", "y": "9", "open_map": "false"}) == {
        "x": 21.4,
        "y": 9.0,
        "zone": None,
        "open_map": False,
    }


def test_json_encoded_strings_are_bound_as_what_they_encode() -> None:
    # SPEC: P4
    bound = result("binding_kinds", {"counts": "[1, 2]", "prices": '{"gil": 300}', "point": '{"x": 1, "y": 2}'})
    assert bound == {
        "counts": [1, 2],
        "prices": {"gil": 300},
        "point": {"x": 1.0, "y": 2.0},
        "currency": "GIL",
        "kind": "near",
        "note": "",
    }


def test_enum_and_literal_values_are_bound_in_any_case() -> None:
    # SPEC: P4
    assert result("binding_kinds", {"currency": "MGP", "kind": "Far"}) == {
        "counts": None,
        "prices": None,
        "point": None,
        "currency": "MGP",
        "kind": "far",
        "note": "",
    }


def test_a_number_sent_for_a_string_is_bound_as_its_text() -> None:
    # SPEC: P4
    assert result("binding_set_flag", {"x": 2, "y": 2, "zone": 1187})["zone"] == "1187"  # type: ignore[index]


def test_null_for_an_optional_argument_means_not_given() -> None:
    # SPEC: P4
    bound = result("binding_set_flag", {"x": 2, "y": 2, "zone": None, "open_map": None})
    assert bound == {"x": 2.0, "y": 2.0, "zone": None, "open_map": True}


def test_an_unknown_argument_fails_with_the_valid_ones_and_the_closest() -> None:
    # SPEC: P4
    assert error("binding_set_flag", {"x": 2, "y": 2, "zoen": "Tuliyollal"}) == (
        "binding_set_flag has no argument 'zoen'. Did you mean 'zone'? "
        "Its arguments are x, y (required) and zone, open_map (optional)."
    )
    assert error("binding_set_flag", {"x": 2, "y": 2, "colour": "red"}) == (
        "binding_set_flag has no argument 'colour'. Its arguments are x, y (required) and zone, open_map (optional)."
    )


def test_missing_required_arguments_fail_with_what_each_one_is() -> None:
    # SPEC: P4
    assert error("binding_set_flag", {"zone": "Tuliyollal"}) == (
        "binding_set_flag needs 'x', a number from 1 to 42; 'y', a number. "
        "Its arguments are x, y (required) and zone, open_map (optional)."
    )


def test_a_value_that_does_not_convert_names_the_argument_what_was_sent_and_what_was_expected() -> None:
    # SPEC: P4, T3
    assert (
        error("binding_set_flag", {"x": 99, "y": 2}) == "binding_set_flag: 'x' must be a number from 1 to 42; got 99."
    )
    assert error("binding_set_flag", {"x": "far", "y": 2}) == (
        "binding_set_flag: 'x' must be a number from 1 to 42; got \"far\"."
    )
    assert error("binding_set_flag", {"x": 2, "y": 2, "open_map": "maybe"}) == (
        "binding_set_flag: 'open_map' must be true or false; got \"maybe\"."
    )
    assert error("binding_kinds", {"currency": "eur"}) == (
        'binding_kinds: \'currency\' must be one of "gil", "mgp"; got "eur".'
    )


def test_a_value_wrong_deep_inside_says_where() -> None:
    # SPEC: P4
    assert error("binding_kinds", {"counts": [1, "two"]}) == (
        "binding_kinds: 'counts' must be a list of whole numbers or null; got [1,\"two\"] "
        "(Expected `int`, got `str` - at `$[1]`)."
    )
    assert error("binding_kinds", {"point": {"x": 1}}) == (
        "binding_kinds: 'point' must be an object with 'x', 'y' or null; got {\"x\":1} "
        "(Object missing required field `y`)."
    )


def test_one_argument_sent_under_two_spellings_is_refused() -> None:
    # SPEC: P4
    assert error("binding_set_flag", {"x": 2, "y": 2, "open_map": True, "openMap": False}) == (
        "binding_set_flag got 'open_map' twice, as 'open_map' and 'openMap'; send it once."
    )


def test_what_is_sent_is_quoted_short() -> None:
    # SPEC: P4
    message = error("binding_set_flag", {"x": "far" * 200, "y": 2})
    assert message.endswith('got "' + ("far" * 27)[:79] + "… (602 characters).")


def test_parameters_that_differ_only_in_spelling_are_refused_at_declaration() -> None:
    # SPEC: P4
    def spelling_tool(open_map: bool, openMap: bool) -> None:
        """Two spellings."""

    with pytest.raises(ToolDeclarationError, match="'open_map' and 'openMap' differ only in case or underscores"):
        Plugin("Spelling").tool(read_only=True)(spelling_tool)
