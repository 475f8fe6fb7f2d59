# The run around the instructions: the context object, iperf3 checked before joining, what the desktop says
# of itself, the errors shown down to their cause, and the end (its code, its last words, nothing left).
BeforeAll {
    . (Join-Path $PSScriptRoot 'KitTest.ps1')
    Mock Write-Host { }
}

Describe 'the context' {
    It 'holds the patterns whole and the defaults of this system' {
        $kit = New-KitContext $KitConfig @{} $KitHelpers
        $kit.SharePattern | Should -BeExactly ('\A(?:' + $KitConfig.SharePattern + ')\z')
        [regex]::IsMatch('media', $kit.SharePattern) | Should -BeTrue
        [regex]::IsMatch("media`n", $kit.SharePattern) | Should -BeFalse
        $kit.RefusedPattern | Should -BeExactly ($KitConfig.RefusedPattern + '|actively refused')
        $kit.Windows | Should -BeFalse
        $kit.Name | Should -Be ([System.Environment]::MachineName)
        $kit.Staging | Should -BeLike (Join-Path ([System.IO.Path]::GetTempPath()) 'tengig-kit-*')
    }

    It 'refuses a property it does not have (a misspelling fails, it is never an empty value)' {
        $kit = New-TestKit
        { $kit.MessageLimt } | Should -Throw '*MessageLimt*cannot be found*'
    }
}

Describe 'iperf3, before joining' {
    It 'runs and says iperf 3.x' {
        $kit = New-TestKit
        { Test-Iperf3 $kit } | Should -Not -Throw
    }

    It 'is named when it is missing on Windows' {
        $kit = New-TestKit -Windows
        $kit.Iperf3 = Join-Path $TestDrive 'iperf3.exe'
        { Test-Iperf3 $kit } | Should -Throw "-Iperf3: there is no $($kit.Iperf3); put iperf3.exe (3.x, with the DLLs*"
    }

    It 'names a DLL it cannot load (0xC0000135)' {
        $kit = New-TestKit
        Mock Invoke-Tool { return @{ exit_code = -1073741515; stdout = ''; stderr = ''; argv = @() } }
        { Test-Iperf3 $kit } | Should -Throw '*cannot start: a DLL it needs is missing (0xC0000135)*cygwin1.dll*'
    }

    It 'refuses another program, quoting what it said' {
        $kit = New-TestKit
        $kit.Iperf3 = Join-Path $TestDrive 'not-iperf3'
        Set-Content -LiteralPath $kit.Iperf3 -Value "#!/bin/sh`necho 'iperf 2.1.9'`nexit 3"
        & chmod +x $kit.Iperf3
        { Test-Iperf3 $kit } | Should -Throw "$($kit.Iperf3) --version did not say iperf 3.x (exit 3): iperf 2.1.9; give an iperf3 of version 3 with -Iperf3"
    }
}

Describe 'what the desktop says of itself' {
    It 'is its name, os, kit version and SMB, and its link when the NAS takes the interface''s name' {
        $kit = New-TestKit @{ Name = 'DESK-1' } -Windows
        Mock Get-KitLink { return @{ name = 'Ethernet 2'; mtu = [long]1500; speed_bps = [long]10000000000 } }
        $info = Get-JoinInfo $kit
        @($info.Keys) | Should -Be @('hostname', 'os', 'tengig', 'smb', 'interface', 'mtu', 'speed_bps')
        $info.os | Should -Be 'windows'
        $info.tengig | Should -Be "kit $($KitConfig.KitVersion)"
        $info.interface | Should -Be 'Ethernet 2'
    }

    It 'leaves out what the NAS would refuse, and says disk only with -Disk' {
        $kit = New-TestKit @{ Disk = $TestDrive }
        Mock Get-KitLink { return @{ name = "bad`nname"; mtu = [long]10; speed_bps = [long]-1 } }
        $info = Get-JoinInfo $kit
        @($info.Keys) | Should -Be @('hostname', 'os', 'tengig', 'smb', 'disk')
    }

    It 'reads the link where not Windows (.NET''s interfaces)' {
        (Get-KitLink (New-TestKit) '127.0.0.1').name | Should -Be 'lo'
    }
}

Describe 'an error' {
    It 'is shown down to its cause, each message once' {
        $inner = New-Object System.IO.IOException 'The network path was not found.'
        $wrapped = New-Object System.AggregateException 'One or more errors occurred.', $inner
        $outer = New-Object System.Net.WebSockets.WebSocketException 'Unable to connect to the remote server', $wrapped
        [TengigKit.Trust]::Install('', $null)
        Format-Error $outer | Should -BeExactly 'Unable to connect to the remote server: The network path was not found.'
    }

    It 'of a .NET call is its own message, not "Exception calling"' {
        try { [System.IO.File]::ReadAllText((Join-Path $TestDrive 'none')) } catch { $caught = $_.Exception }
        Format-Error $caught | Should -BeLike 'Could not find file*none*'
    }
}

Describe 'the end of the run' {
    It 'is exit 1 and one line saying why, with every tool stopped and the work folder gone' {
        $kit = New-TestKit
        [void](New-Item -ItemType Directory -Path $kit.Staging)
        Mock Invoke-Join { throw (New-Object System.Exception "the NAS stopped the run: `e[2Jowned") }
        Mock Write-KitError { }
        Invoke-KitMain $kit | Should -Be 1
        Should -Invoke Write-KitError -Times 1 -ParameterFilter { $line -eq "the NAS stopped the run: $([char]27)[2Jowned" }
        Test-Path -LiteralPath $kit.Staging | Should -BeFalse
    }

    It 'is exit 0 when the NAS ends it, and nothing else is written to the output' {
        $kit = New-TestKit
        Mock Invoke-Join { 'leaked output' }
        $code = Invoke-KitMain $kit
        $code | Should -Be 0
        @($code).Count | Should -Be 1
    }

    It 'stops a tool that is still running' {
        $kit = New-TestKit
        $kit.Running = [System.Diagnostics.Process]::Start('sleep', '60')
        $process = $kit.Running
        Stop-KitRun $kit
        $process.HasExited | Should -BeTrue
        $kit.Running | Should -BeNullOrEmpty
    }

    It 'prints the last words with control characters escaped' {
        $kit = New-TestKit
        $said = New-Object System.IO.StringWriter
        $was = [Console]::Error
        [Console]::SetError($said)
        try { Write-KitError $kit "x$([char]27)[2J" } finally { [Console]::SetError($was) }
        $said.ToString().TrimEnd() | Should -BeExactly '[client] error: x\x1b[2J'
    }
}

Describe 'the instructions loop' {
    It 'sends the tool''s CPU only when the NAS asks, and stops at done' {
        $kit = New-TestKit
        $script:Next = [System.Collections.Generic.Queue[object]]@(
            [pscustomobject]@{ id = 1; kind = 'iperf3'; params = [pscustomobject]@{ cpu = $true } },
            [pscustomobject]@{ id = 2; kind = 'iperf3'; params = [pscustomobject]@{} },
            [pscustomobject]@{ id = 3; kind = 'done'; params = [pscustomobject]@{} })
        Mock Assert-KitOptions { }
        Mock Start-KitGuard { }
        Mock Test-Iperf3 { }
        Mock Assert-Room { }
        Mock Connect-Nas { }
        Mock Get-NasAddresses { return , @('127.0.0.1') }
        Mock Invoke-Nas -ParameterFilter { $method -eq 'tengig.bench.session.join' } { return [pscustomobject]@{ session = 1; name = 'desk' } }
        Mock Invoke-Nas -ParameterFilter { $method -eq 'tengig.bench.session.next' } { return $script:Next.Dequeue() }
        Mock Invoke-Instruction { return @{ exit_code = 0; stdout = 'x'; argv = @('iperf3'); cpu_seconds = 0.25 } }
        Mock Send-Submission { }
        Invoke-Join $kit
        Should -Invoke Send-Submission -Times 1 -ParameterFilter { $instruction -eq 1 -and $result.cpu_seconds -eq 0.25 -and $result.cpus -ge 1 }
        Should -Invoke Send-Submission -Times 1 -ParameterFilter { $instruction -eq 2 -and -not $result.ContainsKey('cpu_seconds') -and -not $result.ContainsKey('cpus') }
        Should -Invoke Write-Host -ParameterFilter { $Object -eq '[client] the run is finished; its verdict is on the NAS' }
    }

    It 'ends with the NAS''s reason when it aborts' {
        $kit = New-TestKit
        Mock Assert-KitOptions { }
        Mock Start-KitGuard { }
        Mock Test-Iperf3 { }
        Mock Assert-Room { }
        Mock Connect-Nas { }
        Mock Get-NasAddresses { return , @('127.0.0.1') }
        Mock Invoke-Nas -ParameterFilter { $method -eq 'tengig.bench.session.join' } { return [pscustomobject]@{ session = 1; name = 'desk'; nas_address = '' } }
        Mock Invoke-Nas -ParameterFilter { $method -eq 'tengig.bench.session.next' } { return [pscustomobject]@{ id = 1; kind = 'abort'; params = [pscustomobject]@{ reason = 'the pool is busy' } } }
        { Invoke-Join $kit } | Should -Throw 'the NAS stopped the run: the pool is busy'
    }

    It 'refuses -ShareMount missing where not Windows, before anything starts' {
        $kit = New-TestKit @{ ShareMount = (Join-Path $TestDrive 'not-mounted') }
        { Assert-KitOptions $kit } | Should -Throw '-ShareMount: where not Windows the copies go through the share mounted here*'
    }
}
