"""Every exception class tengig defines is in the tree errors.py documents (a TengigError subclass under its
documented parent), or in its short list of exceptions kept outside the tree on purpose."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import tengig.errors

PACKAGE = Path(tengig.errors.__file__).parent
DOC = tengig.errors.__doc__
TREE = DOC.split("Not in the tree")[0]
OUTSIDE = DOC.split("Not in the tree")[1]
EXCEPTION_BASES = {"Exception", "BaseException", "TengigError"}


def defined_classes() -> dict[str, tuple[str, list[str]]]:
    """Every class tengig defines: name -> (module file, its base names as written)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases]
                found[node.name] = (path.relative_to(PACKAGE).as_posix(), bases)
    return found


def exception_classes() -> dict[str, tuple[str, list[str]]]:
    classes = defined_classes()
    out, grew = {}, True
    while grew:
        grew = False
        for name, (where, bases) in classes.items():
            if name not in out and any(b in EXCEPTION_BASES or b in out for b in bases):
                out[name] = (where, bases)
                grew = True
    return out


def documented_parent(name: str) -> str | None:
    """The parent the tree in errors.py draws for ``name`` (None: not in the tree): the nearest name above it
    that starts further left."""
    drawn = [(m.start(2), m.group(2)) for line in TREE.splitlines()
             if (m := re.match(r"^(\s*(?:\|\s*)*(?:\+-- )?)([A-Z]\w+)\b", line)) and line.startswith("    ")]
    for i, (column, drawn_name) in enumerate(drawn):
        if drawn_name == name and column > 4:
            return next((above for col, above in reversed(drawn[:i]) if col < column), None)
    return None


def test_every_exception_class_is_in_the_documented_tree_or_listed_outside_it():
    found = exception_classes()
    assert {"TengigError", "ValidationError", "ClientGone", "JoinError"} <= set(found)
    for name, (where, bases) in found.items():
        if name == "TengigError":
            continue
        if re.search(rf"\b{name}\b", OUTSIDE):
            assert "TengigError" not in bases, f"{name} ({where}) derives from TengigError: draw it in the tree"
            continue
        parent = documented_parent(name)
        assert parent is not None, f"{name} ({where}) is neither in errors.py's tree nor in its list of exceptions kept outside it"
        assert parent in bases, f"{name} ({where}) derives from {bases}, but errors.py draws it under {parent}"


def test_the_tree_names_no_class_that_does_not_exist():
    found = exception_classes()
    drawn = re.findall(r"\+-- (\w+)", TREE)
    assert drawn and [name for name in drawn if name not in found] == []
