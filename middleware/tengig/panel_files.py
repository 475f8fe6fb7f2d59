"""Where the built panel is, and which of its files a request may have.

``panel_dir()``: the panel packaged inside tengig (a wheel), else the development checkout's
``ui/dist``, else None. ``panel_file(root, name)``: the file a URL path names, or None for anything
that is not plainly a file of the panel (a bad character, a ``..`` or hidden segment, an over-long
name, a directory, a symlink out of the tree): every host that serves the panel (``tengig serve``
and the middlewared plugin's ``/_plugins/tengig/``) answers None with a 404, never an error.
"""
from __future__ import annotations

import re
from pathlib import Path

PACKAGED_PANEL = Path(__file__).resolve().parent / "panel"
CHECKOUT_PANEL = Path(__file__).resolve().parents[2] / "ui" / "dist"
MAX_NAME_LENGTH = 200
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*")


def panel_dir() -> Path | None:
    for candidate in (PACKAGED_PANEL, CHECKOUT_PANEL):
        if (candidate / "index.html").is_file():
            return candidate
    return None


def panel_file(root: Path, name: str) -> Path | None:
    name = name or "index.html"
    if len(name) > MAX_NAME_LENGTH or not _SAFE_NAME.fullmatch(name):
        return None
    base = root.resolve()
    target = (base / name).resolve()
    if base not in target.parents or not target.is_file():
        return None
    return target
