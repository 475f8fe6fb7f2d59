"""The drift check between the panel's hand-written API types (ui/src/api/types.ts) and tengig's pydantic
models (the server is the source of truth). test_types_drift.py holds the mapping and runs it.

The TS side comes from ui/scripts/export-types.mjs (the TypeScript compiler's checker: every exported
interface's properties with optionality and a type tree); the server side from each model's JSON schema
(validation mode for what the panel sends, serialization mode for what it reads). For every mapped pair:
the property names agree; nullability agrees (a field that can be null is ``| null`` in TS, and only
then); for inputs a field is optional in TS exactly when it has a default, for outputs a TS property is
optional only when the field has a default; literal unions are the same set; and the types agree in kind
(string, number, boolean, array, dict, model), recursing into arrays, dicts, inline objects and nested
interfaces. TS ``unknown`` and the server's ``Any`` match anything (opaque on one side); a TS interface or
Record may refine a ``dict[str, Any]``. Every finding is one line naming where, so tests compare lists."""
from __future__ import annotations

import json
import re
import subprocess
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter

ROOT = Path(__file__).resolve().parents[2]
EXPORT_SCRIPT = ROOT / "ui/scripts/export-types.mjs"
TYPES_TS = ROOT / "ui/src/api/types.ts"
METHODS_TS = ROOT / "ui/src/api/methods.ts"

INPUT, OUTPUT = "input", "output"


def export_ts_files(paths: list[Path]) -> list[dict[str, dict[str, dict[str, Any]]]]:
    """The exported interfaces and aliases of each of ``paths`` as export-types.mjs prints them, read by one
    run of the TypeScript compiler (each run reads its lib files again: most of the seconds it takes)."""
    named = [str(Path(p).resolve()) for p in paths]
    done = subprocess.run(["node", str(EXPORT_SCRIPT), *named], cwd=ROOT / "ui", capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"export-types.mjs failed ({done.returncode}): {done.stderr}")
    printed = json.loads(done.stdout)
    return [printed] if len(named) == 1 else [printed[name] for name in named]


def panel_methods(methods_ts: Path = METHODS_TS) -> set[str]:
    """The tengig.* method names methods.ts names (every quoted string starting with 'tengig.')."""
    return set(re.findall(r"""['"`](tengig\.[A-Za-z0-9_.]+)['"`]""", methods_ts.read_text()))


# --- which models a method takes and returns -------------------------------------------------------

def models_in(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation names at its top level (through unions, lists, dicts, Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if typing.get_origin(annotation) is typing.Literal:
        return []
    return [m for arg in typing.get_args(annotation) for m in models_in(arg)]


def top_level_models(args_model: type[BaseModel], result_model: type[BaseModel]) -> set[type[BaseModel]]:
    """The models a method takes as a parameter or returns as its result, without their fields' models."""
    found = {m for f in args_model.model_fields.values() for m in models_in(f.annotation)}
    return found | {m for m in models_in(result_model.model_fields["result"].annotation)}


def reachable(models: Iterable[type[BaseModel]]) -> set[type[BaseModel]]:
    """``models`` and every model their fields name, transitively."""
    seen: set[type[BaseModel]] = set()
    todo = list(models)
    while todo:
        model = todo.pop()
        if model in seen:
            continue
        seen.add(model)
        todo.extend(m for f in model.model_fields.values() for m in models_in(f.annotation))
    return seen


@dataclass(frozen=True)
class Method:
    name: str
    args: type[BaseModel]
    result: type[BaseModel]


def directions(methods: Iterable[Method]) -> dict[type[BaseModel], set[str]]:
    """Model -> {input, output}: reached from a method's parameters, from its result, or both."""
    out: dict[type[BaseModel], set[str]] = {}
    for method in methods:
        for model in reachable(m for f in method.args.model_fields.values() for m in models_in(f.annotation)):
            out.setdefault(model, set()).add(INPUT)
        for model in reachable(models_in(method.result.model_fields["result"].annotation)):
            out.setdefault(model, set()).add(OUTPUT)
    return out


# --- comparing one TS type with one schema ---------------------------------------------------------

def _ts_branches(shape: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], bool]:
    parts = list(shape["of"]) if shape["kind"] == "union" else [shape]
    return [p for p in parts if p["kind"] != "null"], any(p["kind"] == "null" for p in parts)


def _schema_branches(schema: Mapping[str, Any]) -> tuple[list[Mapping[str, Any]], bool]:
    parts = list(schema.get("anyOf") or schema.get("oneOf") or [schema])
    if isinstance(schema.get("type"), list):
        parts = [{**schema, "type": t} for t in schema["type"]]
    return [p for p in parts if p.get("type") != "null"], any(p.get("type") == "null" for p in parts)


def _literals(schema: Mapping[str, Any]) -> list[Any] | None:
    if "const" in schema:
        return [schema["const"]]
    if "enum" in schema:
        return list(schema["enum"])
    return None


def _schema_kind(schema: Mapping[str, Any]) -> str:
    if "$ref" in schema:
        return "model"
    kind = schema.get("type")
    if kind is None:
        return "any"
    if kind == "integer":
        return "number"
    if kind == "object":
        return "model" if "properties" in schema else "dict"
    return kind


def _describe(literals: Iterable[Any]) -> str:
    return " | ".join(json.dumps(v) for v in sorted(literals, key=repr))


@dataclass
class Checker:
    """Compares TS shapes with JSON schemas. ``ts_types``: an export_ts_files() entry; ``omitted``:
    (where, field) -> why TS leaves it out; ``widened``: (where, prop) -> why TS's type differs."""

    ts_types: Mapping[str, Mapping[str, Any]]
    omitted: Mapping[tuple[str, str], str] = field(default_factory=dict)
    widened: Mapping[tuple[str, str], str] = field(default_factory=dict)
    mirrors: Mapping[str, str] = field(default_factory=dict)  # TS name -> the mapped model's name
    findings: set[str] = field(default_factory=set)
    _done: set[tuple[str, str, str]] = field(default_factory=set)

    def note(self, text: str) -> None:
        self.findings.add(text)

    def resolve(self, schema: Mapping[str, Any], defs: Mapping[str, Any]) -> Mapping[str, Any]:
        while "$ref" in schema:
            schema = defs[schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def interface(self, name: str, schema: Mapping[str, Any], defs: Mapping[str, Any], direction: str) -> None:
        """TS interface ``name`` against an object schema (once per schema and direction)."""
        key = (name, json.dumps(schema, sort_keys=True), direction)
        if key in self._done:
            return
        self._done.add(key)
        props = self.ts_types.get(name)
        if props is None or "$alias" in props:
            self.note(f"{name}: not an interface in types.ts")
            return
        self.props(name, props, schema, defs, direction)

    def props(self, where: str, ts_props: Mapping[str, Any], schema: Mapping[str, Any], defs: Mapping[str, Any],
              direction: str) -> None:
        fields = schema.get("properties", {})
        required = set(schema.get("required", []))
        for name in fields:
            if name not in ts_props and (where, name) not in self.omitted:
                self.note(f"{where}.{name}: a field of the server's model, missing from TS")
        for name in ts_props:
            if name not in fields:
                self.note(f"{where}.{name}: in TS, not a field of the server's model")
        for (owner, name), _why in self.omitted.items():
            if owner == where and (name in ts_props or name not in fields):
                self.note(f"{where}.{name}: listed as omitted, but TS has it or the model does not")
        for name in sorted(set(fields) & set(ts_props)):
            prop, field_schema = ts_props[name], fields[name]
            has_default = name not in required
            if direction == INPUT and prop["optional"] != has_default:
                self.note(f"{where}.{name}: optional in TS, but the field has no default" if prop["optional"]
                          else f"{where}.{name}: required in TS, but the field has a default")
            if direction == OUTPUT and prop["optional"] and not has_default:
                self.note(f"{where}.{name}: optional in TS, but the server always sends it")
            self.value(f"{where}.{name}", prop["shape"], field_schema, defs, direction)

    def value(self, where: str, shape: Mapping[str, Any], schema: Mapping[str, Any], defs: Mapping[str, Any],
              direction: str) -> None:
        schema = self.resolve(schema, defs) if "anyOf" not in schema else schema
        ts_parts, ts_null = _ts_branches(shape)
        s_parts, s_null = _schema_branches(schema)
        s_parts = [self.resolve(p, defs) for p in s_parts]
        opaque = any(p["kind"] == "unknown" for p in ts_parts) or any(_schema_kind(p) == "any" for p in s_parts)
        if ts_null != s_null and not opaque:  # unknown and Any take null too
            self.note(f"{where}: {'| null' if s_null else 'no null'} on the server, "
                      f"{'| null' if ts_null else 'no null'} in TS")
        if "." in where and tuple(where.rsplit(".", 1)) in self.widened:
            probe = Checker(self.ts_types, self.omitted)
            probe.value(where, {"kind": "union", "of": ts_parts}, {"anyOf": s_parts}, defs, direction)
            if not probe.findings:
                self.note(f"{where}: listed as widened, but TS agrees with the server")
            return
        if opaque:
            return
        ts_lits = {p["value"] for p in ts_parts if p["kind"] == "literal"}
        s_lits = {v for p in s_parts for v in (_literals(p) or [])}
        if ts_lits != s_lits:
            self.note(f"{where}: literals {_describe(s_lits) or '(none)'} on the server, "
                      f"{_describe(ts_lits) or '(none)'} in TS")
        ts_rest = [p for p in ts_parts if p["kind"] != "literal"]
        s_rest = [p for p in s_parts if _literals(p) is None]
        matched: set[int] = set()
        for s in s_rest:
            hits = [i for i, t in enumerate(ts_rest) if self.compatible(t, s, defs)]
            if not hits:
                self.note(f"{where}: the server's {_schema_kind(s)} has no counterpart in TS "
                          f"({' | '.join(t['kind'] for t in ts_rest) or 'literals only'})")
                continue
            matched.update(hits)
            for i in hits:
                self.inner(where, ts_rest[i], s, defs, direction)
        for i, t in enumerate(ts_rest):
            if i not in matched:
                self.note(f"{where}: TS's {t['kind']} is not a type the server has "
                          f"({' | '.join(_schema_kind(s) for s in s_rest) or 'literals only'})")

    def compatible(self, ts: Mapping[str, Any], schema: Mapping[str, Any], defs: Mapping[str, Any]) -> bool:
        kind = _schema_kind(schema)
        if kind == "model":
            return ts["kind"] in ("ref", "object", "record")
        if kind == "dict":
            values = schema.get("additionalProperties", True)
            opaque = values is True or values == {}
            return ts["kind"] == "record" or (opaque and ts["kind"] in ("ref", "object"))
        return ts["kind"] == kind

    def inner(self, where: str, ts: Mapping[str, Any], schema: Mapping[str, Any], defs: Mapping[str, Any],
              direction: str) -> None:
        """Recurse into arrays, dicts, models of one matched pair of branches."""
        kind = _schema_kind(schema)
        if kind == "array":
            self.value(f"{where}[]", ts["of"], schema.get("items", {}), defs, direction)
        elif kind == "dict" and ts["kind"] == "record":
            values = schema.get("additionalProperties", True)
            self.value(f"{where}{{}}", ts["of"], {} if values is True else values, defs, direction)
        elif kind == "model":
            target = self.resolve(schema, defs)
            if ts["kind"] == "ref" and self.mirrors.get(ts["name"]) not in (None, target.get("title")):
                # Another model than the one the interface is mapped to: fine if they have the same shape.
                probe = Checker(self.ts_types, self.omitted, self.widened, self.mirrors)
                probe.interface(ts["name"], target, defs, direction)
                if probe.findings:
                    self.note(f"{where}: TS's {ts['name']} (mapped to {self.mirrors[ts['name']]}) is not the "
                              f"server's {target.get('title')}: {'; '.join(sorted(probe.findings))}")
            elif ts["kind"] == "ref":
                self.interface(ts["name"], target, defs, direction)
            elif ts["kind"] == "object":
                self.props(where, ts["props"], target, defs, direction)
            elif ts["of"]["kind"] != "unknown":  # a Record<string, X> for a model: only Record<string, unknown>
                self.note(f"{where}: a model on the server, Record<string, {ts['of']['kind']}> in TS")


def model_schema(annotation: Any, direction: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON schema of a model or any annotation, and its $defs."""
    mode = "validation" if direction == INPUT else "serialization"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        schema = annotation.model_json_schema(mode=mode)
    else:
        schema = TypeAdapter(annotation).json_schema(mode=mode)
    return schema, schema.get("$defs", {})


def check_types(ts_types: Mapping[str, Mapping[str, Any]], mapping: Mapping[str, Any],
                model_directions: Mapping[Any, set[str]], *, omitted: Mapping[tuple[str, str], str] = {},
                widened: Mapping[tuple[str, str], str] = {}) -> list[str]:
    """Every drift between the mapped TS names and the server's models (or Literal aliases), sorted.
    ``model_directions``: model -> {input, output} (directions(); a Literal alias needs none)."""
    mirrors = {name: getattr(a, "__name__", "") for name, a in mapping.items() if isinstance(a, type)}
    checker = Checker(ts_types, omitted, widened, mirrors)
    for ts_name, annotation in mapping.items():
        entry = ts_types.get(ts_name)
        if entry is None:
            checker.note(f"{ts_name}: mapped, but not exported by types.ts")
            continue
        ways = model_directions.get(annotation)
        if ways is None and isinstance(annotation, type):
            checker.note(f"{ts_name}: {annotation.__name__} is no method's parameter or result")
            continue
        ways = ways or {INPUT}  # a Literal: the same either way
        for direction in sorted(ways):
            schema, defs = model_schema(annotation, direction)
            if "$alias" in entry:
                checker.value(ts_name, entry["$alias"]["shape"], schema, defs, direction)
            else:
                checker.props(ts_name, entry, schema, defs, direction)
    return sorted(checker.findings)
