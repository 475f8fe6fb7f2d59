"""The calls the panel makes, read from its source (ui/src): which method each of its API functions calls
with which params (api/client.ts, api/methods.ts), the keys of the options a view passes (its call site),
the fields of the types those params are (api/types.ts), and what the panel's fixtures recorded on the
lab through the API (fixtures/recorded-lab.json). Read with regular expressions: a change of the panel's
source that these no longer understand fails the test that reads it, naming what was not found."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

UI = Path(__file__).resolve().parents[2] / "ui" / "src"


@dataclass(frozen=True)
class PanelCall:
    function: str        # TengigApi's function, e.g. startMeshVerify
    method: str          # the API method it calls, e.g. tengig.mesh.verify
    params: tuple[str, ...]  # its params by name, e.g. ("request", "options")
    job: bool


def _methods() -> dict[str, str]:
    return dict(re.findall(r"^\s+(\w+): '([a-z_.]+)',?$", (UI / "api/methods.ts").read_text(), re.M))


def panel_call(function: str) -> PanelCall:
    """What TengigApi.``function`` sends: ``return this.rpc.call(M.x, [a, b])`` or ``this.startJob(...)``."""
    found = re.search(rf"^\s+(?:async )?{function}\([^)]*\)[^{{]*\{{\s*return this\.(rpc\.call|startJob)"
                      rf"(?:<[^>]*>)?\(M\.(\w+), \[([^\]]*)\]\)", (UI / "api/client.ts").read_text(), re.M)
    assert found, f"TengigApi.{function} in ui/src/api/client.ts: not found, or not one call"
    how, key, params = found.groups()
    return PanelCall(function, _methods()[key], tuple(p.strip() for p in params.split(",") if p.strip()),
                     job=how == "startJob")


def call_site_keys(file: str, function: str) -> set[str]:
    """The keys of the object literal a view passes to currentApi().``function``(..., { ... })."""
    text = (UI / file).read_text()
    start = text.find(f"currentApi().{function}(")
    assert start >= 0, f"currentApi().{function}( in ui/src/{file}: not found"
    opening = text.index("{", start)
    depth, end = 0, opening
    for end in range(opening, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            break
    # `key: value` and the shorthand `key`, each after `{` or `,` (in a spread object too)
    return set(re.findall(r"[{,]\s*(\w+)\s*(?=[,:}])", text[opening:end + 1]))


def interface_fields(name: str) -> set[str]:
    """The top-level fields of ``export interface name`` in types.ts, with those of what it extends."""
    text = (UI / "api/types.ts").read_text()
    found = re.search(rf"^export interface {name}(?: extends ([\w, ]+))? \{{\n(.*?)^\}}", text, re.M | re.S)
    assert found, f"export interface {name} in ui/src/api/types.ts: not found"
    fields = set()
    depth = 0
    for line in found.group(2).splitlines():
        if depth == 0:
            field = re.match(r"^\s+(\w+)\??:", line)
            if field:
                fields.add(field.group(1))
        depth += line.count("{") - line.count("}")
    for parent in (found.group(1) or "").split(","):
        if parent.strip():
            fields |= interface_fields(parent.strip())
    return fields


def recorded(feature: str) -> dict[str, Any]:
    """What scripts/record_ui_fixtures.py recorded for ``feature`` (mesh, lagg) on the lab through the API:
    the request and options sent, the answers in fixtures/ by file name."""
    return json.loads((UI / "fixtures/recorded-lab.json").read_text())[feature]


def fixture(name: str) -> Any:
    return json.loads((UI / "fixtures" / name).read_text())
