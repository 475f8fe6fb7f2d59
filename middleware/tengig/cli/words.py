"""API words into CLI words. An API error names API fields: its field path ('request.join') and, in its text,
any other field it asks for as `name: value` in backquotes (`join: N`, `system: "lab"`), as an API caller
writes it. A command that relays the API's errors says them with its own flags: '--join' and `--join N`,
`--system lab`. Only names the command has a flag for are changed; the rest stay as the API said them."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping

from ..errors import ValidationError

REFERENCE = re.compile(r"`([a-z_]+): ([^`]*)`")


def _value(text: str) -> str:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, str) else text


def cli_text(text: str, flags: Mapping[str, str]) -> str:
    """`join: N` -> `--join N`, `system: "lab"` -> `--system lab`, for each name in ``flags`` (API name -> flag)."""
    return REFERENCE.sub(lambda m: f"`{flags[m.group(1)]} {_value(m.group(2))}`" if m.group(1) in flags
                         else m.group(0), text)


def cli_field(field: str, flags: Mapping[str, str], prefix: str = "request.") -> str:
    name = field.removeprefix(prefix)
    return flags.get(name, field)


def in_cli_words(exc: ValidationError, flags: Mapping[str, str]) -> ValidationError:
    return ValidationError([(cli_field(f, flags), cli_text(m, flags)) for f, m in exc.errors])
