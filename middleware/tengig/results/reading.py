"""A stored run as read back (pure): every column of a row checked before it becomes a RunRecord, so a
results database that was changed by hand or crafted (text that is not JSON, NaN, nesting deeper than any
run of tengig's, a start time of 1e300, a kind tengig does not know) is one error naming the database,
the run and what is wrong in it, never a traceback from deep inside a command that printed it.

JSON is read strictly: NaN and infinity are no measurements (the store never writes them), and nesting
deeper than MAX_STORED_DEPTH is refused (a bench report is about 10 levels deep; Python's own recursion
gives out near 1,000, in the parser or in whatever walks the value after it)."""
from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..errors import TengigError
from .models import Environment, RawOutput, RunRecord

MAX_STORED_DEPTH = 64  # levels of JSON objects and arrays in one stored column


class StoredValueError(ValueError):
    """One stored value is not what tengig stores; the message says what is wrong with it, as the end of a
    sentence naming it ('is not JSON (...)')."""


def _refuse_constant(name: str) -> float:
    raise StoredValueError(f"holds {name}, which is no measurement")


_decode = json.JSONDecoder(parse_constant=_refuse_constant).decode


def json_depth(value: Any, limit: int = MAX_STORED_DEPTH) -> int:
    """How many levels of objects and arrays ``value`` nests (0: a scalar), counted depth first without
    recursion, and only until it passes ``limit`` (then limit + 1: a value that contains itself ends too)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, level = todo.pop()
        children = item.values() if isinstance(item, Mapping) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if deepest > limit:
            break
        todo.extend((child, level + 1) for child in children)
    return deepest


def deeper_than_stored(value: Any) -> str | None:
    """Why ``value`` is too deep to store (None: it is not)."""
    if json_depth(value) <= MAX_STORED_DEPTH:
        return None
    return f"nests more than {MAX_STORED_DEPTH} levels of objects and arrays"


def stored_json(text: Any) -> Any:
    """A stored JSON column's value (None stays None); StoredValueError says what is wrong with it."""
    if text is None:
        return None
    if not isinstance(text, (str, bytes)):
        raise StoredValueError(f"is a {type(text).__name__}, not JSON text")
    try:
        value = _decode(text if isinstance(text, str) else text.decode())
    except RecursionError:
        raise StoredValueError(f"nests more than {MAX_STORED_DEPTH} levels of objects and arrays") from None
    except StoredValueError:
        raise
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise StoredValueError(f"is not JSON ({exc})") from None
    deep = deeper_than_stored(value)
    if deep:
        raise StoredValueError(deep)
    return value


def stored_epoch(value: Any, *, optional: bool = False) -> float | None:
    """A stored time, epoch seconds: a finite number a calendar can show (None only when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise StoredValueError(f"is {type(value).__name__} {_short(value)}, not epoch seconds")
    try:
        datetime.fromtimestamp(value, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise StoredValueError(f"is {value!r}, not a time a calendar can show") from None
    return float(value)


def _finite(value: Any) -> Any:
    """A raw output's stored time as read back: what older tengig stored unchecked (a desktop's infinite
    seconds) reads as 0, so one such row never fails reading or exporting the whole history."""
    return value if not isinstance(value, float) or math.isfinite(value) else 0.0


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _pydantic_problem(exc: PydanticValidationError) -> tuple[str, str]:
    """(where, what) of the first error pydantic found: ('kind', "Input should be 'pool', ...")."""
    first = exc.errors()[0]
    return ".".join(map(str, first["loc"])) or "row", " ".join(str(first["msg"]).split())


def read_run(path: Path, row: Mapping[str, Any], raw_rows: Sequence[Mapping[str, Any]]) -> RunRecord:
    """One ``runs`` row and its ``raw_outputs`` rows as a RunRecord; TengigError naming the database at
    ``path``, the run and what is wrong when any of it is not what tengig stores."""
    run_id = row["id"]
    column = ""
    try:
        column = "started"
        started = stored_epoch(row["started"])
        column = "finished"
        finished = stored_epoch(row["finished"], optional=True)
        values: dict[str, Any] = {}
        for column in ("inputs", "results", "verdict", "environment"):
            values[column] = stored_json(row[column])
        if values["environment"] is not None:
            values["environment"] = Environment.model_validate(values["environment"])
        raw = []
        for n, r in enumerate(raw_rows, 1):
            column = f"raw output {n}'s argv"
            argv = stored_json(r["argv"])
            column = f"raw output {n}"
            raw.append(RawOutput(tool=r["tool"], argv=argv, exit_code=r["exit_code"], stdout=r["stdout"],
                                 stderr=r["stderr"], started=_finite(r["started"]), seconds=_finite(r["seconds"])))
        column = ""
        return RunRecord(id=run_id, started=started, finished=finished, kind=row["kind"], status=row["status"],
                         error=row["error"], raw=raw, **values)
    except StoredValueError as exc:
        problem = f"its {column} {exc}"
    except PydanticValidationError as exc:
        where, what = _pydantic_problem(exc)
        problem = f"its {column} ({where}): {what}" if column else f"its {where}: {what}"
    raise not_stored(path, [run_id], problem)


def not_stored(path: Path, run_ids: Sequence[int], problem: str) -> TengigError:
    """The error for runs in the database at ``path`` that are not as tengig stores them: ``problem`` says
    what is wrong, starting 'its ...'."""
    which = f"run {run_ids[0]}" if len(run_ids) == 1 else f"run {' or '.join(map(str, run_ids))}"
    delete = " or ".join(f"`tengig results delete {i}`" for i in run_ids)
    return TengigError(f"results database {path}: {which} is not as tengig stores a run: {problem} (the file was "
                       f"changed outside tengig; {delete} removes that run)")


@contextmanager
def shown_from_store(path: Path, run_ids: Sequence[int]) -> Iterator[None]:
    """Around what reads a stored run's free-form figures (results, verdict) to show or compare them: figures
    of a shape tengig never stores (a verdict that is a string, clients that are a number) are one error
    naming the database and the run, not a traceback from whatever read them."""
    try:
        yield
    except TengigError:
        raise  # said already, in its own words
    except (TypeError, AttributeError, KeyError, IndexError, ValueError, OverflowError, RecursionError) as exc:
        raise not_stored(path, run_ids, f"its figures are not of the shape tengig stores ({type(exc).__name__}: "
                                        f"{' '.join(str(exc).split())[:200]})") from exc
