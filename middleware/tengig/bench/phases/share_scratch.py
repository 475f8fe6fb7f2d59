"""Where a joined run's files go in the SMB share: made by the NAS, removed by the NAS whatever the clients did.

Where the share's directory is a ZFS dataset's mountpoint (as on TrueNAS), the run gets a scratch dataset of
its own under it, with the share's own recordsize, compression, atime, sync and dedup (it inherits them: what
SMB copies through is what the share's files meet, and the verdict compares them with the pool's measurement):
it appears as a directory in the share, is tagged like the pool benchmark's scratch (the sweep removes it after
a crash), is owned and moded like the share's directory, and keeps the ARC out of the reads with bounded files
(bench/phases/cache_policy.py). Each client makes its own directory inside it.

Elsewhere (a share that is a directory inside a dataset), each client's directory is a plain directory in the
share, and the files are 2 x the ARC (cache_policy's fallback), as the report says."""
from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from ...backends.scratch import ScratchStorage, speed_properties
from ...errors import TengigError
from ...join_protocol.naming import PLAIN_PREFIX
from .cache_policy import LARGER_THAN_ARC, CachePolicy, keep_arc_out
from ..context import BenchContext
from ..leftovers import remove_scratch, sweep_scratch
from .nas_share import NasShare

class ShareScratch(BaseModel):
    share: NasShare
    tag: str
    dataset: str | None = None
    directory: str | None = None  # the dataset's directory name in the share
    properties: dict[str, str] = {}  # the dataset's that set its speed: all the share's own (it inherits them)
    policy: CachePolicy

    def remote_dir(self, client: str) -> str:
        """A client's directory as the share names it (the client creates it)."""
        if self.directory:
            return f"{self.directory}\\{client}"
        return f"{PLAIN_PREFIX}{self.tag}-{client}"


def open_share_scratch(ctx: BenchContext, storage: ScratchStorage, nas: str, share: NasShare, tag: str) -> ShareScratch:
    parent = storage.dataset_mounted_at(share.path)
    if parent is None:
        return ShareScratch(share=share, tag=tag, policy=LARGER_THAN_ARC.model_copy(update={
            "note": f"{share.path} is not a dataset's mountpoint, so tengig cannot make a scratch dataset there: "
                    "each file 2 x the ARC"}))
    sweep_scratch(ctx, storage, parent.split("/")[0])  # what an earlier run left in this pool goes first
    info = storage.create_scratch_under(parent, tag, inherit=True)
    scratch = ShareScratch(share=share, tag=tag, dataset=info.name, policy=LARGER_THAN_ARC)
    try:
        if PurePosixPath(info.mountpoint).parent != PurePosixPath(share.path):
            raise TengigError(f"{info.name} is mounted at {info.mountpoint}, not inside the share ({share.path})")
        owner = ctx.run(nas, ["stat", "-c", "%u:%g %a", share.path], timeout=30, tool="stat").stdout.split()
        ctx.run(nas, ["chown", owner[0], info.mountpoint], timeout=30, tool="chown")
        ctx.run(nas, ["chmod", owner[1], info.mountpoint], timeout=30, tool="chmod")
        scratch.directory = PurePosixPath(info.mountpoint).name
        scratch.properties = speed_properties(storage, info.name)
        scratch.policy = keep_arc_out(storage, info.name)
    except BaseException:
        close_share_scratch(ctx, storage, scratch)
        raise
    return scratch


def close_share_scratch(ctx: BenchContext, storage: ScratchStorage, scratch: ShareScratch) -> None:
    """Remove what the run left in the share (the storage's destroy cannot be cancelled: an abort must
    still clean up). A dataset still busy (a desktop's smbd child lets go late) is named in the report and
    removed by the next run: never fatal to what was measured."""
    if scratch.dataset:
        remove_scratch(ctx, storage, scratch.dataset)  # refuses anything but a tengig scratch dataset
        return
    for path in Path(scratch.share.path).glob(f"{PLAIN_PREFIX}{scratch.tag}-*"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
