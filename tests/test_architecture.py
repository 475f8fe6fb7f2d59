"""Arrows point down only: the import graph between tengig's packages follows the layers below, and
has no cycle. An upward import tolerated for a while is listed one by one (KNOWN_UPWARD, empty
today) and may only disappear: a new one fails this test, and so does a listed one that is gone.

Layers, low to high (a package may import its own layer's core and anything lower):
  0 core        errors, units, names, runner (and process_tree, what it kills), nic (the NIC model), checkin,
                panel_files, __version__,
                changes (a change as data), hostsblock (tengig's lines in hosts files), ping (probe),
                text (remote text as it may be printed)
  0.5 join_protocol  the contract between the NAS's run and a joining desktop (messages, limits, names, the
                lines a desktop prints, answers in parts): bench/ and desk/ both import it, and desk/
                imports nothing of bench/ (test_the_desktop_client_imports_nothing_of_bench)
  1 client      the TrueNAS protocol client (backends use it)
  2 backends    what acts on a system: Linux, TrueNAS, FreeBSD
  3 capabilities, in this order: verdict < results < bench < mesh < lagg < fix
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
    "(root)": 0, "__version__": 0, "errors": 0, "units": 0, "names": 0, "runner": 0, "process_tree": 0, "nic": 0,
    "checkin": 0, "panel_files": 0, "changes": 0, "hostsblock": 0, "ping": 0, "text": 0,
    "join_protocol": 0.5,
    "client": 1,
    "backends": 2,
    "verdict": 3.0, "results": 3.1, "bench": 3.2, "mesh": 3.3, "lagg": 3.4, "fix": 3.5,
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


_TREES: dict[str, ast.Module] = {}


def parsed(path: Path) -> ast.Module:
    """``path``'s syntax tree, parsed once per text: every test here walks the whole package, and the tests
    that add an import walk a copy of it whose files but one are the same."""
    text = path.read_text()
    if text not in _TREES:
        _TREES[text] = ast.parse(text, filename=str(path))
    return _TREES[text]


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
        for node in ast.walk(parsed(path)):
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


def cycles_in(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every circle a depth-first walk of ``edges`` meets (each as the path that closes it)."""
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


def cycles(root: Path, ignore: set[tuple[str, str]]) -> list[list[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for rel, src, dst in imports_between_packages(root):
        if (rel, dst) not in ignore:
            edges[src].add(dst)
    return cycles_in(edges)


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


# Inside bench/, subpackages by what changes together, low to high: a subpackage imports its own modules
# and lower ones only. The tool-output parsers import nothing else of bench; bench's own modules (context,
# hosts, stats: what every measurement is run with) sit above them; the measurement phases on the NAS use
# both; the NAS's side of the join session uses the phases; the run (the suite, its report, the run over the
# API) uses everything.
BENCH_RANKS = {"parse": 0, "(bench)": 1, "phases": 2, "join": 3, "run": 4}


def _type_checking_only(tree: ast.AST) -> set[ast.AST]:
    """The imports under ``if TYPE_CHECKING:``: they never run, so they make no cycle."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            for child in node.body:
                skipped.update(ast.walk(child))
    return skipped


def imports_between_modules(root: Path, *, type_checking: bool = False) -> list[tuple[str, str]]:
    """(importing module, imported module) as dotted names under tengig, for every import of a tengig
    module anywhere in a file (functions too; the ones for type checkers only when ``type_checking``). ``from .x import y``
    names module x.y when y is a module, else x; a package stands for its ``__init__``."""
    def exists(parts: list[str]) -> bool:
        path = root.joinpath(*parts[1:])
        return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()

    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        module = ["tengig", *rel.with_suffix("").parts]
        if module[-1] == "__init__":
            module = module[:-1]
        package = module if path.name == "__init__.py" else module[:-1]
        tree = parsed(path)
        skipped = set() if type_checking else _type_checking_only(tree)
        for node in ast.walk(tree):
            if node in skipped:
                continue
            targets: list[list[str]] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - (node.level - 1)]
                    base = base + node.module.split(".") if node.module else base
                elif node.module and node.module.split(".")[0] == "tengig":
                    base = node.module.split(".")
                else:
                    continue
                subs = [base + [alias.name] for alias in node.names if exists(base + [alias.name])]
                targets = subs if len(subs) == len(node.names) else [base, *subs]
            elif isinstance(node, ast.Import):
                targets = [alias.name.split(".") for alias in node.names if alias.name.split(".")[0] == "tengig"]
            for target in targets:
                if target != module:
                    found.append((".".join(module), ".".join(target)))
    return found


def module_cycles(root: Path, *, type_checking: bool = False) -> list[list[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for src, dst in imports_between_modules(root, type_checking=type_checking):
        edges[src].add(dst)
    return cycles_in(edges)


def _bench_part(module: str) -> str | None:
    """'tengig.bench.parse.fio_parse' -> 'parse'; 'tengig.bench.context' -> '(bench)'; outside bench: None."""
    parts = module.split(".")
    if parts[:2] != ["tengig", "bench"]:
        return None
    return parts[2] if len(parts) > 3 else "(bench)"


def bench_layer_breaches(root: Path) -> set[tuple[str, str]]:
    out = set()
    for src, dst in imports_between_modules(root):
        a, b = _bench_part(src), _bench_part(dst)
        if a is None or b is None or a == b:
            continue
        if a not in BENCH_RANKS or b not in BENCH_RANKS:
            out.add((src, f"{dst} (a part of bench with no layer: add it to BENCH_RANKS)"))
        elif BENCH_RANKS[b] > BENCH_RANKS[a]:
            out.add((src, dst))
    return out


def test_no_cycle_between_modules():
    """No module imports one that imports it back, directly or around a longer circle, even from inside
    a function: a circle forces the late import that hides it."""
    assert module_cycles(PACKAGE) == []


def test_no_two_modules_need_each_other_even_for_types_only():
    """A circle drawn only for a type checker (an import under TYPE_CHECKING) still ties two modules together:
    neither can be read, moved or tested without the other. What both need lives in one of them, or below."""
    assert module_cycles(PACKAGE, type_checking=True) == []


def test_bench_modules_all_sit_in_a_layer():
    parts = {_bench_part(".".join(["tengig", *p.relative_to(PACKAGE).with_suffix("").parts]))
             for p in (PACKAGE / "bench").rglob("*.py")}
    assert sorted(parts - set(BENCH_RANKS)) == []


def test_bench_subpackages_import_down_only():
    assert sorted(bench_layer_breaches(PACKAGE)) == []


def test_a_deliberately_added_circle_and_upward_bench_import_fail(tmp_path):
    """The checks themselves: a parser that imports the run is reported, and so is the circle it makes."""
    copy = tmp_path / "tengig"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "panel"))
    target = copy / "bench" / "parse" / "fio_parse.py"
    target.write_text(target.read_text() + "\n\ndef _late():\n    from ..run import record  # noqa\n")
    assert bench_layer_breaches(copy) == {("tengig.bench.parse.fio_parse", "tengig.bench.run.record")}
    assert any("tengig.bench.parse.fio_parse" in cycle for cycle in module_cycles(copy))


# The desktop's side of a joined run: its client (desk/, the Windows kit it renders) and the CLI that starts it.
DESKTOP_SIDE = ("tengig.desk", "tengig.cli.client_commands")


def desktop_imports_of_bench(root: Path) -> set[tuple[str, str]]:
    """(module of the desktop's side, module of bench/ it imports): what the two share lives in join_protocol."""
    return {(src, dst) for src, dst in imports_between_modules(root)
            if (src in DESKTOP_SIDE or src.startswith("tengig.desk.")) and dst.split(".")[:2] == ["tengig", "bench"]}


def test_the_desktop_client_imports_nothing_of_bench():
    assert sorted(desktop_imports_of_bench(PACKAGE)) == []


def test_a_deliberately_added_bench_import_in_desk_fails(tmp_path):
    """The check itself: the desktop's client reaching into bench/ again, even late inside a function, is reported."""
    copy = tmp_path / "tengig"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "panel"))
    target = copy / "desk" / "peer_rule.py"
    target.write_text(target.read_text() + "\n\ndef _late():\n    from ..bench.phases.network import wait_listening  # noqa\n")
    assert desktop_imports_of_bench(copy) == {("tengig.desk.peer_rule", "tengig.bench.phases.network")}
