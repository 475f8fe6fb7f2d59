"""tengig's TrueNAS backend: drives a TrueNAS through its API only (docs/truenas-api.md §3, §4), the same code
from outside (tengig.client.Client, either protocol) and inside the middlewared plugin (MiddlewareCaller).

    version.py        system.version -> platform, release, protocol and feature flags
    nics.py           interface.query -> tengig.nic.Nic (pure)
    caller.py         the Caller seam and the one error boundary (TrueNAS errors -> tengig errors)
    backend.py        TrueNASBackend: inventory, staged interface edits, commit/checkin, hosts, SMB shares
    scratch.py        TrueNASScratch: the bench ScratchStorage over pool.dataset.*
    desired.py        pure helpers: does a call already hold, which interfaces it touches, hosts rebasing
    staged_change.py  apply_staged: stage, commit with rollback, probe, checkin or roll back
"""
from .backend import TrueNASBackend
from .caller import THIS_TRUENAS, Caller, MiddlewareCaller, PerCallCaller, TrueNASError
from .nics import nics_from_query, parse_link_state, parse_media_subtype, pci_slot_from_name
from .scratch import TrueNASScratch
from .staged_change import (
    NotCreated, ProbeResult, ProbeTarget, StagedChangeFailed, StagedChangeResult, apply_staged,
)
from .version import TrueNASVersion, parse_version

__all__ = [
    "THIS_TRUENAS", "Caller", "MiddlewareCaller", "NotCreated", "PerCallCaller", "ProbeResult", "ProbeTarget", "StagedChangeFailed", "StagedChangeResult",
    "TrueNASBackend", "TrueNASError", "TrueNASScratch", "TrueNASVersion", "apply_staged", "nics_from_query",
    "parse_link_state", "parse_media_subtype", "parse_version", "pci_slot_from_name",
]
