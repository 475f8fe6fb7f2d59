"""Golden files for rendered LAGGs (tests/fixtures/lagg/golden/), compared byte for byte.

    TENGIG_UPDATE_GOLDEN=1 pytest tests/lagg     # rewrite, then review the diff before committing
"""
from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from tengig.lagg import RenderedLagg

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "lagg" / "golden"
UPDATE_VARIABLE = "TENGIG_UPDATE_GOLDEN"


def dump(rendered: RenderedLagg) -> str:
    parts = [f"# platform: {rendered.platform}, flavour: {rendered.flavour}\n"]
    if rendered.api_calls:
        parts.append("=== api calls\n" + json.dumps([c.model_dump() for c in rendered.api_calls], indent=2) + "\n")
        parts.append("=== then\n" + json.dumps([rendered.commit.model_dump(), rendered.checkin.model_dump()]) + "\n")
        parts.append("=== undo calls\n" + json.dumps([c.model_dump() for c in rendered.undo_calls], indent=2) + "\n")
    if rendered.commands:
        # shlex.join only to show them; they are argv lists and run as such.
        parts.append("=== commands\n" + "".join(shlex.join(argv) + "\n" for argv in rendered.commands))
        parts.append("=== undo\n" + "".join(shlex.join(argv) + "\n" for argv in rendered.undo))
    for file in rendered.files:
        parts.append(f"=== {file.path} ({file.how})\n{file.content}")
    return "".join(parts)


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN_DIR / name
    if os.environ.get(UPDATE_VARIABLE) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return
    if not path.exists():
        pytest.fail(f"no golden file {path}; create it with {UPDATE_VARIABLE}=1 and review it")
    expected = path.read_bytes().decode("utf-8")
    assert text == expected, f"{name} differs from its golden file; if intended, rerun with {UPDATE_VARIABLE}=1"
