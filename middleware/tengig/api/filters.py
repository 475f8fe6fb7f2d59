"""middlewared-style query filters over plain dicts (used by core.get_jobs): pure functions.

    filters  [["state", "=", "RUNNING"], ["progress.percent", ">=", 50], ["id", "in", [1, 2]]]
    options  order_by ["-id"], select ["id", "state"], offset, limit, count, get

Every malformed filter is refused with a field path (``filters.1``, ``filters.1.1``), never a crash.
"""
from __future__ import annotations

import errno
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .exceptions import CallError, ValidationErrors

_MISSING = object()


def _ordered(compare: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def test(value: Any, wanted: Any) -> bool:
        try:
            return bool(compare(value, wanted))
        except TypeError:  # None < 3, "a" < 1: no match rather than an error
            return False
    return test


def _member(value: Any, wanted: Any) -> bool:
    try:
        return value in wanted
    except TypeError:
        return False


def _text(test: Callable[[str, str], bool]) -> Callable[[Any, Any], bool]:
    return lambda value, wanted: isinstance(value, str) and test(value, wanted)


OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda value, wanted: value == wanted,
    "!=": lambda value, wanted: value != wanted,
    ">": _ordered(operator.gt),
    ">=": _ordered(operator.ge),
    "<": _ordered(operator.lt),
    "<=": _ordered(operator.le),
    "in": _member,
    "nin": lambda value, wanted: not _member(value, wanted),
    "^": _text(str.startswith),
    "$": _text(str.endswith),
}


def check_filters(filters: Sequence[Any], path: str = "filters") -> list[tuple[str, str, Any]]:
    """The filters as (field, operator, value) triples, or ValidationErrors naming each bad one."""
    errors = ValidationErrors()
    checked = []
    for index, item in enumerate(filters):
        where = f"{path}.{index}"
        if not isinstance(item, list) or len(item) != 3:
            errors.add(where, "a filter is [field, operator, value]")
            continue
        field, op, value = item
        if not isinstance(field, str) or not field:
            errors.add(f"{where}.0", "the field must be a non-empty string (dotted for nested: progress.percent)")
        if not isinstance(op, str) or op not in OPERATORS:
            errors.add(f"{where}.1", f"unknown operator {op!r}; use one of {' '.join(OPERATORS)}")
        elif op in ("in", "nin") and not isinstance(value, list):
            errors.add(f"{where}.2", f"operator {op!r} needs a list value")
        elif op in ("^", "$") and not isinstance(value, str):
            errors.add(f"{where}.2", f"operator {op!r} needs a string value")
        checked.append((field, op, value))
    if errors:
        raise errors
    return checked


def filter_list(items: Sequence[Mapping[str, Any]], filters: Sequence[Any], options: Mapping[str, Any]) -> Any:
    """Apply filters (all must match) and options to ``items``; see the module docstring."""
    conditions = check_filters(filters)
    matched = [item for item in items if all(_matches(item, c) for c in conditions)]
    for key in reversed(options.get("order_by") or []):
        descending = key.startswith("-")
        field = key[1:] if descending else key
        matched.sort(key=lambda item: _sort_key(_lookup(item, field)), reverse=descending)
    if options.get("count"):
        return len(matched)
    offset, limit = options.get("offset") or 0, options.get("limit") or 0
    matched = matched[offset: offset + limit if limit else None]
    if options.get("select"):
        matched = [{k: item[k] for k in options["select"] if k in item} for item in matched]
    if options.get("get"):
        if not matched:
            raise CallError("no job matches these filters", errno.ENOENT)
        return matched[0]
    return matched


def _matches(item: Mapping[str, Any], condition: tuple[str, str, Any]) -> bool:
    field, op, wanted = condition
    value = _lookup(item, field)
    return value is not _MISSING and OPERATORS[op](value, wanted)


def _lookup(item: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(item, Mapping) or part not in item:
            return _MISSING
        item = item[part]
    return item


def _sort_key(value: Any) -> tuple[int, Any]:
    """None and missing sort first; mixed types sort by type name so sorting never raises."""
    if value is _MISSING or value is None:
        return (0, "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (1, value)
    return (2, f"{type(value).__name__}:{value}")
