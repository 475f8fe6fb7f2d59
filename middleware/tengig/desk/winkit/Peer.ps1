# -- a mesh verify's cable to another desktop: this kit connects, the other serves ------------------------
function Get-AttachedSubnets($Kit) {
    # This desktop's IPv4 addresses with their prefix lengths (Get-KitAttachedSubnets): each names the
    # subnet its interface is directly attached to. None readable: every peer test is refused.
    try {
        # assigned first: @() around a call that returns one array (, @(...)) would nest it, and [string[]]
        # would then join the addresses into one string
        $attached = Get-KitAttachedSubnets $Kit
        return , @($attached)
    } catch {
        Write-Say $Kit "could not read this desktop's IPv4 addresses (a test towards another desktop is refused): $(Format-Error $_.Exception)"
        return , @()
    }
}

function Get-PeerConnectArgv($Kit, $params) {
    # @{argv; server; reverse; timeout}: iperf3's client towards another desktop's one-test server, checked
    # as tengig client join checks it (desk/peer_rule.py connect_argv): the server a host on one of this
    # desktop's own cables (TengigKit.PeerRule), then tengig's ports and bounded seconds, omit and streams.
    $value = Get-Field $params 'server'
    $parsed = ConvertTo-IPAddress $Kit $value
    if ($null -eq $parsed -or $parsed.AddressFamily -ne [System.Net.Sockets.AddressFamily]::InterNetwork) {
        Stop-Refused 'instruction.server' "$(Format-Value $value) is not an IPv4 address"
    }
    $why = [TengigKit.PeerRule]::Refusal($parsed.ToString(), [string[]](Get-AttachedSubnets $Kit), $Kit.NarrowestPrefix)
    if ($null -ne $why) { Stop-Refused 'instruction.server' $why }
    $argv = Get-Iperf3ClientArgv $Kit $parsed.ToString() $params $Kit.PeerLimits
    return @{ argv = $argv; server = $parsed.ToString(); reverse = ($argv -contains '-R')
        timeout = [double](Get-Field $params 'seconds') + [double](Get-Field $params 'omit') + 30 }
}

function Invoke-Peer($Kit, $params) {
    # The NAS asks the other desktop to serve (mesh/peer_cable.py serving_end): a server here would need a
    # Windows Firewall rule for inbound tests, so listen and served are refused, saying so.
    $op = Get-Field $params 'op'
    if (-not ($op -is [string] -and @($Kit.PeerOps) -ccontains $op)) {
        Stop-Refused 'instruction.op' "$(Format-Value $op) is not one of $($Kit.PeerOps -join ', ')"
    }
    if ($op -cne 'connect') {
        $why = "refused: this Windows kit runs no iperf3 server for another desktop (it would need a " +
            "Windows Firewall rule for inbound tests); it connects to the other desktop's server"
        Write-Say $Kit $why
        return @{ exit_code = 2; stderr = $why; argv = @() }
    }
    $test = Get-PeerConnectArgv $Kit $params
    Write-Say $Kit "peer: iperf3 $(if ($test.reverse) { 'read' } else { 'write' }) towards $($test.server)"
    for ($try = 1; $true; $try++) {
        # again while the other desktop's server is not listening yet (its own instruction is on its way)
        $result = Invoke-Tool $Kit $test.argv $test.timeout
        $said = "$($result['stdout']) $($result['stderr'])"
        if ($try -ge $Kit.PeerConnectTries -or -not [regex]::IsMatch($said, $Kit.RefusedPattern)) { break }
        Step-Socket $Kit $Kit.PeerConnectPauseMs
    }
    if ($result.ContainsKey('stdout')) { $result.stdout = Limit-Text (Compress-Iperf3 $Kit $result.stdout) $Kit.FrameBudget }
    return $result
}
