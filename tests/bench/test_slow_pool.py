"""A 10 Gb/s link in front of a pool throttled to 50 MB/s, measured by tengig on the NAS (system local)
with desk joined over its cable: the verdict must name the pool."""
import pytest

from tengig.lab import Lab, build_spec

from .joined_harness import join, nas_api, start_run

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def slow_pool_lab():
    lab = Lab()
    lab.down()
    lab.up(build_spec(["desk-nas=10g"], slow_pool_mbps=50))
    yield lab
    lab.down()


def test_slow_pool_behind_a_fast_link_is_the_bottleneck(slow_pool_lab, tmp_path):
    with nas_api(slow_pool_lab, tmp_path) as (api, urls):
        # the preset's repeats (3, fewer once they agree), as a user's run: with one run each, a busy machine
        # slowed zfs-fuse's pool read to 46.3 MB/s while SMB then read 50.8, and SMB overran the pool's figure
        thread, outcome = start_run(api, {"system": "local", "kind": "all", "join": 1, "share": "share",
                                          "net_seconds": 2, "working_set": 128 * 2**20,
                                          "smb_file": 64 * 2**20})  # 1.3 s a copy at the pool's 50 MB/s
        desk = join(slow_pool_lab, "desk", urls["desk"], outcome["token"])
        thread.join(900)
        assert desk.wait(30) == 0, (slow_pool_lab.paths.logs / "test-join-desk.log").read_text()
        assert "error" not in outcome, outcome["error"]
    report, verdict = outcome["result"]["report"], outcome["result"]["verdict"]
    pool_read = next(p for p in report["pool"]["phases"] if p["key"] == "seq1m-q8t1" and p["direction"] == "read")
    pool_read = pool_read["bytes_per_s"]["median"]
    assert 0 < pool_read <= 1.1 * 50e6  # the blkio throttle (50 MB/s) bounds it, measured through ZFS
    assert report["clients"][0]["link"]["line_rate_bps"] == 10_000_000_000  # the NAS port's shaper, live
    read = next(d for d in verdict["directions"] if d["direction"] == "read")
    assert read["bottleneck"] == "pool" and read["beats_target"] is False
    assert read["smb_bytes_per_s"] < 1.1 * pool_read
    assert any(a["rule"] == "pool-below-network" for a in verdict["advice"])
    # the two datasets the verdict compares when SMB passes the pool's figure, read on the NAS (zfs-fuse: no sync)
    pool_props, smb = report["pool"]["dataset_properties"], report["clients"][0]["smb"]
    assert pool_props == smb["dataset_properties"] == {"compression": "off", "dedup": "off", "recordsize": "131072",
                                                       "atime": "off"}
    assert smb["dataset"].startswith("tgtank/") and "/tengig-scratch-" in smb["dataset"]
