# -- the run's one context object: what the kit was made with, what the person gave, what the run holds ----
function New-KitContext($Config, $Options, [string]$CSharp) {
    # $Config: the values tengig wrote into this kit ($KitConfig: the NAS, the token, the share, and the
    # checks of desk/instructions.py from the same Python constants). $Options: the script's parameters.
    # Every function that needs any of it, or changes the run's state, is given this object.
    $windows = Test-KitWindows
    $fields = [ordered]@{}
    foreach ($key in $Config.Keys) { $fields[$key] = $Config[$key] }
    # The patterns whole: a value matches all of it or is refused.
    foreach ($key in @('RemotePattern', 'SharePattern', 'ClientDirPattern', 'InterfacePattern')) {
        $fields[$key] = '\A(?:' + $Config[$key] + ')\z'
    }
    # iperf3's words for a server that is not listening yet: Cygwin builds print the C library's, native
    # Windows builds Winsock's ("... the target machine actively refused it").
    $fields.RefusedPattern = $Config['RefusedPattern'] + '|actively refused'
    $fields.MiB = 1048576
    $fields.ReadStepBytes = [long]64 * 1048576  # read between two looks at the NAS's connection (it keeps answering pings)
    $fields.StatusDllNotFound = -1073741515  # 0xC0000135: a program that cannot load a DLL it needs exits with this
    $fields.Ipv4Pattern = '\A(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}\z'
    $fields.SmallStepMs = 500  # a batch looks at the NAS's connection this often
    $fields.CSharp = $CSharp
    $fields.Windows = $windows
    # What the person gave (the script's parameters), defaults filled in where they depend on the system.
    $workDir = [string]$Options['WorkDir']
    if ($workDir -eq '') { $workDir = [System.IO.Path]::GetTempPath() }
    $fields.Iperf3 = [string]$Options['Iperf3']
    if ($fields.Iperf3 -eq '') { $fields.Iperf3 = Get-KitDefaultIperf3 $windows ([string]$Options['ScriptRoot']) }
    $fields.WorkDir = $workDir
    $fields.Name = [string]$Options['Name']
    if ($fields.Name -eq '') { $fields.Name = Get-KitComputerName $windows }
    $fields.NasAddress = @($Options['NasAddress'] | Where-Object { $null -ne $_ })
    $fields.Credential = $Options['Credential']
    if ($null -eq $fields.Credential) { $fields.Credential = [System.Management.Automation.PSCredential]::Empty }
    $fields.CaFile = [string]$Options['CaFile']
    $fields.Disk = [string]$Options['Disk']
    $fields.NoSmb = [bool]$Options['NoSmb']
    $fields.ShareMount = [string]$Options['ShareMount']
    # What the run holds.
    $fields.NasAddresses = @()  # the NAS this desktop joined (Get-NasAddresses)
    $fields.Ws = $null  # the NAS's API; one receive is always in flight (it also answers the NAS's pings)
    $fields.Buffer = New-Object byte[] 65536
    $fields.Pending = $null
    $fields.Partial = New-Object System.IO.MemoryStream
    $fields.Inbox = New-Object 'System.Collections.Generic.Queue[string]'
    $fields.CallId = 0
    $fields.Running = $null  # the tool running now (Stop-Tool)
    $fields.Staging = Join-Path $workDir ('tengig-kit-' + [guid]::NewGuid().ToString('N'))
    $fields.SourceDir = Join-Path $fields.Staging 'put'
    $fields.Source = $null  # the prepared file to copy
    $fields.ShareHosts = @{}  # the NAS's address -> the host the copies to it go to (Get-ShareHost)
    $fields.Small = $null  # this size's small files, in memory (TengigKit.SmallSet): nothing of them on -WorkDir
    return [pscustomobject]$fields
}
