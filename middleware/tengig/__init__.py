"""tengig: plan 10G meshes and link aggregation, measure pool, network and SMB for real,
and name what holds a NAS back against a target disk."""

__version__ = "0.1.0"
