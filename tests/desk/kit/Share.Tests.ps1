# The SMB copies: the Windows side (robocopy /J, its log given back whole: the recorded English and German
# ones) with robocopy replaced by a stand-in program that prints them; the Linux side through a folder that
# stands for the mounted share; the share's name or address; a failure down to its cause.
BeforeAll {
    . (Join-Path $PSScriptRoot 'KitTest.ps1')
    Mock Write-Host { }

    function Read-Fixture([string]$name) {
        # a recorded log without its '# ' header lines, as robocopy printed it
        return ((Get-Content -LiteralPath (Join-Path $script:KitFixtures $name)) | Where-Object { $_ -notlike '# *' }) -join "`n"
    }
}

Describe 'robocopy on Windows' {
    BeforeAll {
        # robocopy.exe on PATH: a stand-in that keeps its arguments and prints a recorded log
        $bin = Join-Path $TestDrive 'bin'
        [void](New-Item -ItemType Directory -Path $bin)
        $script:Args = Join-Path $TestDrive 'robocopy-args.txt'
        Set-Content -LiteralPath (Join-Path $bin 'robocopy.exe') -Value "#!/bin/sh`nprintf '%s\n' `"`$@`" > '$script:Args'`ncat `"`$ROBOCOPY_LOG`"`nexit 1"
        & chmod +x (Join-Path $bin 'robocopy.exe')
        $script:Path = $env:PATH
        $env:PATH = "$bin$([System.IO.Path]::PathSeparator)$env:PATH"
    }
    AfterAll { $env:PATH = $script:Path }

    It 'copies with /J and no retries, and gives its <name> log back whole' -ForEach @(
        @{ name = 'English'; file = 'robocopy-put-256MiB.txt' }, @{ name = 'German'; file = 'robocopy-put-256MiB-de.txt' }) {
        $kit = New-TestKit -Windows
        $log = Read-Fixture $file
        $env:ROBOCOPY_LOG = Join-Path $TestDrive 'log.txt'
        [System.IO.File]::WriteAllText($env:ROBOCOPY_LOG, $log)
        $result = Invoke-Robocopy $kit 'C:\Temp\put' '\\127.0.0.1\media\tengig-bench-1-1-desk' 'f0.dat' 268435456
        $result.exit_code | Should -Be 1  # robocopy: 1 = copied
        $result.stdout | Should -BeExactly $log
        @(Get-Content -LiteralPath $script:Args) | Should -Be @('C:\Temp\put', '\\127.0.0.1\media\tengig-bench-1-1-desk', 'f0.dat',
            '/J', '/IS', '/IT', '/R:0', '/W:0', '/NP', '/NDL', '/BYTES')
        $result.argv[0] | Should -Be 'robocopy.exe'
    }

    It 'puts to the share by its UNC path, the prepared file under the remote name' {
        $kit = New-TestKit -Windows
        Mock Invoke-KitCopyToShare { return @{ exit_code = 1; stdout = 'log'; argv = @('robocopy.exe') } }
        Mock Get-Item { return [pscustomobject]@{ Length = [long]1048576 } }
        Mock Move-Item { }
        $kit.Source = Join-Path $kit.SourceDir 'source.dat'
        $params = [pscustomobject]@{ op = 'put'; server = '127.0.0.1'; share = 'media'; remote = 'tengig-bench-1-1-desk\f0.dat'; size = 1048576 }
        (Invoke-Smb $kit $params).stdout | Should -Be 'log'
        Should -Invoke Invoke-KitCopyToShare -Times 1 -ParameterFilter {
            $to -eq '\\127.0.0.1\media\tengig-bench-1-1-desk' -and $file -eq 'f0.dat' -and $size -eq 1048576 }
        $kit.Source | Should -Be (Join-Path $kit.SourceDir 'f0.dat')
    }

    It 'reports the channels as JSON rows, a list even of one (Get-SmbMultichannelConnection)' {
        $kit = New-TestKit -Windows
        $rows = Get-Content -Raw -LiteralPath (Join-Path $script:KitFixtures 'get-smbmultichannelconnection-two-nics.json') | ConvertFrom-Json
        Mock Get-KitSmbChannels { return , @($rows[0]) }
        $result = Get-SmbChannels $kit '127.0.0.1'
        $result.exit_code | Should -Be 0
        $result.stdout | Should -Match '\A\[\{"ServerName":'
        @(ConvertFrom-Json $result.stdout).Count | Should -Be 1
    }

    It 'says why the channels could not be read' {
        $kit = New-TestKit
        $result = Get-SmbChannels $kit '127.0.0.1'
        $result.exit_code | Should -Be 1
        $result.stderr | Should -BeLike "Get-SmbMultichannelConnection: Get-SmbMultichannelConnection is Windows' own*"
    }
}

Describe 'the copies where not Windows' {
    BeforeAll {
        $script:Share = Join-Path $TestDrive 'share'
        [void](New-Item -ItemType Directory -Path $script:Share)
        $script:kit = New-TestKit @{ ShareMount = $script:Share; WorkDir = $TestDrive }
        Mock Assert-Room { }
    }

    It 'prepare, put and get a file through the mounted share; the NAS reads their lines' {
        $base = @{ server = '127.0.0.1'; share = 'media'; size = 1048576 }
        $prepare = Invoke-Smb $kit ([pscustomobject](@{ op = 'prepare'; remote = 'tengig-bench-1-1-desk' } + $base))
        $prepare.exit_code | Should -Be 0
        Test-Path -LiteralPath (Join-Path $script:Share 'tengig-bench-1-1-desk') -PathType Container | Should -BeTrue
        $put = Invoke-Smb $kit ([pscustomobject](@{ op = 'put'; remote = 'tengig-bench-1-1-desk\f0.dat' } + $base))
        $put.stdout | Should -Match '\Atengig-copy: put 1048576 bytes in \d+\.\d{6} s \(written through the mounted share\)\z'
        (Get-Item -LiteralPath (Join-Path $script:Share 'tengig-bench-1-1-desk/f0.dat')).Length | Should -Be 1048576
        $get = Invoke-Smb $kit ([pscustomobject](@{ op = 'get'; remote = 'tengig-bench-1-1-desk\f0.dat' } + $base))
        $get.stdout | Should -Match '\Atengig-copy: get 1048576 bytes in \d+\.\d{6} s \(read into memory and discarded\)\z'
        $get.argv | Should -Be @('tengig-copy', (Join-Path $script:Share 'tengig-bench-1-1-desk/f0.dat'))
    }

    It 'replaces an older, longer file of that name whole (made afresh, not truncated: smbnetfs cannot ftruncate)' {
        $base = @{ server = '127.0.0.1'; share = 'media'; size = 1048576 }
        $older = Join-Path $script:Share 'tengig-bench-1-1-desk/f1.dat'
        [System.IO.File]::WriteAllBytes($older, (New-Object byte[] 3145728))
        $put = Invoke-Smb $kit ([pscustomobject](@{ op = 'put'; remote = 'tengig-bench-1-1-desk\f1.dat' } + $base))
        $put.exit_code | Should -Be 0
        (Get-Item -LiteralPath $older).Length | Should -Be 1048576
        $stream = [TengigKit.Platform]::Create($older, [System.IO.FileShare]::None, [System.IO.FileOptions]::None)
        $stream.Dispose()
        (Get-Item -LiteralPath $older).Length | Should -Be 0
    }

    It 'refuses a copy of a size it did not prepare' {
        $params = [pscustomobject]@{ op = 'get'; server = '127.0.0.1'; share = 'media'; remote = 'tengig-bench-1-1-desk\f0.dat'; size = 2097152 }
        (Invoke-Smb $kit $params).stderr | Should -Be 'refused: no prepared file of that size'
    }

    It 'says why a read failed, down to its cause' {
        $result = Read-Share $kit (Join-Path $TestDrive 'nothing-here.dat') 1048576
        $result.exit_code | Should -Be 1
        $result.stderr | Should -BeLike "cannot read */nothing-here.dat: Could not find file*"
    }
}

Describe 'the share''s host' {
    It 'is the name the kit knows the NAS by when it is the address asked for, else the address, said once' {
        $kit = New-TestKit
        Mock Write-Say { }
        Get-ShareHost $kit '127.0.0.1' | Should -Be '127.0.0.1'
        Get-ShareHost $kit 'fd00::1' | Should -Be 'fd00--1.ipv6-literal.net'
        Get-ShareHost $kit 'fd00::1' | Should -Be 'fd00--1.ipv6-literal.net'
        Should -Invoke Write-Say -Times 1 -ParameterFilter { $line -like 'copies go to \\fd00--1.ipv6-literal.net\media, *-Credential NAME' }
    }
}

Describe 'the own-disk test' {
    It 'writes then reads a file in a folder of its own on -Disk, and removes it' {
        $disk = Join-Path $TestDrive 'disk'
        [void](New-Item -ItemType Directory -Path $disk)
        $kit = New-TestKit @{ Disk = $disk }
        Mock Assert-Room { }
        $result = Invoke-OwnDisk $kit ([pscustomobject]@{ size = 1048576 })
        $result.exit_code | Should -Be 0
        $lines = $result.stdout.TrimEnd("`n").Split("`n")
        $lines[0] | Should -Match '\Atengig-copy: put 1048576 bytes in \d+\.\d{6} s \(unbuffered'
        $lines[1] | Should -Match '\Atengig-copy: get 1048576 bytes in \d+\.\d{6} s '
        @(Get-ChildItem -LiteralPath $disk).Count | Should -Be 0
    }

    It 'refuses a size unbuffered I/O cannot write' {
        $kit = New-TestKit @{ Disk = $TestDrive }
        { Invoke-OwnDisk $kit ([pscustomobject]@{ size = 1048577 }) } | Should -Throw 'instruction.size: 1048577 is not a multiple of 4096 (unbuffered I/O)'
    }
}
