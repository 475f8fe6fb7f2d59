"""The Windows kit read as PowerShell reads it, with tree-sitter-powershell (no Windows here): its
parameters, its functions and the commands each one calls, so a test checks what the script does, not
only which lines it holds. The C# it compiles with Add-Type is read with tree-sitter-c-sharp, and held
to C# 5 (what Windows PowerShell 5.1's Add-Type compiles: the .NET Framework's own compiler). ``as_powershell_51_reads`` turns the bytes of a .ps1 without a BOM into the
text Windows PowerShell 5.1 sees: the ANSI code page (cp1252 on a Western desktop), where every kind of
single quote ends a single-quoted string."""
from __future__ import annotations

from collections.abc import Iterator

import tree_sitter
import tree_sitter_c_sharp
import tree_sitter_powershell

from tengig.desk.kit import PS_QUOTES

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_powershell.language()))
_CSHARP = tree_sitter.Parser(tree_sitter.Language(tree_sitter_c_sharp.language()))
# What C# 6 and later added (string interpolation, ?., => members, out var, patterns, tuples, switch
# expressions): the compiler behind 5.1's Add-Type refuses them.
NEWER_THAN_CSHARP_5 = {"interpolated_string_expression", "conditional_access_expression", "arrow_expression_clause",
                       "declaration_expression", "is_pattern_expression", "tuple_expression", "switch_expression",
                       "local_function_statement", "nullable_directive", "raw_string_literal", "record_declaration"}
HELPERS_START, HELPERS_END = "$KitHelpers = @'\n", "\n'@\n"


def parse(script: str) -> tree_sitter.Node:
    """The script's syntax tree; it must parse without an error."""
    return _clean(_PARSER.parse(script.encode()).root_node)


def parse_csharp(source: str) -> tree_sitter.Node:
    """C# source's syntax tree; it must parse without an error and use nothing newer than C# 5."""
    root = _clean(_CSHARP.parse(source.encode()).root_node)
    newer = [(n.type, n.start_point) for n in walk(root) if n.type in NEWER_THAN_CSHARP_5]
    assert not newer, newer
    return root


def csharp_of(script: str) -> str:
    """The C# the kit gives Add-Type (its single-quoted here-string $KitHelpers)."""
    start = script.index(HELPERS_START) + len(HELPERS_START)
    return script[start:script.index(HELPERS_END, start)]


def _clean(root: tree_sitter.Node) -> tree_sitter.Node:
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
