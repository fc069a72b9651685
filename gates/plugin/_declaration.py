"""The one exception of declaring tools from functions, and how its messages name the function.

A mistake in a declaration is found when the plugin's module is imported, not when the
assistant first calls the tool: the decorator raises :class:`ToolDeclarationError`, whose
message starts with the function (``myplugin.tools.myplugin_set_flag``) and ends with what to
write instead.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ToolDeclarationError", "function_path"]


class ToolDeclarationError(TypeError):
    """Raised by ``@plugin.tool`` / ``@plugin.long_running_tool`` when a function cannot be a tool.

    A ``TypeError``, as Python raises for a class or function declared wrongly (a dataclass with
    its fields out of order, a msgspec Struct with a bad option): it is a mistake in the code,
    found at import, never a condition to handle at run time.
    """

    def __init__(self, function: Callable[..., object], problem: str) -> None:
        self.function = function
        self.problem = problem
        super().__init__(f"{function_path(function)}: {problem}")


def function_path(function: Callable[..., object]) -> str:
    """``module.qualname`` of a function, as a traceback would name it."""
    module = getattr(function, "__module__", None) or "?"
    qualname = getattr(function, "__qualname__", None) or getattr(function, "__name__", repr(function))
    return f"{module}.{qualname}"
