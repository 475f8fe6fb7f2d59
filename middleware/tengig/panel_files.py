"""Where the built panel (the Vue app, ui/dist) is, and which of its files a request may have, for
whatever serves it: `tengig serve`, the demo, and the middlewared plugin at /_plugins/tengig/.

An installed wheel carries the panel as package data in tengig/panel/ (setup.py copies ui/dist there
at build time; the plugin installer does the same for a checkout); a development checkout, where
tengig is imported from middleware/ (editable install or PYTHONPATH), has it in the repository's
ui/dist once `make setup` (or `npm run build` in ui/) built it. Both are plain directories on disk
because the server hands files to sendfile, not through a loader.

``panel_file(root, name)`` is the file a URL path names, or None for anything that is not plainly a
file of the panel (a bad character, a ``..`` or hidden segment, an over-long name, a directory, a
symlink out of the tree): every host answers None with a 404, never an error.
"""
from __future__ import annotations

import re
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PACKAGED_PANEL = PACKAGE_DIR / "panel"  # the name setup.py copies ui/dist to
CHECKOUT_PANEL = PACKAGE_DIR.parents[1] / "ui" / "dist"  # middleware/tengig -> the repository root
MAX_NAME_LENGTH = 200
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*")


def panel_dir() -> Path | None:
    """The built panel: the packaged one if present, else the checkout's ui/dist, else None (not built).

    A directory counts only if it holds index.html, so a half-copied or never-built tree is not served."""
    for candidate in (PACKAGED_PANEL, CHECKOUT_PANEL):
        if (candidate / "index.html").is_file():
            return candidate
    return None


def panel_file(root: Path, name: str) -> Path | None:
    """The file of the panel at ``root`` that URL path ``name`` names ("" is index.html), or None."""
    name = name or "index.html"
    if len(name) > MAX_NAME_LENGTH or not _SAFE_NAME.fullmatch(name):
        return None
    base = root.resolve()
    target = (base / name).resolve()
    if base not in target.parents or not target.is_file():
        return None
    return target
