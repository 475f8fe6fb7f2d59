# -- running a tool: argv, a timeout, what it printed -------------------------------------------------
function ConvertTo-Argument([string]$arg) {
    # One argument of a Windows command line, as the C runtime's parser reads it back.
    if ($arg.Length -gt 0 -and $arg -notmatch '[\s"]') { return $arg }
    $escaped = [regex]::Replace($arg, '(\\*)"', '$1$1\"')
    $escaped = [regex]::Replace($escaped, '(\\+)\z', '$1$1')
    return '"' + $escaped + '"'
}

function Limit-Text([string]$text, [int]$chars, [switch]$Tail) {
    if ($text.Length -le $chars) { return $text }
    if ($Tail) { return $text.Substring($text.Length - $chars) }
    return $text.Substring(0, $chars)
}

function Invoke-Tool($Kit, [string[]]$argv, [double]$timeoutSeconds) {
    $start = New-Object System.Diagnostics.ProcessStartInfo
    $start.FileName = $argv[0]
    $start.Arguments = (@($argv | Select-Object -Skip 1 | ForEach-Object { ConvertTo-Argument $_ })) -join ' '
    $start.UseShellExecute = $false
    $start.RedirectStandardOutput = $true
    $start.RedirectStandardError = $true
    $start.CreateNoWindow = $true
    $clock = [System.Diagnostics.Stopwatch]::StartNew()
    try {
        $process = [System.Diagnostics.Process]::Start($start)
    } catch {
        return @{ exit_code = 127; stderr = "$($argv[0]) could not be started: $(Format-Error $_.Exception)"; argv = @() }
    }
    # In the kit's job (it dies with the kit, however the kit ends), and known to the kit's finally block.
    [void][TengigKit.Guard]::Adopt($process)
    $Kit.Running = $process
    try {
        $stdout = $process.StandardOutput.ReadToEndAsync()
        $stderr = $process.StandardError.ReadToEndAsync()
        while (-not $process.WaitForExit(200)) {
            Step-Socket $Kit 300
            if ($clock.Elapsed.TotalSeconds -gt $timeoutSeconds) {
                Stop-Tool $Kit
                return @{ exit_code = 124; stderr = "$($argv[0]) did not finish within $timeoutSeconds s"; argv = @() }
            }
        }
        $process.WaitForExit()
        $result = @{ exit_code = $process.ExitCode; stdout = $stdout.Result; stderr = (Limit-Text $stderr.Result 4096 -Tail);
            argv = $argv; seconds = $clock.Elapsed.TotalSeconds }
        # .NET on Linux cannot read an exited process's CPU time (PowerShell gives $null): the NAS says unknown
        $cpu = $process.TotalProcessorTime
        if ($null -ne $cpu) { $result.cpu_seconds = $cpu.TotalSeconds }
        return $result
    } finally {
        Stop-Tool $Kit  # Ctrl-C, the NAS gone, an error: the tool does not outlive its instruction
    }
}

function Stop-Tool($Kit) {
    $process = $Kit.Running
    $Kit.Running = $null
    if ($null -eq $process) { return }
    try {
        if (-not $process.HasExited) { $process.Kill(); [void]$process.WaitForExit(5000) }
    } catch { }
}

function Compress-Iperf3($Kit, [string]$stdout) {
    # iperf3 -J of many streams can pass the NAS's frame limit: drop the per-second intervals then (the
    # NAS reads only start and end), as tengig client join does.
    if ($stdout.Length -le $Kit.FrameBudget) { return $stdout }
    try {
        $doc = ConvertFrom-Json $stdout
        $doc.PSObject.Properties.Remove('intervals')
        return (ConvertTo-Json -Compress -Depth 32 -InputObject $doc)
    } catch {
        return $stdout
    }
}

function Test-Iperf3($Kit) {
    # iperf3 is there and runs (a build that misses a DLL it needs starts and dies at once): checked
    # before joining, not found out in the middle of the run.
    $iperf3 = $Kit.Iperf3
    if ($Kit.Windows -and -not (Test-Path -LiteralPath $iperf3 -PathType Leaf)) {
        throw ("-Iperf3: there is no $iperf3; put iperf3.exe (3.x, with the DLLs that come with it, such as " +
            "cygwin1.dll) beside this script, or give its path with -Iperf3")
    }
    $probe = Invoke-Tool $Kit @($iperf3, '--version') 30
    $printed = "$($probe['stdout'])$($probe['stderr'])".Trim()
    if ($probe.exit_code -eq $Kit.StatusDllNotFound) {
        throw ("$iperf3 cannot start: a DLL it needs is missing (0xC0000135); copy the DLLs that came with it " +
            "(such as cygwin1.dll) into $(Split-Path -Parent $iperf3)")
    }
    if ($probe.exit_code -ne 0 -or $printed -notmatch '\Aiperf 3\.') {
        $code = if ($probe.exit_code -lt 0) { '0x{0:X8}' -f $probe.exit_code } else { [string]$probe.exit_code }
        throw ("$iperf3 --version did not say iperf 3.x (exit $code): $(Limit-Text $printed 300); give an iperf3 " +
            "of version 3 with -Iperf3")
    }
}
