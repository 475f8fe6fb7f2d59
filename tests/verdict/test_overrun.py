"""A ceiling that SMB's figure exceeds (beyond the runs' spread) is not the bound: the verdict never names it as
the bottleneck, says which explanation holds (the pool measured on a dataset unlike the share's, or SMB's write
timed before the pool had it: write-back), and is not sure (pure: facts in, words and numbers out).

The lab at 10 Gb/s said "write: bottleneck pool 195.9 MB/s" while SMB wrote 255.8 MB/s in the same run."""
from tengig.verdict.ceilings import tcp_goodput_bps
from tengig.verdict.judge import judge
from tengig.verdict.models import Ceiling, Facts
from tengig.verdict.targets import find_target

MB = 10**6
HDD = find_target("hdd-15k-best")
ZFS_FUSE = {"compression": "off", "dedup": "off", "recordsize": "131072"}  # no sync before pool version 28
POOL = "tgtank/tengig-scratch-1795257770-4242"
SHARE = "tgtank/smb/tengig-scratch-1795257801-ab12-desk"


def c(component, direction, mb, runs=()):
    return Ceiling(component=component, direction=direction, bytes_per_s=mb * MB, provenance="measured",
                   label=component, runs=[r * MB for r in runs])


def lab_10g(pool_write=195.9, smb_write=255.8, pool_runs=(), smb_runs=()):
    return [c("pool", "read", 420.0), c("network", "read", 1100.0), c("smb", "read", 300.0),
            c("pool", "write", pool_write, pool_runs), c("network", "write", 1100.0),
            c("smb", "write", smb_write, smb_runs)]


def facts(**kw):
    base = dict(link_negotiated_bps=10 * 10**9, pool_dataset=POOL, pool_dataset_properties=ZFS_FUSE,
                smb_dataset=SHARE, smb_dataset_properties=ZFS_FUSE,
                smb_write_back="zpool iostat: no writes left after 3 s")
    return Facts(**(base | kw))


def write(v):
    return next(d for d in v.directions if d.direction == "write")


def test_a_pool_smb_wrote_more_than_is_never_the_bottleneck_and_write_back_is_named_when_the_datasets_match():
    v = judge(HDD, lab_10g(), facts())
    w = write(v)
    assert w.bottleneck != "pool"
    assert ("the pool's 195.9 MB/s is no bound: SMB wrote 255.8 MB/s through it, 131% of it. The pool's scratch "
            f"dataset {POOL} and the one SMB wrote to, {SHARE}, are alike (compression off, dedup off, recordsize "
            "128 KiB), so SMB's write was timed before the pool had it on disk (write-back: ZFS holds seconds of "
            "writes in RAM and a copy ends before they reach the disks, while fio's write ends with an fsync); after "
            "the copies the NAS waited for the pool: zpool iostat: no writes left after 3 s. A copy larger than "
            "that RAM meets the pool's 195.9 MB/s") in v.summary
    assert ("Not sure: write: the pool's 195.9 MB/s sits below the 255.8 MB/s SMB wrote through it: the pool was "
            "not measured as SMB used it") in v.summary
    assert not any(a.rule == "pool-below-network" and "pool write" in a.text for a in v.advice)


def test_a_share_unlike_the_pools_scratch_is_the_explanation_with_each_property():
    share = {"compression": "lz4", "dedup": "off", "recordsize": "1048576", "sync": "disabled"}
    pool = {"compression": "off", "dedup": "off", "recordsize": "1048576", "sync": "standard"}
    v = judge(HDD, lab_10g(), facts(pool_dataset_properties=pool, smb_dataset_properties=share))
    assert write(v).bottleneck != "pool"
    assert (f"The pool was measured on {POOL}, unlike {SHARE} that SMB wrote to: compression off for the pool, lz4 "
            "for SMB; sync standard for the pool, disabled for SMB") in v.summary
    assert "write-back" not in v.summary


def test_unknown_properties_leave_both_explanations_open_and_say_what_is_missing():
    v = judge(HDD, lab_10g(), facts(smb_dataset=None, smb_dataset_properties={}, smb_write_back=None))
    assert write(v).bottleneck != "pool"
    assert ("Either the pool was measured on a dataset unlike the one SMB wrote to (not compared: the dataset SMB "
            "copied to is not known) or SMB's write was timed before the pool had it on disk (write-back)") in v.summary


def test_smb_inside_the_pools_spread_leaves_the_pool_the_bottleneck():
    v = judge(HDD, lab_10g(pool_write=230.0, smb_write=255.8, pool_runs=(190.0, 230.0, 260.0)), facts())
    assert write(v).bottleneck == "pool" and "no bound" not in v.summary


def test_smb_within_one_percent_of_a_single_figure_is_the_tools_rounding_not_an_overrun():
    v = judge(HDD, lab_10g(pool_write=253.5, smb_write=255.8), facts())  # 0.9% above
    assert write(v).bottleneck == "pool" and "no bound" not in v.summary


def test_a_read_faster_than_the_pool_names_the_arc_when_it_served_the_reads():
    ceilings = [c("pool", "read", 150.0), c("network", "read", 1100.0), c("smb", "read", 300.0)]
    v = judge(HDD, ceilings, facts(smb_read_arc_hit_ratio=0.62))
    read = v.directions[0]
    assert read.bottleneck != "pool"
    assert ("the pool's 150.0 MB/s is no bound: SMB read 300.0 MB/s through it, 200% of it. The pool's scratch "
            f"dataset {POOL} and the one SMB read from, {SHARE}, are alike (compression off, dedup off, recordsize "
            "128 KiB), and the NAS's RAM (its ARC) served 62% of SMB's reads") in v.summary


def test_every_ceiling_below_smb_leaves_the_bottleneck_unknown_and_says_so():
    v = judge(HDD, [c("pool", "read", 100.0), c("network", "read", 150.0), c("smb", "read", 200.0)], Facts())
    assert v.directions[0].bottleneck is None
    assert "bottleneck unknown: SMB read more than every ceiling measured" in v.summary
    [advice] = [a for a in v.advice if a.rule == "ceiling-below-smb"]
    assert ("SMB read 200.0 MB/s through the pool's 100.0 MB/s; SMB read 200.0 MB/s through the network's 150.0 MB/s"
            in advice.text)


def test_the_links_estimate_is_physics_and_stays_a_bound():
    # the NAS refuses an SMB figure above its port's line rate (nas_witness); the estimate is never "overrun"
    link = Ceiling(component="link", direction="read", bytes_per_s=tcp_goodput_bps(1e9) / 8, provenance="estimated",
                   label="link")
    v = judge(HDD, [c("pool", "read", 400.0), link, c("smb", "read", 119.0)], Facts())
    assert v.directions[0].bottleneck == "link" and "no bound" not in v.summary
