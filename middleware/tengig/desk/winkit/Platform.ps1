# -- the one seam for what only Windows has ----------------------------------------------------------------
# Each Windows-only thing the kit uses (robocopy, NetTCPIP's and SmbShare's cmdlets, UNC paths, iperf3.exe
# beside the script, -Credential's connection) is behind one of these functions, which the kit's tests can
# replace (Pester's Mock), and each has a version for where it is not Windows (the lab's Linux: iperf3 from
# PATH, the share mounted at -ShareMount, plain file I/O): the same kit runs there end to end. Job objects
# and kernel32's unbuffered calls are behind TengigKit.Platform in the C#.

function Test-KitWindows {
    # Windows PowerShell 5.1 has no $IsWindows: .NET's own answer, in both.
    return ([System.Environment]::OSVersion.Platform -eq [System.PlatformID]::Win32NT)
}

function Get-KitDefaultIperf3([bool]$windows, [string]$scriptRoot) {
    # -Iperf3's default: iperf3.exe beside this script on Windows, iperf3 from PATH elsewhere.
    if ($windows) { return (Join-Path $scriptRoot 'iperf3.exe') }
    $found = @(Get-Command -Name 'iperf3' -CommandType Application -ErrorAction SilentlyContinue)
    if ($found.Count -gt 0) { return [string]$found[0].Source }
    return 'iperf3'
}

function Get-KitComputerName([bool]$windows) {
    if ($windows) { return [string]$env:COMPUTERNAME }
    return [System.Environment]::MachineName
}

function Get-KitUser($Kit) {
    # Who the copies go as: DOMAIN\user on Windows; elsewhere the share's mount decides, this user runs the kit.
    if ($Kit.Windows) { return "$env:USERDOMAIN\$env:USERNAME" }
    return [System.Environment]::UserName
}

function Get-KitLink($Kit, [string]$address) {
    # The interface this desktop reaches $address by: @{ name; mtu; speed_bps } (bits/s), what could be read.
    if ($Kit.Windows) {
        # Find-NetRoute: the route (and so the interface) Windows takes to the NAS (NetTCPIP, like Get-NetRoute).
        $index = (Find-NetRoute -RemoteIPAddress $address | Select-Object -First 1).InterfaceIndex
        $adapter = Get-NetAdapter -InterfaceIndex $index
        return @{ name = [string]$adapter.Name; speed_bps = [long]$adapter.Speed
            mtu = [long](Get-NetIPInterface -InterfaceIndex $index -AddressFamily IPv4).NlMtu }
    }
    # Elsewhere: the interface that holds the address a datagram socket towards $address is bound to.
    $probe = New-Object System.Net.Sockets.Socket ([System.Net.Sockets.AddressFamily]::InterNetwork),
        ([System.Net.Sockets.SocketType]::Dgram), ([System.Net.Sockets.ProtocolType]::Udp)
    try {
        $probe.Connect([System.Net.IPAddress]::Parse($address), 9)
        $local = $probe.LocalEndPoint.Address
    } finally {
        $probe.Dispose()
    }
    foreach ($nic in [System.Net.NetworkInformation.NetworkInterface]::GetAllNetworkInterfaces()) {
        $properties = $nic.GetIPProperties()
        foreach ($unicast in $properties.UnicastAddresses) {
            if ($unicast.Address.Equals($local)) {
                return @{ name = [string]$nic.Name; mtu = [long]$properties.GetIPv4Properties().Mtu; speed_bps = [long]$nic.Speed }
            }
        }
    }
    return @{}
}

function Get-KitAttachedSubnets($Kit) {
    # This desktop's IPv4 addresses as "address/prefix" (NetTCPIP's Get-NetIPAddress on Windows).
    if ($Kit.Windows) {
        return , @(Get-NetIPAddress -AddressFamily IPv4 -ErrorAction Stop |
                ForEach-Object { "$($_.IPAddress)/$($_.PrefixLength)" })
    }
    $found = New-Object 'System.Collections.Generic.List[string]'
    foreach ($nic in [System.Net.NetworkInformation.NetworkInterface]::GetAllNetworkInterfaces()) {
        foreach ($unicast in $nic.GetIPProperties().UnicastAddresses) {
            if ($unicast.Address.AddressFamily -eq [System.Net.Sockets.AddressFamily]::InterNetwork) {
                $found.Add("$($unicast.Address)/$($unicast.PrefixLength)")
            }
        }
    }
    return , $found.ToArray()
}

function Get-KitSmbChannels($Kit, [string]$server) {
    # The SMB channels Windows holds to the NAS (SmbShare's Get-SmbMultichannelConnection), one row each.
    if (-not $Kit.Windows) {
        throw "Get-SmbMultichannelConnection is Windows' own: this system's SMB client has no such view"
    }
    $fields = @('ServerName', 'Selected', 'ClientIpAddress', 'ServerIpAddress', 'ClientInterfaceIndex',
        'ServerInterfaceIndex', 'ClientRSSCapable', 'ServerRSSCapable', 'ClientRdmaCapable', 'ServerRdmaCapable')
    return , @(Get-SmbMultichannelConnection -ServerName $server -ErrorAction Stop | Select-Object -Property $fields)
}

function Get-KitShareRoot($Kit, [string]$server, [string]$share) {
    # The share as this system reaches it: \\HOST\share on Windows (HOST: Get-ShareHost), the folder it is
    # mounted at elsewhere (-ShareMount, checked before joining).
    if ($Kit.Windows) { return ('\\' + (Get-ShareHost $Kit $server) + '\' + $share) }
    return $Kit.ShareMount
}

function Join-KitPath($Kit, [string]$root, [string]$relative) {
    # $relative as the NAS names it (backslashes) under $root, in this system's separators.
    if ($Kit.Windows) { return ($root + '\' + $relative) }
    return ($root.TrimEnd('/') + '/' + $relative.Replace('\', '/'))
}

function Connect-KitShare($Kit, [string]$unc, [string]$user, [string]$password) {
    # -Credential's connection (what `net use` does): 0 or Windows' error code.
    return [TengigKit.Share]::Connect($unc, $user, $password)
}

function Invoke-KitCopyToShare($Kit, [string]$from, [string]$to, [string]$file, [long]$size) {
    # The SMB write: robocopy /J on Windows (unbuffered I/O, Windows' own SMB client); elsewhere the file
    # copied into the mounted share and flushed to it, timed here (a tengig-copy line the NAS reads).
    if ($Kit.Windows) { return (Invoke-Robocopy $Kit $from $to $file $size) }
    $target = Join-KitPath $Kit $to $file
    $argv = @('tengig-copy', $target)
    $clock = [System.Diagnostics.Stopwatch]::StartNew()
    try {
        $in = [System.IO.File]::OpenRead((Join-Path $from $file))
        try {
            $out = [TengigKit.Platform]::Create($target, [System.IO.FileShare]::None, [System.IO.FileOptions]::WriteThrough)
            try {
                $chunk = New-Object byte[] (4 * $Kit.MiB)
                $copied = [long]0
                while (($got = $in.Read($chunk, 0, $chunk.Length)) -gt 0) {
                    Step-Socket $Kit 0
                    $out.Write($chunk, 0, $got)
                    $copied += $got
                }
                $out.Flush($true)
            } finally {
                $out.Dispose()
            }
        } finally {
            $in.Dispose()
        }
    } catch {
        return @{ exit_code = 1; stderr = "cannot copy to ${target}: $(Format-Error $_.Exception)"; argv = $argv;
            seconds = $clock.Elapsed.TotalSeconds }
    }
    $seconds = $clock.Elapsed.TotalSeconds
    return @{ exit_code = 0; stdout = (Format-OwnCopy 'put' $copied $seconds 'written through the mounted share');
        argv = $argv; seconds = $seconds }
}

function Start-KitGuard($Kit) {
    # Every tool the kit starts dies with it (a Windows job object), its work folders go when it ends.
    [TengigKit.Guard]::Begin($Kit.Staging, $Kit.Windows)
}
