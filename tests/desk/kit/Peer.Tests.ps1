# A mesh verify's cable to another desktop: TengigKit.PeerRule against desk/peer_rule.py's answers on the shared
# cases (tests/desk/replay_cases.py PEER_CASES), the same words; a refused connection tried again, boundedly,
# watching the NAS; this desktop's own addresses read on either side of the seam.
BeforeDiscovery {
    $cases = @(Get-Content -Raw -LiteralPath (Join-Path $env:TENGIG_KIT_CASES 'peer-rule.json') | ConvertFrom-Json |
            ForEach-Object { @{ case = $_; name = "$($_.address) from [$(@($_.attached) -join ', ')]" } })
}

BeforeAll {
    . (Join-Path $PSScriptRoot 'KitTest.ps1')
    Mock Write-Host { }
}

Describe 'the peer rule' {
    BeforeAll { $kit = New-TestKit }

    It 'answers <name> as tengig client join does, in the same words' -ForEach $cases {
        $why = [TengigKit.PeerRule]::Refusal($case.address, [string[]]@($case.attached), $kit.NarrowestPrefix)
        if ($null -eq $why) { $why = 'OK' }
        $why | Should -BeExactly $case.expected
    }
}

Describe 'a peer test' {
    BeforeAll {
        $kit = New-TestKit
        Mock Get-KitAttachedSubnets { return , @('10.250.3.1/30') }
        $params = [pscustomobject]@{ op = 'connect'; server = '10.250.3.2'; port = 5201; streams = 1; seconds = 1; omit = 0 }
    }

    It 'is tried again while the other desktop''s server is not listening, the NAS watched in between' {
        $script:Tries = 0
        Mock Invoke-Tool {
            $script:Tries++
            if ($script:Tries -lt 3) { return @{ exit_code = 0; stdout = '{"error": "unable to connect to server: Connection refused"}'; argv = $argv } }
            return @{ exit_code = 0; stdout = '{"end": {}}'; argv = $argv }
        }
        Mock Step-Socket { }
        $result = Invoke-Peer $kit $params
        $result.stdout | Should -Be '{"end": {}}'
        Should -Invoke Invoke-Tool -Times 3 -Exactly
        Should -Invoke Step-Socket -Times 2 -Exactly -ParameterFilter { $waitMs -eq $kit.PeerConnectPauseMs }
    }

    It 'gives up after its tries (a Winsock refusal in the words of native Windows builds)' {
        Mock Invoke-Tool { return @{ exit_code = 1; stderr = 'No connection could be made because the target machine actively refused it.'; argv = $argv } }
        Mock Step-Socket { }
        $result = Invoke-Peer $kit $params
        $result.exit_code | Should -Be 1
        Should -Invoke Invoke-Tool -Times $kit.PeerConnectTries -Exactly
    }

    It 'is refused when this desktop''s addresses cannot be read, saying so' {
        $kit2 = New-TestKit
        Mock Get-KitAttachedSubnets { throw 'Access denied' }
        { Get-PeerConnectArgv $kit2 $params } | Should -Throw 'instruction.server: 10.250.3.2 is not on a subnet of /24 or narrower*(none)*'
        Should -Invoke Write-Host -ParameterFilter { $Object -like "*could not read this desktop's IPv4 addresses*Access denied" }
    }
}

Describe 'this desktop''s own addresses' {
    It 'reads this desktop''s addresses where not Windows (.NET''s interfaces)' {
        $attached = Get-KitAttachedSubnets (New-TestKit)  # one array (a caller's @() would nest it)
        $attached | Should -Contain '127.0.0.1/8'
    }

    It 'reads them with Get-NetIPAddress on Windows' {
        function Get-NetIPAddress { [CmdletBinding()] param($AddressFamily) }  # NetTCPIP's, Windows only
        Mock Get-NetIPAddress { return @([pscustomobject]@{ IPAddress = '10.250.3.1'; PrefixLength = 30 }) }
        $attached = Get-KitAttachedSubnets (New-TestKit -Windows)
        @($attached) | Should -Be @('10.250.3.1/30')
        Should -Invoke Get-NetIPAddress -ParameterFilter { $AddressFamily -eq 'IPv4' -and $ErrorAction -eq 'Stop' }
    }
}
