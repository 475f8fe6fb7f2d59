"""Calls a stand-in TrueNAS took and answered, checked against real middlewared's own API models of each
method (``middlewared.api.current`` of the vendor snapshot: 25.10.6, 26.0.0-BETA.3), in that release's
interpreter: the request as middlewared accepts a call's params (``accept_params`` on ``<Method>Args``:
an unknown field is refused there), the answer as ``<Method>Result`` validates it (a query's entries as
middlewared's own ``query_result``: any subset of the entry's fields), and every key of the answer,
at every depth, a field the model has: a field the real model does not have is a problem. A private method
(TrueNAS's zfs.dataset.update) has no model: it is listed as unmodelled.

``check_calls(python, calls)`` -> {"checked": [method, ...], "problems": [text, ...], "unmodelled": [method]}.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

CHECK_SCRIPT = r'''
import json, sys, types, typing

import pydantic
from middlewared.api import current as api
from middlewared.api.base import BaseModel as MiddlewaredModel
from middlewared.api.base.handler.accept import accept_params
from middlewared.api.base.model import query_result
from middlewared.service_exception import ValidationErrors

ENTRIES = {"pool": ("PoolEntry",), "pool.dataset": ("PoolDatasetEntry",),
           "sharing.smb": ("SmbShareEntry", "SharingSMBEntry"),   # 25.10, 26.0
           "interface": ("InterfaceEntry",)}
STEMS = {"sharing.smb": "SharingSMB"}


def stem(namespace):
    return STEMS.get(namespace) or "".join(p.title().replace("_", "") for p in namespace.replace("_", ".").split("."))


# config methods (a ConfigService's entry, no Args/Result classes of their own): the stand-in answers only the
# fields tengig reads, so their answers are checked for fields the entry lacks, not for completeness.
CONFIG_ENTRIES = {"smb": ("SmbServiceEntry", "SMBEntry")}  # 25.10, 26.0


def models(method):
    namespace, _, name = method.rpartition(".")
    if name == "config":
        entry = next((getattr(api, n) for n in CONFIG_ENTRIES.get(namespace, ()) if hasattr(api, n)), None)
        if entry is None:
            return None, None
        return (pydantic.create_model(f"{stem(namespace)}ConfigArgs", __base__=MiddlewaredModel),
                pydantic.create_model(f"{stem(namespace)}ConfigResult", result=(entry, ...)))
    if name == "query":
        entry = next((getattr(api, n) for n in ENTRIES.get(namespace, ()) if hasattr(api, n)), None)
        return (api.QueryArgs, query_result(entry)) if entry else (None, None)
    base = stem(namespace) + "".join(p.title() for p in name.split("_"))
    return getattr(api, base + "Args", None), getattr(api, base + "Result", None)


def unwrap(annotation):
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def members(annotation):
    annotation = unwrap(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in members(arg)]
    return [annotation]


def unknown_keys(annotation, value, path, out):
    """Keys of ``value`` no model along ``annotation`` has (dicts typed as plain dict are free)."""
    options = members(annotation)
    if isinstance(value, list):
        items = [typing.get_args(o)[0] for o in options if typing.get_origin(o) is list and typing.get_args(o)]
        for i, item in enumerate(value):
            for kind in items[:1]:
                unknown_keys(kind, item, f"{path}.{i}", out)
        return
    if not isinstance(value, dict):
        return
    models_ = [o for o in options if isinstance(o, type) and issubclass(o, pydantic.BaseModel)]
    if not models_:
        return
    fields = {}
    for model in models_:
        fields.update(model.model_fields)
    for key, item in value.items():
        if key not in fields:
            out.append(f"{path}.{key}: not a field of {'/'.join(m.__name__ for m in models_)}")
        else:
            unknown_keys(fields[key].annotation, item, f"{path}.{key}", out)


def check(call, full_answers):
    method = call["method"]
    accepts, returns = models(method)
    if accepts is None or returns is None:
        return None
    problems = []
    try:
        accept_params(accepts, call["params"])
    except ValidationErrors as exc:
        problems += [f"{method} request: {e.attribute}: {e.errmsg}" for e in exc.errors]
    if "result" in call and full_answers and not method.endswith(".config"):
        try:
            returns.model_validate({"result": call["result"]})
        except pydantic.ValidationError as exc:
            problems += [f"{method} answer: {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()]
        except Exception as exc:  # the model's own validators choke on it: not an answer TrueNAS gives
            problems.append(f"{method} answer: {type(exc).__name__}: {exc}")
    if "result" in call:
        found = []
        unknown_keys(returns.model_fields["result"].annotation, call["result"], f"{method} answer", found)
        problems += found
    return problems


request = json.load(sys.stdin)
out = {"checked": [], "problems": [], "unmodelled": []}
for call in request["calls"]:
    problems = check(call, request["full_answers"])
    if problems is None:
        out["unmodelled"].append(call["method"])
    else:
        out["checked"].append(call["method"])
        out["problems"] += problems
print(json.dumps(out))
'''


def check_calls(python: Path, calls: list[dict[str, Any]], *, full_answers: bool = True) -> dict[str, Any]:
    """Real middlewared's verdict on each call (see the module docstring), from its interpreter ``python``.
    ``full_answers`` False: an answer's fields are checked to be the model's, not that it has every field the
    model requires (a stand-in playing 25.10 checked against 26.0, which requires fields 25.10 never gave)."""
    done = subprocess.run([str(python), "-c", CHECK_SCRIPT], input=json.dumps({"calls": calls, "full_answers": full_answers}), capture_output=True, text=True,
                          timeout=300, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
