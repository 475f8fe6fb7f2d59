"""``core.get_methods`` in middlewared's shape, built once and kept as JSON text.

Per method, the fields middlewared 25.10's CoreService.get_methods gives: description,
cli_description, examples, item_method, no_auth_required, filterable, filterable_schema,
pass_application, require_websocket, job, downloadable, uploadable, check_pipes, roles, accepts,
returns. ``accepts`` and ``returns`` are LISTS with one JSON schema per argument (``returns``: the one
result), references inlined and every object property carrying ``title``, ``_name_`` and
``_required_``, as middlewared.api.base.jsonschema.get_json_schema writes them (midcli reads these).

Building it costs CPU (pydantic's schema generation for every model): it runs once, off the event
loop, and every later call gets the same text (per ``service`` filter).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from ..api.registry import MethodEntry


def method_info(entry: MethodEntry) -> dict[str, Any]:
    """One method's entry, as middlewared lists it."""
    description = entry.description or None
    pass_app = entry.spec.pass_app
    return {
        "description": description,
        "cli_description": (description or "").split("\n\n")[0].split(".")[0].replace("\n", " "),
        "examples": {},
        "item_method": False,
        "no_auth_required": not entry.spec.authentication_required,
        "filterable": _filterable(entry.spec.accepts),
        "filterable_schema": None,
        "pass_application": pass_app,
        "require_websocket": pass_app,
        "job": entry.job is not None,
        "downloadable": False,
        "uploadable": False,
        "check_pipes": False,
        "roles": sorted(entry.spec.roles),
        "accepts": argument_schemas(entry.spec.accepts),
        "returns": argument_schemas(entry.spec.returns),
    }


def catalog(methods: Mapping[str, MethodEntry], service: str | None = None) -> dict[str, Any]:
    return {name: method_info(entry) for name, entry in sorted(methods.items())
            if service is None or name.rsplit(".", 1)[0] == service}


def catalog_json(methods: Mapping[str, MethodEntry], service: str | None = None) -> str:
    return json.dumps(catalog(methods, service), separators=(",", ":"), allow_nan=False)


def argument_schemas(model: type[BaseModel]) -> list[dict[str, Any]]:
    """One schema per field of ``model``, in order (middlewared's get_json_schema)."""
    schema = _add_attrs(_replace_refs(model.model_json_schema()))
    return [schema["properties"][field.alias or name] for name, field in model.model_fields.items()]


def _filterable(model: type[BaseModel]) -> bool:
    return list(model.model_fields)[:2] == ["filters", "options"]


def _replace_refs(data: Any, defs: dict[str, Any] | None = None) -> Any:
    if isinstance(data, dict):
        defs = data.pop("$defs", defs)
        if "$ref" in data:
            ref = data.pop("$ref")
            data = {**defs[ref.removeprefix("#/$defs/")], **data}
        return {key: _replace_refs(value, defs) for key, value in data.items()}
    if isinstance(data, list):
        return [_replace_refs(value, defs) for value in data]
    return data


def _add_attrs(schema: Any) -> Any:
    if isinstance(schema, dict):
        if schema.get("type") == "object" and isinstance(schema.get("properties"), dict):
            required = schema.get("required", [])
            schema = {
                **schema,
                "_attrs_order_": list(schema["properties"]),
                "properties": {key: {**value, "title": key, "_name_": key, "_required_": key in required}
                               for key, value in schema["properties"].items()},
            }
        if schema.get("type") == "array" and "items" in schema and not isinstance(schema["items"], list):
            schema["items"] = [schema["items"]]
        return {key: _add_attrs(value) for key, value in schema.items()}
    if isinstance(schema, list):
        return [_add_attrs(value) for value in schema]
    return schema
