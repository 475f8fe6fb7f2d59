"""Golden files for rendered configs: compared byte for byte, rewritten only on request.

    TENGIG_UPDATE_GOLDEN=1 pytest tests/mesh     # rewrite, then review the diff before committing

Without the variable a missing or different golden file fails the test: nothing is ever
regenerated silently.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tengig.mesh import RenderedConfig

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "mesh" / "golden"
UPDATE_VARIABLE = "TENGIG_UPDATE_GOLDEN"


def dump(config: RenderedConfig) -> str:
    """One text per rendered config: every file with its path and how to apply it, then the API calls."""
    parts = [f"# host: {config.host}, flavour: {config.flavour}\n"]
    for file in config.files:
        parts.append(f"=== {file.path} ({file.how}, mode {file.mode})\n{file.content}")
    if config.api_calls:
        calls = [call.model_dump() for call in config.api_calls]
        parts.append("=== api calls\n" + json.dumps(calls, indent=2) + "\n")
    if config.warnings:
        parts.append("=== warnings\n" + "".join(f"{w}\n" for w in config.warnings))
    return "".join(parts)


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN_DIR / name
    if os.environ.get(UPDATE_VARIABLE) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return
    if not path.exists():
        pytest.fail(f"no golden file {path}; create it with {UPDATE_VARIABLE}=1 and review it")
    expected = path.read_bytes().decode("utf-8")  # bytes: CRLF or trailing blanks must not be normalised
    assert text == expected, f"{name} differs from its golden file; if the change is intended, rerun with {UPDATE_VARIABLE}=1"
