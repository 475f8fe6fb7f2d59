# The small-file test as the kit runs it here (.NET's file APIs; where not Windows, plain file I/O for the read
# and the delete): each batch's lines in the form the NAS reads, its files made and removed, a failure naming
# the batch and the file, and nothing left on the desktop's own disk.
BeforeAll {
    . (Join-Path $PSScriptRoot 'KitTest.ps1')
    Mock Write-Host { }
    $script:Share = Join-Path $TestDrive 'share'
    [void](New-Item -ItemType Directory -Path $script:Share)

    function Invoke-Small($Kit, [string]$op, [int]$count = 20, [int]$size = 4096) {
        $params = [pscustomobject]@{ op = $op; server = '127.0.0.1'; share = 'media'; remote = 'tengig-scratch-1-s\desk'
            size = $size; count = $count }
        return (Invoke-Instruction $Kit 'smallfiles' $params)
    }

    function Assert-Batch($result, [string]$op, [int]$count, [int]$size) {
        # the NAS's form (bench/parse/smallfiles_parse.py): seconds, then the timer's start, a line per file, its end
        $timer = $KitConfig.OwnTimer
        $lines = $result.stdout.TrimEnd("`n").Split("`n")
        $lines.Count | Should -Be ($count + 2)
        $lines[0] | Should -Match ('\A\d+\.\d{6} ' + $timer + ': start ' + $op + '\z')
        $lines[-1] | Should -Match ('\A\d+\.\d{6} ' + $timer + ': end ' + $op + '\z')
        for ($i = 0; $i -lt $count; $i++) {
            $lines[$i + 1] | Should -Match ('\A\d+\.\d{6} ' + $timer + (': file f{0:D5}\.bin {1} open=\d+\.\d{{6}} io=\d+\.\d{{6}} close=\d+\.\d{{6}}\z' -f $i, $size))
        }
        $seconds = @($lines | ForEach-Object { [double]::Parse($_.Split(' ')[0], [System.Globalization.CultureInfo]::InvariantCulture) })
        ($seconds | Sort-Object) | Should -Be $seconds  # the batch's clock only goes forward
    }
}

Describe 'a batch through the mounted share' {
    BeforeAll { $kit = New-TestKit @{ ShareMount = $script:Share } }

    It 'prepares the files in memory and their folder in the share' {
        $result = Invoke-Small $kit 'prepare'
        $result.exit_code | Should -Be 0
        Test-Path -LiteralPath (Join-Path $script:Share 'tengig-scratch-1-s/desk/small-4096') -PathType Container | Should -BeTrue
        $kit.Small.Count | Should -Be 20
    }

    It 'runs <op> on every file, one line each, in the NAS''s form' -ForEach @(
        @{ op = 'write' }, @{ op = 'stat' }, @{ op = 'read' }, @{ op = 'delete' }) {
        $result = Invoke-Small $kit $op
        $result.exit_code | Should -Be 0
        Assert-Batch $result $op 20 4096
        $result.argv | Should -Be @($KitConfig.OwnTimer, $op, (Join-Path $script:Share 'tengig-scratch-1-s/desk/small-4096'))
    }

    It 'has removed the files and their folder after the delete' {
        Test-Path -LiteralPath (Join-Path $script:Share 'tengig-scratch-1-s/desk/small-4096') | Should -BeFalse
    }

    It 'fails a delete of a file that is not there, naming the batch and the file, with the lines so far' {
        [void](Invoke-Small $kit 'write' 3)
        Remove-Item -LiteralPath (Join-Path $script:Share 'tengig-scratch-1-s/desk/small-4096/f00001.bin')
        $result = Invoke-Small $kit 'delete' 3
        $result.exit_code | Should -Be 1
        $result.stderr | Should -BeLike 'small files delete in */small-4096: *f00001.bin: there is no such file to delete'
        $result.stdout | Should -Match 'file f00000\.bin 4096'
    }

    It 'refuses when the desktop joined with -NoSmb' {
        $noSmb = New-TestKit @{ NoSmb = $true }
        (Invoke-Small $noSmb 'write').stderr | Should -Be 'refused: this desktop joined without SMB (-NoSmb)'
    }
}

Describe 'a batch on the desktop''s own disk (-Disk)' {
    It 'runs write, stat, read and delete in a folder of its own, removed after' {
        $disk = Join-Path $TestDrive 'disk'
        [void](New-Item -ItemType Directory -Path $disk)
        $kit = New-TestKit @{ Disk = $disk }
        Mock Assert-Room { }
        $result = Invoke-Small $kit 'disk' 5
        $result.exit_code | Should -Be 0
        $result.stdout | Should -Match ": start write\n(.*\n){5}.*: end write\n.*: start stat\n"
        $result.stdout | Should -Match ': end delete\n\z'
        @(Get-ChildItem -LiteralPath $disk).Count | Should -Be 0
    }

    It 'says what it could not remove, and the batch fails' {
        $kit = New-TestKit @{ Disk = $TestDrive }
        Mock Assert-Room { }
        Mock Invoke-SmallBatches { return @{ exit_code = 0; stdout = "x`n"; argv = @() } }
        Mock Remove-KitFolder { return 'could not remove D:\tengig-kit-small-1: in use' }
        $result = Invoke-Small $kit 'disk' 5
        $result.exit_code | Should -Be 1
        $result.stderr | Should -Be 'could not remove D:\tengig-kit-small-1: in use'
    }

    It 'is refused without -Disk' {
        $kit = New-TestKit
        (Invoke-Small $kit 'disk').stderr | Should -Be 'refused: this desktop joined without -Disk'
    }
}

Describe 'Remove-KitFolder' {
    It 'says nothing when the folder is gone' {
        $folder = Join-Path $TestDrive 'gone'
        [void](New-Item -ItemType Directory -Path (Join-Path $folder 'a/b'))
        Remove-KitFolder $folder | Should -Be ''
        Test-Path -LiteralPath $folder | Should -BeFalse
    }
}
