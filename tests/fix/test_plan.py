"""A fix beside each advice whose cause is a setting of the NAS, with its predicted SMB figure (pure), on
recorded run 2 changed as a NAS with that setting would have measured it (tests/fix/recorded.py)."""
from __future__ import annotations

import pytest

from tengig.fix.catalog import SMB_CONF, TRUENAS_SMB
from tengig.fix.models import Setting
from tengig.fix.plan import plan_fixes, predicted_text
from tengig.fix.run_view import view_of

from .recorded import altered, recorded_run

SAMBA_ENCRYPT = Setting(platform="system", kind="smb", object=SMB_CONF, key="server smb encrypt")


@pytest.fixture
def run2(tmp_path):
    return recorded_run(tmp_path)


def _ceiling(run, client: str, direction: str, component: str) -> float:
    report = next(c for c in run.results["clients"] if c["client"] == client)
    dv = next(d for d in report["verdict"]["directions"] if d["direction"] == direction)
    return max(c["bytes_per_s"] for c in dv["ceilings"] if c["component"] == component)


def test_the_recorded_run_has_no_setting_to_fix_and_its_advice_stays_words(run2):
    plan = plan_fixes(view_of(run2))
    assert plan.fixes == []
    assert {(w.rule, w.client) for w in plan.words} == {("link-below-target", "desk"), ("link-below-target", "lab")}
    assert all("hardware" in w.why for w in plan.words)


def test_encryption_required_gets_a_fix_predicting_what_the_network_allows(run2):
    run = altered(run2, encryption=True, smb_scale=0.4)
    plan = plan_fixes(view_of(run))
    [fix] = plan.fixes
    assert (fix.name, fix.rule, fix.client) == ("smb-encryption", "smb-encryption", "desk")
    assert fix.setting == SAMBA_ENCRYPT and fix.to_value == "if_required" and fix.from_value is None
    assert fix.run_read == "sessions encrypted (smbstatus)" and fix.phases == ["smb"]
    assert "smbcontrol smbd reload-config" in fix.call
    by_dir = {p.direction: p for p in fix.predictions}
    assert set(by_dir) == {"read", "write"} == set(fix.directions)
    for direction, p in by_dir.items():
        # the lowest ceiling left once SMB's own cost is gone: the network or the link's physics, a hair apart here
        left = {c: _ceiling(run, "desk", direction, c) for c in ("pool", "link", "network")}
        assert p.bound == min(left, key=left.get)
        assert p.predicted_bytes_per_s == pytest.approx(min(left.values()))
        assert p.measured_bytes_per_s == pytest.approx(_ceiling(run, "desk", direction, "smb"))
        assert p.predicted_bytes_per_s > p.measured_bytes_per_s
    assert by_dir["write"].why == (
        "SMB write 42.77 MB/s now; with encryption's per-byte cost in smbd and in the desktop's client gone, the "
        "lowest ceiling left is the network, iperf3 desk-nas write 1 stream(s): 117.6 MB/s, so SMB write up to "
        "117.6 MB/s (2.7x)")
    assert predicted_text(fix) == "read 43.96 MB/s -> 117.7 MB/s, write 42.77 MB/s -> 117.6 MB/s"
    assert ("smb-far-below", "desk") in {(w.rule, w.client) for w in plan.words}


def test_encryption_the_nas_no_longer_asks_for_stays_words_naming_the_value(run2):
    run = altered(run2, encryption=True, smb_scale=0.4)
    plan = plan_fixes(view_of(run), {SAMBA_ENCRYPT: "if_required"})
    assert plan.fixes == []
    [why] = [w.why for w in plan.words if w.rule == "smb-encryption"]
    assert "server smb encrypt = if_required" in why and "changed since run 2" in why


def test_the_value_read_now_is_the_fix_s_from_value_and_its_way_back(run2):
    run = altered(run2, encryption=True, smb_scale=0.4)
    [fix] = plan_fixes(view_of(run), {SAMBA_ENCRYPT: "required"}).fixes
    assert fix.from_value == "required"
    assert fix.undo_call.startswith("server smb encrypt = required in smb.conf's [global]")


def test_on_a_truenas_encryption_goes_through_smb_update(run2):
    run = altered(run2, encryption=True, smb_scale=0.4)
    run = run.model_copy(update={"environment": run.environment.model_copy(update={"truenas_version": "25.10.1"})})
    [fix] = plan_fixes(view_of(run)).fixes
    assert fix.setting == Setting(platform="truenas", kind="smb", object=TRUENAS_SMB, key="encryption")
    assert fix.to_value == "NEGOTIATE"
    assert fix.call == "midclt call smb.update '{\"encryption\": \"NEGOTIATE\"}'"


def test_forced_signing_gets_a_fix_on_samba_and_stays_words_on_truenas(run2):
    run = altered(run2, signing=True, smb_scale=0.4)
    [fix] = plan_fixes(view_of(run)).fixes
    assert (fix.name, fix.setting.key, fix.to_value) == ("smb-signing", "server signing", "default")
    truenas = run.model_copy(update={"environment": run.environment.model_copy(update={"truenas_version": "25.10.1"})})
    plan = plan_fixes(view_of(truenas))
    assert plan.fixes == []
    assert any(w.rule == "smb-signing" and "no signing setting" in w.why for w in plan.words)


def test_multichannel_off_with_smbd_at_its_core_gets_the_multichannel_fix(run2):
    run = altered(run2, multichannel=False, smbd_cpu=99.0, smb_scale=0.4)
    plan = plan_fixes(view_of(run))
    [fix] = plan.fixes
    assert (fix.name, fix.rule, fix.run_read, fix.to_value) == ("smb-multichannel", "smb-multichannel-off", "no",
                                                                 "yes")
    assert fix.setting.key == "server multichannel support"
    turned_on = plan_fixes(view_of(run), {fix.setting: "Yes"})  # testparm's words
    assert turned_on.fixes == [] and any("turned it on since run 2" in w.why for w in turned_on.words)


def test_an_mtu_mismatch_whose_nas_end_is_odd_lowers_the_nas_port(run2):
    run = altered(run2, nas_mtu=9000)
    plan = plan_fixes(view_of(run))
    [fix] = plan.fixes
    assert (fix.name, fix.setting.kind, fix.setting.object, fix.run_read, fix.to_value) == (
        "mtu", "interface", "eth-desk", "9000", "1500")
    assert fix.call == "ip link set dev eth-desk mtu 1500"
    # with the mismatch gone: the pool and the link's physics at 1500 bytes; SMB measured at the link is no gain
    assert fix.predictions == [] or all(p.bound in ("pool", "link") for p in fix.predictions)


def test_an_mtu_mismatch_whose_desktop_end_is_odd_stays_words(run2):
    run = altered(run2, desk_mtu=9000)
    plan = plan_fixes(view_of(run))
    assert plan.fixes == []
    assert any(w.rule == "mtu-mismatch" and "the desktop's end is the odd one" in w.why for w in plan.words)


def test_an_mtu_the_nas_holds_other_than_the_run_read_is_a_change_since_the_run(run2):
    run = altered(run2, nas_mtu=9000, smb_scale=0.4)
    setting = Setting(platform="system", kind="interface", object="eth-desk", key="mtu")
    plan = plan_fixes(view_of(run), {setting: "4000"})
    assert plan.fixes == [] and any("changed since the run" in w.why for w in plan.words)


def test_an_mtu_fix_predicts_the_pool_or_the_link_once_the_network_across_the_mismatch_is_gone(run2):
    run = altered(run2, nas_mtu=9000, smb_scale=0.4)
    [fix] = plan_fixes(view_of(run)).fixes
    by_dir = {p.direction: p for p in fix.predictions}
    assert by_dir["read"].bound == "link"
    assert by_dir["read"].predicted_bytes_per_s == pytest.approx(117.685e6, rel=1e-4)  # 1 Gb/s at MTU 1500


def test_sync_always_on_the_share_gets_a_dataset_fix_on_the_share_s_own_dataset(run2):
    run = altered(run2, smb_scale=0.4, smb_properties={"sync": "always", "dedup": "off", "compression": "off",
                                                       "recordsize": "1048576"},
                  pool_properties={"sync": "standard", "dedup": "off", "compression": "off", "recordsize": "131072"})
    [fix] = plan_fixes(view_of(run)).fixes
    assert (fix.name, fix.rule, fix.setting.object, fix.setting.key) == ("dataset-sync", "smb-far-below",
                                                                          "tgtank/smb", "sync")
    assert (fix.run_read, fix.to_value, fix.call) == ("always", "standard", "zfs set sync=standard tgtank/smb")
    assert fix.directions == ["write"]


def test_a_costly_property_the_pool_was_measured_with_too_has_nothing_to_predict_from(run2):
    props = {"sync": "always", "dedup": "off"}
    run = altered(run2, smb_scale=0.4, smb_properties=props, pool_properties=props)
    plan = plan_fixes(view_of(run))
    assert plan.fixes == []
    assert any("so did the pool's own measurement" in w.why for w in plan.words)


def test_a_failed_run_has_nothing_to_fix_from(run2):
    failed = run2.model_copy(update={"status": "failed", "results": None, "error": "boom"})
    with pytest.raises(Exception, match="run 2 failed and has no verdict to fix from"):
        view_of(failed)


ZFS_FUSE_POOL = {"atime": "off", "compression": "off", "dedup": "off", "recordsize": "131072"}


def test_a_small_recordsize_on_the_share_gets_a_fix_to_the_pool_measurement_s_both_ways(run2):
    run = altered(run2, smb_scale=0.4, smb_properties={**ZFS_FUSE_POOL, "recordsize": "4096"},
                  pool_properties=ZFS_FUSE_POOL)
    desk = next(c for c in run.results["clients"] if c["client"] == "desk")
    [far] = [a["text"] for a in desk["verdict"]["advice"] if a["rule"] == "smb-far-below"]
    assert "recordsize 4 KiB on the share where the pool was measured with 128 KiB (32 times the records" in far
    [fix] = plan_fixes(view_of(run)).fixes
    assert (fix.name, fix.setting.key, fix.setting.object, fix.run_read, fix.to_value) == (
        "dataset-recordsize", "recordsize", "tgtank/smb", "4096", "128K")
    assert fix.call == "zfs set recordsize=128K tgtank/smb" and sorted(fix.directions) == ["read", "write"]
    # the NAS reads 4K now (zfs get without -p): the same value, so the fix stands, from it
    [now] = plan_fixes(view_of(run), {fix.setting: "4K"}).fixes
    assert now.from_value == "4K"
    changed = plan_fixes(view_of(run), {fix.setting: "16K"})
    assert changed.fixes == [] and "recordsize = 16K now" in changed.words[-1].why


def test_heavy_compression_and_atime_are_named_light_ones_are_not(run2):
    heavy = altered(run2, smb_scale=0.4, smb_properties={**ZFS_FUSE_POOL, "compression": "gzip-9", "atime": "on"},
                    pool_properties=ZFS_FUSE_POOL)
    fixes = {f.name: f for f in plan_fixes(view_of(heavy)).fixes}
    assert set(fixes) == {"dataset-compression", "dataset-atime"}
    assert fixes["dataset-compression"].to_value == "off" and fixes["dataset-atime"].directions == ["read"]
    light = altered(run2, smb_scale=0.4, smb_properties={**ZFS_FUSE_POOL, "compression": "lz4"},
                    pool_properties=ZFS_FUSE_POOL)
    assert plan_fixes(view_of(light)).fixes == []


def test_a_dataset_fix_predicts_no_more_than_smbd_moves_at_the_cpu_it_may_use(run2):
    props = {"smb_properties": {**ZFS_FUSE_POOL, "recordsize": "4096"}, "pool_properties": ZFS_FUSE_POOL}
    free = {p.direction: p for p in plan_fixes(view_of(altered(run2, smb_scale=0.4, **props))).fixes[0].predictions}
    busy = altered(run2, smb_scale=0.4, smbd_cpu=80.0, **props)
    [fix] = plan_fixes(view_of(busy)).fixes
    for p in fix.predictions:
        # smbd used 80% of its one core for the figure: at the whole core, 1.25 x it
        assert p.bound == "smb" and p.predicted_bytes_per_s == pytest.approx(1.25 * p.measured_bytes_per_s)
        assert p.predicted_bytes_per_s < free[p.direction].predicted_bytes_per_s
        assert "smbd at one core (it used 80% of one core for" in p.why


def test_a_dataset_fix_predicts_no_more_than_the_desktop_s_smb_client_moves_at_one_core(run2):
    run = altered(run2, smb_scale=0.4, smb_properties={**ZFS_FUSE_POOL, "recordsize": "4096"},
                  pool_properties=ZFS_FUSE_POOL)
    desk = next(c for c in run.results["clients"] if c["client"] == "desk")
    for d in ("read", "write"):
        desk["smb"][d]["client_cpu"] = {"cores": 0.5, "cpu_seconds": [1.0], "wall_seconds": [2.0], "cpus": 2.0}
    [fix] = plan_fixes(view_of(run)).fixes
    for p in fix.predictions:  # half a core for the figure: at one core, twice it
        assert p.bound == "smb" and p.predicted_bytes_per_s == pytest.approx(2 * p.measured_bytes_per_s)
        assert "desk's SMB client at 1 of a core (it used 0.50 of a core for" in p.why
