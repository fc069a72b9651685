"""Every public name of the packages a plugin author reads about has a docstring of its own.

The API reference (docs/reference/python/) is generated from the code by mkdocstrings, which reads
the source statically (griffe): a name without a docstring is a bare signature there. So this test
reads the source the same way, with `ast`, and lists what the reference would show bare:

- each name in a package's `__all__`, followed through the imports to where it is defined;
- for a class, also its public methods and properties: those written in its body or in a base
  class of our own (a mixin such as `JobsMixin`), which the reference lists with the class;
- for a constant or type alias, the string right after the assignment (an attribute docstring,
  `NAME = ...` then `\"\"\"What it is.\"\"\"`), which griffe shows as the name's docstring.

An inherited docstring does not count: the reference shows a name's own. Nothing is imported but
the packages themselves (for their `__all__`), so the test is fast and starts no process.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGES = ("gates.plugin", "gates.testing", "game", "broker")
"""The packages with a page in the Python reference (docs/reference/python/)."""
EXEMPT: dict[str, str] = {}
"""Names the reference may show without a docstring (`module.Name` or `module.Class.method`), each
with the reason; empty today."""
OURS = ("broker", "gates", "game")
"""Our top-level packages: a base class from one of them is ours to document, any other is not."""
SKIPPED_DECORATORS = ("overload", "setter", "deleter")
"""A method under these is one face of a name documented elsewhere: its implementation, its getter."""


@dataclass(frozen=True)
class Definition:
    """Where a public name is defined: its module and the statement, with the statements around it."""

    module: str
    node: ast.stmt
    siblings: list[ast.stmt]


def module_source(module: str) -> tuple[Path, ast.Module]:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, f"{module} has no source file"
    path = Path(spec.origin)
    return path, ast.parse(path.read_text(encoding="utf-8"))


def statement_lists(body: list[ast.stmt]) -> list[list[ast.stmt]]:
    """A module's body and the bodies of its `if` and `try` blocks (a `TYPE_CHECKING` import, say)."""
    lists = [body]
    for statement in body:
        if isinstance(statement, ast.If):
            lists += statement_lists(statement.body) + statement_lists(statement.orelse)
        elif isinstance(statement, ast.Try):
            lists += statement_lists(statement.body)
    return lists


def assigned_names(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.Assign):
        return [target.id for target in statement.targets if isinstance(target, ast.Name)]
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return [statement.target.id]
    return []


def imported_from(module: str, statement: ast.ImportFrom) -> str:
    if not statement.level:
        return statement.module or ""
    package = module if module_source(module)[0].name == "__init__.py" else module.rpartition(".")[0]
    for _ in range(statement.level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{statement.module}" if statement.module else package


def definition(module: str, name: str) -> Definition:
    """Where `name`, as `module` has it, is defined: followed through `from ... import` statements."""
    _, tree = module_source(module)
    for siblings in statement_lists(tree.body):
        for statement in siblings:
            if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                if statement.name == name:
                    return Definition(module, statement, siblings)
            elif name in assigned_names(statement):
                return Definition(module, statement, siblings)
            elif isinstance(statement, ast.ImportFrom):
                for alias in statement.names:
                    if (alias.asname or alias.name) == name:
                        return definition(imported_from(module, statement), alias.name)
    raise AssertionError(f"{name} is in {module}'s names but no statement there defines or imports it")


def has_docstring(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return bool((ast.get_docstring(node) or "").strip())


def attribute_docstring(found: Definition) -> bool:
    """Whether a string statement follows the assignment: the name's docstring for griffe."""
    following = found.siblings.index(found.node) + 1
    if following == len(found.siblings):
        return False
    after = found.siblings[following]
    return (
        isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Constant)
        and isinstance(after.value.value, str)
        and bool(after.value.value.strip())
    )


def decorator_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    names = set()
    for decorator in function.decorator_list:
        while isinstance(decorator, ast.Call):
            decorator = decorator.func
        if isinstance(decorator, ast.Attribute):
            names.add(decorator.attr)
        elif isinstance(decorator, ast.Name):
            names.add(decorator.id)
    return names


def our_bases(module: str, cls: ast.ClassDef) -> list[tuple[str, ast.ClassDef]]:
    """The classes of our own packages that `cls` derives from, nearest first (a mixin, a base
    struct): their public methods are `cls`'s in the reference too."""
    found = []
    for base in cls.bases:
        if not isinstance(base, ast.Name):
            continue
        where = origin(module, base.id)
        if where is not None and isinstance(where.node, ast.ClassDef):
            found += [(where.module, where.node), *our_bases(where.module, where.node)]
    return found


def origin(module: str, name: str) -> Definition | None:
    """Where `name` of `module` is defined, if that is in one of our packages (not msgspec, typing…)."""
    _, tree = module_source(module)
    for siblings in statement_lists(tree.body):
        for statement in siblings:
            if isinstance(statement, ast.ClassDef) and statement.name == name:
                return Definition(module, statement, siblings)
            if isinstance(statement, ast.ImportFrom):
                source = imported_from(module, statement)
                for alias in statement.names:
                    if (alias.asname or alias.name) == name and source.split(".")[0] in OURS:
                        return definition(source, alias.name)
    return None


def methods(cls: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The public methods and properties written in `cls`'s body."""
    return [
        member
        for member in cls.body
        if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef) and not member.name.startswith("_")
    ]


def bare_members(module: str, cls: ast.ClassDef, overridden: set[str]) -> list[str]:
    """The public methods and properties of `cls` without a docstring, but those a class nearer the
    one in `__all__` overrides (`overridden`): the reference shows the override instead."""
    bare = []
    for member in methods(cls):
        if member.name in overridden:
            continue
        if decorator_names(member) & set(SKIPPED_DECORATORS):
            continue
        if not has_docstring(member):
            kind = "property" if "property" in decorator_names(member) else "method"
            bare.append(f"{module}.{cls.name}.{member.name} ({kind})")
    return bare


def undocumented(package: str) -> list[str]:
    """Each public name of `package` the reference would show without a docstring, with its module."""
    bare = []
    for name in importlib.import_module(package).__all__:
        found = definition(package, name)
        node = found.node
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            if not has_docstring(node):
                bare.append(f"{found.module}.{name} ({kind})")
            if isinstance(node, ast.ClassDef):
                bare += bare_members(found.module, node, set())
                overridden = {member.name for member in methods(node)}
                for base_module, base in our_bases(found.module, node):
                    bare += bare_members(base_module, base, overridden)
                    overridden |= {member.name for member in methods(base)}
        elif not attribute_docstring(found):
            bare.append(f"{found.module}.{name} (constant: a string statement right after it)")
    return [line for line in dict.fromkeys(bare) if line.split(" ")[0] not in EXEMPT]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_has_a_docstring_of_its_own(package: str) -> None:
    bare = undocumented(package)
    assert not bare, (
        f"{len(bare)} public names of {package} have no docstring, so the generated reference shows "
        "them bare. Write one for each (what it is, its arguments, what it returns or raises), or "
        "add the name to EXEMPT in tests/test_docstrings.py with the reason:\n  " + "\n  ".join(bare)
    )


def test_a_name_without_a_docstring_is_listed_with_its_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "bare_package"
    package.mkdir()
    (package / "__init__.py").write_text(
        'from ._inner import LIMIT, WAIT, Shown, shown\n__all__ = ["LIMIT", "WAIT", "Shown", "shown"]\n'
    )
    (package / "_inner.py").write_text(
        "LIMIT = 5\n"
        'WAIT = 1.0\n"""How long to wait, in seconds."""\n'
        "class _Mixin:\n"
        "    def mixed(self) -> None: ...\n"
        "    def value(self) -> int: ...\n"
        "class Shown(_Mixin):\n"
        '    """Documented."""\n'
        "    def method(self) -> None: ...\n"
        "    @property\n"
        '    def value(self) -> int:\n        """Documented."""\n        return 1\n'
        "def shown() -> None: ...\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert undocumented("bare_package") == [
        "bare_package._inner.LIMIT (constant: a string statement right after it)",
        "bare_package._inner.Shown.method (method)",
        "bare_package._inner._Mixin.mixed (method)",
        "bare_package._inner.shown (function)",
    ]
