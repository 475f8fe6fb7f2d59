"""The lab: namespaced hosts, shaped direct cables, a real ZFS pool and a real Samba share.

The embedded default every tengig command can run against (docs/lab.md has the recipes)."""
from .lab import Lab
from .spec import LabSpec, build_spec

__all__ = ["Lab", "LabSpec", "build_spec"]
