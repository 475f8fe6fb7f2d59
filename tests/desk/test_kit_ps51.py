"""The Windows kit uses nothing Windows PowerShell 5.1 lacks: PowerShell's own parser (the vendored pwsh's,
which reads 5.1 scripts) finds no syntax only PowerShell 7 has (?: && || ?? ??= ?. ?[]), and every command it
calls is one 5.1 (or Windows' own modules) has, with parameters 5.1 has (ps51_cmdlets.py, each with its
documentation page). A copy using 7-only syntax or parameters is caught. (Its C# is held to C# 5, what 5.1's
Add-Type compiles: test_kit_windows.py and test_kit_csharp_mono.py.)"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tengig.desk.kit import render_kit

from .ps51_cmdlets import CMDLETS_51, COMMON
from .pwsh import run_pwsh, vendor_archive

pytestmark = pytest.mark.skipif(vendor_archive() is None, reason="the vendored PowerShell is not here (set "
                                "TENGIG_VENDOR_DIR to the vendor directory)")
SYNTAX = Path(__file__).parent / "kit" / "Get-KitSyntax.ps1"
TOKEN = "tgb-" + "0123456789abcdef" * 3


def _kit() -> str:
    return render_kit(os_name="windows", nas="wss://nas.example.lan:8610", token=TOKEN, share="media",
                      fingerprint="AB" * 32)


def syntax_of(folder: Path, scripts: dict[str, str]) -> dict[str, dict]:
    """What PowerShell's parser finds in each of ``scripts`` (name -> text), read by one pwsh (each start
    costs seconds of CPU; the parse itself a fraction of one)."""
    calls = []
    for name, text in scripts.items():
        (folder / f"{name}.ps1").write_text(text)
        calls.append(f"& '{SYNTAX}' -Script '{folder / name}.ps1' -Out '{folder / name}.json'")
    done = run_pwsh(["-Command", "; ".join(calls)])
    assert done.returncode == 0, done.stdout + done.stderr
    return {name: json.loads((folder / f"{name}.json").read_text(encoding="utf-8-sig")) for name in scripts}


def not_in_51(found: dict) -> list[str]:
    """Each command or parameter the script names that 5.1 has not, with its line."""
    out = []
    for call in found["calls"]:
        name = call["name"]
        if name in found["defined"]:
            continue
        if name not in CMDLETS_51:
            out.append(f"{call['line']}: {name}")
            continue
        allowed = CMDLETS_51[name][1] | COMMON
        out += [f"{call['line']}: {name} -{p}" for p in call["parameters"] if p not in allowed]
    return out


# Syntax only PowerShell 7 has, each in place of a line of the kit: (the kit's line, its 7-only form, the AST
# node the parser gives it).
SEVEN_SYNTAX = {
    "ternary": ("$over = if ($nasAddress) {", "$over = $nasAddress ? 'x' : '' ; $unused = if ($nasAddress) {",
                "TernaryExpressionAst"),
    "null coalescing": ("$kind = [string](Get-Field $instruction 'kind')",
                        "$kind = [string](Get-Field $instruction 'kind') ?? 'done'", "BinaryExpressionAst"),
    "pipeline chain": ("Stop-Tool $Kit\n", "Stop-Tool $Kit && Write-Host 'stopped'\n", "PipelineChainAst"),
    "null-conditional member": ("$process = $Kit.Running\n", "$process = ${Kit}?.Running\n", "MemberExpressionAst"),
}
# A command or parameter 5.1 lacks, each in place of a line of the kit: (the kit's line, the 7-only form, how
# the check names it).
SEVEN_COMMANDS = {
    "AsHashtable": ("ConvertFrom-Json (Receive-Message $Kit $timeoutSeconds)",
                    "ConvertFrom-Json -AsHashtable (Receive-Message $Kit $timeoutSeconds)", "ConvertFrom-Json -AsHashtable"),
    "Parallel": ("ForEach-Object { ConvertTo-Argument $_ }", "ForEach-Object -Parallel { ConvertTo-Argument $_ }",
                 "ForEach-Object -Parallel"),
    "LeafBase": ("(Split-Path -Parent $iperf3)", "(Split-Path -LeafBase $iperf3)", "Split-Path -LeafBase"),
    "ProgressAction": ("Test-Path -LiteralPath $folder", "Test-Path -LiteralPath $folder -ProgressAction SilentlyContinue",
                       "Test-Path -ProgressAction"),
    "a 7-only cmdlet": ("Remove-Item -LiteralPath $folder", "Get-Error; Remove-Item -LiteralPath $folder", "Get-Error"),
}


@pytest.fixture(scope="module")
def parsed(tmp_path_factory) -> dict[str, dict]:
    """The kit as rendered ("kit") and each changed copy above (by its id), parsed by one pwsh."""
    kit = _kit()
    scripts = {"kit": kit}
    for case, (line, seven, _) in {**SEVEN_SYNTAX, **SEVEN_COMMANDS}.items():
        assert line in kit, f"{case}: the kit no longer has {line!r}"
        scripts[case] = kit.replace(line, seven, 1)
    folder = tmp_path_factory.mktemp("ps51")
    found = syntax_of(folder, {f"case{i}": text for i, text in enumerate(scripts.values())})
    return {case: found[f"case{i}"] for i, case in enumerate(scripts)}


def test_the_kit_uses_only_what_windows_powershell_51_has(parsed):
    found = parsed["kit"]
    assert found["errors"] == [] and found["newer"] == [] and not found["clean"]
    assert not_in_51(found) == []
    used = {c["name"] for c in found["calls"]} - set(found["defined"])
    assert {"Get-NetIPAddress", "Get-SmbMultichannelConnection", "ConvertTo-Json", "Add-Type"} <= used


@pytest.mark.parametrize("case", list(SEVEN_SYNTAX))
def test_syntax_only_powershell_7_has_is_caught(parsed, case):
    caught = SEVEN_SYNTAX[case][2]
    assert [n["type"] for n in parsed[case]["newer"]] == [caught]


@pytest.mark.parametrize("case", list(SEVEN_COMMANDS))
def test_a_command_or_parameter_powershell_51_lacks_is_caught(parsed, case):
    named = SEVEN_COMMANDS[case][2]
    assert [m.split(": ", 1)[1] for m in not_in_51(parsed[case])] == [named]
