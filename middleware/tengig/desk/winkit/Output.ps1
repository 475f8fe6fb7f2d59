# -- what the kit says, and why something failed --------------------------------------------------------
function Format-Shown($Kit, [string]$line) {
    # Text as it may be printed (it quotes the NAS): control and bidi characters escaped, ESC as \x1b.
    return [regex]::Replace($line, $Kit.ControlPattern, {
            param($m)
            $code = [int][char]$m.Value
            if ($code -le 0xFF) { return ('\x{0:x2}' -f $code) }
            return ('\u{0:x4}' -f $code)
        })
}

function Write-Say($Kit, [string]$line) { Write-Host "[client] $(Format-Shown $Kit $line)" }

function Write-KitError($Kit, [string]$line) {
    # The kit's last words, on stderr.
    [Console]::Error.WriteLine("[client] error: $(Format-Shown $Kit $line)")
}

function Format-Error($exception) {
    # What went wrong, down to its cause: "One or more errors occurred." and "Exception calling ..." wrap the
    # error that says something; each message once, outermost first, and why the NAS's certificate was refused.
    $messages = New-Object 'System.Collections.Generic.List[string]'
    for ($e = $exception; $null -ne $e; $e = $e.InnerException) {
        if ($e -is [System.AggregateException] -or $e -is [System.Reflection.TargetInvocationException] -or
            $e -is [System.Management.Automation.MethodInvocationException]) { continue }
        $text = ([string]$e.Message).Trim()
        if ($text.Length -gt 0 -and -not $messages.Contains($text)) { $messages.Add($text) }
    }
    if ($messages.Count -eq 0) { $messages.Add(([string]$exception.Message).Trim()) }
    $refused = if ($null -ne ('TengigKit.Trust' -as [type])) { [TengigKit.Trust]::Refused } else { '' }
    if ($refused) { $messages.Add("the NAS's certificate: $refused") }
    return ($messages -join ': ')
}

# -- what PowerShell cannot do alone: C#, compiled here by Add-Type (no download) ------------------------
# Trust: the NAS's certificate by its fingerprint (or -CaFile). Guard: every tool the kit starts dies with
# it, its work files go. Share: -Credential's connection to the share (what `net use` does).
# UnbufferedReader/Writer: files read and written unbuffered. SmallSet: the small-file test's files, each
# file's calls timed apart. PeerRule: a mesh verify's cable to another desktop.
function Import-KitHelpers($Kit) {
    if ($null -ne ('TengigKit.Guard' -as [type])) { return }  # run again in the same PowerShell
    try {
        Add-Type -TypeDefinition $Kit.CSharp
    } catch {
        $why = Format-Error $_.Exception
        if ($ExecutionContext.SessionState.LanguageMode -ne 'FullLanguage') {
            throw ("this kit compiles a few lines of C# with Add-Type (to trust the NAS's certificate, stop its " +
                "tools, read the share unbuffered and time small files), and PowerShell's " +
                "$($ExecutionContext.SessionState.LanguageMode) (AppLocker, Device Guard) forbids it: run the kit " +
                "where it is allowed ($why)")
        }
        throw "this kit's C# did not compile in this PowerShell $($PSVersionTable.PSVersion) (a bug of tengig: please report it): $why"
    }
}
