# -- the SMB copies: robocopy /J to \\NAS\share\tengig-bench-...\, the file read back into memory ---------
function Get-UncHost([string]$address) {
    if ($address.Contains(':')) { return ($address.Replace(':', '-').Replace('%', 's') + '.ipv6-literal.net') }
    return $address
}

function Get-ShareHost($Kit, [string]$server) {
    # The copies go to the NAS by the name this kit knows it by ($Kit.ShareHost: what `net use \\NAME\share`
    # and the credentials Windows keeps are for) when that name is the address the NAS asks for; to the
    # address otherwise (a mesh link), said once, with what to do about credentials.
    if ($Kit.ShareHosts.ContainsKey($server)) { return $Kit.ShareHosts[$server] }
    $found = Get-UncHost $server
    $named = ConvertTo-IPAddress $Kit $Kit.NasHost
    try {
        $addresses = if ($null -ne $named) { @($named) } else { [System.Net.Dns]::GetHostAddresses($Kit.NasHost) }
        foreach ($ip in $addresses) { if ((Get-PlainAddress $ip) -eq $server) { $found = $Kit.ShareHost } }
    } catch { }
    if ($found -ne $Kit.ShareHost) {
        $share = $Kit.Share
        Write-Say $Kit ("copies go to \\$found\$share, the NAS's address $server ($($Kit.NasHost) is not it here): " +
            "credentials for \\$($Kit.ShareHost) do not count there; if the copies are refused, run net use " +
            "\\$found\$share /user:NAME or give -Credential NAME")
    }
    $Kit.ShareHosts[$server] = $found
    return $found
}

function Connect-Share($Kit, [string]$unc) {
    # -Credential: the kit connects to the share as that user itself (what `net use` does), once, and drops
    # the connection when it ends. Without it, Windows' own credentials for the name are used. '' when
    # connected (or nothing to do), else why not.
    if ($Kit.Credential -eq [System.Management.Automation.PSCredential]::Empty -or [TengigKit.Guard]::Connected -eq $unc) {
        return ''
    }
    $network = $Kit.Credential.GetNetworkCredential()
    $user = if ($network.Domain) { "$($network.Domain)\$($network.UserName)" } else { $network.UserName }
    $code = Connect-KitShare $Kit $unc $user $network.Password
    if ($code -eq 0) {
        [TengigKit.Guard]::Connected = $unc
        return ''
    }
    $why = (New-Object System.ComponentModel.Win32Exception $code).Message
    $hint = switch ($code) {
        1219 { "Windows is already connected to $unc as another user: net use $unc /delete, then run the kit again" }
        1326 { "check the user and password of -Credential (a user of the NAS)" }
        default { "check that $unc is reachable and shared" }
    }
    return "cannot connect to $unc as ${user}: $why (error $code); $hint"
}

function Remove-Source($Kit) {
    if (Test-Path -LiteralPath $Kit.SourceDir) { Get-ChildItem -LiteralPath $Kit.SourceDir -File | Remove-Item -Force }
    $Kit.Source = $null
}

function New-RandomFile($Kit, [long]$size) {
    # Random bytes: nothing on the way (SMB compression, the NAS's ZFS) can shrink them.
    [void][System.IO.Directory]::CreateDirectory($Kit.SourceDir)
    $path = Join-Path $Kit.SourceDir 'source.dat'
    $random = [System.Security.Cryptography.RandomNumberGenerator]::Create()
    $chunk = New-Object byte[] $Kit.MiB
    $out = [System.IO.File]::Create($path)
    try {
        for ($left = $size; $left -gt 0; $left -= $chunk.Length) {
            Step-Socket $Kit 0
            $random.GetBytes($chunk)
            $out.Write($chunk, 0, [int][Math]::Min([long]$chunk.Length, $left))
        }
    } catch {
        $out.Dispose()
        Remove-Item -LiteralPath $path -Force -ErrorAction SilentlyContinue
        throw
    } finally {
        $out.Dispose()
        $random.Dispose()
    }
    return $path
}

function Invoke-Robocopy($Kit, [string]$from, [string]$to, [string]$file, [long]$size) {
    # /J unbuffered I/O; /IS /IT copy even when robocopy thinks the file is already there; /R:0 /W:0
    # no retries (a failure fails the test); /BYTES whole bytes in the summary the NAS reads (by position:
    # its words are in the language of Windows).
    $argv = @('robocopy.exe', $from, $to, $file, '/J', '/IS', '/IT', '/R:0', '/W:0', '/NP', '/NDL', '/BYTES')
    return (Invoke-Tool $Kit $argv (120 + 2 * $size / $Kit.MiB))
}

function Format-OwnCopy([string]$op, [long]$bytes, [double]$seconds, [string]$how) {
    # The line bench/parse/copy_parse.py reads; the seconds as 2.285312, whatever the desktop's language.
    return ('tengig-copy: {0} {1} bytes in {2} s ({3})' -f $op, $bytes,
        $seconds.ToString('0.000000', [System.Globalization.CultureInfo]::InvariantCulture), $how)
}

function Read-Share($Kit, [string]$path, [long]$size) {
    # The NAS's read: the file read unbuffered into memory and dropped, timed here (robocopy can only write
    # it to a disk, whose speed would then be in the figure). The NAS reads the line it prints.
    $argv = @('tengig-copy', $path)
    $clock = [System.Diagnostics.Stopwatch]::StartNew()
    $kitProcess = [System.Diagnostics.Process]::GetCurrentProcess()
    $cpu = $kitProcess.TotalProcessorTime  # the copy is the kit's own: its process's CPU time while it reads
    $limit = 120 + 2 * $size / $Kit.MiB
    $reader = $null
    $total = [long]0
    try {
        $reader = New-Object TengigKit.UnbufferedReader $path
        while ($true) {
            Step-Socket $Kit 0
            $got = $reader.Read($Kit.ReadStepBytes)
            if ($got -eq 0) { break }
            $total += $got
            if ($clock.Elapsed.TotalSeconds -gt $limit) { throw "not read within $limit s" }
        }
        $seconds = $clock.Elapsed.TotalSeconds
        $kitProcess.Refresh()
        $cpu = ($kitProcess.TotalProcessorTime - $cpu).TotalSeconds
    } catch {
        return @{ exit_code = 1; stderr = "cannot read ${path}: $(Format-Error $_.Exception)"; argv = $argv;
            seconds = $clock.Elapsed.TotalSeconds }
    } finally {
        if ($null -ne $reader) { $reader.Dispose() }
    }
    # where not Windows a plain read (no FILE_FLAG_NO_BUFFERING): said so, the NAS shows it
    $how = if ($Kit.Windows) { 'unbuffered, read into memory and discarded' } else { 'read into memory and discarded' }
    $line = Format-OwnCopy 'get' $total $seconds $how
    return @{ exit_code = 0; stdout = $line; argv = $argv; seconds = $seconds; cpu_seconds = $cpu }
}

function Invoke-Smb($Kit, $params) {
    $smb = Get-SmbOp $Kit $params
    if ($Kit.NoSmb) { return @{ exit_code = 2; stderr = 'refused: this desktop joined without SMB (-NoSmb)'; argv = @() } }
    $root = Get-KitShareRoot $Kit $smb.server $smb.share
    $cut = $smb.remote.LastIndexOf('\')
    $folder = if ($cut -ge 0) { Join-KitPath $Kit $root $smb.remote.Substring(0, $cut) } else { $root }
    $file = $smb.remote.Substring($cut + 1)
    $refused = Connect-Share $Kit $root
    if ($refused) {
        Write-Say $Kit $refused
        return @{ exit_code = 1; stderr = $refused; argv = @() }
    }
    if ($smb.op -eq 'channels') { return (Get-SmbChannels $Kit (Get-ShareHost $Kit $smb.server)) }
    if ($smb.op -eq 'prepare') {
        Remove-Source $Kit
        Assert-Room $Kit $smb.size
        Write-Say $Kit "smb: writing $([long]($smb.size / $Kit.MiB)) MiB of random data to copy"
        try {
            $Kit.Source = New-RandomFile $Kit $smb.size
        } catch {
            return @{ exit_code = 1; stderr = "could not write the file to copy in $($Kit.WorkDir): $(Format-Error $_.Exception)";
                argv = @() }
        }
        return (New-ShareFolder $Kit $root (Join-KitPath $Kit $root $smb.remote))
    }
    if ($null -eq $Kit.Source -or (Get-Item -LiteralPath $Kit.Source).Length -ne $smb.size) {
        return @{ exit_code = 2; stderr = 'refused: no prepared file of that size'; argv = @() }
    }
    Write-Say $Kit "smb $($smb.op) $($smb.remote)"
    if ($smb.op -eq 'put') {
        # robocopy copies a file under its own name: the prepared file takes the remote name first.
        $named = Join-Path $Kit.SourceDir $file
        if ($Kit.Source -ne $named) { Move-Item -LiteralPath $Kit.Source -Destination $named -Force }
        $Kit.Source = $named
        return (Invoke-KitCopyToShare $Kit $Kit.SourceDir $folder $file $smb.size)
    }
    return (Read-Share $Kit (Join-KitPath $Kit $folder $file) $smb.size)
}

function New-ShareFolder($Kit, [string]$root, [string]$target) {
    # A folder in the share (with its parents), where the NAS's instruction puts the files.
    $argv = @('[System.IO.Directory]::CreateDirectory', $target)
    $clock = [System.Diagnostics.Stopwatch]::StartNew()
    try {
        [void][System.IO.Directory]::CreateDirectory($target)
        return @{ exit_code = 0; argv = $argv; seconds = $clock.Elapsed.TotalSeconds }
    } catch {
        $why = "cannot create ${target}: $(Format-Error $_.Exception)"
        if ($Kit.Windows -and $Kit.Credential -eq [System.Management.Automation.PSCredential]::Empty) {
            $why += " (copies go as this Windows user; for a user of the NAS: net use $root /user:NAME, or -Credential NAME)"
        }
        return @{ exit_code = 1; stderr = $why; argv = $argv; seconds = $clock.Elapsed.TotalSeconds }
    }
}

function Get-SmbChannels($Kit, [string]$server) {
    # The SMB channels Windows holds to the NAS right after a copy (Get-KitSmbChannels), as JSON the NAS
    # reads: one row per channel, with both ends' addresses and RSS/RDMA capability.
    $argv = @('Get-SmbMultichannelConnection', '-ServerName', $server)
    Write-Say $Kit "smb: the channels to $server"
    try {
        $rows = Get-KitSmbChannels $Kit $server
        return @{ exit_code = 0; stdout = (ConvertTo-Json -InputObject @($rows) -Compress); argv = $argv }
    } catch {
        return @{ exit_code = 1; stderr = "Get-SmbMultichannelConnection: $(Format-Error $_.Exception)"; argv = $argv }
    }
}

function Invoke-OwnDisk($Kit, $params) {
    # This desktop's own disk, as the NAS's copies are measured: one file of their size written, then read,
    # unbuffered, timed here; two tengig-copy lines the NAS reads (put, then get).
    $size = Get-Int $params 'size' $Kit.MinFileBytes $Kit.MaxFileBytes
    $disk = $Kit.Disk
    if ($disk -eq '') { return @{ exit_code = 2; stderr = 'refused: this desktop joined without -Disk'; argv = @() } }
    if ($size % 4096 -ne 0) { Stop-Refused 'instruction.size' "$size is not a multiple of 4096 (unbuffered I/O)" }
    Assert-Room $Kit $size 'instruction.size' $disk '-Disk'
    Write-Say $Kit "own disk: writing then reading $([long]($size / $Kit.MiB)) MiB in $disk"
    $folder = Join-Path $disk ('tengig-kit-disk-' + [guid]::NewGuid().ToString('N'))
    [TengigKit.Guard]::AddWorkDir($folder)
    $path = Join-Path $folder 'disk.dat'
    $argv = @('tengig-copy', $path)
    $clock = [System.Diagnostics.Stopwatch]::StartNew()
    $lines = New-Object 'System.Collections.Generic.List[string]'
    try {
        [void][System.IO.Directory]::CreateDirectory($folder)
        $writer = New-Object TengigKit.UnbufferedWriter $path
        try {
            $written = [long]0
            $started = [System.Diagnostics.Stopwatch]::StartNew()
            while ($written -lt $size) {
                Step-Socket $Kit 0
                $step = [Math]::Min($Kit.ReadStepBytes, $size - $written)
                $writer.Write($step)
                $written += $step
            }
        } finally {
            $writer.Dispose()
        }
        $lines.Add((Format-OwnCopy 'put' $size $started.Elapsed.TotalSeconds 'unbuffered (FILE_FLAG_NO_BUFFERING, write-through)'))
        $reader = New-Object TengigKit.UnbufferedReader $path
        try {
            $read = [long]0
            $started = [System.Diagnostics.Stopwatch]::StartNew()
            while ($true) {
                Step-Socket $Kit 0
                $got = $reader.Read($Kit.ReadStepBytes)
                if ($got -eq 0) { break }
                $read += $got
            }
        } finally {
            $reader.Dispose()
        }
        $lines.Add((Format-OwnCopy 'get' $read $started.Elapsed.TotalSeconds ('unbuffered (FILE_FLAG_NO_BUFFERING), ' +
            'read into memory and discarded')))
    } catch {
        return @{ exit_code = 1; stderr = "cannot measure the disk of ${disk}: $(Format-Error $_.Exception)"; argv = $argv;
            seconds = $clock.Elapsed.TotalSeconds }
    } finally {
        Remove-Item -LiteralPath $folder -Recurse -Force -ErrorAction SilentlyContinue
    }
    return @{ exit_code = 0; stdout = (($lines -join "`n") + "`n"); argv = $argv; seconds = $clock.Elapsed.TotalSeconds }
}
