# The join protocol as the kit speaks it: each call one JSON-RPC message, no message over the NAS's limit, a
# long answer in parts (each measured as it is sent, never half a surrogate pair), an event skipped, an
# error answer said in words.
BeforeAll {
    . (Join-Path $PSScriptRoot 'KitTest.ps1')

    function New-FakeNas($Kit) {
        # Send-Message and Receive-Message replaced: every message kept, each call answered true with its id.
        $script:Sent = New-Object 'System.Collections.Generic.List[string]'
        Mock Send-Message { $script:Sent.Add($text) }
        Mock Receive-Message {
            $call = ConvertFrom-Json $script:Sent[$script:Sent.Count - 1]
            return (ConvertTo-Json -Compress -InputObject @{ jsonrpc = '2.0'; id = $call.id; result = $true })
        }
    }

    function Join-Parts {
        # The parts of one submission put together, as the NAS does: [stdout, stderr, the parts].
        $parts = @($script:Sent | ForEach-Object { (ConvertFrom-Json $_).params[0] })
        return @((($parts | ForEach-Object { $_.stdout }) -join ''), (($parts | ForEach-Object { $_.stderr }) -join ''), $parts)
    }
}

Describe 'a call' {
    It 'is one JSON-RPC 2.0 message with the whole list of params, and the next id' {
        $kit = New-TestKit
        New-FakeNas $kit
        $kit.CallId = 41
        Invoke-Nas $kit 'tengig.bench.session.join' @('tgb-x', [ordered]@{ hostname = "Ana's <desk>"; smb = $true }) | Should -Be $true
        $call = ConvertFrom-Json $script:Sent[0]
        $call.jsonrpc | Should -Be '2.0'
        $call.id | Should -Be 42
        $call.method | Should -Be 'tengig.bench.session.join'
        $call.params[0] | Should -Be 'tgb-x'
        $call.params[1].hostname | Should -Be "Ana's <desk>"
    }

    It 'skips what is not its answer (an event) and says an error answer in words' {
        $kit = New-TestKit
        $script:Answers = [System.Collections.Generic.Queue[string]]@(
            '{"jsonrpc":"2.0","method":"collection_update","params":{}}',
            '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"the run ended"}}')
        Mock Send-Message { }
        Mock Receive-Message { return $script:Answers.Dequeue() }
        { Invoke-Nas $kit 'tengig.bench.session.join' @('t', @{}) -refused 'could not join: {0} (a kit works for its one run only)' } |
            Should -Throw 'could not join: the run ended (a kit works for its one run only)'
    }

    It 'never sends a message over the NAS''s limit (a bug of the kit, said so)' {
        $kit = New-TestKit
        $kit.Ws = 'not used: refused before it is sent'
        { Send-Message $kit ('x' * ($kit.MessageLimit + 1)) } | Should -Throw "a bug in this kit: a message of $($kit.MessageLimit + 1) bytes, over the NAS's $($kit.MessageLimit); not sent"
    }
}

Describe 'a submission' {
    BeforeAll { $kit = New-TestKit }
    BeforeEach { New-FakeNas $kit }

    It 'goes in one part when it is short, with more false and its fields' {
        Send-Submission $kit 7 @{ exit_code = 0; stdout = 'ok'; stderr = ''; argv = @('iperf3.exe'); seconds = 1.5 }
        $script:Sent.Count | Should -Be 1
        $part = (ConvertFrom-Json $script:Sent[0]).params[0]
        @($part.PSObject.Properties.Name) | Should -Be @('instruction', 'exit_code', 'stdout', 'stderr', 'argv', 'seconds', 'more')
        $part.instruction | Should -Be 7
        $part.more | Should -BeFalse
        @($part.argv) | Should -Be @('iperf3.exe')  # a list of one stays a list
        $part.seconds | Should -Be 1.5
    }

    It 'keeps an empty argv a list and adds cpu_seconds and cpus only when measured' {
        Send-Submission $kit 8 @{ exit_code = 2; stderr = 'refused: x'; argv = @() }
        $script:Sent[0] | Should -Match '"argv":\[\]'
        $script:Sent[0] | Should -Not -Match 'cpu'
        New-FakeNas $kit
        Send-Submission $kit 9 @{ exit_code = 0; stdout = 'x'; argv = @('a'); cpu_seconds = 0.5; cpus = 8.0 }
        $part = (ConvertFrom-Json $script:Sent[0]).params[0]
        $part.cpu_seconds | Should -Be 0.5
        $part.cpus | Should -Be 8
    }

    It 'cuts a long awkward answer into parts that each fit, and the NAS gets it whole' {
        $emoji = [char]::ConvertFromUtf32(0x1F600)
        $awkward = "Ana's <desk> & `"NAS`" \\nas\media`ttab`r`n" + [char]0xE9 + [char]0x20AC + $emoji + [char]0x2028 + [char]1
        $stdout = (-join (0..($awkward.Length - 1) | ForEach-Object { $awkward.Substring(0, $_) + $emoji })) * 12
        $stderr = $awkward * 40
        Send-Submission $kit 11 @{ exit_code = 0; stdout = $stdout; stderr = $stderr; argv = @('tengig-copy'); seconds = 1e-05 }
        $script:Sent.Count | Should -BeGreaterThan 3
        foreach ($text in $script:Sent) {
            [System.Text.Encoding]::UTF8.GetByteCount($text) | Should -BeLessOrEqual $kit.MessageLimit
            $text | Should -Not -Match '\\ud83d"'  # no part ends with half of a surrogate pair
        }
        $out, $err, $parts = Join-Parts
        $out | Should -BeExactly $stdout
        $err | Should -BeExactly $stderr
        @($parts | Where-Object { -not $_.more }).Count | Should -Be 1
        $parts[-1].more | Should -BeFalse
    }

    It 'measures each part with the id Invoke-Nas gives it' {
        $kit.CallId = 99
        Send-Submission $kit 12 @{ exit_code = 0; stdout = ('y' * 9000); argv = @() }
        @($script:Sent | ForEach-Object { (ConvertFrom-Json $_).id }) | Should -Be @(100, 101, 102)
    }
}

Describe 'Get-Slice' {
    It 'never ends inside a surrogate pair' {
        $text = 'ab' + [char]::ConvertFromUtf32(0x1F600) + 'c'
        Get-Slice $text 0 3 | Should -BeExactly 'ab'
        Get-Slice $text 2 1 | Should -BeExactly ([char]::ConvertFromUtf32(0x1F600))
        Get-Slice $text 4 10 | Should -BeExactly 'c'
    }
}

Describe 'what the kit prints' {
    It 'has control and bidi characters escaped' {
        $kit = New-TestKit
        Format-Shown $kit ("gone" + [char]0x1B + "]0;owned" + [char]7 + [char]0x202E + "x") | Should -BeExactly 'gone\x1b]0;owned\x07\u202ex'
    }
}
