"""panel_dir(): the packaged panel wins over the checkout's ui/dist, and a directory without
index.html (not built, half copied) is no panel at all."""
from pathlib import Path

import pytest

from tengig import panel_files
from tengig.panel_files import panel_dir


@pytest.fixture
def places(tmp_path, monkeypatch) -> tuple[Path, Path]:
    packaged, checkout = tmp_path / "site-packages" / "tengig" / "panel", tmp_path / "repo" / "ui" / "dist"
    monkeypatch.setattr(panel_files, "PACKAGED_PANEL", packaged)
    monkeypatch.setattr(panel_files, "CHECKOUT_PANEL", checkout)
    return packaged, checkout


def _build(directory: Path) -> Path:
    directory.mkdir(parents=True)
    (directory / "index.html").write_text('<div id="app"></div>\n')
    return directory


def test_the_packaged_panel_wins_over_the_checkout(places):
    packaged, checkout = places
    _build(checkout)
    assert panel_dir() == checkout
    _build(packaged)
    assert panel_dir() == packaged


def test_no_index_html_is_no_panel(places):
    packaged, checkout = places
    assert panel_dir() is None
    (packaged / "assets").mkdir(parents=True)
    checkout.mkdir(parents=True)
    assert panel_dir() is None


def test_in_this_checkout_it_is_ui_dist_when_built():
    repo_dist = Path(__file__).resolve().parents[2] / "ui" / "dist"
    assert panel_files.CHECKOUT_PANEL == repo_dist
    assert panel_dir() == (repo_dist if (repo_dist / "index.html").is_file() else None)
