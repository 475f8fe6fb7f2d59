"""Each tool's output is read in one place: `ip -s -j link`'s JSON (its stats64 counters, its carrier changes)
by backends/linux/link_stats.py, and ZFS's ARC statistics on Linux (OpenZFS's /proc/spl/kstat/zfs/arcstats
table, zfs-fuse's kstat mount of one file per value) by backends/linux/arcstats.py; each parser is tested
against its recorded output in tests/fixtures (ip/, arcstats/). A second reader elsewhere, which drifts from
the first the day the output changes, fails here."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tengig.backends.linux.arcstats import parse_arcstats, parse_kstat_files, parse_kstat_grep, read_kstat_dir
from tengig.backends.linux.link_stats import parse_carrier_changes, parse_ip_link_stats


PACKAGE = Path(__file__).resolve().parents[2] / "middleware" / "tengig"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# What only a reader of each output has to spell out in its code.
MARKS = {"stats64": "backends/linux/link_stats.py", "kstat/zfs/arcstats": "backends/linux/arcstats.py"}


def _code_strings(path: Path) -> set[str]:
    """The string constants of a module's code, its docstrings left out (prose may name the output)."""
    tree = ast.parse(path.read_text())
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs}


@pytest.mark.parametrize("mark, home", MARKS.items())
def test_one_module_reads_each_output(mark, home):
    readers = {p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
               if any(mark in s and " " not in s for s in _code_strings(p))}  # a path or key, not prose
    assert readers == {home}


def test_a_port_s_counters_and_carrier_changes_from_recorded_ip():
    stats = parse_ip_link_stats((FIXTURES / "ip" / "link-stats.json").read_text())
    assert all(rx >= 0 and tx >= 0 for rx, tx in stats.values()) and "lo" in stats
    detailed = (FIXTURES / "ip" / "link-stats-detailed.json").read_text()
    assert parse_carrier_changes(detailed) == 0  # lo never lost its carrier
    assert parse_carrier_changes((FIXTURES / "ip" / "link-stats.json").read_text()) is None  # one -s: not said


def test_zfs_fuse_kstat_read_from_its_files_or_through_grep_alike():
    """The NAS reads zfs-fuse's kstat files with `grep -H "" FILE...`, a machine its own: the same values."""
    folder = FIXTURES / "arcstats" / "zfs-fuse"
    grep = "".join(f"/zfs-kstat/zfs/arcstats/{f.name}:{f.read_text().strip()}\n" for f in sorted(folder.iterdir()))
    assert parse_kstat_grep(grep) == read_kstat_dir(folder) == parse_kstat_files(
        (f.name, f.read_text()) for f in folder.iterdir())
    assert read_kstat_dir(folder)["c_max"] == 104857600
    assert parse_arcstats((FIXTURES / "arcstats" / "openzfs.txt").read_text())["c_max"] == 8252659712
