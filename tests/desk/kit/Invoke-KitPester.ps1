# Runs the Windows kit's Pester tests (tests/desk/test_kit_pester.py calls this under the vendored pwsh) and
# writes each test's outcome as JSON: [{ path, result, error }], path being Pester's ExpandedPath.
# -Discover: find the tests without running them (their names, for pytest's parametrize).
# -Then: a JSON file of more runs for this same process, after the first: [{ script, paths, out }], each against
# another rendering of the kit (its $env:TENGIG_KIT_SCRIPT); one PowerShell and one Pester serve them all.
param(
    [Parameter(Mandatory = $true)][string]$Out,
    [string[]]$Path = @($PSScriptRoot),
    [switch]$Discover,
    [string]$Then
)
Set-StrictMode -Version 2.0
$ErrorActionPreference = 'Stop'
Import-Module Pester -RequiredVersion 5.7.1

function Get-TestName($test) {
    # Its blocks and its name, a data-driven test's <key> filled from its data (discovery fills none)
    $name = [string]$test.Name
    if ($test.Data -is [System.Collections.IDictionary]) {
        foreach ($key in $test.Data.Keys) { $name = $name.Replace("<$key>", [string]$test.Data[$key]) }
    }
    return ((@($test.Path | Select-Object -SkipLast 1) + $name) -join ' / ')
}

function Invoke-KitRun([string[]]$Paths, [string]$To) {
    $config = New-PesterConfiguration
    $config.Run.Path = $Paths
    $config.Run.PassThru = $true
    $config.Run.SkipRun = [bool]$Discover
    $config.Output.Verbosity = 'None'
    $run = Invoke-Pester -Configuration $config
    $tests = @(foreach ($test in $run.Tests) {
            $errors = @(foreach ($record in $test.ErrorRecord) { "$record" })
            [ordered]@{ path = Get-TestName $test; result = [string]$test.Result; error = ($errors -join "`n") }
        })
    # containers that failed to load (a syntax error, a BeforeAll that threw) have no tests of their own
    $broken = @(foreach ($container in $run.Containers) {
            if ($container.Result -eq 'Failed' -and $container.ErrorRecord.Count -gt 0) {
                $errors = @($container.ErrorRecord | ForEach-Object { "$_" })
                [ordered]@{ path = [string]$container.Item; error = ($errors -join "`n") }
            }
        })
    $doc = [ordered]@{ tests = $tests; broken = $broken; failed = [int]$run.FailedCount
        passed = [int]$run.PassedCount }
    [System.IO.File]::WriteAllText($To, (ConvertTo-Json -InputObject $doc -Depth 5))
}

Invoke-KitRun $Path $Out
if ($Then) {
    foreach ($next in @(Get-Content -Raw -LiteralPath $Then | ConvertFrom-Json)) {
        $env:TENGIG_KIT_SCRIPT = $next.script
        Invoke-KitRun @($next.paths) $next.out
    }
}
