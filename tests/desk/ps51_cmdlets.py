"""The commands Windows PowerShell 5.1 has, with the parameters of each that the Windows kit may name (checked by
test_kit_ps51.py against what PowerShell's own parser finds in the kit): a command or parameter added after 5.1
(ConvertFrom-Json -AsHashtable, ForEach-Object -Parallel, Join-Path -AdditionalChildPath, Split-Path -LeafBase,
-ProgressAction) fails it. Each list is the PARAMETERS section of its page, at the path given, in Microsoft's
PowerShell-Docs (reference/5.1/MODULE/CMDLET.md) or, for Windows' own modules, windows-powershell-docs
(docset/winserver2022-ps/MODULE/CMDLET.md). A command the kit newly uses is added here with its page, after
reading it."""
from __future__ import annotations

PS_DOCS = "MicrosoftDocs/PowerShell-Docs reference/5.1"
WINDOWS_DOCS = "MicrosoftDocs/windows-powershell-docs docset/winserver2022-ps"
# about_CommonParameters (5.1): ProgressAction is 7.4's, so it is not here
COMMON = {"Debug", "ErrorAction", "ErrorVariable", "InformationAction", "InformationVariable", "OutBuffer",
          "OutVariable", "PipelineVariable", "Verbose", "WarningAction", "WarningVariable"}

CMDLETS_51: dict[str, tuple[str, set[str]]] = {
    "Add-Type": (f"{PS_DOCS}/Microsoft.PowerShell.Utility/Add-Type.md",
                 {"AssemblyName", "CodeDomProvider", "CompilerParameters", "IgnoreWarnings", "Language", "LiteralPath",
                  "MemberDefinition", "Name", "Namespace", "OutputAssembly", "OutputType", "PassThru", "Path",
                  "ReferencedAssemblies", "TypeDefinition", "UsingNamespace"}),
    "ConvertFrom-Json": (f"{PS_DOCS}/Microsoft.PowerShell.Utility/ConvertFrom-Json.md", {"InputObject"}),
    "ConvertTo-Json": (f"{PS_DOCS}/Microsoft.PowerShell.Utility/ConvertTo-Json.md", {"Compress", "Depth", "InputObject"}),
    "ForEach-Object": (f"{PS_DOCS}/Microsoft.PowerShell.Core/ForEach-Object.md",
                       {"ArgumentList", "Begin", "Confirm", "End", "InputObject", "MemberName", "Process",
                        "RemainingScripts", "WhatIf"}),
    "Get-ChildItem": (f"{PS_DOCS}/Microsoft.PowerShell.Management/Get-ChildItem.md",
                      {"Attributes", "Depth", "Directory", "Exclude", "File", "Filter", "Force", "Hidden", "Include",
                       "LiteralPath", "Name", "Path", "ReadOnly", "Recurse", "System"}),
    "Get-Command": (f"{PS_DOCS}/Microsoft.PowerShell.Core/Get-Command.md",
                    {"All", "ArgumentList", "CommandType", "FullyQualifiedModule", "ListImported", "Module", "Name",
                     "Noun", "ParameterName", "ParameterType", "ShowCommandInfo", "Syntax", "TotalCount", "Verb"}),
    "Get-Item": (f"{PS_DOCS}/Microsoft.PowerShell.Management/Get-Item.md",
                 {"Credential", "Exclude", "Filter", "Force", "Include", "LiteralPath", "Path", "Stream"}),
    "Join-Path": (f"{PS_DOCS}/Microsoft.PowerShell.Management/Join-Path.md", {"ChildPath", "Credential", "Path", "Resolve"}),
    "Move-Item": (f"{PS_DOCS}/Microsoft.PowerShell.Management/Move-Item.md",
                  {"Confirm", "Credential", "Destination", "Exclude", "Filter", "Force", "Include", "LiteralPath",
                   "PassThru", "Path", "WhatIf"}),
    "New-Object": (f"{PS_DOCS}/Microsoft.PowerShell.Utility/New-Object.md",
                   {"ArgumentList", "ComObject", "Property", "Strict", "TypeName"}),
    "Remove-Item": (f"{PS_DOCS}/Microsoft.PowerShell.Management/Remove-Item.md",
                    {"Confirm", "Credential", "Exclude", "Filter", "Force", "Include", "LiteralPath", "Path", "Recurse",
                     "Stream", "WhatIf"}),
    "Resolve-Path": (f"{PS_DOCS}/Microsoft.PowerShell.Management/Resolve-Path.md",
                     {"Credential", "LiteralPath", "Path", "Relative"}),
    "Select-Object": (f"{PS_DOCS}/Microsoft.PowerShell.Utility/Select-Object.md",
                      {"ExcludeProperty", "ExpandProperty", "First", "Index", "InputObject", "Last", "Property", "Skip",
                       "SkipLast", "Unique", "Wait"}),
    "Set-StrictMode": (f"{PS_DOCS}/Microsoft.PowerShell.Core/Set-StrictMode.md", {"Off", "Version"}),
    "Split-Path": (f"{PS_DOCS}/Microsoft.PowerShell.Management/Split-Path.md",
                   {"Credential", "IsAbsolute", "Leaf", "LiteralPath", "NoQualifier", "Parent", "Path", "Qualifier",
                    "Resolve"}),
    "Test-Path": (f"{PS_DOCS}/Microsoft.PowerShell.Management/Test-Path.md",
                  {"Credential", "Exclude", "Filter", "Include", "IsValid", "LiteralPath", "NewerThan", "OlderThan",
                   "Path", "PathType"}),
    "Where-Object": (f"{PS_DOCS}/Microsoft.PowerShell.Core/Where-Object.md",
                     {"CContains", "CEQ", "CGE", "CGT", "CIn", "CLE", "CLike", "CLT", "CMatch", "CNE", "CNotContains",
                      "CNotIn", "CNotLike", "CNotMatch", "Contains", "EQ", "FilterScript", "GE", "GT", "In",
                      "InputObject", "Is", "IsNot", "LE", "Like", "LT", "Match", "NE", "NotContains", "NotIn",
                      "NotLike", "NotMatch", "Property", "Value"}),
    "Write-Host": (f"{PS_DOCS}/Microsoft.PowerShell.Utility/Write-Host.md",
                   {"BackgroundColor", "ForegroundColor", "NoNewline", "Object", "Separator"}),
    # Windows' own modules (Windows 8 / Server 2012 and later), the seam's Windows side
    "Find-NetRoute": (f"{WINDOWS_DOCS}/nettcpip/Find-NetRoute.md",
                      {"AsJob", "CimSession", "InterfaceIndex", "LocalIPAddress", "RemoteIPAddress", "ThrottleLimit"}),
    "Get-NetAdapter": (f"{WINDOWS_DOCS}/netadapter/Get-NetAdapter.md",
                       {"AsJob", "CimSession", "IncludeHidden", "InterfaceAlias", "InterfaceDescription",
                        "InterfaceIndex", "Name", "Physical", "ThrottleLimit"}),
    "Get-NetIPAddress": (f"{WINDOWS_DOCS}/nettcpip/Get-NetIPAddress.md",
                         {"AddressFamily", "AddressState", "AssociatedIPInterface", "AsJob", "CimSession",
                          "IncludeAllCompartments", "InterfaceAlias", "InterfaceIndex", "IPAddress", "PolicyStore",
                          "PreferredLifetime", "PrefixLength", "PrefixOrigin", "SkipAsSource", "SuffixOrigin", "ThrottleLimit",
                          "Type", "ValidLifetime"}),
    "Get-NetIPInterface": (f"{WINDOWS_DOCS}/nettcpip/Get-NetIPInterface.md",
                           {"AddressFamily", "AdvertiseDefaultRoute", "Advertising", "AsJob", "AssociatedIPAddress",
                            "AssociatedRoute", "AutomaticMetric", "CimSession", "ClampMss", "CompartmentId", "Dhcp",
                            "DirectedMacWolPattern", "EcnMarking", "ForceArpNdWolPattern", "Forwarding",
                            "IgnoreDefaultRoutes", "IncludeAllCompartments", "InterfaceAlias", "InterfaceIndex",
                            "InterfaceMetric", "ManagedAddressConfiguration", "NeighborDiscoverySupported",
                            "NeighborUnreachabilityDetection", "NlMtuBytes", "OtherStatefulConfiguration", "PolicyStore",
                            "RouterDiscovery", "ThrottleLimit", "WeakHostReceive", "WeakHostSend"}),
    "Get-SmbMultichannelConnection": (f"{WINDOWS_DOCS}/smbshare/Get-SmbMultichannelConnection.md",
                                      {"AsJob", "CimSession", "ClientInterfaceIndex", "IncludeNotSelected",
                                       "ServerInterfaceIndex", "ServerName", "SmbInstance", "ThrottleLimit"}),
}
