"""Scratch datasets a run could not remove: recorded, never fatal, swept by the next run.

A run measures for minutes; removing its scratch dataset at the end can meet a dataset that is still busy (an
smbd child of a slow desktop, a shell with its working directory inside, zfs-fuse holding a just-closed
dataset). That must not cost the user the figures: the dataset is named in the report with why
(``BenchContext.leftovers``), and the next run on that pool removes every dataset carrying tengig's scratch tag
before it starts (a killed run's too) and says so."""
from __future__ import annotations

from ..backends.scratch import ScratchStorage
from ..errors import CommandFailed, TengigError
from .context import BenchContext


def remove_scratch(ctx: BenchContext, storage: ScratchStorage, dataset: str) -> bool:
    """Destroy ``dataset`` (a tengig scratch dataset); one that cannot go now is recorded in
    ``ctx.leftovers.left_behind`` with the storage's reason, and False is returned instead of raising."""
    try:
        storage.destroy(dataset)
        return True
    except TengigError as exc:
        ctx.leftovers.left_behind.append(f"{dataset}: {_reason(exc)}; the next run on this pool removes it")
        ctx.report(100, f"left {dataset} behind ({_reason(exc)}); the next run removes it")
        return False


def sweep_scratch(ctx: BenchContext, storage: ScratchStorage, pool: str) -> list[str]:
    """Remove every tagged scratch dataset an earlier run left on ``pool`` (killed, or held busy at its end);
    the names removed. One still busy stays recorded as left behind, and the run goes on."""
    found = storage.find_scratch(pool)
    removed = []
    for name in found:
        ctx.report(0, f"removing {name}, left by an earlier run")
        if remove_scratch(ctx, storage, name):
            removed.append(name)
    ctx.leftovers.swept += removed
    return removed


def _reason(exc: TengigError) -> str:
    if isinstance(exc, CommandFailed):
        said = (exc.stderr or exc.stdout or "").strip().splitlines()
        return said[-1][:200] if said else f"exit {exc.returncode}"
    return exc.message[:200]
