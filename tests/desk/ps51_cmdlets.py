"""The commands Windows PowerShell 5.1 has, with the parameters of each that the Windows kit may name (checked by
test_kit_ps51.py against what PowerShell's own parser finds in the kit): a command or parameter added after 5.1
(ConvertFrom-Json -AsHashtable, ForEach-Object -Parallel, Join-Path -AdditionalChildPath, Split-Path -LeafBase,
-ProgressAction) fails it.

Each list is the PARAMETERS section (its "### -NAME" headings) of the command's page, read from Microsoft's
documentation sources and compared name by name, not written from memory:
- PowerShell's own cmdlets: MicrosoftDocs/PowerShell-Docs, reference/5.1/MODULE/CMDLET.md (checked at commit
  27138b21b41d, 2026-08-20), published as https://learn.microsoft.com/powershell/module/MODULE/CMDLET?view=powershell-5.1
- Windows' own modules (NetTCPIP, NetAdapter, SmbShare; the seam's Windows side): MicrosoftDocs/windows-powershell-
  docs, docset/winserver2016-ps/MODULE/CMDLET.md (checked at commit f113d6bda7df, 2026-04-25; the 2022 docset's
  lists are the same), published as https://learn.microsoft.com/powershell/module/MODULE/CMDLET?view=windowsserver2016-ps
The page of each is given beside it. What the reading corrected: Get-SmbMultichannelConnection has no
-ClientInterfaceIndex or -ServerInterfaceIndex, Get-NetAdapter no -InterfaceAlias (it is -Name); the lists now
also hold every parameter their pages give (UseTransaction, the certificate provider's, Get-NetIPInterface's
timers). Left out although on a 5.1 page: Get-ChildItem's -FollowSymlink (the page itself says "introduced in
PowerShell 6.0") and about_CommonParameters' -ProgressAction ("added in PowerShell 7.4"). A command the kit
newly uses is added here with its page, after reading it."""
from __future__ import annotations

LEARN = "https://learn.microsoft.com/powershell/module"
PS51 = "?view=powershell-5.1"
WINDOWS = "?view=windowsserver2016-ps"
# about_CommonParameters (5.1): https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/
# about_commonparameters?view=powershell-5.1 (ProgressAction is 7.4's, so it is not here)
COMMON = {"Debug", "ErrorAction", "ErrorVariable", "InformationAction", "InformationVariable", "OutBuffer",
          "OutVariable", "PipelineVariable", "Verbose", "WarningAction", "WarningVariable"}
# Certificate provider parameters the 5.1 pages of Get-ChildItem and Get-Item list
CERT = {"CodeSigningCert", "DnsName", "DocumentEncryptionCert", "Eku", "ExpiringInDays", "SSLServerAuthentication"}

CMDLETS_51: dict[str, tuple[str, set[str]]] = {
    "Add-Type": (f"{LEARN}/microsoft.powershell.utility/add-type{PS51}",
                 {"AssemblyName", "CodeDomProvider", "CompilerParameters", "IgnoreWarnings", "Language", "LiteralPath",
                  "MemberDefinition", "Name", "Namespace", "OutputAssembly", "OutputType", "PassThru", "Path",
                  "ReferencedAssemblies", "TypeDefinition", "UsingNamespace"}),
    "ConvertFrom-Json": (f"{LEARN}/microsoft.powershell.utility/convertfrom-json{PS51}", {"InputObject"}),
    "ConvertTo-Json": (f"{LEARN}/microsoft.powershell.utility/convertto-json{PS51}", {"Compress", "Depth", "InputObject"}),
    "ForEach-Object": (f"{LEARN}/microsoft.powershell.core/foreach-object{PS51}",
                       {"ArgumentList", "Begin", "Confirm", "End", "InputObject", "MemberName", "Process",
                        "RemainingScripts", "WhatIf"}),
    "Get-ChildItem": (f"{LEARN}/microsoft.powershell.management/get-childitem{PS51}",
                      CERT | {"Attributes", "Depth", "Directory", "Exclude", "File", "Filter", "Force", "Hidden", "Include",
                              "LiteralPath", "Name", "Path", "ReadOnly", "Recurse", "System", "UseTransaction"}),
    "Get-Command": (f"{LEARN}/microsoft.powershell.core/get-command{PS51}",
                    {"All", "ArgumentList", "CommandType", "FullyQualifiedModule", "ListImported", "Module", "Name",
                     "Noun", "ParameterName", "ParameterType", "ShowCommandInfo", "Syntax", "TotalCount", "Verb"}),
    "Get-Item": (f"{LEARN}/microsoft.powershell.management/get-item{PS51}",
                 CERT | {"Credential", "Exclude", "Filter", "Force", "Include", "LiteralPath", "Path", "Stream",
                         "UseTransaction"}),
    "Join-Path": (f"{LEARN}/microsoft.powershell.management/join-path{PS51}", {"ChildPath", "Credential", "Path", "Resolve", "UseTransaction"}),
    "Move-Item": (f"{LEARN}/microsoft.powershell.management/move-item{PS51}",
                  {"Confirm", "Credential", "Destination", "Exclude", "Filter", "Force", "Include", "LiteralPath",
                   "PassThru", "Path", "UseTransaction", "WhatIf"}),
    "New-Object": (f"{LEARN}/microsoft.powershell.utility/new-object{PS51}",
                   {"ArgumentList", "ComObject", "Property", "Strict", "TypeName"}),
    "Remove-Item": (f"{LEARN}/microsoft.powershell.management/remove-item{PS51}",
                    {"Confirm", "Credential", "DeleteKey", "Exclude", "Filter", "Force", "Include", "LiteralPath", "Path",
                     "Recurse", "Stream", "UseTransaction", "WhatIf"}),
    "Resolve-Path": (f"{LEARN}/microsoft.powershell.management/resolve-path{PS51}",
                     {"Credential", "LiteralPath", "Path", "Relative", "UseTransaction"}),
    "Select-Object": (f"{LEARN}/microsoft.powershell.utility/select-object{PS51}",
                      {"ExcludeProperty", "ExpandProperty", "First", "Index", "InputObject", "Last", "Property", "Skip",
                       "SkipLast", "Unique", "Wait"}),
    "Set-StrictMode": (f"{LEARN}/microsoft.powershell.core/set-strictmode{PS51}", {"Off", "Version"}),
    "Split-Path": (f"{LEARN}/microsoft.powershell.management/split-path{PS51}",
                   {"Credential", "IsAbsolute", "Leaf", "LiteralPath", "NoQualifier", "Parent", "Path", "Qualifier",
                    "Resolve", "UseTransaction"}),
    "Test-Path": (f"{LEARN}/microsoft.powershell.management/test-path{PS51}",
                  {"Credential", "Exclude", "Filter", "Include", "IsValid", "LiteralPath", "NewerThan", "OlderThan",
                   "Path", "PathType", "UseTransaction"}),
    "Where-Object": (f"{LEARN}/microsoft.powershell.core/where-object{PS51}",
                     {"CContains", "CEQ", "CGE", "CGT", "CIn", "CLE", "CLike", "CLT", "CMatch", "CNE", "CNotContains",
                      "CNotIn", "CNotLike", "CNotMatch", "Contains", "EQ", "FilterScript", "GE", "GT", "In",
                      "InputObject", "Is", "IsNot", "LE", "Like", "LT", "Match", "NE", "NotContains", "NotIn",
                      "NotLike", "NotMatch", "Property", "Value"}),
    "Write-Host": (f"{LEARN}/microsoft.powershell.utility/write-host{PS51}",
                   {"BackgroundColor", "ForegroundColor", "NoNewline", "Object", "Separator"}),
    # Windows' own modules (Windows 8 / Server 2012 and later), the seam's Windows side
    "Find-NetRoute": (f"{LEARN}/nettcpip/find-netroute{WINDOWS}",
                      {"AsJob", "CimSession", "InterfaceIndex", "LocalIPAddress", "RemoteIPAddress", "ThrottleLimit"}),
    "Get-NetAdapter": (f"{LEARN}/netadapter/get-netadapter{WINDOWS}",
                       {"AsJob", "CimSession", "IncludeHidden", "InterfaceDescription", "InterfaceIndex", "Name",
                        "Physical", "ThrottleLimit"}),
    "Get-NetIPAddress": (f"{LEARN}/nettcpip/get-netipaddress{WINDOWS}",
                         {"AddressFamily", "AddressState", "AssociatedIPInterface", "AsJob", "CimSession",
                          "IncludeAllCompartments", "InterfaceAlias", "InterfaceIndex", "IPAddress", "PolicyStore",
                          "PreferredLifetime", "PrefixLength", "PrefixOrigin", "SkipAsSource", "SuffixOrigin", "ThrottleLimit",
                          "Type", "ValidLifetime"}),
    "Get-NetIPInterface": (f"{LEARN}/nettcpip/get-netipinterface{WINDOWS}",
                           {"AddressFamily", "AdvertiseDefaultRoute", "AdvertisedRouterLifetime", "Advertising", "AsJob",
                            "AssociatedAdapter", "AssociatedIPAddress", "AssociatedNeighbor", "AssociatedRoute",
                            "AutomaticMetric", "BaseReachableTimeMs", "CimSession", "ClampMss", "CompartmentId",
                            "ConnectionState", "CurrentHopLimit", "DadRetransmitTimeMs", "DadTransmits", "Dhcp",
                            "DirectedMacWolPattern", "EcnMarking", "ForceArpNdWolPattern", "Forwarding",
                            "IgnoreDefaultRoutes", "IncludeAllCompartments", "InterfaceAlias", "InterfaceIndex",
                            "InterfaceMetric", "ManagedAddressConfiguration", "NeighborDiscoverySupported",
                            "NeighborUnreachabilityDetection", "NlMtuBytes", "OtherStatefulConfiguration", "PolicyStore",
                            "ReachableTimeMs", "RetransmitTimeMs", "RouterDiscovery", "ThrottleLimit", "WeakHostReceive", "WeakHostSend"}),
    "Get-SmbMultichannelConnection": (f"{LEARN}/smbshare/get-smbmultichannelconnection{WINDOWS}",
                                      {"AsJob", "CimSession", "IncludeNotSelected", "ServerName", "SmbInstance",
                                       "ThrottleLimit"}),
}
