"""The Windows kit in a mesh verify's cable to another desktop (mesh/peer_cable.py), checked without Windows:
it connects to the other desktop's one-test iperf3 server after tengig client join's own checks (the rule of
desk/peer_rule.py, run under Mono in tests/desk/test_kit_csharp_mono.py; tengig's ports and bounds, rendered
from the same constants), again while that server is not listening yet (desk/peer_server.py's tries), and
never listens itself: a server on Windows would need a Windows Firewall rule for inbound tests, so the NAS
asks the other end to serve (serving_end, tests/mesh/test_matrix_plan.py) and the kit refuses in words."""
from __future__ import annotations

import re

from tengig.desk.kit import ps_quote, render_kit
from tengig.desk.peer_rule import NARROWEST_PREFIX
from tengig.join_protocol.limits import PEER_LIMITS, PEER_OPS, PEER_PORTS
from tengig.desk.peer_server import CONNECT_PAUSE_S, CONNECT_TRIES, REFUSED

from .powershell import commands, functions, parse, text

TOKEN = "tgb-" + "0123456789abcdef" * 3


def _kit() -> str:
    return render_kit(os_name="windows", nas="ws://nas.example.lan:8610", token=TOKEN, share="media")


def test_the_kits_peer_bounds_are_tengig_client_joins():
    script = _kit()
    limits = script.split("$PeerLimits = [ordered]@{\n")[1].split("}")[0]
    # the port first, as tengig client join checks it first after the server
    assert limits.startswith(f"    'port' = @({PEER_PORTS[0]}, {PEER_PORTS[1]})\n")
    for name, (lo, hi) in PEER_LIMITS.items():
        assert f"    {ps_quote(name)} = @({lo}, {hi})\n" in limits
    assert f"$PeerOps = @({', '.join(ps_quote(op) for op in PEER_OPS)})" in script
    assert f"$NarrowestPrefix = {NARROWEST_PREFIX}\n" in script
    assert f"$PeerConnectTries = {CONNECT_TRIES}\n" in script
    assert f"$PeerConnectPauseMs = {int(CONNECT_PAUSE_S * 1000)}\n" in script
    assert f"$RefusedPattern = {ps_quote(REFUSED)} + '|actively refused'" in script


def test_the_kit_connects_only_after_every_field_is_checked():
    fns = functions(parse(_kit()))
    check = fns["Get-PeerConnectArgv"]
    body = text(check)
    # the server: an IPv4 address, then on one of this desktop's own cables; the port and the bounds
    assert commands(check)[:4] == ["Get-Field", "ConvertTo-IPAddress", "Stop-Refused", "Format-Value"]
    assert (body.index("ConvertTo-IPAddress") < body.index("[TengigKit.PeerRule]::Refusal")
            < body.index("$argv = Get-Iperf3ClientArgv"))
    assert "if ($null -ne $why) { Stop-Refused 'instruction.server' $why }" in body
    assert "$argv = Get-Iperf3ClientArgv $parsed.ToString() $params $PeerLimits" in body
    client = text(fns["Get-Iperf3ClientArgv"])  # the NAS's tests and the peer test build iperf3's client alike
    assert "Get-Int $params $field $limits[$field][0] $limits[$field][1]" in client
    assert "(Get-Iperf3ClientArgv (Get-Address $params) $params $Iperf3Limits)" in text(fns["Get-Iperf3Argv"])
    assert "Get-NetIPAddress -AddressFamily IPv4 -ErrorAction Stop" in text(fns["Get-AttachedSubnets"])
    peer = fns["Invoke-Peer"]
    body = text(peer)
    # an op that is none of the three is refused naming the field; listen and served, saying why
    assert "Stop-Refused 'instruction.op'" in body and "@($PeerOps) -ccontains $op" in body
    refusal = body[body.index("if ($op -cne 'connect') {"):body.index("$test = Get-PeerConnectArgv $params")]
    assert "Windows Firewall" in refusal and "exit_code = 2" in refusal and "Invoke-Tool" not in refusal
    assert commands(peer).index("Get-PeerConnectArgv") < commands(peer).index("Invoke-Tool")


def test_a_refused_connection_is_tried_again_a_bounded_number_of_times_watching_the_nas():
    body = text(functions(parse(_kit()))["Invoke-Peer"])
    loop = body[body.index("for ($try = 1; $true; $try++) {"):]
    assert "$result = Invoke-Tool $test.argv $test.timeout" in loop
    # read from iperf3's words (iperf3 3.12 with -J exits 0 on a refusal), at most $PeerConnectTries times
    assert re.search(r"if \(\$try -ge \$PeerConnectTries -or -not \[regex\]::IsMatch\(\$said, \$RefusedPattern\)\)"
                     r" \{ break \}", loop)
    assert "Step-Socket $PeerConnectPauseMs" in loop  # the pause looks at the NAS's connection
    assert "$result.stdout = Limit-Text (Compress-Iperf3 $result.stdout) $FrameBudget" in body
