# -- what this desktop is ------------------------------------------------------------------------------
function Get-JoinInfo($Kit) {
    $os = if ($Kit.Windows) { 'windows' } else { 'linux' }
    $info = [ordered]@{ hostname = $Kit.Name; os = $os; tengig = "kit $($Kit.KitVersion)"; smb = (-not $Kit.NoSmb) }
    if ($Kit.Disk -ne '') { $info.disk = $true }  # only then: a NAS of an earlier tengig refuses a key it does not know
    try {
        $address = [System.Net.Dns]::GetHostAddresses($Kit.NasHost) |
            Where-Object { $_.AddressFamily -eq [System.Net.Sockets.AddressFamily]::InterNetwork } |
            Select-Object -First 1
        if ($null -eq $address) { return $info }
        $link = Get-KitLink $Kit $address.IPAddressToString
        # Each fact only when the NAS takes it (names.DESKTOP_IFNAME_RE, an MTU, a speed): else it says unknown.
        if ($link.ContainsKey('name') -and [regex]::IsMatch([string]$link.name, $Kit.InterfacePattern)) {
            $info.interface = [string]$link.name
        }
        if ($link.ContainsKey('mtu') -and $link.mtu -ge 68 -and $link.mtu -le 65536) { $info.mtu = [long]$link.mtu }
        if ($link.ContainsKey('speed_bps') -and [long]$link.speed_bps -gt 0) { $info.speed_bps = [long]$link.speed_bps }  # bits/s
    } catch {
        Write-Say $Kit "could not read this desktop's link towards the NAS (the NAS says unknown): $(Format-Error $_.Exception)"
    }
    return $info
}

# -- one instruction: checked, run, its result ------------------------------------------------------------
function Invoke-Instruction($Kit, [string]$kind, $params) {
    try {
        if ($kind -eq 'iperf3') {
            $argv = Get-Iperf3Argv $Kit $params
            $direction = if ($argv -contains '-R') { 'read' } else { 'write' }
            Write-Say $Kit "iperf3 $direction $(Get-Field $params 'streams') stream(s)"
            $result = Invoke-Tool $Kit $argv ((Get-Field $params 'seconds') + (Get-Field $params 'omit') + 30)
            if ($result.ContainsKey('stdout')) { $result.stdout = Limit-Text (Compress-Iperf3 $Kit $result.stdout) $Kit.FrameBudget }
            return $result
        }
        if ($kind -eq 'disk') { return (Invoke-OwnDisk $Kit $params) }
        if ($kind -eq 'smallfiles') { return (Invoke-SmallFiles $Kit $params) }
        if ($kind -eq 'smb') {
            $result = Invoke-Smb $Kit $params
            if ($result.ContainsKey('stdout')) { $result.stdout = Limit-Text $result.stdout $Kit.FrameBudget }
            return $result
        }
        if ($kind -eq 'peer') { return (Invoke-Peer $Kit $params) }
    } catch [System.ArgumentException] {
        Write-Say $Kit "refused: $($_.Exception.Message)"  # here too: the person at this desktop may be the one to act
        return @{ exit_code = 2; stderr = "refused: $($_.Exception.Message)"; argv = @() }
    }
    return @{ exit_code = 2; stderr = "refused: $(Format-Value $kind) is not something tengig measures"; argv = @() }
}

# -- the run ---------------------------------------------------------------------------------------------
function Assert-KitOptions($Kit) {
    # What the person gave, checked before anything starts.
    if ($Kit.Name.Length -lt 1 -or $Kit.Name.Length -gt 253) { throw "-Name: 1 to 253 characters, not $($Kit.Name.Length)" }
    if ($Kit.CaFile -and -not (Test-Path -LiteralPath $Kit.CaFile -PathType Leaf)) {
        throw "-CaFile: there is no $($Kit.CaFile) (the certificate, PEM or DER, of the CA that signed the NAS's)"
    }
    if (-not $Kit.Windows -and -not $Kit.NoSmb) {
        if ($Kit.Credential -ne [System.Management.Automation.PSCredential]::Empty) {
            throw "-Credential connects to the share on Windows only: mount the share as that user and give -ShareMount"
        }
        if ($Kit.ShareMount -eq '' -or -not (Test-Path -LiteralPath $Kit.ShareMount -PathType Container)) {
            throw ("-ShareMount: where not Windows the copies go through the share mounted here: give the folder " +
                "\\$($Kit.ShareHost)\$($Kit.Share) is mounted at (or -NoSmb)")
        }
    }
}

function Invoke-Join($Kit) {
    Assert-KitOptions $Kit
    Import-KitHelpers $Kit
    # Every tool the kit starts dies with it; the work files and the share connection go when it ends.
    Start-KitGuard $Kit
    # Before joining: what a run needs of this desktop (not found out after the NAS has started measuring).
    Test-Iperf3 $Kit
    if (-not $Kit.NoSmb) { Assert-Room $Kit $Kit.SmallestCopyBytes '-WorkDir' }
    if ($Kit.Disk -and -not (Test-Path -LiteralPath $Kit.Disk -PathType Container)) {
        throw "-Disk: there is no folder $($Kit.Disk) (a folder on the disk to compare the NAS with)"
    }
    # Resolved as it connects: the NAS's addresses, the only ones its instructions may name.
    $Kit.NasAddresses = Get-NasAddresses $Kit
    Connect-Nas $Kit
    # No login: the run's token is join's first param (a refused token is the NAS's error, with its reason).
    $info = Get-JoinInfo $Kit
    $joined = Invoke-Nas $Kit 'tengig.bench.session.join' @($Kit.Token, $info) -refused ('could not join: {0} (a kit ' +
        'works for its one run only, on the NAS that made it)')
    # behind a proxy the NAS does not know its end of the connection (nas_address empty): say nothing of it
    $nasAddress = Get-Field $joined 'nas_address'
    $over = if ($nasAddress) { ", over the NAS's address $nasAddress" } else { '' }
    Write-Say $Kit "joined run $(Get-Field $joined 'session') as $(Get-Field $joined 'name')$over"
    Write-Say $Kit "tools run against the NAS at $($Kit.NasAddresses -join ', ') only (-NasAddress adds another of its addresses)"
    if (-not $Kit.NoSmb) {
        $who = if ($Kit.Credential -ne [System.Management.Automation.PSCredential]::Empty) { $Kit.Credential.UserName } else {
            "$(Get-KitUser $Kit) (-Credential NAME for a user of the NAS)" }
        $root = if ($Kit.Windows) { "\\$($Kit.ShareHost)\$($Kit.Share)" } else { $Kit.ShareMount }
        Write-Say $Kit "copies go to $root as $who"
    }
    while ($true) {
        $instruction = Invoke-Nas $Kit 'tengig.bench.session.next' @(10)
        if ($null -eq $instruction) { continue }
        $params = Get-Field $instruction 'params'
        $kind = [string](Get-Field $instruction 'kind')
        switch ($kind) {
            'done' { Write-Say $Kit "the run is finished; its verdict is on the NAS"; return }
            'abort' { throw "the NAS stopped the run: $(Get-Field $params 'reason')" }
        }
        $result = Invoke-Instruction $Kit $kind $params
        # The tool's CPU time and this desktop's CPUs only when the NAS asks (one of an earlier tengig refuses them).
        if ((Get-Field $params 'cpu') -eq $true -and $result.ContainsKey('cpu_seconds')) {
            $result.cpus = [double][Environment]::ProcessorCount
        } else {
            $result.Remove('cpu_seconds')
        }
        Send-Submission $Kit ([long](Get-Field $instruction 'id')) $result
    }
}

function Stop-KitRun($Kit) {
    # On success, error, the NAS's end or close, and Ctrl-C: no tool left running, no work file left.
    Stop-Tool $Kit
    if ($null -ne $Kit.Ws) { $Kit.Ws.Dispose() }
    if ($null -ne ('TengigKit.Guard' -as [type])) { [TengigKit.Guard]::End() }
    Remove-Item -LiteralPath $Kit.Staging -Recurse -Force -ErrorAction SilentlyContinue
}

function Invoke-KitMain($Kit) {
    # The kit's run, its exit code: 0 when the NAS ended the run, 1 with one line on stderr saying why not.
    try {
        $null = Invoke-Join $Kit
        return 0
    } catch {
        Write-KitError $Kit (Format-Error $_.Exception)
        return 1
    } finally {
        Stop-KitRun $Kit
    }
}
