"""SMB share fields per release, the scratch dataset over pool.dataset.*, hosts as a list or a string."""
import pytest

from tengig.backends.truenas import TrueNASBackend, TrueNASScratch
from tengig.errors import ValidationError
from tengig.mesh.models import HostsEntry


@pytest.mark.parametrize("release, field, purpose", [("24.10", "ro", "NO_PRESET"), ("25.04", "ro", "NO_PRESET"),
                                                     ("25.10", "readonly", "DEFAULT_SHARE"), ("13.3", "ro", "NO_PRESET")])
def test_smb_share_uses_the_release_field_names(standin, release, field, purpose):
    nas = standin(release)
    with nas.client() as client:
        backend = TrueNASBackend(client)
        TrueNASScratch(backend).create_scratch("tank", "smb1")
        share = backend.create_smb_share("bench", "/mnt/tank/tengig-scratch-smb1", readonly=True)
        assert (share[field], share["purpose"]) == (True, purpose)
        assert [s["name"] for s in backend.smb_shares("bench")] == ["bench"]
        backend.delete_smb_share(share["id"])
        assert backend.smb_shares() == []


@pytest.mark.parametrize("release, wrong", [("25.10", "ro"), ("25.04", "readonly")])
def test_the_other_release_fields_are_refused(standin, release, wrong):
    nas = standin(release)
    with nas.client() as client:
        backend = TrueNASBackend(client)
        with pytest.raises(ValidationError) as refused:
            backend.call("sharing.smb.create", {"name": "x", "path": "/mnt/tank", wrong: True})
    assert refused.value.errors[0][0] == f"sharingsmb_create.{wrong}"


def test_scratch_dataset_lifecycle(standin):
    nas = standin("25.04")
    with nas.client() as client:
        scratch = TrueNASScratch(TrueNASBackend(client))
        assert scratch.space("tank").available == 4 * 2**40
        info = scratch.create_scratch("tank", "run1")
        assert (info.name, info.mountpoint, info.recordsize, info.compression, info.atime) == (
            "tank/tengig-scratch-run1", "/mnt/tank/tengig-scratch-run1", 2**20, "off", "off")
        assert scratch.compressratio(info.name) == 1.0
        assert scratch.find_scratch("tank") == ["tank/tengig-scratch-run1"]
        scratch.destroy(info.name)
        scratch.destroy(info.name)  # gone already: nothing to do, no error
        assert scratch.find_scratch("tank") == []
        with pytest.raises(ValidationError) as no_pool:
            scratch.space("nopool")
        with pytest.raises(ValueError):
            scratch.destroy("tank/users")  # never anything but our scratch datasets
    assert no_pool.value.errors[0][0] == "pool"



def test_scratch_properties_that_set_its_speed_come_from_pool_dataset_query(standin):
    nas = standin("25.04")
    with nas.client() as client:
        scratch = TrueNASScratch(TrueNASBackend(client))
        info = scratch.create_scratch("tank", "run1")
        try:
            # the stand-in's entries carry no deduplication (TrueNAS's do): what is absent is left out
            assert scratch.dataset_properties(info.name) == {"atime": "off", "compression": "off",
                                                             "recordsize": "1048576", "sync": "standard"}
            assert scratch.dataset_properties("tank") == {"atime": "off", "compression": "lz4",
                                                          "recordsize": "131072", "sync": "standard"}
            with pytest.raises(ValidationError):
                scratch.dataset_properties("tank/nope")
        finally:
            scratch.destroy(info.name)

def test_hosts_merge_keeps_the_users_entries_list_and_string(standin):
    ours = [HostsEntry(address="10.250.0.2", name="desk", peer="desk", cable="C01")]
    scale, core = standin("25.10"), standin("13.3")
    with scale.client() as client:
        backend = TrueNASBackend(client)
        assert backend.merge_hosts(ours) == ["192.168.1.20 printer", "10.250.0.2 desk # tengig-mesh"]
        backend.merge_hosts(ours)
        assert backend.hosts() == ["192.168.1.20 printer", "10.250.0.2 desk # tengig-mesh"]
        with pytest.raises(ValidationError):
            backend.set_hosts("a string on SCALE")
    with core.client() as client:
        backend = TrueNASBackend(client)
        written = backend.merge_hosts(ours)
        assert written.startswith("192.168.1.20\tprinter\n# BEGIN tengig mesh") and "10.250.0.2\tdesk\n" in written
        with pytest.raises(ValidationError) as refused:  # what the stand-in says when the form is wrong
            backend.call("network.configuration.update", {"hosts": ["a list on CORE"]})
    assert refused.value.errors[0][0] == "global_configuration_update.hosts"
