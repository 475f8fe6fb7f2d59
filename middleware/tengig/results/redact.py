"""A stored run with its secrets taken out, for exports a person shares (JSON, CSV, Markdown): a value
under a key that names a secret (password, token, API key, credentials, auth), the word after a flag
that takes one (--token, --password, -K, smbclient's -U user%password), and then every other place the
same secret text appears (a tool that echoed it in its output) all become REDACTED. The database keeps
the run as it was; only what leaves through an export is redacted."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .models import RunRecord

REDACTED = "(redacted)"
SECRET_KEY = re.compile(r"(^|[_-])(password|passwd|pass|secret|token|api_?key|key_?file|credentials?|auth(_file)?)"
                        r"([_-]|$)", re.I)
SECRET_FLAGS = frozenset({"--token", "--password", "--passwd", "--api-key", "-K", "--secret", "--smb-password"})
USER_FLAGS = frozenset({"-U", "--user"})  # smbclient: -U user%password
SECRET_ASSIGNMENT = re.compile(r"^(--)?(password|passwd|pass|token|secret|api_?key)=(.+)$", re.I)
MIN_SEARCHED = 4  # shorter secrets are redacted where they are named, not searched for in all text


def secret_key(key: Any) -> bool:
    return isinstance(key, str) and SECRET_KEY.search(key) is not None


def _argv_secrets(argv: list[str]) -> set[str]:
    found = set()
    for i, arg in enumerate(argv):
        following = argv[i + 1] if i + 1 < len(argv) else None
        if arg in SECRET_FLAGS and following is not None:
            found.add(following)
        elif arg in USER_FLAGS and following is not None and "%" in following:
            found.add(following.split("%", 1)[1])
        elif m := SECRET_ASSIGNMENT.match(arg):
            found.add(m.group(3))
    return found


def _keyed_secrets(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, Mapping):
        for key, child in value.items():
            if secret_key(key) and isinstance(child, (str, int)) and not isinstance(child, bool):
                found.add(str(child))
            else:
                found |= _keyed_secrets(child)
    elif isinstance(value, list):
        for child in value:
            found |= _keyed_secrets(child)
    return found


def _scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, Mapping):
        return {k: (REDACTED if secret_key(k) and v is not None else _scrub(v, secrets)) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secrets) for v in value]
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
    return value


def redacted(run: RunRecord) -> RunRecord:
    """The run as it may be shared: every secret it holds (see the module's doc) replaced by REDACTED."""
    doc = run.model_dump(mode="json")
    secrets = _keyed_secrets(doc)
    for raw in doc["raw"]:
        secrets |= _argv_secrets(raw["argv"])
    searched = sorted((s for s in secrets if len(s) >= MIN_SEARCHED), key=len, reverse=True)
    for raw in doc["raw"]:  # the word after a secret flag, however short
        argv = raw["argv"]
        for i, arg in enumerate(argv):
            if i and argv[i - 1] in SECRET_FLAGS:
                argv[i] = REDACTED
            elif i and argv[i - 1] in USER_FLAGS and "%" in arg:
                argv[i] = arg.split("%", 1)[0] + "%" + REDACTED
            elif m := SECRET_ASSIGNMENT.match(arg):
                argv[i] = arg[: len(arg) - len(m.group(3))] + REDACTED
    return RunRecord.model_validate(_scrub(doc, searched))
