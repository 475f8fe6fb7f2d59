# Each instruction kind's checks, against tengig client join's own (desk/instructions.py, desk/peer_rule.py:
# tests/desk/kit_cases.py wrote their verdicts): the same field refused, the same arguments taken; a refusal
# in words, to the NAS and to the person at the desktop, and nothing run.
BeforeDiscovery {
    $cases = @(Get-Content -Raw -LiteralPath (Join-Path $env:TENGIG_KIT_CASES 'instructions.json') | ConvertFrom-Json |
            ForEach-Object { @{ case = $_; name = $_.name } })
}

BeforeAll {
    . (Join-Path $PSScriptRoot 'KitTest.ps1')

    function Test-Instruction($Kit, $case) {
        # The kit's check of one case: @{ field = the refusal's field or $null; argv = iperf3's arguments }.
        try {
            $argv = switch ($case.kind) {
                'iperf3' { Get-Iperf3Argv $Kit $case.params }
                'smb' { [void](Get-SmbOp $Kit $case.params); $null }
                'smallfiles' { [void](Get-SmallFilesOp $Kit $case.params); $null }
                'peer' { (Get-PeerConnectArgv $Kit $case.params).argv }
            }
            return @{ field = $null; argv = $argv }
        } catch [System.ArgumentException] {
            return @{ field = $_.Exception.Message.Split(':')[0]; argv = $null; said = $_.Exception.Message }
        }
    }
}

Describe 'the instruction checks' {
    BeforeAll {
        $kit = New-TestKit
        Mock Get-KitAttachedSubnets { return , @('10.250.3.1/30', '192.168.1.20/24') }
    }

    It 'answers <name> as tengig client join does' -ForEach $cases {
        $got = Test-Instruction $kit $case
        $got.field | Should -Be $case.field
        if ($null -ne $case.argv) {
            @($got.argv | Select-Object -Skip 1) | Should -Be @($case.argv)
            $got.argv[0] | Should -Be $kit.Iperf3
        }
        if ($null -ne $case.field) {
            # in words: the field, then what was wrong with the value
            $got.said | Should -Match ('\A' + [regex]::Escape($case.field) + ': \S.{10,}')
        }
    }
}

Describe 'a refused instruction' {
    BeforeAll {
        $kit = New-TestKit
        Mock Invoke-Tool { throw 'no tool may run for a refused instruction' }
        Mock New-RandomFile { throw 'no file may be written for a refused instruction' }
        Mock Write-Host { }
    }

    It 'is answered with exit 2, no argv and the reason, and said at the desktop' {
        $params = [pscustomobject]@{ server = '10.0.0.9'; port = 5201; streams = 1; seconds = 1; omit = 0 }
        $result = Invoke-Instruction $kit 'iperf3' $params
        $result.exit_code | Should -Be 2
        @($result.argv).Count | Should -Be 0
        $result.stderr | Should -BeLike 'refused: instruction.server: 10.0.0.9 is not the NAS this desktop joined (127.0.0.1)*-NasAddress 10.0.0.9'
        Should -Invoke Write-Host -Times 1 -ParameterFilter { $Object -like '`[client`] refused: instruction.server: 10.0.0.9 *' }
        Should -Invoke Invoke-Tool -Times 0
    }

    It 'names a kind tengig does not measure' {
        $result = Invoke-Instruction $kit 'format' ([pscustomobject]@{})
        $result.exit_code | Should -Be 2
        $result.stderr | Should -Be 'refused: "format" is not something tengig measures'
    }

    It 'writes no file for an SMB copy to another host' {
        $params = [pscustomobject]@{ op = 'prepare'; server = '10.0.0.9'; share = 'media'; remote = 'tengig-bench-1-1-desk'; size = 1048576 }
        (Invoke-Instruction $kit 'smb' $params).stderr | Should -BeLike 'refused: instruction.server: *'
        Should -Invoke New-RandomFile -Times 0
    }

    It 'refuses a file bigger than -WorkDir can hold, before writing it' {
        Mock Write-Host { }
        $params = [pscustomobject]@{ op = 'prepare'; server = '127.0.0.1'; share = 'media'; remote = 'tengig-bench-1-1-desk'
            size = [long]68719476736 }
        Mock Get-KitShareRoot { return $TestDrive }
        $result = Invoke-Instruction $kit 'smb' $params
        $result.exit_code | Should -Be 2
        $result.stderr | Should -Match '\Arefused: instruction\.size: a file of 65536 MiB does not fit in .*: \d+ MiB free, of which the file must leave \d+ MiB; give -WorkDir a folder on a disk with room\z'
        Should -Invoke New-RandomFile -Times 0
    }

    It 'refuses a peer server in words (a Windows Firewall rule would be needed)' {
        $result = Invoke-Instruction $kit 'peer' ([pscustomobject]@{ op = 'listen'; bind = '10.250.3.1'; port = 5201 })
        $result.exit_code | Should -Be 2
        $result.stderr | Should -BeLike 'refused: this Windows kit runs no iperf3 server for another desktop*Windows Firewall*'
        Should -Invoke Invoke-Tool -Times 0
    }

    It 'refuses an own-disk test when the desktop joined without -Disk' {
        $result = Invoke-Instruction $kit 'disk' ([pscustomobject]@{ size = 1048576 })
        $result.stderr | Should -Be 'refused: this desktop joined without -Disk'
    }
}

Describe 'the NAS''s addresses' {
    BeforeAll { Mock Write-Host { } }

    It 'are what the host resolves to and what -NasAddress lists, however written' {
        $kit = New-TestKit @{ NasAddress = @('::ffff:10.250.12.1', 'fe80::1%12') }
        $found = Get-NasAddresses $kit
        $found | Should -Be @('10.250.12.1', 'fe80::1', '127.0.0.1')
    }

    It 'refuses a -NasAddress that is not an address, before anything connects' {
        $kit = New-TestKit @{ NasAddress = @('nas.example.lan') }
        { Get-NasAddresses $kit } | Should -Throw "-NasAddress: 'nas.example.lan' is not an IP address*"
    }
}
