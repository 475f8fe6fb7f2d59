"""SMB multichannel named (issue 27 item 2), on the lab: the NAS's admin edits smb.conf at the NAS (server
multichannel support = no, then yes; `tengig lab multichannel off|on` does what a person does: edit, reload),
the desk-nas cable re-shaped to 10 Gb/s at both ends and smbd held to one slow core: its cgroup capped at a tenth
of a core (as `systemctl set-property smbd CPUQuota=10%` would on a TrueNAS SCALE; with 0.2, a busy machine gave
smbd 16%, less than its cap, and the verdict rightly named no core smbd filled). A cap of one whole core
does not bind here: on this machine smbd needs about 0.3 of a core for the 250-350 MB/s one smbclient reaches
(the desktop's smbclient, signing each message, is the limit then), so the cap stands in for a NAS whose one
core smbd fills. The NAS's own run reports multichannel
as its smbd has it, each way; with it off and smbd at its one core below the line, the verdict advises turning
it on with the numbers it measured; with it on, that advice is silent. smbclient (the lab desktop's SMB client)
opens one channel whatever the server offers, and this machine's Samba 4.17 lists no channels per session:
the channels are unknown here, not one."""
from __future__ import annotations

import contextlib
import pytest

from tengig.lab.network import shape
from tengig.lab.plan import shaping_for
from tengig.lab.samba import set_multichannel

from ..fix.lab_fix import SMBD_TENTH_QUOTA_US
from .joined_harness import CPU_CGROUPS, join, nas_api, smbd_cpu_capped, start_run

pytestmark = [pytest.mark.lab, pytest.mark.skipif(not (CPU_CGROUPS / "cpu.cfs_quota_us").exists(),
                                                  reason="no cgroup v1 cpu controller here")]


@contextlib.contextmanager
def ten_gig_smbd_on_a_slow_core(lab):
    cable = lab.plan().cable("desk", "nas")
    ports = (cable.port_of("desk"), cable.port_of("nas"))
    try:
        for port in ports:  # the lab's own hand at each machine
            shape(lab.runner, port.netns, port.ifname, shaping_for(10_000_000_000, cable.mtu))
        with smbd_cpu_capped(lab, "tg-smbd-slow-core", SMBD_TENTH_QUOTA_US):  # of the 100000 us period
            yield
    finally:
        for port in ports:
            shape(lab.runner, port.netns, port.ifname, cable.shaping)
        set_multichannel(lab.runner, lab.paths, True)  # Samba's default, as the lab renders it (unset)


def _smb_run(lab, tmp_path):
    tmp_path.mkdir()
    with nas_api(lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, {"system": "local", "kind": "smb", "join": 1, "share": "share",
                                          "repeats": 1, "working_set": 64 * 2**20})
        client = join(lab, "desk", urls["desk"], outcome["token"])
        thread.join(600)
        client.wait(30)
    assert "error" not in outcome, outcome.get("error")
    report = outcome["result"]["report"]["clients"][0]
    return report, {a["rule"]: a["text"] for a in outcome["result"]["verdict"]["advice"]}


def test_multichannel_off_then_on_in_smb_conf_is_reported_and_named_when_smbd_is_at_its_core(shaped_lab, tmp_path):
    with ten_gig_smbd_on_a_slow_core(shaped_lab):
        set_multichannel(shaped_lab.runner, shaped_lab.paths, False)
        off, off_advice = _smb_run(shaped_lab, tmp_path / "off")
        set_multichannel(shaped_lab.runner, shaped_lab.paths, True)
        on, on_advice = _smb_run(shaped_lab, tmp_path / "on")

    conf = str(shaped_lab.paths.samba / "smb.conf")
    assert off["smb"]["multichannel"]["enabled"] is False and on["smb"]["multichannel"]["enabled"] is True
    assert off["smb"]["multichannel"]["read_from"] == f"testparm {conf}"
    assert off["smb"]["multichannel"]["channels"] is None  # Samba 4.17 lists none: unknown, not one
    cpu = max(off["smb"][d]["smbd_cpu_percent"] for d in ("read", "write"))
    text = off_advice.get("smb-multichannel-off")
    print(f"multichannel off: smbd {cpu:.0f}% of a core, SMB read {off['smb']['read']['bytes_per_s']['median'] / 1e6:.0f}"
          f" MB/s, write {off['smb']['write']['bytes_per_s']['median'] / 1e6:.0f} MB/s; advice: {text}")
    assert text is not None, (cpu, off_advice)
    assert f"smbd used {cpu:.0f}% of one core, all its CPU limit of 0.1 of a core allows" in text
    assert "server multichannel support = yes" in text and "midclt" not in text  # the lab's NAS is no TrueNAS
    assert "MB/s of the" in text
    assert "smb-multichannel-off" not in on_advice, on_advice  # its fix silences it
