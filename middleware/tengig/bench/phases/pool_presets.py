"""The pool benchmark's tests in CrystalDiskMark's terms (SEQ1M Q8T1 = 1 MiB sequential, queue depth 8,
1 thread) and the two presets. Pure data: what to run, not how."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ...join_protocol.limits import SMB_MIN_COPY
from ...units import MiB, GiB

PresetName = Literal["quick", "full"]


class PoolTest(BaseModel):
    name: str = Field(description="CrystalDiskMark name, e.g. 'SEQ1M Q8T1'.")
    key: str = Field(description="Machine key, e.g. 'seq1m-q8t1'.")
    block_size: int = Field(description="Bytes per I/O.")
    queue_depth: int
    threads: int = 1
    sequential: bool


SEQ1M_Q8T1 = PoolTest(name="SEQ1M Q8T1", key="seq1m-q8t1", block_size=MiB, queue_depth=8, sequential=True)
SEQ1M_Q1T1 = PoolTest(name="SEQ1M Q1T1", key="seq1m-q1t1", block_size=MiB, queue_depth=1, sequential=True)
RND4K_Q32T1 = PoolTest(name="RND4K Q32T1", key="rnd4k-q32t1", block_size=4096, queue_depth=32, sequential=False)
RND4K_Q1T1 = PoolTest(name="RND4K Q1T1", key="rnd4k-q1t1", block_size=4096, queue_depth=1, sequential=False)
ALL_TESTS = (SEQ1M_Q8T1, SEQ1M_Q1T1, RND4K_Q32T1, RND4K_Q1T1)
# The test whose read and write are the pool's ceilings in the verdict (what a big SMB copy does).
CEILING_TEST = SEQ1M_Q8T1


class PoolPreset(BaseModel):
    name: PresetName
    tests: list[PoolTest]
    repeats: int = Field(ge=1, description="Runs of each test; the median is reported with the CV.")
    random_seconds: float = Field(gt=0, description="Time-based length of each random test, s.")
    ramp_seconds: int = Field(ge=0, description="fio ramp_time before random tests are measured, s.")
    working_set: int = Field(description="Bytes per pool test file (at least 2 x ARC where the ARC cannot be kept "
                             "out otherwise, bench/phases/cache_policy.py).")
    smb_file: int = Field(description="Bytes per SMB copy (the same rule); quick: at most, see smb_copy_seconds.")
    smb_copy_seconds: float | None = Field(description="quick: size each SMB copy to last about this long at the "
                                           "network's measured goodput (64 MiB to smb_file); None: smb_file.")
    seq_seconds: float | None = Field(description="quick: each sequential write (and the random tests' file) stops "
                                      "after about this long or at working_set, whichever comes first, and each "
                                      "read reads what its write wrote (fio --runtime; only with uncached writes, "
                                      "whose reads the ARC cannot serve whatever the size); None: whole files.")


PRESETS: dict[str, PoolPreset] = {
    "quick": PoolPreset(name="quick", tests=[SEQ1M_Q8T1, RND4K_Q32T1], repeats=3, random_seconds=0.5,
                        ramp_seconds=0, working_set=512 * MiB, smb_file=256 * MiB, smb_copy_seconds=1.5,
                        seq_seconds=1.0),
    # random tests: CrystalDiskMark's own measure time, 5 s a run (25 s of each test over its 5 runs); with one
    # desktop at 1 Gb/s the whole preset takes under 5 minutes on the lab (scripts/bench_full.py)
    "full": PoolPreset(name="full", tests=list(ALL_TESTS), repeats=5, random_seconds=5, ramp_seconds=2,
                       working_set=2 * GiB, smb_file=1 * GiB, smb_copy_seconds=None, seq_seconds=None),
}


def smb_copy_size(preset: PoolPreset, goodput_bps: float | None) -> int:
    """Bytes per SMB copy: the preset's, or in quick about smb_copy_seconds at the measured network goodput
    (bits/s), whole MiB from 64 MiB up to the preset's (a 100 Mb/s link copies 64 MiB, not 256)."""
    if preset.smb_copy_seconds is None or not goodput_bps:
        return preset.smb_file
    wanted = preset.smb_copy_seconds * goodput_bps / 8
    return max(SMB_MIN_COPY, min(preset.smb_file, int(wanted) // MiB * MiB))
