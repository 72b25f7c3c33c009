"""JSON Schemas of moves: the one description of what a party may do now (duologue's `action_space`).

`Task.action_schema(party)` returns `{"oneOf": [one schema per legal move]}`. Each move schema is
an object with a constant `kind`, the move's fields with their real bounds, no other fields, and,
where fields constrain each other (a split whose two halves add up to the pool), an `anyOf` that
lists the allowed combinations. Everything that offers moves derives from it: the LLM agent's
structured output (`for_llm`), the terminal's commands, the web page's form, the conformance
checker (`sample`, `validate`) and the RL environments.

The helpers here read only the small part of JSON Schema that move schemas use: `const`, `enum`,
`type` (object, integer, number, string, boolean), `minimum`/`maximum` (and their exclusive forms), `minLength`/`maxLength`,
`properties`/`required`/`additionalProperties`, and `oneOf`/`anyOf`.
"""

from __future__ import annotations

import copy
import functools
import itertools
import operator
import random
from typing import Any, Iterable

import jsonschema

from duologue.core.actions import Action

Schema = dict[str, Any]

MAX_ENUMERATED = 4096
"""A split with more combinations than this is bounded per item only (no `anyOf` list)."""


def options(schema: Schema) -> list[Schema]:
    """The move schemas of an action schema (its `oneOf`), or the schema itself for one move."""
    return list(schema.get("oneOf", [schema]))


def kinds(schema: Schema) -> list[str]:
    """The move kinds an action schema admits, in its order."""
    return [kind_of(option) for option in options(schema)]


def kind_of(move: Schema) -> str:
    return str(move["properties"]["kind"]["const"])


def option(schema: Schema, kind: str) -> Schema | None:
    """The schema of one move kind, or None when the action schema does not admit it."""
    for move in options(schema):
        if kind_of(move) == kind:
            return move
    return None


# --------------------------------------------------------------------------- building schemas


def move(kind: str, properties: dict[str, Schema] | None = None, *, title: str | None = None, description: str | None = None) -> Schema:
    """A move schema: `kind` constant, these fields all required, no other fields."""
    properties = properties or {}
    out: Schema = {
        "type": "object",
        "title": title or kind,
        "properties": {"kind": {"const": kind}, **properties},
        "required": ["kind", *properties],
        "additionalProperties": False,
    }
    if description:
        out["description"] = description
    return out


def from_action(cls: type[Action]) -> Schema:
    """A default move schema from an action class's own fields (no task bounds).

    Built once per class (pydantic's schema generation costs about 2 ms, and live play asks for
    a schema at every move); each call gets its own copy to change."""
    return copy.deepcopy(_from_action(cls))


@functools.lru_cache(maxsize=None)
def _from_action(cls: type[Action]) -> Schema:
    kind = cls.model_fields["kind"].default
    full = cls.model_json_schema()
    defs = full.get("$defs", {})
    properties = {}
    for name, field in full.get("properties", {}).items():
        if name == "kind":
            continue
        field = dict(field)
        field.pop("title", None)
        if "$ref" in field:
            field = dict(defs[field["$ref"].rsplit("/", 1)[-1]])
        properties[name] = field
    doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    return move(kind, properties, description=doc or None)


def counts(pool: dict[str, int]) -> Schema:
    """An object giving a count from 0 to the pool's count for every item."""
    return {
        "type": "object",
        "properties": {item: {"type": "integer", "minimum": 0, "maximum": n} for item, n in pool.items()},
        "required": list(pool),
        "additionalProperties": False,
    }


def split(kind: str, pool: dict[str, int], *, mine: str = "mine", theirs: str = "theirs", description: str | None = None) -> Schema:
    """A move that splits a pool in two: `mine` and `theirs` add up to the pool, item by item.

    The bounds are per item; the `anyOf` lists every legal split, so a schema-following generator
    (an LLM's constrained output) cannot write one that does not add up.
    """
    out = move(kind, {mine: counts(pool), theirs: counts(pool)}, description=description)
    total = 1
    for n in pool.values():
        total *= n + 1
    if total <= MAX_ENUMERATED:
        out["anyOf"] = list(_combinations(tuple(pool.items()), mine, theirs))
    out["x-complement"] = {"of": mine, "is": theirs, "pool": dict(pool)}
    return out


@functools.lru_cache(maxsize=1024)
def _combinations(pool: tuple[tuple[str, int], ...], mine: str, theirs: str) -> tuple[Schema, ...]:
    """Every split of a pool as `anyOf` alternatives; made once per pool and shared (read-only)."""
    items = [item for item, _ in pool]
    whole = dict(pool)
    return tuple(
        {"properties": {mine: {"const": dict(zip(items, took, strict=True))}, theirs: {"const": {i: whole[i] - t for i, t in zip(items, took, strict=True)}}}}
        for took in itertools.product(*(range(whole[i] + 1) for i in items))
    )


def action_schema(moves: Iterable[Schema]) -> Schema:
    """The action schema admitting exactly these moves."""
    return {"title": "move", "oneOf": list(moves)}


# --------------------------------------------------------------------------- reading schemas


def validate(schema: Schema, data: Any) -> str | None:
    """Why `data` is not a move this schema admits (in words, with the field), or None."""
    kind = data.get("kind") if isinstance(data, dict) else None
    target = option(schema, kind) if isinstance(kind, str) else None
    if target is None:
        return f"{kind!r} is not a move allowed now (allowed: {', '.join(kinds(schema)) or 'nothing'})"
    # field by field first (so a count out of range is named), then how the fields fit together
    fields_only = {k: v for k, v in target.items() if k != "anyOf"}
    error = None  # a move that plainly fits skips the general validator, which is needed only to name a problem
    if not _conforms(fields_only, data):
        error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(fields_only).iter_errors(data))
    if error is None and "anyOf" in target:
        if not any(_fits(combo, data) for combo in target["anyOf"]):
            complement = target.get("x-complement")
            if complement:
                return f"{kind}: {complement['of']} and {complement['is']} must add up to the pool {complement['pool']}, item by item"
            return f"{kind}: these values do not fit together"
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{kind}: {where + ': ' if where else ''}{error.message}"


_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment"})
_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}

_BOUNDS = {"minimum": operator.ge, "maximum": operator.le, "exclusiveMinimum": operator.gt, "exclusiveMaximum": operator.lt}
"""A number's bounds: the keyword, and how the value must compare with the bound."""
_LENGTHS = {"minLength": operator.ge, "maxLength": operator.le}


def _conforms(schema: Schema, value: Any) -> bool:
    """Whether `value` surely fits `schema`, read with only the keywords move schemas use (see the
    module's docstring). False means "not surely": a keyword outside that set, or a value that
    breaks one; the caller then asks a full validator, so this can only make validation faster."""
    if not isinstance(schema, dict):  # a boolean schema
        return schema is True
    for keyword, rule in schema.items():
        if keyword in _ANNOTATIONS or keyword.startswith("x-"):
            continue
        if keyword == "type":
            names = rule if isinstance(rule, list) else [rule]
            if not any(name in _TYPES and _TYPES[name](value) for name in names):
                return False
        elif keyword == "const":
            if not _same(value, rule):
                return False
        elif keyword == "enum":
            if not any(_same(value, option) for option in rule):
                return False
        elif keyword in _BOUNDS:
            if _TYPES["number"](value) and not _BOUNDS[keyword](value, rule):
                return False
        elif keyword in _LENGTHS:
            if isinstance(value, str) and not _LENGTHS[keyword](len(value), rule):
                return False
        elif keyword == "required":
            if isinstance(value, dict) and not all(name in value for name in rule):
                return False
        elif keyword == "properties":
            if isinstance(value, dict) and not all(_conforms(rule[name], item) for name, item in value.items() if name in rule):
                return False
        elif keyword == "additionalProperties":
            if not isinstance(value, dict):
                continue
            extra = [item for name, item in value.items() if name not in schema.get("properties", {})]
            if rule is False and extra or isinstance(rule, dict) and not all(_conforms(rule, item) for item in extra):
                return False
        else:
            return False
    return True


def _fits(alternative: Schema, data: dict[str, Any]) -> bool:
    """Whether `data` fits one `anyOf` alternative; one made only of constants (a split's listed
    combinations) is compared directly, which is many times faster than a validator per alternative."""
    properties = alternative.get("properties")
    if set(alternative) == {"properties"} and isinstance(properties, dict) and all(
        isinstance(field, dict) and set(field) == {"const"} for field in properties.values()
    ):
        return all(name in data and _same(data[name], field["const"]) for name, field in properties.items())
    return bool(jsonschema.Draft202012Validator(alternative).is_valid(data))


def _same(value: Any, const: Any) -> bool:
    """JSON Schema's `const`: equal as JSON values (so 1 and 1.0 match, True and 1 do not)."""
    if isinstance(const, dict):
        return isinstance(value, dict) and value.keys() == const.keys() and all(_same(value[k], const[k]) for k in const)
    if isinstance(const, list):
        return isinstance(value, list) and len(value) == len(const) and all(_same(v, c) for v, c in zip(value, const, strict=True))
    if isinstance(const, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(const, bool) and value == const
    return bool(value == const)


def complete(move_schema: Schema, partial: dict[str, Any]) -> dict[str, Any]:
    """Fill the fields that the given ones determine (the other half of a split), where exactly one
    allowed combination matches; return the move unchanged otherwise."""
    combos = move_schema.get("anyOf")
    done = dict(partial)
    if combos:
        matching = []
        for combo in combos:
            fixed = {k: v["const"] for k, v in combo.get("properties", {}).items() if "const" in v}
            if all(done.get(k, fixed[k]) == fixed[k] for k in fixed):
                matching.append(fixed)
        if len(matching) == 1:
            done.update(copy.deepcopy(matching[0]))  # the listed combinations are shared
    for name, prop in move_schema.get("properties", {}).items():
        if name not in done and "const" in prop:
            done[name] = prop["const"]
    return done


def sample(schema: Schema, rng: random.Random) -> Any:
    """A random instance of a schema (a random legal move of an action schema)."""
    if "oneOf" in schema:
        return sample(rng.choice(schema["oneOf"]), rng)
    if "anyOf" in schema and "properties" in schema:
        base = {k: v for k, v in schema.items() if k != "anyOf"}
        value = sample(base, rng)
        value.update({k: copy.deepcopy(v["const"]) for k, v in rng.choice(schema["anyOf"])["properties"].items()})
        return value
    if "anyOf" in schema:
        return sample(rng.choice(schema["anyOf"]), rng)
    if "const" in schema:
        return copy.deepcopy(schema["const"])
    if "enum" in schema:
        return copy.deepcopy(rng.choice(schema["enum"]))
    kind = schema.get("type")
    if kind == "object":
        return {name: sample(prop, rng) for name, prop in schema.get("properties", {}).items() if name in schema.get("required", [])}
    if kind == "integer":
        return rng.randint(int(schema.get("minimum", 0)), int(schema.get("maximum", 100)))
    if kind == "number":
        low, high = float(schema.get("minimum", 0.0)), float(schema.get("maximum", 1000.0))
        return round(rng.uniform(low, high), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "string":
        words = ["hello", "okay", "maybe", "deal", "sure", "thanks", "hmm", "great"]
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        return text[: int(schema.get("maxLength", 200))] or "ok"
    return None


def for_llm(schema: Schema, *, max_chars: int | None = None) -> Schema:
    """The action schema in the form constrained decoders handle best: every move a plain object
    (a move whose fields constrain each other becomes one alternative per allowed combination) and
    every string bounded (`max_chars`), so output can neither break the rules nor loop."""
    flat: list[Schema] = []
    for move_schema in options(schema):
        move_schema = copy.deepcopy(move_schema)
        move_schema.pop("x-complement", None)
        if max_chars is not None:
            for prop in move_schema.get("properties", {}).values():
                if prop.get("type") == "string":
                    prop["maxLength"] = min(int(prop.get("maxLength", max_chars)), max_chars)
        combos = move_schema.pop("anyOf", None)
        if not combos:
            flat.append(move_schema)
            continue
        for combo in combos:
            one = copy.deepcopy(move_schema)
            one["properties"].update(copy.deepcopy(combo["properties"]))
            flat.append(one)
    return {"oneOf": flat}


def describe(schema: Schema) -> list[tuple[str, str]]:
    """(kind, a one-line description) for each move, for help texts and prompts."""
    out = []
    for move_schema in options(schema):
        fields = [name for name in move_schema.get("properties", {}) if name != "kind"]
        words = move_schema.get("description") or move_schema.get("title") or kind_of(move_schema)
        out.append((kind_of(move_schema), f"{words}" + (f" (fields: {', '.join(fields)})" if fields else "")))
    return out


# --------------------------------------------------------------------------- a numbered menu of moves

MENU_VALUES = 32
"""A field with at most this many values (an `enum`, or an integer range such as 0..5) gives one
menu entry per value; a wider field is drawn once per turn."""


def field_values(field: Schema) -> list[Any] | None:
    """Every value a field admits when there are at most `MENU_VALUES` (an enum, a bounded integer
    range, a constant, a boolean), else None."""
    if "const" in field:
        return [field["const"]]
    if "enum" in field:
        return list(field["enum"]) if len(field["enum"]) <= MENU_VALUES else None
    if field.get("type") == "boolean":
        return [False, True]
    if field.get("type") == "integer" and "minimum" in field and "maximum" in field:
        low, high = int(field["minimum"]), int(field["maximum"])
        return list(range(low, high + 1)) if 0 < high - low + 1 <= MENU_VALUES else None
    return None


class _Option:
    """One flat move schema as a block of menu entries: the product of its enumerable fields, the
    other fields drawn once."""

    def __init__(self, schema: Schema, rng: random.Random) -> None:
        self.kind = kind_of(schema)
        properties = {name: prop for name, prop in schema.get("properties", {}).items() if name != "kind"}
        self.values = {name: found for name, prop in properties.items() if (found := field_values(prop)) is not None}
        self.base = sample({k: v for k, v in schema.items() if k != "anyOf"}, rng)
        self.size = functools.reduce(operator.mul, (len(v) for v in self.values.values()), 1)

    def entry(self, index: int) -> dict[str, Any]:
        out: dict[str, Any] = copy.deepcopy(self.base)
        for name in reversed(list(self.values)):
            index, at = divmod(index, len(self.values[name]))
            out[name] = copy.deepcopy(self.values[name][at])
        return out


def _shares(sizes: dict[str, int], size: int) -> dict[str, int]:
    """How many entries each kind keeps within `size`: all when they fit, else an equal share each
    (at least one per kind while there is room), a kind needing less leaving the rest to others."""
    if sum(sizes.values()) <= size:
        return dict(sizes)
    shares = {kind: 0 for kind in sizes}
    left = size
    waiting = sorted(sizes, key=lambda kind: sizes[kind])
    while waiting and left > 0:
        kind = waiting.pop(0)
        shares[kind] = min(sizes[kind], max(left // (len(waiting) + 1), 1))
        left -= shares[kind]
    return shares


def menu(schema: Schema, rng: random.Random, size: int) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The moves of an action schema as a numbered list of at most `size` entries, and what was cut.

    Every combination of a move's small fields (`MENU_VALUES`) is an entry (a split's allowed
    combinations, each value of an enum, each number of a small integer range); wider fields are
    drawn from `rng`. When the entries do not fit, every kind keeps an equal share (at least one
    entry while `size` allows), spread evenly over its combinations; the second value maps each kind
    to the number of its entries left out (empty when nothing was)."""
    blocks: dict[str, list[_Option]] = {}
    for flat in for_llm(schema)["oneOf"]:
        option = _Option(flat, rng)
        blocks.setdefault(option.kind, []).append(option)
    sizes = {kind: sum(o.size for o in options_) for kind, options_ in blocks.items()}
    shares = _shares(sizes, size)
    out: list[dict[str, Any]] = []
    for kind, options_ in blocks.items():
        keep = shares[kind]
        picked = range(sizes[kind]) if keep == sizes[kind] else sorted({(i * sizes[kind]) // keep for i in range(keep)})
        for index in picked:
            for option in options_:
                if index < option.size:
                    out.append(option.entry(index))
                    break
                index -= option.size
    return out, {kind: sizes[kind] - shares[kind] for kind in sizes if shares[kind] < sizes[kind]}


MENU_SIZE = 128
"""The RL environments' default menu size (`max_actions`)."""


# --------------------------------------------------------------------------- the page's generic form

FORM_INPUTS = {"integer": "number", "number": "number", "boolean": "checkbox", "string": "text"}
"""Field type -> the input the platform's generic move form makes for it (`moveForm` in the web
package's `static/chat.js`; keep the two in step). An `enum` is a choice, an object with
`properties` a group of inputs, a split's `x-complement` a grid of counts."""


def form_fields(move_schema: Schema) -> dict[str, str | None]:
    """The inputs the generic page form makes for one move: field (dotted for a group) -> input
    kind, None for a field no input of the form can fill (the form could not make that move)."""
    complement = move_schema.get("x-complement") or {}
    out: dict[str, str | None] = {}

    def visit(name: str, field: Schema) -> None:
        if "enum" in field:
            out[name] = "choice"
        elif field.get("type") == "object" and isinstance(field.get("properties"), dict):
            for sub, inner in field["properties"].items():
                visit(f"{name}.{sub}", inner)
        else:
            out[name] = FORM_INPUTS.get(str(field.get("type")))

    for name, field in move_schema.get("properties", {}).items():
        if name == "kind" or name == complement.get("is"):
            continue
        if name == complement.get("of"):
            items = field.get("properties", {})
            out[name] = "split" if items and all("maximum" in bounds for bounds in items.values()) else None
            continue
        visit(name, field)
    return out
