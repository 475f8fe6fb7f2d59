"""The Windows kit read as PowerShell reads it, with tree-sitter-powershell (no Windows here): its
parameters, its functions and the commands each one calls, so a test checks what the script does, not
only which lines it holds. ``as_powershell_51_reads`` turns the bytes of a .ps1 without a BOM into the
text Windows PowerShell 5.1 sees: the ANSI code page (cp1252 on a Western desktop), where every kind of
single quote ends a single-quoted string."""
from __future__ import annotations

from collections.abc import Iterator

import tree_sitter
import tree_sitter_powershell

from tengig.desk.kit import PS_QUOTES

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_powershell.language()))


def parse(script: str) -> tree_sitter.Node:
    """The script's syntax tree; it must parse without an error."""
    root = _PARSER.parse(script.encode()).root_node
    bad = [n for n in walk(root) if n.type == "ERROR" or n.is_missing]
    assert not bad, [(n.start_point, n.text[:80]) for n in bad]
    return root


def as_powershell_51_reads(data: bytes) -> str:
    text = data.decode("cp1252", errors="replace")
    for quote in PS_QUOTES:
        text = text.replace(quote, "'")
    return text


def walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    yield node
    for child in node.children:
        yield from walk(child)


def text(node: tree_sitter.Node) -> str:
    return node.text.decode()


def parameters(root: tree_sitter.Node) -> dict[str, str]:
    """The script's own parameters: {'$Name': '[type]'}."""
    [block] = [n for n in root.named_children if n.type == "param_block"]
    out = {}
    for param in (n for n in walk(block) if n.type == "script_parameter"):
        types = [text(n) for n in walk(param) if n.type == "type_literal"]
        [name] = [text(n) for n in param.named_children if n.type == "variable"]
        out[name] = types[0] if types else ""
    return out


def functions(root: tree_sitter.Node) -> dict[str, tree_sitter.Node]:
    return {text(n.child_by_field_name("name") or next(c for c in n.named_children if c.type == "function_name")): n
            for n in walk(root) if n.type == "function_statement"}


def commands(node: tree_sitter.Node) -> list[str]:
    """Every command the node calls (functions of the script, cmdlets, programs), in order."""
    return [text(n) for n in walk(node) if n.type == "command_name"]


def top_level_commands(root: tree_sitter.Node) -> list[str]:
    """The commands the script runs outside its functions."""
    inside = {n.id for f in functions(root).values() for n in walk(f)}
    return [text(n) for n in walk(root) if n.type == "command_name" and n.id not in inside]
