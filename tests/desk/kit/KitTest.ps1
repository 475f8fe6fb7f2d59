# Dot-sourced by every *.Tests.ps1 in BeforeAll: the rendered kit loaded as a script ($env:TENGIG_KIT_SCRIPT,
# written by tests/desk/test_kit_pester.py; dot-sourced, it defines its functions and runs nothing), under the
# kit's own Set-StrictMode -Version 2.0 and $ErrorActionPreference = 'Stop'.
. $env:TENGIG_KIT_SCRIPT
$script:KitFixtures = $env:TENGIG_KIT_FIXTURES  # tests/desk/fixtures
$script:KitCases = $env:TENGIG_KIT_CASES  # the cases the Python side wrote (its own verdicts)

function New-TestKit([hashtable]$Options = @{}, [switch]$Windows) {
    # The run's context as the kit makes it, its C# compiled; -Windows: the Windows side of the seam (its
    # cmdlets then mocked by the test).
    $kit = New-KitContext $KitConfig $Options $KitHelpers
    Import-KitHelpers $kit
    if ($Windows) { $kit.Windows = $true }
    $kit.NasAddresses = @('127.0.0.1')
    return $kit
}

function Get-KitCases([string]$name) {
    # A file of cases the Python side wrote, as the kit would read them from the NAS (ConvertFrom-Json).
    return @(Get-Content -Raw -LiteralPath (Join-Path $env:TENGIG_KIT_CASES $name) | ConvertFrom-Json)
}
