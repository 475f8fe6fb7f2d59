# -- the NAS's API: JSON-RPC 2.0 over one websocket, without a login -------------------------------------
# One receive is always in flight: it also answers the NAS's pings while a tool runs.
function Connect-Nas($Kit) {
    # TLS 1.2, and 1.3 where Windows has it (Windows 11, Server 2022), never older; the NAS's certificate
    # trusted by the fingerprint read when this kit was made, or as -CaFile's CA signed it.
    $ws = New-Object System.Net.WebSockets.ClientWebSocket
    $authority = $null
    if ($Kit.CaFile) {
        $path = (Resolve-Path -LiteralPath $Kit.CaFile).ProviderPath
        $authority = New-Object System.Security.Cryptography.X509Certificates.X509Certificate2 -ArgumentList $path
    }
    [TengigKit.Trust]::Install($Kit.CertSha256, $authority)
    if ($null -ne $ws.Options.PSObject.Properties['RemoteCertificateValidationCallback']) {
        # .NET Core (PowerShell 7): the websocket's own callback; ServicePointManager's no longer reaches it.
        $ws.Options.RemoteCertificateValidationCallback = [TengigKit.Trust]::Validator
    } else {
        # .NET Framework (Windows PowerShell 5.1): the websocket is checked through ServicePointManager.
        $protocols = [System.Net.SecurityProtocolType]::Tls12
        if ([Enum]::GetNames([System.Net.SecurityProtocolType]) -contains 'Tls13' -and
            [Environment]::OSVersion.Version.Build -ge 20348) {
            $protocols = $protocols -bor [System.Net.SecurityProtocolType]'Tls13'
        }
        [System.Net.ServicePointManager]::SecurityProtocol = $protocols
        [System.Net.ServicePointManager]::ServerCertificateValidationCallback = [TengigKit.Trust]::Validator
    }
    $Kit.Ws = $ws
    # [void]: on .NET Core a Task's GetResult() returns a VoidTaskResult, which would leak into the output
    [void]$ws.ConnectAsync([Uri]$Kit.NasUri, [System.Threading.CancellationToken]::None).GetAwaiter().GetResult()
}

function Step-Socket($Kit, [int]$waitMs) {
    if ($null -eq $Kit.Ws) { return }  # not connected yet (iperf3 checked before joining)
    if ($null -eq $Kit.Pending) {
        $segment = New-Object 'System.ArraySegment[byte]' -ArgumentList @(, $Kit.Buffer)
        $Kit.Pending = $Kit.Ws.ReceiveAsync($segment, [System.Threading.CancellationToken]::None)
    }
    if (-not $Kit.Pending.Wait($waitMs)) { return }
    $result = $Kit.Pending.GetAwaiter().GetResult()
    $Kit.Pending = $null
    if ($result.MessageType -eq [System.Net.WebSockets.WebSocketMessageType]::Close) {
        throw "the NAS closed the connection ($($result.CloseStatusDescription))"
    }
    $Kit.Partial.Write($Kit.Buffer, 0, $result.Count)
    if ($result.EndOfMessage) {
        $Kit.Inbox.Enqueue([System.Text.Encoding]::UTF8.GetString($Kit.Partial.ToArray()))
        $Kit.Partial.SetLength(0)
    }
}

function Receive-Message($Kit, [double]$timeoutSeconds) {
    $clock = [System.Diagnostics.Stopwatch]::StartNew()
    while ($Kit.Inbox.Count -eq 0) {
        if ($clock.Elapsed.TotalSeconds -gt $timeoutSeconds) { throw "the NAS did not answer within $timeoutSeconds s" }
        Step-Socket $Kit 500
    }
    return $Kit.Inbox.Dequeue()
}

function Send-Message($Kit, [string]$text) {
    $bytes = [System.Text.Encoding]::UTF8.GetBytes($text)
    if ($bytes.Length -gt $Kit.MessageLimit) {
        # Every call is built to fit (Send-Submission splits long output): this is a bug of the kit.
        throw "a bug in this kit: a message of $($bytes.Length) bytes, over the NAS's $($Kit.MessageLimit); not sent"
    }
    $segment = New-Object 'System.ArraySegment[byte]' -ArgumentList @(, $bytes)
    [void]$Kit.Ws.SendAsync($segment, [System.Net.WebSockets.WebSocketMessageType]::Text, $true,
        [System.Threading.CancellationToken]::None).GetAwaiter().GetResult()
}

function Get-Field($object, [string]$field) {
    if ($null -eq $object) { return $null }
    $property = $object.PSObject.Properties[$field]
    if ($null -eq $property) { return $null }
    return $property.Value
}

function Format-Call([long]$id, [string]$method, [object[]]$params) {
    return (ConvertTo-Json -Compress -Depth 10 -InputObject @{
            jsonrpc = '2.0'; id = $id; method = $method; params = $params })
}

function Invoke-Nas($Kit, [string]$method, [object[]]$params, [double]$timeoutSeconds = 60, [string]$refused = '') {
    # params: the call's whole list of params (join takes two). refused: what an error answer means, {0}
    # standing for the NAS's message (default: which call the NAS answered with an error).
    $Kit.CallId++
    $id = $Kit.CallId
    Send-Message $Kit (Format-Call $id $method $params)
    while ($true) {
        $answer = ConvertFrom-Json (Receive-Message $Kit $timeoutSeconds)
        if ((Get-Field $answer 'id') -ne $id) { continue }  # an event, not our answer
        $failure = Get-Field $answer 'error'
        if ($null -ne $failure) {
            if ($refused -eq '') { $refused = "the NAS answered $method with an error: {0}" }
            throw ($refused -f (Get-Field $failure 'message'))
        }
        return (Get-Field $answer 'result')
    }
}

# -- the answer: one submission, in parts that each fit in one message ----------------------------------
function Get-Slice([string]$text, [int]$start, [int]$chars) {
    # At most $chars characters of $text from $start, never half of a surrogate pair (one character
    # outside the BMP): a slice that would end inside one ends before it, or after it when it is alone.
    $n = [Math]::Min($chars, $text.Length - $start)
    if ($n -gt 0 -and $start + $n -lt $text.Length -and [char]::IsHighSurrogate($text[$start + $n - 1])) {
        if ($n -gt 1) { $n-- } else { $n++ }
    }
    return $text.Substring($start, $n)
}

function Send-Submission($Kit, [long]$instruction, $result) {
    # Every part carries instruction, exit_code, argv, seconds, and cpu_seconds and cpus when measured (the
    # NAS keeps the last part's) and the next slices of stdout, then of stderr: $Kit.FirstSlice characters in
    # all, halved while the whole message is over $Kit.MessageLimit bytes. The NAS appends the parts with
    # more = true in order; the last has more = false. Empty stdout and stderr: one part. As tengig client
    # join does.
    $stdout = ''
    if ($result.ContainsKey('stdout') -and $null -ne $result.stdout) { $stdout = [string]$result.stdout }
    $stderr = ''
    if ($result.ContainsKey('stderr') -and $null -ne $result.stderr) { $stderr = [string]$result.stderr }
    $argv = @()  # assigned, never the output of an if: PowerShell would unroll a list of one or none
    if ($result.ContainsKey('argv') -and $null -ne $result.argv) { $argv = @($result.argv) }
    $seconds = if ($result.ContainsKey('seconds')) { [double]$result.seconds } else { 0.0 }
    $cpu = [ordered]@{}  # cpu_seconds and cpus, in every part, when measured and asked for
    if ($result.ContainsKey('cpus')) { $cpu.cpu_seconds = [double]$result.cpu_seconds; $cpu.cpus = [double]$result.cpus }
    $outAt = 0
    $errAt = 0
    do {
        $budget = $Kit.FirstSlice
        while ($true) {
            $outSlice = Get-Slice $stdout $outAt $budget
            $errSlice = Get-Slice $stderr $errAt ([Math]::Max(0, $budget - $outSlice.Length))
            $more = ($outAt + $outSlice.Length -lt $stdout.Length) -or
                ($errAt + $errSlice.Length -lt $stderr.Length)
            $part = [ordered]@{ instruction = $instruction; exit_code = [long]$result.exit_code; stdout = $outSlice;
                stderr = $errSlice; argv = $argv; seconds = $seconds; more = $more }
            foreach ($key in $cpu.Keys) { $part[$key] = $cpu[$key] }
            # Measured as Invoke-Nas sends it: the same text, with the id it gives its next call.
            $text = Format-Call ($Kit.CallId + 1) 'tengig.bench.session.submit' @(, $part)
            if ([System.Text.Encoding]::UTF8.GetByteCount($text) -le $Kit.MessageLimit -or $budget -le 1) { break }
            $budget = [int][Math]::Floor($budget / 2)
        }
        [void](Invoke-Nas $Kit 'tengig.bench.session.submit' @(, $part))
        $outAt += $outSlice.Length
        $errAt += $errSlice.Length
    } while ($more)
}
