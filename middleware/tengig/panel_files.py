"""Where the built panel (the Vue app, ui/dist) is, for whatever serves it: `tengig serve`, the demo,
and the middlewared plugin at /_plugins/tengig/.

An installed wheel carries the panel as package data in tengig/panel/ (setup.py copies ui/dist there
at build time); a development checkout, where tengig is imported from middleware/ (editable install
or PYTHONPATH), has it in the repository's ui/dist once `make setup` (or `npm run build` in ui/) built it.
Both are plain directories on disk because the server hands files to sendfile, not through a loader.
"""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
PACKAGED_PANEL = PACKAGE_DIR / "panel"  # the name setup.py copies ui/dist to
CHECKOUT_PANEL = PACKAGE_DIR.parents[1] / "ui" / "dist"  # middleware/tengig -> the repository root


def panel_dir() -> Path | None:
    """The built panel: the packaged one if present, else the checkout's ui/dist, else None (not built).

    A directory counts only if it holds index.html, so a half-copied or never-built tree is not served."""
    for candidate in (PACKAGED_PANEL, CHECKOUT_PANEL):
        if (candidate / "index.html").is_file():
            return candidate
    return None
