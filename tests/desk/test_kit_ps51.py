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


def syntax(tmp_path: Path, script: str) -> dict:
    (tmp_path / "kit.ps1").write_text(script)
    done = run_pwsh(["-File", str(SYNTAX), "-Script", str(tmp_path / "kit.ps1"), "-Out", str(tmp_path / "syntax.json")])
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((tmp_path / "syntax.json").read_text(encoding="utf-8-sig"))


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


def test_the_kit_uses_only_what_windows_powershell_51_has(tmp_path):
    found = syntax(tmp_path, _kit())
    assert found["errors"] == [] and found["newer"] == [] and not found["clean"]
    assert not_in_51(found) == []
    used = {c["name"] for c in found["calls"]} - set(found["defined"])
    assert {"Get-NetIPAddress", "Get-SmbMultichannelConnection", "ConvertTo-Json", "Add-Type"} <= used


@pytest.mark.parametrize("change, caught", [
    ("$over = if ($nasAddress) {", "TernaryExpressionAst"),
    ("$kind = [string](Get-Field $instruction 'kind')", "BinaryExpressionAst"),
    ("Stop-Tool $Kit\n", "PipelineChainAst"),
    ("$process = $Kit.Running\n", "MemberExpressionAst"),
], ids=["ternary", "null coalescing", "pipeline chain", "null-conditional member"])
def test_syntax_only_powershell_7_has_is_caught(tmp_path, change, caught):
    script = _kit()
    seven = {"TernaryExpressionAst": "$over = $nasAddress ? 'x' : '' ; $unused = if ($nasAddress) {",
             "BinaryExpressionAst": "$kind = [string](Get-Field $instruction 'kind') ?? 'done'",
             "PipelineChainAst": "Stop-Tool $Kit && Write-Host 'stopped'\n",
             "MemberExpressionAst": "$process = ${Kit}?.Running\n"}[caught]
    assert change in script
    found = syntax(tmp_path, script.replace(change, seven, 1))
    assert [n["type"] for n in found["newer"]] == [caught]


@pytest.mark.parametrize("change, seven, named", [
    ("ConvertFrom-Json (Receive-Message $Kit $timeoutSeconds)", "ConvertFrom-Json -AsHashtable (Receive-Message $Kit $timeoutSeconds)",
     "ConvertFrom-Json -AsHashtable"),
    ("ForEach-Object { ConvertTo-Argument $_ }", "ForEach-Object -Parallel { ConvertTo-Argument $_ }", "ForEach-Object -Parallel"),
    ("(Split-Path -Parent $iperf3)", "(Split-Path -LeafBase $iperf3)", "Split-Path -LeafBase"),
    ("Test-Path -LiteralPath $folder", "Test-Path -LiteralPath $folder -ProgressAction SilentlyContinue", "Test-Path -ProgressAction"),
    ("Remove-Item -LiteralPath $folder", "Get-Error; Remove-Item -LiteralPath $folder", "Get-Error"),
], ids=["AsHashtable", "Parallel", "LeafBase", "ProgressAction", "a 7-only cmdlet"])
def test_a_command_or_parameter_powershell_51_lacks_is_caught(tmp_path, change, seven, named):
    script = _kit()
    assert change in script
    missing = not_in_51(syntax(tmp_path, script.replace(change, seven, 1)))
    assert [m.split(": ", 1)[1] for m in missing] == [named]
