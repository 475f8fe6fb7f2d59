# What the kit's script uses, read by PowerShell's own parser (tests/desk/test_kit_ps51.py checks it against
# Windows PowerShell 5.1): the parse errors, the syntax only PowerShell 7 has, the functions it defines, and
# every command it calls with the parameters it names. Writes JSON to -Out.
param([Parameter(Mandatory = $true)][string]$Script, [Parameter(Mandatory = $true)][string]$Out)
Set-StrictMode -Version 2.0
$ErrorActionPreference = 'Stop'
$tokens = $null
$errors = $null
$ast = [System.Management.Automation.Language.Parser]::ParseFile($Script, [ref]$tokens, [ref]$errors)
$language = 'System.Management.Automation.Language'
$newer = @($ast.FindAll({
            param($node)
            $type = $node.GetType().Name
            # ?: (7.0), && and || (7.0), ?? and ??= (7.0), ?. and ?[] (7.1)
            ($type -eq 'TernaryExpressionAst') -or ($type -eq 'PipelineChainAst') -or
            ($node -is [System.Management.Automation.Language.BinaryExpressionAst] -and $node.Operator -eq 'QuestionQuestion') -or
            ($node -is [System.Management.Automation.Language.AssignmentStatementAst] -and $node.Operator -eq 'QuestionQuestionEquals') -or
            ($null -ne $node.PSObject.Properties['NullConditional'] -and $node.NullConditional)
        }, $true) | ForEach-Object { [ordered]@{ type = $_.GetType().Name; line = $_.Extent.StartLineNumber; text = $_.Extent.Text } })
$defined = @($ast.FindAll({ param($node) $node -is [System.Management.Automation.Language.FunctionDefinitionAst] }, $true) |
        ForEach-Object { $_.Name })
$calls = @($ast.FindAll({ param($node) $node -is [System.Management.Automation.Language.CommandAst] }, $true) | ForEach-Object {
        [ordered]@{ name = $_.GetCommandName(); line = $_.Extent.StartLineNumber
            parameters = @($_.CommandElements | Where-Object { $_ -is [System.Management.Automation.Language.CommandParameterAst] } |
                    ForEach-Object { $_.ParameterName }) }
    })
$doc = [ordered]@{ errors = @($errors | ForEach-Object { "$($_.Extent.StartLineNumber): $($_.Message)" }); newer = $newer
    defined = $defined; calls = $calls; clean = [bool]($null -ne $ast.PSObject.Properties['CleanBlock'] -and $null -ne $ast.CleanBlock) }
[System.IO.File]::WriteAllText($Out, (ConvertTo-Json -InputObject $doc -Depth 5))
