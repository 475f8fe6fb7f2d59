"""The desktop's own CPU as a cause (issue 26, item 4): when the desktop's SMB client used what CPU it may use,
the verdict names the desktop's CPU with its figure, instead of "signing or encryption, or the client"."""
from tengig.verdict.judge import judge
from tengig.verdict.models import Ceiling, Facts
from tengig.verdict.targets import find_target

MB = 10**6
SSD = find_target("ssd-sata-870-evo")
CHAIN = [Ceiling(component="network", direction="read", bytes_per_s=117 * MB, provenance="measured", label="net"),
         Ceiling(component="smb", direction="read", bytes_per_s=61.2 * MB, provenance="measured", label="smb")]


def _summary(**facts) -> str:
    return judge(SSD, CHAIN, Facts(client_name="desk", smbd_cpu_percent=21.0, **facts)).summary


def test_a_client_that_used_its_core_is_named_with_its_figure_not_signing_or_smbd():
    said = _summary(client_cpu_cores=0.98, client_cpus=8.0)
    assert ("SMB itself (desk's SMB client used 0.98 of a core for the whole copy: the desktop's CPU holds SMB back "
            "at 61.20 MB/s (not smbd: it used 21% of one core))") in said, said
    assert "signing" not in said


def test_held_to_a_cgroups_share_of_a_core_it_is_named_with_that_share():
    said = _summary(client_cpu_cores=0.29, client_cpus=0.3)
    assert "desk's SMB client used 0.29 of a core for the whole copy (of the 0.3 it may use" in said, said
    assert "the desktop's CPU holds SMB back at 61.20 MB/s" in said


def test_a_client_with_room_left_is_not_blamed():
    for facts in ({"client_cpu_cores": 0.5, "client_cpus": 8.0}, {"client_cpu_cores": 0.2, "client_cpus": 0.3}, {}):
        said = _summary(**facts)
        assert "desktop's CPU" not in said and "not smbd (it used 21% of one core): signing or encryption" in said
