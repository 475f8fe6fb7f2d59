"""A request given as a JSON file on the command line (`--request FILE`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import ValidationError


def read_request_file(path: str, option: str = "--request") -> Any:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ValidationError.one(option, f"cannot read a JSON request from {path}: {exc}") from exc
