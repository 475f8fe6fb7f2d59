"""Positional JSON-RPC params in, plain values out; a method's return value checked against its
result model. The same rules as middlewared's accept_params / serialize_result:

- ``params[i]`` is the i-th field of the Args model; missing trailing params take their defaults.
- The method receives the validated values dumped back to plain Python (dicts, not model objects),
  so a body runs the same under tengig's host and under middlewared.
- Every pydantic error becomes one ValidationErrors entry whose field path starts with the
  argument's name: ``options.limit``, ``target.read_bytes_per_s``, ``filters.0``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import pydantic

from .exceptions import ValidationErrors


def accept_params(model: type[pydantic.BaseModel], params: list[Any]) -> list[Any]:
    """The validated params (defaults filled in), in field order. Raises ValidationErrors."""
    fields = list(model.model_fields)
    if len(params) > len(fields):
        # middlewared names no field here (""); tengig points at the first surplus param instead,
        # so every rejection carries a path a caller can act on.
        raise ValidationErrors.one(
            f"params.{len(fields)}",
            f"Too many arguments (expected {len(fields)}, found {len(params)})",
        )
    named = {model.model_fields[name].alias or name: value for name, value in zip(fields, params)}
    try:
        instance = model.model_validate(named)
    except pydantic.ValidationError as exc:
        raise validation_errors(exc) from None
    dumped = instance.model_dump(by_alias=True, warnings=False)
    return [dumped[model.model_fields[name].alias or name] for name in fields]


M = TypeVar("M", bound=pydantic.BaseModel)


def typed(model: type[M], value: M | Mapping[str, Any] | None, prefix: str = "") -> M:
    """One argument as its model: what a service body reads its options from, so that a default lives
    only in the model's Field. Hosts hand bodies plain values (middlewared does too); this turns them back
    into the model they were validated against (None: the model's defaults; a model: as it is). A value
    that does not fit raises ValidationErrors with paths under ``prefix``, as accept_params would."""
    if isinstance(value, model):
        return value
    try:
        return model.model_validate(dict(value or {}))
    except pydantic.ValidationError as exc:
        raise validation_errors(exc, prefix) from None


def validation_errors(exc: pydantic.ValidationError, prefix: str = "") -> ValidationErrors:
    """pydantic's errors as (field path, message) pairs, the path dotted: ('options', 'seconds') ->
    'options.seconds'. A discriminated union missing its tag names the tag field, as middlewared does."""
    errors = ValidationErrors()
    for error in exc.errors(include_url=False, include_input=False):
        loc = [str(part) for part in error["loc"]]
        message = error["msg"]
        if error["type"] == "union_tag_not_found":
            loc.append(str(error.get("ctx", {}).get("discriminator", "")).strip("'"))
            message = "Field required"
        path = ".".join(part for part in [prefix, *loc] if part)
        errors.add(path or "params", message)
    return errors


def dump_result(model: type[pydantic.BaseModel], value: Any) -> Any:
    """The method's return value, checked against its Result model and dumped to JSON-ready values.

    A value that does not fit is a bug in the method, not bad input: pydantic's error propagates and
    the host answers -32603."""
    if isinstance(value, pydantic.BaseModel):
        value = value.model_dump()
    elif isinstance(value, list) and value and isinstance(value[0], pydantic.BaseModel):
        value = [item.model_dump() if isinstance(item, pydantic.BaseModel) else item for item in value]
    return model.model_validate({"result": value}).model_dump(mode="json")["result"]
