# -- small files: N files of one size through the share's UNC path, each file's calls timed ------------
function Remove-KitFolder([string]$folder) {
    # Removes a folder the kit made on this desktop, with all in it: '' when it is gone, else what is left
    # and why (the first three reasons the system gave).
    Remove-Item -LiteralPath $folder -Recurse -Force -ErrorAction SilentlyContinue -ErrorVariable failed
    if (-not (Test-Path -LiteralPath $folder)) { return '' }
    $why = @($failed | Select-Object -First 3 | ForEach-Object { $_.Exception.Message }) -join '; '
    return "could not remove ${folder}: $why"
}

function Invoke-SmallFiles($Kit, $params) {
    # One batch of the NAS's small-file test, as tengig client join answers it (desk/smallfiles.py, its own
    # timer): prepare makes this size's files here (in memory) and their folder in the share; write, stat,
    # read, delete run on every file there; disk runs every batch in a folder of -Disk's, removed after.
    $small = Get-SmallFilesOp $Kit $params
    if ($small.op -eq 'disk' -and $Kit.Disk -eq '') {
        return @{ exit_code = 2; stderr = 'refused: this desktop joined without -Disk'; argv = @() }
    }
    if ($small.op -ne 'disk' -and $Kit.NoSmb) {
        return @{ exit_code = 2; stderr = 'refused: this desktop joined without SMB (-NoSmb)'; argv = @() }
    }
    if ($small.op -eq 'prepare' -or $null -eq $Kit.Small -or $Kit.Small.Size -ne $small.size -or
        $Kit.Small.Count -ne $small.count) {
        $Kit.Small = $null
        Write-Say $Kit "small files: making $($small.count) files of $($small.size) bytes"
        $Kit.Small = New-Object TengigKit.SmallSet -ArgumentList $small.size, $small.count
    }
    if ($small.op -eq 'disk') {
        $disk = $Kit.Disk
        Assert-Room $Kit (2 * $small.size * $small.count) 'instruction.size' $disk '-Disk'
        Write-Say $Kit "small files: $($small.count) x $($small.size) bytes on this desktop's own disk ($disk)"
        $folder = Join-Path $disk ('tengig-kit-small-' + [guid]::NewGuid().ToString('N'))
        [TengigKit.Guard]::AddWorkDir($folder)
        $result = @{ exit_code = 1; stderr = "small files on ${disk}: stopped"; argv = @() }
        try {
            $result = Invoke-SmallBatches $Kit $Kit.SmallBatchOps $folder
        } finally {
            $left = Remove-KitFolder $folder
        }
        if ($left -ne '') {  # what is left on the user's own disk is said, and the batch does not count
            Write-Say $Kit $left
            $result.exit_code = 1
            $result.stderr = (@($result['stderr'], $left) | Where-Object { $_ }) -join '; '
        }
        return $result
    }
    $root = Get-KitShareRoot $Kit $small.server $small.share
    $refused = Connect-Share $Kit $root
    if ($refused) {
        Write-Say $Kit $refused
        return @{ exit_code = 1; stderr = $refused; argv = @() }
    }
    $directory = Join-KitPath $Kit $root ($small.remote + '\small-' + $small.size)
    Write-Say $Kit "small files: $($small.op) $($small.count) x $($small.size) bytes"
    if ($small.op -eq 'prepare') { return (New-ShareFolder $Kit $root $directory) }
    return (Invoke-SmallBatches $Kit @($small.op) $directory)
}

function Invoke-SmallBatches($Kit, [string[]]$ops, [string]$directory) {
    # tengig's own timer on $directory (made first when it is not there): per op, a start line, one line per
    # file (its open or create, data and close timed apart, by TengigKit.SmallSet) and an end line, each
    # with the seconds since the first in front; the NAS reads them (bench/parse/smallfiles_parse.py).
    $timer = $Kit.OwnTimer
    $argv = @($timer) + $ops + @($directory)
    $clock = [System.Diagnostics.Stopwatch]::StartNew()
    $lines = New-Object 'System.Collections.Generic.List[string]'
    $op = $ops[0]
    try {
        [void][System.IO.Directory]::CreateDirectory($directory)
        foreach ($op in $ops) {
            $lines.Add([TengigKit.SmallSet]::Stamp($clock, "${timer}: start $op"))
            $next = 0
            while ($next -lt $Kit.Small.Count) {
                $next = $Kit.Small.Run($timer, $op, $directory, $next, $Kit.SmallStepMs, $clock, $lines)
                Step-Socket $Kit 0
            }
            $lines.Add([TengigKit.SmallSet]::Stamp($clock, "${timer}: end $op"))
        }
        if ($ops -contains 'delete') { [System.IO.Directory]::Delete($directory, $false) }
    } catch {
        return @{ exit_code = 1; stdout = (($lines -join "`n") + "`n"); argv = $argv; seconds = $clock.Elapsed.TotalSeconds;
            stderr = "small files $op in ${directory}: $(Format-Error $_.Exception)" }
    }
    return @{ exit_code = 0; stdout = (($lines -join "`n") + "`n"); argv = $argv; seconds = $clock.Elapsed.TotalSeconds }
}
