"""The encryption fix on the lab (system local): SMB encryption required in the lab NAS's smb.conf (as its admin
would write it), desk joined over a 10 Gb/s cable. The run's verdict names it with a prediction; tengig.fix.apply
sets it to if_required in that smb.conf and reloads smbd (as a person at the NAS would), measures SMB again with
desk joining again, and keeps it only for a gain beyond the run's own spread; undo puts required back.

smbd is held to a quarter of a core (its cgroup capped, as `systemctl set-property smbd CPUQuota=25%` would on a
TrueNAS SCALE), standing in for a NAS whose one core smbd fills: uncapped, this machine's smbd encrypts at about
what the lab's zfs-fuse pool gives (250-300 MB/s), so whether SMB sits far below the pool, and the verdict names
encryption, is a coin toss from run to run; capped, encryption's cost per byte is plain.

No throughput bound: whether the gain is real is the product's decision; the test checks that the decision is
the one the stored before and after copies give (fix/gain.py), and that smb.conf on disk says what was decided."""
from __future__ import annotations

import pytest

from tengig.fix.gain import judge_gain, keep
from tengig.lab.samba import ENCRYPTION, global_option, set_global

from ..bench.joined_harness import CPU_CGROUPS, join, nas_api, smbd_cpu_capped, start_run
from .lab_fix import RUN, lab_10g, SMBD_QUOTA_US, apply_joined as _apply, copies as _copies  # noqa: F401 (lab_10g: a fixture)

pytestmark = [pytest.mark.lab, pytest.mark.skipif(not (CPU_CGROUPS / "cpu.cfs_quota_us").exists(),
                                                  reason="no cgroup v1 cpu controller here")]


def test_encryption_required_is_fixed_measured_again_and_kept_only_for_a_real_gain(lab_10g, tmp_path):
    lab = lab_10g
    set_global(lab.runner, lab.paths, ENCRYPTION, "required")
    with smbd_cpu_capped(lab, "tg-smbd-fix", SMBD_QUOTA_US), nas_api(lab, tmp_path) as (api, urls):
        thread, outcome = start_run(api, RUN)
        client = join(lab, "desk", urls["desk"], outcome["token"])
        thread.join(900)
        client.wait(60)
        assert "error" not in outcome, outcome.get("error")
        run_id = outcome["result"]["run_id"]
        desk = outcome["result"]["report"]["clients"][0]
        assert desk["smb"]["session"]["encryption_degree"] not in ("", "none"), desk["smb"]["session"]
        advice = {a["rule"]: a["text"] for a in desk["verdict"]["advice"]}
        assert "smb-encryption" in advice, advice
        print(f"verdict: {desk['verdict']['summary']}")

        plan = api.call("tengig.fix.plan", run_id)
        [fix] = [f for f in plan["fixes"] if f["name"] == "smb-encryption"]
        assert (fix["from_value"], fix["to_value"]) == ("required", "if_required")
        assert fix["predictions"] and all(p["predicted_bytes_per_s"] > p["measured_bytes_per_s"]
                                          for p in fix["predictions"])

        out = _apply(lab, api, urls, {"run_id": run_id, "fix": "smb-encryption", "confirm": True})
        before, after = api.call("tengig.results.get", run_id), api.call("tengig.results.get", out["after_run_id"])
        assert after["kind"] == "smb" and api.call("tengig.results.get", out["after_run_id"])["status"] == "success"
        after_desk = next(c for c in after["results"]["clients"] if c["client"] == "desk")
        assert after_desk["smb"]["session"]["encryption_degree"] in ("", "none"), after_desk["smb"]["session"]
        judged = [judge_gain(d, _copies(before, d), _copies(after, d)) for d in ("read", "write")]
        kept, _ = keep(judged)
        assert out["state"] == ("kept" if kept else "rolled-back"), out["why"]
        assert [g["verdict"] for g in out["gains"]] == [g.verdict for g in judged]
        assert global_option(lab.paths, ENCRYPTION) == ("if_required" if kept else "required")
        for p in fix["predictions"]:
            g = next(g for g in judged if g.direction == p["direction"])
            print(f"{p['direction']}: before {g.before_median / 1e6:.1f} MB/s ({', '.join(f'{v / 1e6:.1f}' for v in g.before)}), "
                  f"after {g.after_median / 1e6:.1f} MB/s ({', '.join(f'{v / 1e6:.1f}' for v in g.after)}), predicted "
                  f"{p['predicted_bytes_per_s'] / 1e6:.1f} MB/s ({p['bound']}): {g.verdict}")
        print(f"{out['state']}: {out['why']}")
        if kept:
            said = api.call("tengig.fix.undo", run_id)
            assert said == [f"fix {out['fix_id']} (smb-encryption): server smb encrypt of smb.conf [global] "
                            "if_required -> required"]
            assert global_option(lab.paths, ENCRYPTION) == "required"
