"""Switchless direct-attach meshes: plan (cables, subnets, hosts entries, labels, costs) and render
each host's configuration (pure: planner, render, truenas_api, labels, costs), then apply them on
Linux hosts or a TrueNAS (apply_*, orchestrate) and verify the links (verify).

    plan = plan_mesh({"hosts": [...]})          # MeshPlan, or ValidationError with field paths
    render_host(plan, "nas")                    # RenderedConfig: files and/or TrueNAS API calls
    render_all(plan)                            # every flavour for every host
    merge_hosts_block(text, entries)            # tengig's block in a hosts file, the user's lines kept
"""
from ..changes import ApiCall, RenderedFile
from ..hostsblock import merge_hosts_block, merge_hosts_list, merge_marked_block
from .models import MeshPlan
from .planner import plan_mesh
from .render import FLAVOURS_BY_KIND, RenderedConfig, render_all, render_host
from .request import MeshHost, MeshOptions, MeshPort, MeshPrices, MeshRequest

__all__ = [
    "ApiCall",
    "FLAVOURS_BY_KIND",
    "MeshHost",
    "MeshOptions",
    "MeshPlan",
    "MeshPort",
    "MeshPrices",
    "MeshRequest",
    "RenderedConfig",
    "RenderedFile",
    "merge_hosts_block",
    "merge_hosts_list",
    "merge_marked_block",
    "plan_mesh",
    "render_all",
    "render_host",
]
