"""A function declared as a tool: its definition, how a call binds to it, and how it runs (P1-P6).

`declare_tool` reads everything from the function, once, when its module is imported:

    name            the function's name in snake_case, unless `name=` says otherwise (names are API)
    description     the docstring, without its parameter docs (`_docstrings`)
    inputSchema     the parameters' type hints, with their docs (`_schema`); none without parameters
    outputSchema    the return type, when it is a Struct, a TypedDict or a dataclass
    readOnly, destructive, capabilities     as given, checked by the contract's rules

and refuses, with a `ToolDeclarationError` naming the function, what the real host would refuse
later or what could never work. `FunctionTool.run` binds one call's arguments (`_binding`), runs
the function, sync or async, and returns its result in JSON form, checked against the declared
return type, so a result the assistant gets always matches the advertised outputSchema.
"""

from __future__ import annotations

import difflib
import inspect
import re
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from gates.contract import (
    BUILTIN_TOOL_NAMES,
    CAPABILITY_IDS,
    NAME_PATTERN,
    CapabilityId,
    RefusedError,
    ToolDefinition,
    validate_tool_definition,
)

from ._binding import REQUIRED, ArgumentBinder, Parameter
from ._call import McpCall, McpToolError
from ._declaration import ToolDeclarationError
from ._docstrings import ToolDocs, parse_docstring
from ._listing import describe_paging, returns_listing
from ._schema import input_schema, output_schema_of, parameter_schemas

__all__ = ["FunctionTool", "declare_tool", "snake_case"]

_READ_GAME: Final = CapabilityId.READ_GAME.value
_CAMEL_BOUNDARY: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@dataclass(frozen=True, slots=True)
class FunctionTool:
    """A decorated function with what was read from it; `function` is the function itself."""

    definition: ToolDefinition
    function: Callable[..., object]
    binder: ArgumentBinder
    long_running: bool
    returns: Any
    """The declared return type when it advertises an outputSchema, else None (results unchecked)."""

    async def run(self, arguments: dict[str, Any], call: McpCall | None) -> object:
        """Bind, run, and return the result in JSON form (what `Invoke` sends); raises what the function raises."""
        bound = self.binder.bind(arguments)
        result = self.function(call, **bound) if self.long_running else self.function(**bound)
        if inspect.isawaitable(result):
            result = await result
        wire = msgspec.to_builtins(result, str_keys=True)  # as JSON has it: {1: …} arrives as {"1": …}
        if self.returns is not None:
            try:
                msgspec.convert(wire, self.returns)
            except msgspec.ValidationError as exc:
                shape = getattr(self.returns, "__name__", repr(self.returns))
                raise McpToolError(
                    f"{self.definition.name} returned a result that does not match its declared return type "
                    f"{shape} ({exc}); this is a bug in the plugin, not in the call."
                ) from exc
        return wire


def snake_case(name: str) -> str:
    """ "FindCars" -> "find_cars", "myplugin_set_flag" unchanged (a Python function is snake_case already)."""
    return _CAMEL_BOUNDARY.sub("_", name).lower()


def declare_tool(
    function: Callable[..., object],
    *,
    name: str | None,
    read_only: bool,
    destructive: bool,
    capabilities: Sequence[str],
    long_running: bool,
) -> FunctionTool:
    """Everything a tool is, read from `function`, or a `ToolDeclarationError` that says what to write."""
    tool_name = name if name is not None else snake_case(getattr(function, "__name__", ""))
    _check_name(function, tool_name, explicit=name is not None)
    acting = _check_capabilities(function, capabilities, read_only=read_only, destructive=destructive)
    if long_running and not inspect.iscoroutinefunction(function):
        raise ToolDeclarationError(
            function,
            "a long-running tool runs while the plugin keeps answering other calls, so it must be a "
            "coroutine: write `async def`, and await call.sleep(...) between steps.",
        )
    hints = _type_hints(function)
    signature = inspect.signature(function)
    parameters = _argument_parameters(function, signature, hints, long_running=long_running)
    docs = _docs(function, signature)
    schemas, defs = parameter_schemas(function, {n: hints[n] for n in parameters})
    for parameter_name, schema in schemas.items():
        if docs.parameters.get(parameter_name):
            schema["description"] = docs.parameters[parameter_name]
        default = parameters[parameter_name].default
        if default is not inspect.Parameter.empty:
            schema.setdefault("default", _json_default(function, parameter_name, default))
    returns = hints.get("return")
    if returns_listing(returns):
        schemas.update(describe_paging(function, schemas, {n: p.default for n, p in parameters.items()}))
    arguments = [
        Parameter(n, hints[n], REQUIRED if p.default is inspect.Parameter.empty else p.default, schemas[n])
        for n, p in parameters.items()
    ]
    output_schema = output_schema_of(function, returns)
    definition = ToolDefinition(
        name=tool_name,
        description=docs.description,
        input_schema=input_schema(schemas, [a.name for a in arguments if a.required], defs) if arguments else None,
        read_only=read_only,
        destructive=destructive,
        capabilities=acting,
        output_schema=output_schema,
    )
    try:  # the contract's own rules, as the host applies them, so nothing is refused only later
        definition = validate_tool_definition(definition)
    except RefusedError as exc:
        raise ToolDeclarationError(function, f"XIV MCP would refuse it: {exc}") from exc
    binder = ArgumentBinder(function, tool_name, arguments, defs)
    return FunctionTool(definition, function, binder, long_running, returns if output_schema is not None else None)


def _type_hints(function: Callable[..., object]) -> dict[str, Any]:
    """The function's hints with `Annotated` kept (its `Meta` is the schema's bounds)."""
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception as exc:  # NameError for a name imported only under TYPE_CHECKING, and the like
        raise ToolDeclarationError(
            function,
            f"its type hints cannot be resolved ({type(exc).__name__}: {exc}); define every type its "
            "signature names at module level, and import it at run time, not only under `if TYPE_CHECKING:`.",
        ) from exc


def _docs(function: Callable[..., object], signature: inspect.Signature) -> ToolDocs:
    """The docstring's description and parameter docs; none at all, or a documented parameter the
    function does not take (a typo, or a parameter renamed since), is refused."""
    docs = parse_docstring(inspect.getdoc(function))
    if not docs.description:
        raise ToolDeclarationError(
            function,
            "it has no docstring, and the docstring is the description the assistant reads to decide "
            'when to use the tool; write one: what it does, what it returns, what to call next ("""Places the '
            'flag on the map. Only marks the spot: nothing moves.""").',
        )
    unknown = sorted(set(docs.parameters) - set(signature.parameters))
    if unknown:
        raise ToolDeclarationError(
            function,
            f"its docstring documents {', '.join(map(repr, unknown))}, which it does not take; its "
            f"parameters are {', '.join(signature.parameters) or 'none'}. Fix the name in the docstring.",
        )
    return docs


def _check_name(function: Callable[..., object], name: str, *, explicit: bool) -> None:
    example = 'name="myplugin_do_thing"'
    instead = f"write another {example}" if explicit else f"rename the function, or name the tool with {example}"
    if not NAME_PATTERN.fullmatch(name):
        raise ToolDeclarationError(
            function,
            f"the tool name {name!r} is not a valid tool name: use 3 to 64 characters a-z, 0-9 and _, "
            f"starting with a letter, prefixed with your plugin's name; {instead}.",
        )
    if name in BUILTIN_TOOL_NAMES:
        raise ToolDeclarationError(
            function,
            f"{name!r} is one of XIV MCP's own tools, which a plugin cannot register; prefix it with "
            f'your plugin\'s name (name="myplugin_{name}").',
        )


def _check_capabilities(
    function: Callable[..., object], capabilities: Sequence[str], *, read_only: bool, destructive: bool
) -> list[str]:
    """The acting capabilities, in order, or a refusal in the words a Python author writes."""
    if isinstance(capabilities, str):
        raise ToolDeclarationError(
            function,
            f"capabilities must be a list of capability ids, such as capabilities=[{capabilities!r}], not a string.",
        )
    for capability in capabilities:
        if capability not in CAPABILITY_IDS:
            close = difflib.get_close_matches(str(capability), CAPABILITY_IDS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ToolDeclarationError(
                function,
                f"XIV MCP knows no capability {capability!r}; {hint}the capabilities are {', '.join(CAPABILITY_IDS)}.",
            )
    acting = [c for c in dict.fromkeys(capabilities) if c != _READ_GAME]
    if read_only and destructive:
        raise ToolDeclarationError(
            function,
            "it is declared read_only=True and destructive=True, but a read-only tool changes nothing; "
            "drop one of the two.",
        )
    if read_only and acting:
        raise ToolDeclarationError(
            function,
            f"it is read_only=True but declares capabilities={acting!r}; a read-only tool changes "
            "nothing, so drop read_only=True or those capabilities.",
        )
    if not read_only and not acting:
        raise ToolDeclarationError(
            function,
            "it is not read_only=True, so it must say what it changes for the player to allow: add "
            'capabilities=["game_ui"] (or "move_character", "spend_gil", ...), or, if it changes nothing, '
            "declare it with read_only=True.",
        )
    return acting


def _argument_parameters(
    function: Callable[..., object],
    signature: inspect.Signature,
    hints: dict[str, Any],
    *,
    long_running: bool,
) -> dict[str, inspect.Parameter]:
    """The parameters the assistant fills, by name: all but a long-running tool's `call: McpCall`."""
    parameters = list(signature.parameters.values())
    if long_running:
        if not parameters or hints.get(parameters[0].name) is not McpCall:
            raise ToolDeclarationError(
                function,
                "a long-running tool gets its call first, for progress, approvals and cancellation: "
                "write `async def tool(call: McpCall, ...)`.",
            )
        parameters = parameters[1:]
    found: dict[str, inspect.Parameter] = {}
    for parameter in parameters:
        if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise ToolDeclarationError(
                function,
                f"it takes {'*' if parameter.kind is inspect.Parameter.VAR_POSITIONAL else '**'}"
                f"{parameter.name}, but each argument the assistant may send must be a parameter of its own, with "
                "a type; list them.",
            )
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ToolDeclarationError(
                function,
                f"its parameter {parameter.name!r} is positional-only, but arguments arrive by name; "
                "drop the `/` from its signature.",
            )
        if parameter.name not in hints:
            raise ToolDeclarationError(
                function,
                f"its parameter {parameter.name!r} has no type hint, and the hint is what the schema and "
                f"the argument checks come from; write e.g. `{parameter.name}: str`.",
            )
        if hints[parameter.name] is McpCall:
            raise ToolDeclarationError(
                function,
                "only a long-running tool gets the call (`call: McpCall`, as its first parameter); a "
                "quick tool answers at once from its arguments. Declare it with @plugin.long_running_tool to get "
                "progress, approvals and cancellation, or drop the parameter.",
            )
        found[parameter.name] = parameter
    return found


def _json_default(function: Callable[..., object], name: str, default: object) -> object:
    try:
        return msgspec.to_builtins(default)
    except (TypeError, ValueError) as exc:
        raise ToolDeclarationError(
            function,
            f"the default of its parameter {name!r} has no JSON form ({exc}); use None, a number, a "
            "string, a bool or a list or dict of those, and build anything else inside the function.",
        ) from exc
