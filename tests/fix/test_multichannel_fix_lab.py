"""Multichannel off on the lab's Samba with smbclient as the desktop (system local), desk on a 10 Gb/s cable:
smbd held to a tenth of a core so that smbd sits at its limit while the link has room, and the verdict names
multichannel (smb-multichannel-off). The fix turns multichannel on in smb.conf and reloads smbd, desk joins the
re-measure, and, smbclient using one channel whatever the NAS offers, no gain is measured: the previous smb.conf
value is back, and the outcome says why (the desktop's client uses one channel).

No throughput bound: the decision must be the one the stored copies give (fix/gain.py); smb.conf on disk must say
what was decided."""
from __future__ import annotations

import pytest

from tengig.fix.gain import judge_gain, keep
from tengig.lab.samba import MULTICHANNEL, global_option, set_global

from ..bench.joined_harness import CPU_CGROUPS, join, nas_api, smbd_cpu_capped, start_run
from .lab_fix import RUN, SMBD_TENTH_QUOTA_US, lab_10g, apply_joined, copies  # noqa: F401 (lab_10g: a fixture)

pytestmark = [pytest.mark.lab, pytest.mark.skipif(not (CPU_CGROUPS / "cpu.cfs_quota_us").exists(),
                                                  reason="no cgroup v1 cpu controller here")]


def test_multichannel_for_a_one_channel_client_is_applied_gains_nothing_and_is_put_back_saying_why(lab_10g, tmp_path):
    lab = lab_10g
    set_global(lab.runner, lab.paths, MULTICHANNEL, "no")
    with smbd_cpu_capped(lab, "tg-smbd-fix-mc", SMBD_TENTH_QUOTA_US), nas_api(lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, RUN)
        client = join(lab, "desk", urls["desk"], outcome["token"])
        thread.join(900)
        client.wait(60)
        assert "error" not in outcome, outcome.get("error")
        run_id = outcome["result"]["run_id"]
        desk = outcome["result"]["report"]["clients"][0]
        print(f"verdict: {desk['verdict']['summary']}")
        advice = {a["rule"] for a in desk["verdict"]["advice"]}
        assert advice & {"smb-multichannel-off", "smb-one-channel"}, advice

        plan = api.call("tengig.fix.plan", run_id)
        [fix] = [f for f in plan["fixes"] if f["name"] == "smb-multichannel"]
        assert (fix["from_value"].lower(), fix["to_value"]) == ("no", "yes")

        out = apply_joined(lab, api, urls, {"run_id": run_id, "fix": "smb-multichannel", "confirm": True})
        before, after = api.call("tengig.results.get", run_id), api.call("tengig.results.get", out["after_run_id"])
        judged = [judge_gain(d, copies(before, d), copies(after, d)) for d in ("read", "write")]
        gained, _ = keep(judged)
        for c in out["predictions"]:
            print(f"{c['direction']}: before {c['measured_bytes_per_s'] / 1e6:.1f} MB/s, predicted "
                  f"{c['predicted_bytes_per_s'] / 1e6:.1f}, measured {c['measured_after_bytes_per_s'] / 1e6:.1f} MB/s")
        print(f"{out['state']}: {out['why']}")
        # one channel before and after: put back whatever the copies did (a busy machine can move them)
        assert out["state"] == "rolled-back", out["why"]
        assert ("what the copies gained is not the change's (a real gain" in out["why"]) == gained, out["why"]
        assert global_option(lab.paths, MULTICHANNEL).lower() == "no"
        assert out["why"].startswith("desk copies with smbclient (linux), which uses one channel whatever the NAS "
                                     "offers") or out["why"].startswith("desk's session still held 1 channel")
        assert "put back server multichannel support of smb.conf [global] to" in out["why"]
