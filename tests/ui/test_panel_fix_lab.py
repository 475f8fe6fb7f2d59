"""A fix from the panel's verdict, on the lab as three machines (issue 35's panel must-show): SMB encryption
required in the lab NAS's smb.conf with smbd held to a quarter of a core and desk on a 10 Gb/s cable
(tests/fix/test_encryption_fix_lab.py's lab), `tengig serve` on nas serving this checkout's panel build, a run
desk joined. Then in chromium on desk (a desktop's browser, its only way to the NAS the cable): the verdict
shows "Fix…" beside the encryption advice with the change and the predicted SMB; the confirmation shows the
setting, from -> to, the call and the prediction, and nothing is applied before it is confirmed; the apply job
shows the re-measure's join command, which the test runs on desk; then the outcome (before and after per
direction, the gain, how sure, kept or put back and why) exactly as the results database stored it; Undo (asked
first) when it was kept; and History comparing the pair, with the fix beside it.

No throughput bound: whether the change is kept is the product's decision (fix/gain.py); the page must say
what the stored judgement says, and smb.conf on disk must agree with it. Screenshots go to test-output/fix-*.png."""
from __future__ import annotations

import json
import shlex
import threading
import time

import pytest

from tengig.lab.samba import ENCRYPTION, global_option, set_global
from tengig.server.apikeys import ApiKeyStore

from ..bench.joined_harness import CPU_CGROUPS, PORT, join, nas_api, smbd_cpu_capped, start_run
from .browser import UI_DIST, require_browser, run_scenario

from ..fix.lab_fix import RUN, SMBD_TENTH_QUOTA_US, lab_10g  # noqa: F401 (lab_10g: a fixture)

pytestmark = [pytest.mark.lab, pytest.mark.browser,
              pytest.mark.skipif(not (CPU_CGROUPS / "cpu.cfs_quota_us").exists(),
                                 reason="no cgroup v1 cpu controller here")]
VERDICT_WORDS = {"gain": "gain", "loss": "loss", "within-spread": "within the spread"}


def mb_s(bytes_per_s: float) -> str:
    return f"{bytes_per_s / 1e6:.1f} MB/s"


def shown_gain(g: dict) -> list[str]:
    """A direction's row as the panel must show it, from the stored judgement."""
    sure = ("no real change: the copies overlap" if g["verdict"] == "within-spread" else
            f"1 in {round(100 / g['chance_percent'])} by luck alone ({g['chance_percent']:.0f}%)")
    sign = "+" if g["gain_percent"] > 0 else ""
    return [g["direction"], mb_s(g["before_median"]), mb_s(g["after_median"]), f"{sign}{g['gain_percent']:.1f}%",
            VERDICT_WORDS[g["verdict"]], sure]


def _fix_job_token(api) -> str | None:
    """The token the NAS's own fix job announces for its re-measure (read over the NAS's API, not the page)."""
    for job in api.call("core.get_jobs", [["method", "=", "tengig.fix.apply"], ["state", "=", "RUNNING"]]):
        session = ((job.get("progress") or {}).get("extra") or {}).get("session")
        if session:
            return session["token"]
    return None


def test_a_fix_applied_from_the_verdict_is_measured_again_and_shown_with_its_pair(lab_10g, tmp_path):
    require_browser()
    lab = lab_10g
    set_global(lab.runner, lab.paths, ENCRYPTION, "required")
    _, key = ApiKeyStore(tmp_path / "apikeys.sqlite3").create("panel-fix-test")
    with smbd_cpu_capped(lab, "tg-smbd-panel-fix", SMBD_TENTH_QUOTA_US), \
            nas_api(lab, tmp_path, ui_dir=UI_DIST) as (api, urls):
        thread, outcome = start_run(api, RUN)
        desk = join(lab, "desk", urls["desk"], outcome["token"])
        thread.join(900)
        desk.wait(60)
        assert "error" not in outcome, outcome.get("error")
        run_id = outcome["result"]["run_id"]
        plan = api.call("tengig.fix.plan", run_id)
        [fix] = [f for f in plan["fixes"] if f["name"] == "smb-encryption"]

        handoff = tmp_path / "fix-join-command.json"
        address = urls["desk"].removeprefix("ws://")
        seen: dict = {}

        def scenario():
            try:
                seen["report"] = run_scenario("fix-apply", f"http://{address}/", key,
                                              {"runId": run_id, "rule": "smb-encryption", "handoff": str(handoff)},
                                              timeout=900, netns=lab.netns("desk"))
            except BaseException as exc:  # noqa: BLE001 (pytest.fail is no Exception): re-raised below
                seen["error"] = exc

        browser = threading.Thread(target=scenario)
        browser.start()
        deadline = time.monotonic() + 180
        while not handoff.exists():
            assert browser.is_alive(), f"the page never showed the re-measure's join command: {seen.get('error')}"
            assert time.monotonic() < deadline, "the page never showed the re-measure's join command"
            time.sleep(0.2)
        argv = shlex.split(json.loads(handoff.read_text())["command"])
        assert argv[:4] == ["tengig", "client", "join", urls["desk"]], argv
        assert argv[4] == "--token" and argv[5] == _fix_job_token(api), argv
        assert "--smb-auth-file" in argv, "the re-measure copies to the share: the desktop brings its credentials"
        desk = join(lab, "desk", argv[3], argv[5])  # with the lab's own credentials file
        browser.join(900)
        assert desk.wait(60) == 0, (lab.paths.logs / "test-join-desk.log").read_text()[-3000:]
        if "error" in seen:
            raise seen["error"]
        facts = seen["report"]["facts"]
        [record] = api.call("tengig.fix.query", run_id)
        after = api.call("tengig.results.get", record["after_run_id"])
        conf_now = global_option(lab.paths, ENCRYPTION)

    assert facts["errors"] == [] and facts["consoleErrors"] == [], facts
    # beside its advice only: the one advice a setting of the NAS answers
    assert facts["fixButtons"] == ["fix-open-smb-encryption"] and "advice-smb-encryption" in facts["adviceRules"]
    predicted = [f"{p['direction']} {mb_s(p['measured_bytes_per_s']).removesuffix(' MB/s')} → up to "
                 f"{mb_s(p['predicted_bytes_per_s'])}" for p in fix["predictions"]]
    assert facts["summary"] == f"server smb encrypt: required → if_required; predicted: SMB {', '.join(predicted)}"
    # the confirmation: what changes, how, and what it should give; nothing applied before it
    dialog = facts["dialog"]
    assert dialog["role"] == "dialog"
    assert (dialog["setting"], dialog["fromTo"], dialog["call"]) == (
        "server smb encrypt of smb.conf [global]", "required → if_required", fix["call"])
    assert [row[:3] for row in dialog["predictions"]] == [
        [p["direction"], mb_s(p["measured_bytes_per_s"]), f"up to {mb_s(p['predicted_bytes_per_s'])}"]
        for p in sorted(fix["predictions"], key=lambda p: p["direction"])]
    assert "tengig.fix.plan" in facts["callsAtDialog"] and "tengig.fix.apply" not in facts["callsAtDialog"]
    # the re-measure waited for desk with the command the page showed, then measured it
    assert facts["countBefore"] == "0 of 1 joined"
    desk_address = lab.plan().address_of("desk", "nas")
    assert f"desk (linux, {desk_address})" in facts["joinedClients"], facts["joinedClients"]
    assert facts["percents"] == sorted(facts["percents"]) and facts["percents"][-1] >= 5, facts["percents"]
    assert after["kind"] == "smb" and after["status"] == "success"
    # the outcome on the page is the stored judgement, and smb.conf says the same
    shown = facts["outcome"]
    assert record["state"] in ("kept", "rolled-back", "undone"), record
    assert shown["state"] == {"kept": "kept", "rolled-back": "put back", "undone": "kept"}[record["state"]]
    assert shown["change"] == "server smb encrypt of smb.conf [global]: required → if_required"
    assert shown["gains"] == [shown_gain(g) for g in sorted(record["gains"], key=lambda g: g["direction"])]
    assert shown["why"] == f"Why: {record['why']}"
    assert shown["compare"] == f"#/history/{run_id}/{record['after_run_id']}"
    assert facts["note"].startswith("fix smb-encryption")
    if record["state"] == "rolled-back":
        assert facts["undoOffered"] == 0 and conf_now == "required"
        assert facts["fixDone"] == f"fix put back (run {record['after_run_id']})"
        assert facts["fixButtonsAfter"] == ["fix-open-smb-encryption"]  # put back: it may be tried again
    else:  # kept, then undone from the page after its own confirmation
        assert facts["undoOffered"] == 1 and facts["undoCallsAsked"] == 0
        assert facts["fixDone"] == f"fix kept (run {record['after_run_id']})"
        assert facts["fixButtonsAfter"] == []  # in place: Undo, not the same fix again
        assert facts["fixDoneAfterUndo"] == f"fix undone (run {record['after_run_id']})"
        assert facts["undone"] == [f"fix {record['id']} (smb-encryption): server smb encrypt of smb.conf [global] "
                                   "if_required -> required"]
        assert record["state"] == "undone" and conf_now == "required"
    # History shows the pair with the fix beside it
    comparison = facts["comparison"]
    assert comparison["url"].endswith(shown["compare"])
    assert comparison["heading"] == f"Run {record['after_run_id']} against run {run_id}"
    assert comparison["intro"] == (f"Run {record['after_run_id']} measured SMB again after fix smb-encryption from "
                                   f"run {run_id}:")
    assert comparison["gains"] == shown["gains"]
    assert any(n.startswith(f"re-measure of fix smb-encryption from run {run_id}") for n in comparison["historyNotes"])
    names = [s.rsplit("/", 1)[1] for s in seen["report"]["screenshots"]]
    assert names[:6] == ["fix-verdict.png", "fix-confirm.png", "fix-remeasure-waiting.png", "fix-remeasure-joined.png",
                         "fix-outcome.png", "fix-outcome-dark.png"], names
    assert names[-2:] == ["fix-compare.png", "fix-compare-dark.png"], names
