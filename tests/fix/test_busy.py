"""What else the NAS is doing, read from recorded smbstatus --json (tests/fixtures/smbstatus), zpool status and
TrueNAS's pool.query scan."""
from __future__ import annotations

from pathlib import Path

import pytest

from tengig.errors import ToolOutputError
from tengig.fix.busy import pool_scan, smbstatus_sessions, zpool_scan

SMBSTATUS = Path(__file__).resolve().parents[1] / "fixtures" / "smbstatus"
SCRUBBING = """  pool: tgtank
 state: ONLINE
  scan: scrub in progress since Fri Nov 27 18:40:01 2026
    1.20G scanned out of 8.00G at 100M/s, 0h1m to go
config:
"""
DONE = "  pool: tgtank\n state: ONLINE\n  scan: scrub repaired 0 in 0h1m with 0 errors on Fri Nov 27 18:41:02 2026\n"


def test_each_smb_session_is_named_and_none_is_nothing():
    assert smbstatus_sessions((SMBSTATUS / "session-desk-smb3.json").read_text()) == [
        "an SMB session of tgsmb from 10.250.12.2 (SMB3_11)"]
    assert smbstatus_sessions((SMBSTATUS / "no-sessions.json").read_text()) == []
    with pytest.raises(ToolOutputError, match="no JSON"):
        smbstatus_sessions("Failed to initialize")


def test_a_scrub_in_progress_is_named_and_a_finished_one_is_not():
    assert zpool_scan("tgtank", SCRUBBING) == ["a scrub on tgtank (scrub in progress since Fri Nov 27 18:40:01 2026)"]
    assert zpool_scan("tgtank", DONE) == []
    assert pool_scan("tank", {"scan": {"function": "RESILVER", "state": "SCANNING", "percentage": 41.6}}) == [
        "a resilver on tank (TrueNAS: resilver in progress, 42% done)"]
    assert pool_scan("tank", {"scan": {"function": "SCRUB", "state": "FINISHED"}}) == []


def test_what_truenas_does_not_show_is_not_busy_and_a_scan_it_shows_is():
    from tengig.errors import TengigError
    from tengig.fix.settings import TrueNasSettings

    def call(method, *params):
        if method == "smb.status":
            raise TengigError("smb.status: method not found")
        return [{"name": "tank", "scan": {"function": "SCRUB", "state": "SCANNING", "percentage": 10.0}}]

    assert TrueNasSettings(call).busy("tank") == ["a scrub on tank (TrueNAS: scrub in progress, 10% done)"]
    assert TrueNasSettings(lambda method, *p: []).busy(None) == []
