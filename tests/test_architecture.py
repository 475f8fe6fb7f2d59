"""Arrows point down only: the import graph between tengig's packages follows the layers below, and
has no cycle. An upward import tolerated for a while is listed one by one (KNOWN_UPWARD, empty
today) and may only disappear: a new one fails this test, and so does a listed one that is gone.

Layers, low to high (a package may import its own layer's core and anything lower):
  0 core        errors, units, names, runner, nic (the NIC model), checkin, panel_files, __version__,
                changes (a change as data), hostsblock (tengig's lines in hosts files), ping (probe),
                text (remote text as it may be printed)
  1 client      the TrueNAS protocol client (backends use it)
  2 backends    what acts on a system: Linux, TrueNAS, FreeBSD
  3 capabilities, in this order: verdict < results < bench < mesh < lagg
  4 lab         the lab beside the capabilities (their systems, built for real)
  5 systems     the one resolver of where to act
  6 api         typed models and thin services
  7 hosts       server, plugin_spec, plugin_conformance
  8 outer       standin, plugin_install, app_compose, cli
"""
from __future__ import annotations

import ast
import shutil
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "middleware" / "tengig"

RANKS = {
    "(root)": 0, "__version__": 0, "errors": 0, "units": 0, "names": 0, "runner": 0, "nic": 0, "checkin": 0,
    "panel_files": 0, "changes": 0, "hostsblock": 0, "ping": 0, "text": 0,
    "client": 1,
    "backends": 2,
    "verdict": 3.0, "results": 3.1, "bench": 3.2, "mesh": 3.3, "lagg": 3.4,
    "lab": 4, "desk": 4.5,
    "systems": 5,
    "api": 6,
    "server": 7, "plugin_spec": 7, "plugin_conformance": 7.1,
    "standin": 8, "plugin_install": 8, "app_compose": 8, "cli": 9, "__main__": 10,
}

# (importing file relative to middleware/tengig, imported package): upward imports tolerated while
# they are being removed; none today (the shared vocabulary lives in changes.py, hostsblock.py and
# backends/{scratch,arcstats,commands}.py, below the capabilities that use it).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _package_of(parts: tuple[str, ...]) -> str:
    """('bench', 'pool.py') -> 'bench'; ('errors.py',) -> 'errors'; ('__init__.py',) -> '(root)'."""
    first = parts[0].removesuffix(".py")
    return "(root)" if first == "__init__" else first


def imports_between_packages(root: Path) -> list[tuple[str, str, str]]:
    """(file relative to root, its package, imported tengig package) for every import that crosses
    packages, relative or absolute, at module level or inside functions."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        src = _package_of(rel.parts)
        module = ["tengig", *rel.with_suffix("").parts]
        if module[-1] == "__init__":
            module = module[:-1]
        package = module if path.name == "__init__.py" else module[:-1]
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            targets: list[list[str]] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)]
                    if node.module:
                        targets = [base + node.module.split(".")]
                    else:
                        targets = [base + [alias.name] for alias in node.names]
                elif node.module and node.module.split(".")[0] == "tengig":
                    targets = [node.module.split(".")]
            elif isinstance(node, ast.Import):
                targets = [alias.name.split(".") for alias in node.names if alias.name.split(".")[0] == "tengig"]
            for target in targets:
                dst = "(root)" if len(target) == 1 else target[1]
                if dst != src:
                    found.append((rel.as_posix(), src, dst))
    return found


def upward(root: Path) -> set[tuple[str, str]]:
    out = set()
    for rel, src, dst in imports_between_packages(root):
        if src not in RANKS or dst not in RANKS:
            out.add((rel, f"{dst} (a package with no layer: add it to RANKS)"))
        elif RANKS[dst] > RANKS[src] or (RANKS[dst] == RANKS[src] and int(RANKS[src]) != 0):
            out.add((rel, dst))
    return out


def cycles(root: Path, ignore: set[tuple[str, str]]) -> list[list[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for rel, src, dst in imports_between_packages(root):
        if (rel, dst) not in ignore:
            edges[src].add(dst)
    found, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(edges[node]):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return found


def test_every_package_has_a_layer():
    packages = {_package_of(p.relative_to(PACKAGE).parts) for p in PACKAGE.rglob("*.py")}
    assert sorted(packages - set(RANKS)) == []


def test_no_new_upward_import():
    assert sorted(upward(PACKAGE) - KNOWN_UPWARD) == []


def test_known_upward_imports_still_exist():
    """A fixed one must leave the list, so the list only shrinks."""
    assert sorted(KNOWN_UPWARD - upward(PACKAGE)) == []


def test_no_cycle_between_packages_besides_the_known_upward_imports():
    assert cycles(PACKAGE, KNOWN_UPWARD) == []


def test_a_deliberately_added_upward_import_fails(tmp_path):
    """The check itself: one upward import added to a copy of the package is reported, with its cycle."""
    copy = tmp_path / "tengig"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "panel"))
    target = copy / "verdict" / "judge.py"
    target.write_text(target.read_text() + "\n\ndef _late():\n    from ..api.services import bench  # noqa\n")
    assert upward(copy) - KNOWN_UPWARD == {("verdict/judge.py", "api")}
    assert any(cycle[0] == "api" or "verdict" in cycle for cycle in cycles(copy, KNOWN_UPWARD))
