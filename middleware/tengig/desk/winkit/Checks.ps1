# -- instructions, checked before anything runs ---------------------------------------------------------
# As tengig client join checks them (desk/instructions.py), with the same patterns and limits ($Kit's):
# a NAS that asks for anything else is refused, naming the field and why, and nothing runs.
function Stop-Refused([string]$field, [string]$message) {
    throw (New-Object System.ArgumentException "${field}: $message")
}

function Format-Value($value) {
    if ($null -eq $value) { return 'None' }
    return (ConvertTo-Json -Compress -InputObject $value)
}

function Get-Int($params, [string]$field, [long]$lo, [long]$hi) {
    $value = Get-Field $params $field
    if (-not ($value -is [int] -or $value -is [long]) -or $value -lt $lo -or $value -gt $hi) {
        Stop-Refused "instruction.$field" "$(Format-Value $value) is not a whole number from $lo to $hi"
    }
    return [long]$value
}

function ConvertTo-IPAddress($Kit, $value) {
    # An IP address written as an address (no host name, nothing around it), else $null.
    $parsed = $null
    $ok = ($value -is [string]) -and [System.Net.IPAddress]::TryParse($value, [ref]$parsed)
    if ($ok -and $parsed.AddressFamily -eq [System.Net.Sockets.AddressFamily]::InterNetwork) {
        $ok = [regex]::IsMatch($value, $Kit.Ipv4Pattern)
    } elseif ($ok) {
        # IPv6, its zone (if any) an interface name or index, as tengig client join takes it (nas_url.ZONE_RE)
        $ok = [regex]::IsMatch($value, '\A[0-9A-Fa-f:.]+(%[A-Za-z0-9][A-Za-z0-9_.-]{0,15})?\z')
    }
    if ($ok) { return $parsed }
    return $null
}

function Get-PlainAddress([System.Net.IPAddress]$ip) {
    # The host an address names, however it is written: no zone (fe80::1%12 is fe80::1), an IPv4-mapped
    # IPv6 address as IPv4.
    if ($ip.IsIPv4MappedToIPv6) { $ip = $ip.MapToIPv4() }
    $text = $ip.ToString()
    $cut = $text.IndexOf('%')
    if ($cut -ge 0) { $text = $text.Substring(0, $cut) }
    return $text
}

function Get-NasAddresses($Kit) {
    # The NAS this desktop joins: the addresses its URL's host resolves to here, and those the user lists
    # with -NasAddress. Tools run against these only.
    $found = New-Object 'System.Collections.Generic.List[string]'
    foreach ($listed in $Kit.NasAddress) {
        $parsed = ConvertTo-IPAddress $Kit $listed
        if ($null -eq $parsed) {
            throw "-NasAddress: '$listed' is not an IP address (one address of the NAS each, e.g. 10.250.12.1)"
        }
        $found.Add((Get-PlainAddress $parsed))
    }
    try {
        foreach ($ip in [System.Net.Dns]::GetHostAddresses($Kit.NasHost)) { $found.Add((Get-PlainAddress $ip)) }
    } catch {
        Write-Say $Kit "$($Kit.NasHost) does not resolve here: $(Format-Error $_.Exception)"  # the connection then says why
    }
    return , $found.ToArray()
}

function Test-NasAddress($Kit, [System.Net.IPAddress]$ip) {
    return ($Kit.NasAddresses -contains (Get-PlainAddress $ip))
}

function Get-Address($Kit, $params) {
    $value = Get-Field $params 'server'
    $parsed = ConvertTo-IPAddress $Kit $value
    if ($null -eq $parsed) { Stop-Refused 'instruction.server' "$(Format-Value $value) is not an IP address" }
    if (-not (Test-NasAddress $Kit $parsed)) {
        Stop-Refused 'instruction.server' ("$value is not the NAS this desktop joined ($($Kit.NasAddresses -join ', ')): " +
            "nothing runs against another host; if the NAS is also at $value (another of its links), run this script " +
            "again with -NasAddress $value")
    }
    return $parsed.ToString()
}

function Get-Iperf3Argv($Kit, $params) {
    return (Get-Iperf3ClientArgv $Kit (Get-Address $Kit $params) $params $Kit.Iperf3Limits)
}

function Get-Iperf3ClientArgv($Kit, [string]$address, $params, $limits) {
    # iperf3's client towards $address (checked by the caller): port, seconds, omit and streams each a whole
    # number within $limits, -R when reverse is true.
    $n = @{}
    foreach ($field in $limits.Keys) {
        $n[$field] = [string](Get-Int $params $field $limits[$field][0] $limits[$field][1])
    }
    $argv = @($Kit.Iperf3, '-c', $address, '-p', $n.port, '-t', $n.seconds, '-O', $n.omit, '-P', $n.streams, '-J')
    if ((Get-Field $params 'reverse') -is [bool] -and (Get-Field $params 'reverse')) { $argv += '-R' }
    return , $argv
}

function Get-SmbOp($Kit, $params) {
    $op = Get-Field $params 'op'
    if (-not ($op -is [string] -and @('prepare', 'put', 'get', 'channels') -ccontains $op)) {
        Stop-Refused 'instruction.op' "$(Format-Value $op) is not prepare, put, get or channels"
    }
    $shareName = Get-ShareName $Kit $params
    $remote = Get-Field $params 'remote'
    if (-not ($remote -is [string] -and [regex]::IsMatch($remote, $Kit.RemotePattern))) {
        Stop-Refused 'instruction.remote' "$(Format-Value $remote) is not a tengig scratch name"
    }
    $server = Get-Address $Kit $params
    $size = Get-Int $params 'size' $Kit.MinFileBytes $Kit.MaxFileBytes
    return @{ op = $op; server = $server; share = $shareName; remote = $remote; size = $size }
}

function Get-ShareName($Kit, $params) {
    $shareName = Get-Field $params 'share'
    if (-not ($shareName -is [string] -and [regex]::IsMatch($shareName, $Kit.SharePattern))) {
        Stop-Refused 'instruction.share' "$(Format-Value $shareName) is not a share name"
    }
    if ($shareName -cne $Kit.Share) { Stop-Refused 'instruction.share' "this kit copies to the share '$($Kit.Share)' only" }
    return $shareName
}

function Get-SmallFilesOp($Kit, $params) {
    # A small-file instruction, checked as tengig client join checks it (desk/instructions.py smallfiles_op):
    # the op, the share, the client's directory in it, the size and count of the files, then the server.
    $op = Get-Field $params 'op'
    if (-not ($op -is [string] -and @($Kit.SmallFilesOps) -ccontains $op)) {
        Stop-Refused 'instruction.op' "$(Format-Value $op) is not one of $($Kit.SmallFilesOps -join ', ')"
    }
    $shareName = Get-ShareName $Kit $params
    $remote = Get-Field $params 'remote'
    if (-not ($remote -is [string] -and [regex]::IsMatch($remote, $Kit.ClientDirPattern))) {
        Stop-Refused 'instruction.remote' "$(Format-Value $remote) is not a tengig scratch directory"
    }
    $size = Get-Int $params 'size' $Kit.SmallSizeLimits[0] $Kit.SmallSizeLimits[1]
    $count = Get-Int $params 'count' $Kit.SmallCountLimits[0] $Kit.SmallCountLimits[1]
    if ($size * $count -gt $Kit.SmallTotalBytes) {
        Stop-Refused 'instruction.count' ("$count files of $size bytes are $($size * $count) bytes; at most " +
            "$($Kit.SmallTotalBytes) bytes per size")
    }
    $server = Get-Address $Kit $params
    return @{ op = $op; server = $server; share = $shareName; remote = $remote; size = $size; count = $count }
}

function Assert-Room($Kit, [long]$size, [string]$field = 'instruction.size', [string]$folder = '',
    [string]$flag = '-WorkDir') {
    # The file fits the free space of $folder's disk (default -WorkDir's) and leaves $Kit.FreeMarginBytes or
    # 1/$Kit.FreeMarginShare of it free, as tengig client join checks; refused before anything is written.
    if ($folder -eq '') { $folder = $Kit.WorkDir }
    try {
        $drive = New-Object System.IO.DriveInfo ([System.IO.Path]::GetPathRoot([System.IO.Path]::GetFullPath($folder)))
        $free = [long]$drive.AvailableFreeSpace
        $total = [long]$drive.TotalSize
    } catch {
        Stop-Refused $field ("cannot read the free space of ${folder}: $(Format-Error $_.Exception); give " +
            "$flag a folder on a local disk")
    }
    $margin = [Math]::Max($Kit.FreeMarginBytes, [long][Math]::Floor($total / $Kit.FreeMarginShare))
    if ($size + $margin -gt $free) {
        $MiB = $Kit.MiB
        Stop-Refused $field ("a file of $([long]($size / $MiB)) MiB does not fit in ${folder}: " +
            "$([long]($free / $MiB)) MiB free, of which the file must leave $([long]($margin / $MiB)) MiB; give " +
            "$flag a folder on a disk with room")
    }
}
