"""A change to a system, as data: a TrueNAS API call, or a file (or a script) for a host. Planners
(mesh, lagg) produce them, backends (TrueNAS, Linux) carry them out, so they live below both."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ApiCall(BaseModel):
    model_config = ConfigDict(frozen=True)

    method: str = Field(description="TrueNAS method, e.g. 'interface.update'.")
    params: list[Any] = Field(description="Positional params, as JSON-RPC sends them.")


class RenderedFile(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: str = Field(description="Where it goes on the host.")
    content: str = Field(description="Whole file (replace), block lines (marked-block) or script (run).")
    how: Literal["replace", "marked-block", "run"] = Field(
        description="replace: write the whole file. marked-block: merge the lines into tengig's block "
        "(hostsblock.merge_marked_block), leaving the rest of the file alone. run: a script to run as admin."
    )
    mode: str = Field("0644", description="File permissions (octal) for replace.")
