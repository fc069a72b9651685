"""Placeholders in a job step's arguments, filled from earlier steps' results (rules J9).

Examples of every rule and message, then properties: `resolve` and `referenced_steps` agree with
a small reference model written here (a hand-written scanner, not the module's regular
expression) on generated results and arguments, including which error is raised.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gates.contract import RefusedError
from gates.host.jobs import _placeholders
from gates.host.jobs._placeholders import PlaceholderError, referenced_steps, resolve

FARM = {"kills": 31, "Loot": {"Ore": ["Iron Ore", "Mythril Ore"]}, "done": True, "note": None}
SEARCH = {"items": [{"id": 5, "name": "Iron Ore"}, {"id": 7, "name": "Cobalt Ore"}]}
RESULTS: dict[str, Any] = {"farm": FARM, "search": SEARCH}
EARLIER = ("farm", "search", "skipped")
IDS = ("farm", "search", "skipped", "current", "later")


def fill(args: Any) -> Any:
    return resolve(args, RESULTS, EARLIER, IDS)


def refusal(args: Any) -> PlaceholderError:
    with pytest.raises(PlaceholderError) as caught:
        fill(args)
    return caught.value


# --------------------------------------------------------------------------- the module


def test_j9_the_module_exports_exactly_its_api() -> None:
    assert _placeholders.__all__ == ["PlaceholderError", "referenced_steps", "resolve"]
    assert issubclass(PlaceholderError, RefusedError)


# --------------------------------------------------------------------------- the syntax


@pytest.mark.parametrize("text", ["{{farm.kills}}", "{{ farm.kills }}", "{{farm.kills   }}", "{{   farm.kills}}"])
def test_j9_a_placeholder_may_have_spaces_inside_its_braces(text: str) -> None:
    assert fill({"n": text}) == {"n": 31}


@pytest.mark.parametrize(
    "text",
    [
        "{{}}",
        "{{ }}",
        "{{ .x }}",
        "{farm.kills}",
        "{ {farm.kills}}",
        "{{farm.kills} }",
        "{{farm .kills}}",
        "{{farm. kills}}",
        "{{farm..kills}}",
        "{{farm.}}",
        "{{farm.kills.}}",
        "{{fa rm}}",
        "{{farm\t}}",
        "{{farm/kills}}",
        "{{ferm!}}",
        "{{ünicode}}",
        "{{farm.ki{lls}}",
    ],
)
def test_j9_text_that_is_not_a_placeholder_stays_as_it_is(text: str) -> None:
    assert fill({"t": text, "u": f"a {text} b"}) == {"t": text, "u": f"a {text} b"}
    assert referenced_steps([text]) == []


def test_j9_step_ids_are_letters_digits_underscores_and_dashes() -> None:
    results = {"Step_2-b": {"x": 1}, "9": 2}
    assert resolve(["{{Step_2-b.x}}", "{{9}}"], results, results) == [1, 2]


def test_j9_whole_result_when_the_path_is_empty() -> None:
    out = fill({"all": "{{farm}}"})
    assert out == {"all": FARM}
    out["all"]["Loot"]["Ore"].append("Gold Ore")
    assert FARM["Loot"] == {"Ore": ["Iron Ore", "Mythril Ore"]}  # a copy, never the result itself


# --------------------------------------------------------------------------- where they are filled


def test_j9_placeholders_are_filled_in_nested_values_and_list_items_but_not_in_keys() -> None:
    args = {"{{farm.kills}}": "{{farm.kills}}", "deep": [{"x": ["{{search.items.1.id}}"]}, "{{farm.done}}"]}
    assert fill(args) == {"{{farm.kills}}": 31, "deep": [{"x": [7]}, True]}


def test_j9_other_values_are_copied_as_they_are() -> None:
    args: dict[str, Any] = {"n": 1, "f": 2.5, "b": False, "z": None, "l": [], "o": {}, "s": "plain {text}"}
    out = fill(args)
    assert out == args
    assert out is not args and out["l"] is not args["l"] and out["o"] is not args["o"]
    assert fill("{{farm.kills}}") == 31 and fill(None) is None


def test_j9_the_arguments_are_never_changed() -> None:
    args = {"n": "{{farm.kills}}", "l": ["{{farm.Loot}}"]}
    before = copy.deepcopy(args)
    fill(args)
    assert args == before


# --------------------------------------------------------------------------- values and text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("{{farm.kills}}", 31),
        ("{{farm.done}}", True),
        ("{{farm.note}}", None),
        ("{{farm.loot}}", {"Ore": ["Iron Ore", "Mythril Ore"]}),
        ("{{farm.loot.ore}}", ["Iron Ore", "Mythril Ore"]),
        ("{{search.items.0.name}}", "Iron Ore"),
    ],
)
def test_j9_a_string_that_is_one_placeholder_keeps_the_values_type(text: str, value: Any) -> None:
    assert fill({"v": text}) == {"v": value}


@pytest.mark.parametrize(
    ("text", "filled"),
    [
        (" {{farm.kills}}", " 31"),
        ("{{farm.kills}} ", "31 "),
        ("{{farm.kills}} kills", "31 kills"),
        ("done: {{farm.done}}", "done: true"),
        ("note: [{{farm.note}}]", "note: []"),
        ("ore: {{farm.loot.ore.1}}", "ore: Mythril Ore"),
        ("ores: {{farm.loot.ore}}", 'ores: ["Iron Ore","Mythril Ore"]'),
        ("loot: {{farm.loot}}", 'loot: {"Ore":["Iron Ore","Mythril Ore"]}'),
        ("{{farm.kills}}{{search.items.1.id}}", "317"),
        ("{{{farm.kills}}}", "{31}"),
        ("{{ farm.kills}}/{{farm.kills }}", "31/31"),
    ],
)
def test_j9_inside_a_longer_string_a_placeholder_becomes_text(text: str, filled: str) -> None:
    assert fill([text]) == [filled]


def test_j9_text_is_compact_json_without_ascii_escapes() -> None:
    results = {"a": {"name": "Ærøskøbing", "x": 1.5, "no": False, "list": [1, None]}}
    assert resolve("= {{a}}", results, ["a"]) == '= {"name":"Ærøskøbing","x":1.5,"no":false,"list":[1,null]}'
    assert resolve("= {{a.name}}", results, ["a"]) == "= Ærøskøbing"


# --------------------------------------------------------------------------- paths


def test_j9_keys_match_ignoring_case_and_an_exact_match_wins() -> None:
    results = {"s": {"Kills": 1, "kills": 2, "KILLS": 3}, "t": {"Kills": 1, "KILLS": 3}}
    assert resolve(["{{s.kills}}", "{{s.KILLS}}", "{{s.Kills}}", "{{s.kIlLs}}"], results, ["s"]) == [2, 3, 1, 1]
    assert resolve("{{t.kills}}", results, ["t"]) == 1  # the first in the object's order


def test_j9_a_digit_segment_indexes_a_list_and_names_a_key_of_an_object() -> None:
    results = {"s": {"items": ["a", "b"], "0": "zero"}}
    assert resolve(["{{s.items.0}}", "{{s.items.1}}", "{{s.items.01}}", "{{s.0}}"], results, ["s"]) == [
        "a",
        "b",
        "b",
        "zero",
    ]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("{{farm.kils}}", "kils"),
        ("{{ farm.loot.gold }}", "loot.gold"),
        ("{{farm.kills.x}}", "kills.x"),  # a segment on a number
        ("{{farm.note.x}}", "note.x"),  # on null
        ("{{search.items.0.name.0}}", "items.0.name.0"),  # on a string
        ("{{search.items.2.id}}", "items.2.id"),  # out of range
        ("{{search.items.-1}}", "items.-1"),
        ("{{search.items.first}}", "items.first"),  # not an integer, on a list
        ("{{search.items.99999999999999999999999}}", "items.99999999999999999999999"),
    ],
)
def test_j9_a_path_that_cannot_be_followed_is_refused_quoting_the_whole_path(text: str, path: str) -> None:
    error = refusal({"x": ["ok", f"in {text} text"]})
    assert str(error) == f"Step '{text.strip('{} ').split('.')[0]}' result has no '{path}'."
    assert (error.reason, error.path) == ("no path", path)


def test_j9_a_huge_index_is_refused_not_crashed() -> None:
    error = refusal("{{search.items." + "9" * 5000 + "}}")
    assert error.reason == "no path" and str(error).startswith("Step 'search' result has no 'items.999")


# --------------------------------------------------------------------------- errors


def test_j9_a_step_the_job_does_not_have_is_refused_naming_the_placeholder_as_written() -> None:
    error = refusal({"n": "{{nope.kills}}"})
    assert str(error) == "No step 'nope' for {{nope.kills}}."
    assert (error.reason, error.step, error.placeholder) == ("unknown step", "nope", "{{nope.kills}}")
    assert str(refusal("x {{ nope }} y")) == "No step 'nope' for {{ nope }}."


@pytest.mark.parametrize("step", ["later", "current"])
def test_j9_a_step_that_does_not_come_earlier_is_refused_with_the_same_message(step: str) -> None:
    results = {**RESULTS, step: {"kills": 1}}  # even with a result
    with pytest.raises(PlaceholderError) as caught:
        resolve([f"{{{{ {step}.kills }}}}"], results, EARLIER, IDS)
    assert str(caught.value) == f"No step '{step}' for {{{{ {step}.kills }}}}."
    assert caught.value.reason == "later step"


def test_j9_without_ids_every_step_that_is_not_earlier_is_unknown() -> None:
    with pytest.raises(PlaceholderError) as caught:
        resolve("{{later}}", {"later": 1}, ["farm"])
    assert str(caught.value) == "No step 'later' for {{later}}." and caught.value.reason == "unknown step"


def test_j9_an_earlier_step_without_a_result_is_refused() -> None:
    error = refusal({"n": "{{ skipped.kills }}"})
    assert str(error) == "Step 'skipped' has no result yet for {{ skipped.kills }}."
    assert (error.reason, error.step, error.path) == ("no result", "skipped", "kills")


def test_j9_a_null_result_is_a_result() -> None:
    assert resolve(["{{a}}", "<{{a}}>"], {"a": None}, ["a"]) == [None, "<>"]
    with pytest.raises(PlaceholderError) as caught:
        resolve("{{a.x}}", {"a": None}, ["a"])
    assert str(caught.value) == "Step 'a' result has no 'x'."


def test_j9_the_first_placeholder_as_written_is_the_one_refused() -> None:
    args = {"a": "{{farm.kills}}", "b": ["{{search.x}} {{nope}}"], "c": "{{skipped}}"}
    assert str(refusal(args)) == "Step 'search' result has no 'x'."
    assert str(refusal({"a": "ok {{nope}} {{search.x}}"})) == "No step 'nope' for {{nope}}."


def test_j9_paths_are_quoted_like_every_message() -> None:
    results: dict[str, Any] = {"a": {}}
    with pytest.raises(PlaceholderError) as caught:
        resolve("{{a.x\x00y}}", results, ["a"])
    assert str(caught.value) == "Step 'a' result has no 'x\\x00y'."


# --------------------------------------------------------------------------- referenced steps


def test_j9_referenced_steps_lists_each_named_step_once_in_order_of_appearance() -> None:
    args = {
        "{{keys}}": "{{b.x}} and {{ a }}",
        "l": [{"z": "{{c.0}}"}, "{{b}}", 3, None, "{{}}", "{bad}"],
        "d": "{{a.y}}{{d}}",
    }
    assert referenced_steps(args) == ["b", "a", "c", "d"]
    assert referenced_steps("{{x}}") == ["x"] and referenced_steps(5) == [] and referenced_steps({}) == []


# =========================================================================== the reference model

SPACE = " "
STEP_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
NOT_IN_SEGMENTS = frozenset(".{}")


class Missing(Exception):
    """The model's "the path cannot be followed"."""


class Refusal(Exception):
    """The model's refusal: its message and which placeholder's step it was about."""

    def __init__(self, message: str, step: str, reason: str) -> None:
        super().__init__(message)
        self.step, self.reason = step, reason


def scan(text: str, start: int) -> tuple[int, str, list[str]] | None:
    """The placeholder that starts at ``text[start]``: (end, step, segments), or None."""
    if not text.startswith("{{", start):
        return None
    i = start + 2
    while i < len(text) and text[i] == SPACE:
        i += 1
    j = i
    while j < len(text) and text[j] in STEP_CHARS:
        j += 1
    if j == i:
        return None
    step, segments = text[i:j], []
    while j < len(text) and text[j] == ".":
        k = j + 1
        while k < len(text) and text[k] not in NOT_IN_SEGMENTS and not text[k].isspace():
            k += 1
        if k == j + 1:
            return None
        segments.append(text[j + 1 : k])
        j = k
    while j < len(text) and text[j] == SPACE:
        j += 1
    if not text.startswith("}}", j):
        return None
    return j + 2, step, segments


def parse(text: str) -> list[str | tuple[str, str, list[str]]]:
    """``text`` as literal characters and placeholders (written, step, segments), left to right."""
    parts: list[str | tuple[str, str, list[str]]] = []
    i = 0
    while i < len(text):
        found = scan(text, i)
        if found is None:
            parts.append(text[i])
            i += 1
        else:
            end, step, segments = found
            parts.append((text[i:end], step, segments))
            i = end
    return parts


def model_child(value: Any, segment: str) -> Any:
    if type(value) is dict:
        exact = [key for key in value if key == segment]
        loose = [key for key in value if key.casefold() == segment.casefold()]
        if exact or loose:
            return value[(exact or loose)[0]]
    if type(value) is list and segment and all(c in "0123456789" for c in segment):
        if int(segment) < len(value):
            return value[int(segment)]
    raise Missing


def model_value(placeholder: tuple[str, str, list[str]], results: dict[str, Any], earlier: list[str]) -> Any:
    written, step, segments = placeholder
    if step not in earlier:
        raise Refusal(f"No step '{step}' for {written}.", step, "no step")
    if step not in results:
        raise Refusal(f"Step '{step}' has no result yet for {written}.", step, "no result")
    value = results[step]
    try:
        for segment in segments:
            value = model_child(value, segment)
    except Missing:
        raise Refusal(f"Step '{step}' result has no '{'.'.join(segments)}'.", step, "no path") from None
    return value


def model_text(value: Any) -> str:
    if value is None:
        return ""
    if type(value) is str:
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def model_fill(args: Any, results: dict[str, Any], earlier: list[str]) -> Any:
    """What ``resolve`` returns, or raises a ``Refusal``."""
    if type(args) is dict:
        return {key: model_fill(item, results, earlier) for key, item in args.items()}
    if type(args) is list:
        return [model_fill(item, results, earlier) for item in args]
    if type(args) is not str:
        return args
    parts = parse(args)
    if len(parts) == 1 and isinstance(parts[0], tuple) and parts[0][0] == args:
        return model_value(parts[0], results, earlier)
    return "".join(part if isinstance(part, str) else model_text(model_value(part, results, earlier)) for part in parts)


def model_steps(args: Any) -> list[str]:
    if type(args) is dict:
        found = [step for item in args.values() for step in model_steps(item)]
    elif type(args) is list:
        found = [step for item in args for step in model_steps(item)]
    elif type(args) is str:
        found = [part[1] for part in parse(args) if isinstance(part, tuple)]
    else:
        found = []
    return list(dict.fromkeys(found))


def model_outcome(args: Any, results: dict[str, Any], earlier: list[str], ids: list[str]) -> tuple[str, Any, str]:
    """("filled", value, "") or ("refused", message, reason), as the model has it."""
    try:
        return "filled", model_fill(args, results, earlier), ""
    except Refusal as refused:
        reason = refused.reason
        if reason == "no step":
            reason = "later step" if refused.step in ids else "unknown step"
        return "refused", str(refused), reason


def outcome(args: Any, results: dict[str, Any], earlier: list[str], ids: list[str]) -> tuple[str, Any, str]:
    """("filled", value, "") or ("refused", message, reason), as ``resolve`` has it."""
    try:
        return "filled", resolve(args, results, earlier, ids), ""
    except PlaceholderError as refused:
        return "refused", str(refused), refused.reason


def test_j9_the_model_scans_like_the_examples() -> None:
    assert parse("a{{ b.c }}") == ["a", ("{{ b.c }}", "b", ["c"])]
    assert parse("{{{x}}}") == ["{", ("{{x}}", "x", []), "}"]
    assert parse("{{.x}}") == list("{{.x}}")


# =========================================================================== generated examples

PROPERTIES = settings(max_examples=200, deadline=None, derandomize=True, database=None)

STEP_POOL = ["farm", "search", "Craft_2", "go-to", "x", "A"]
KEY_POOL = ["kills", "Kills", "KILLS", "items", "id", "ID", "0", "1", "ß", "SS", "ss"]
SEGMENT_POOL = [*KEY_POOL, "kils", "2", "01", "-1", "9", "first", "sS", "ID"]

scalars = st.none() | st.booleans() | st.integers(-5, 99) | st.floats(allow_nan=False) | st.text("ab {}.", max_size=6)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEY_POOL), inner, max_size=4),
    max_leaves=12,
)


Job = tuple[list[str], list[str], dict[str, Any]]  # ids, earlier, results
Case = tuple[Any, list[str], list[str], dict[str, Any], list[str]]  # args, ids, earlier, results, steps


@st.composite
def jobs(draw: st.DrawFn) -> Job:
    """(ids, earlier, results): a job's step ids (two or more), those before the current step
    (one or more), and results for most earlier steps (the rest were skipped), a few later ones."""
    ids = draw(st.permutations(STEP_POOL))[: len(STEP_POOL) - draw(st.integers(0, len(STEP_POOL) - 2))]
    earlier = ids[: len(ids) - 1 - draw(st.integers(0, len(ids) - 2))]  # at least one
    finished = [step for step in ids if draw(st.integers(0, 5)) < (5 if step in earlier else 1)]
    results = {step: draw(json_values) for step in finished}
    return ids, earlier, results


@st.composite
def paths(draw: st.DrawFn, value: Any) -> list[str]:
    """A path into ``value``, mostly along what is there (a key in any case, an index written
    in several ways), sometimes off it."""
    segments: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.integers(0, 9)) == 9 or type(value) not in (dict, list) or not value:
            segments.append(draw(st.sampled_from(SEGMENT_POOL)))
            value = None
        elif type(value) is dict:
            key = draw(st.sampled_from(list(value)))
            variants = [key, key.upper(), key.lower(), key.swapcase(), key.casefold()]
            segments.append(draw(st.sampled_from(variants)))
            value = value[key]
        else:
            index = draw(st.integers(0, len(value)))
            segments.append(draw(st.sampled_from([str(index), f"0{index}", f"-{index}"])))
            value = value[index] if index < len(value) else None
    return segments


@st.composite
def placeholders(draw: st.DrawFn, job: Job, tricky: bool) -> tuple[str, str]:
    """(text, step): a placeholder naming a step, mostly an earlier one (when ``tricky``, perhaps
    padded with a tab, which makes it text)."""
    ids, earlier, results = job
    step = draw(st.sampled_from(earlier) if earlier and draw(st.integers(0, 4)) < 4 else st.sampled_from(STEP_POOL))
    segments = draw(paths(results.get(step)))
    inside = ".".join([step, *segments])
    padding = st.text(" \t" if tricky else SPACE, max_size=2)
    return "{{" + draw(padding) + inside + draw(padding) + "}}", step


@st.composite
def texts(draw: st.DrawFn, job: Job, tricky: bool) -> tuple[str, list[str]]:
    """(string, steps): a string of placeholders and literal text; steps names them in order,
    exactly when not ``tricky`` (tricky literals have braces and may make or break placeholders)."""
    alphabet = "ab {}.x_-\t" if tricky else "ab .x_-\t"
    literal = st.sampled_from(["", " ", "\t", *(["{", "}"] if tricky else []), "ab"]) | st.text(alphabet, max_size=5)
    kind = draw(st.integers(0, 3))
    if kind == 0:
        text, step = draw(placeholders(job, tricky))
        return text, [step]
    chunks, steps = [draw(literal)], []
    for _ in range(0 if kind == 3 else draw(st.integers(1, 3))):
        text, step = draw(placeholders(job, tricky))
        chunks += [text, draw(literal)]
        steps.append(step)
    chunks += draw(st.lists(st.sampled_from(["{{}}", "{{ .x }}", "{a}", "}}", "{{", "{{farm.}}"]), max_size=2))
    return "".join(chunks), steps


class Text:
    """A generated string in the arguments, with the steps its placeholders name."""

    def __init__(self, text: str, steps: list[str]) -> None:
        self.text, self.steps = text, steps


def unwrap(value: Any, steps: list[str]) -> Any:
    """The arguments themselves, and (into ``steps``) the steps they name in order."""
    if isinstance(value, Text):
        steps.extend(value.steps)
        return value.text
    if type(value) is dict:
        return {key: unwrap(item, steps) for key, item in value.items()}
    if type(value) is list:
        return [unwrap(item, steps) for item in value]
    return value


# Strings in the arguments that are never placeholders: no character of a step id.
plain = st.none() | st.booleans() | st.integers(-5, 99) | st.floats(allow_nan=False) | st.text(" {}.,:", max_size=6)


@st.composite
def cases(draw: st.DrawFn, tricky: bool) -> Case:
    """(args, ids, earlier, results, steps): arguments full of placeholders for a job, and the
    steps they name in order (exactly so unless ``tricky``)."""
    job = draw(jobs())
    ids, earlier, results = job

    @st.composite
    def leaves(draw: st.DrawFn) -> Any:  # mostly strings with placeholders
        return Text(*draw(texts(job, tricky))) if draw(st.integers(0, 4)) < 4 else draw(plain)

    wrapped = draw(
        st.recursive(
            leaves(),
            lambda inner: (
                st.lists(inner, min_size=1, max_size=3)
                | st.dictionaries(st.sampled_from(["a", "{{x}}", "B"]), inner, min_size=1, max_size=3)
            ),
            max_leaves=6,
        )
    )
    steps: list[str] = []
    args = unwrap(wrapped, steps)
    return args, ids, earlier, results, steps


def scrub(value: Any) -> None:
    """Empty every object and list in ``value``, deepest first."""
    if type(value) is dict:
        for item in value.values():
            scrub(item)
        value.clear()
    elif type(value) is list:
        for item in value:
            scrub(item)
        value.clear()


@PROPERTIES
@given(cases(tricky=True))
def test_j9_resolve_agrees_with_the_model_and_changes_nothing_it_is_given(case: Case) -> None:
    args, ids, earlier, results, _ = case
    before = copy.deepcopy((args, results))
    got = outcome(args, results, earlier, ids)
    assert got == model_outcome(args, results, earlier, ids)
    assert (args, results) == before
    scrub(got[1])  # the copy shares nothing with the arguments or the results
    assert (args, results) == before


@PROPERTIES
@given(cases(tricky=False))
def test_j9_resolve_and_referenced_steps_agree_with_the_model_on_the_steps_written(case: Case) -> None:
    args, ids, earlier, results, steps = case
    assert outcome(args, results, earlier, ids) == model_outcome(args, results, earlier, ids)
    assert referenced_steps(args) == list(dict.fromkeys(steps)) == model_steps(args)


@PROPERTIES
@given(cases(tricky=True))
def test_j9_referenced_steps_agrees_with_the_model(case: Case) -> None:
    assert referenced_steps(case[0]) == model_steps(case[0])


@PROPERTIES
@given(cases(tricky=False))
def test_j9_referenced_steps_tells_at_start_which_jobs_resolve_would_refuse_with_no_step(case: Case) -> None:
    args, ids, earlier, results, _ = case
    got = outcome(args, results, earlier, ids)
    if set(referenced_steps(args)) <= set(earlier):
        assert got[0] == "filled" or not got[1].startswith("No step ")
    else:
        assert got[0] == "refused"


@PROPERTIES
@given(jobs(), plain | json_values.filter(lambda value: "{{" not in json.dumps(value)))
def test_j9_arguments_without_placeholders_come_back_equal(job: Job, args: Any) -> None:
    ids, earlier, results = job
    out = resolve(args, results, earlier, ids)
    assert out == args
    assert not isinstance(args, (dict, list)) or out is not args


@PROPERTIES
@given(jobs(), st.data())
def test_j9_one_string_is_filled_or_refused_as_the_model_says(job: Job, data: st.DataObject) -> None:
    ids, earlier, results = job
    text, _ = data.draw(texts(job, tricky=True))
    assert outcome(text, results, earlier, ids) == model_outcome(text, results, earlier, ids)


objects = st.dictionaries(st.sampled_from(KEY_POOL), json_values, min_size=1, max_size=6)


@PROPERTIES
@given(objects | st.lists(objects, min_size=1, max_size=3), st.data())
def test_j9_a_path_is_followed_as_the_model_says(result: Any, data: st.DataObject) -> None:
    inside = ".".join(["s", *data.draw(paths(result))])
    results = {"s": result}
    for text in ("{{" + inside + "}}", "<{{ " + inside + " }}>"):
        assert outcome(text, results, ["s"], ["s"]) == model_outcome(text, results, ["s"], ["s"])
