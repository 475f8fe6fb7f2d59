"""tengig on a TrueNAS (system local, flavour truenas-*): the benchmark's scratch dataset and the share the
desktops copy to go through TrueNAS's own API (pool.dataset.*, sharing.smb.query), not the zfs CLI and an
smb.conf behind middlewared's back; elsewhere the zfs CLI and the running Samba. The stand-in TrueNAS
answers here for middlewared's unix socket (the default on a TrueNAS, backends/truenas THIS_TRUENAS)."""
from __future__ import annotations

import pytest

from tengig.backends.linux.zfs import ZfsCli
from tengig.backends.truenas import TrueNASBackend, TrueNASScratch
from tengig.bench.context import BenchContext
from tengig.errors import ValidationError
from tengig.systems.local import LocalFacts
from tengig.systems.local_bench import LocalBenchSystem, _this_truenas


def _facts(flavour: str) -> LocalFacts:
    return LocalFacts(flavour=flavour, reason="test", pools=["tank"], pools_error=None)


def test_on_a_truenas_the_scratch_dataset_and_the_share_go_through_its_api(standin):
    nas = standin("25.10")
    system = LocalBenchSystem(_facts("truenas-scale"), "tank", truenas=nas.client)
    ctx = BenchContext(system.hosts)
    storage = system.storage(ctx)
    assert isinstance(storage, TrueNASScratch)
    info = storage.create_scratch("tank", "t1")
    assert info.name == "tank/tengig-scratch-t1" and info.mountpoint == "/mnt/tank/tengig-scratch-t1"
    with nas.client() as client:
        TrueNASBackend(client).create_smb_share("media", "/mnt/tank/tengig-scratch-t1", readonly=False)
    share = system.share(ctx, "media")
    assert (share.name, share.path, share.conf) == ("media", "/mnt/tank/tengig-scratch-t1", None)
    assert share.smbstatus_argv() == ["smbstatus", "--json"]  # TrueNAS's Samba reads its own configuration
    # multichannel as TrueNAS's own SMB settings say, off by default, then on as a person turns it on
    assert (share.multichannel, share.multichannel_from) == (False, "TrueNAS smb.config")
    with nas.client() as client:
        client.call("smb.update", {"multichannel": True})
    assert system.share(ctx, "media").multichannel is True
    with pytest.raises(ValidationError) as missing:
        system.share(ctx, "nosuch")
    assert missing.value.errors[0][0] == "request.share" and "Shares > Windows (SMB) Shares" in missing.value.message
    with nas.client() as client:
        backend = TrueNASBackend(client)
        backend.delete_smb_share(backend.smb_shares("media")[0]["id"])
    storage.destroy(info.name)


def test_where_tengig_runs_decides_the_default():
    assert LocalBenchSystem(_facts("truenas-scale"), "tank").truenas is _this_truenas
    assert LocalBenchSystem(_facts("truenas-core"), "tank").truenas is _this_truenas
    linux = LocalBenchSystem(_facts("linux"), "tank")
    assert linux.truenas is None and isinstance(linux.storage(BenchContext(linux.hosts)), ZfsCli)
