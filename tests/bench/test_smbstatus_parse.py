"""SMB multichannel read from Samba's own output: the server's setting (testparm) and each session's
channels (smbstatus --json), on output recorded from this machine's Samba (tests/fixtures/smbstatus)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tengig.bench.parse.smbstatus_parse import parse_multichannel_setting, parse_session_channels
from tengig.errors import ToolOutputError


FIX = Path(__file__).resolve().parents[1] / "fixtures" / "smbstatus"


def _read(name: str) -> str:
    return (FIX / name).read_text()


def test_the_server_setting_from_testparm_both_ways():
    assert parse_multichannel_setting(_read("testparm-multichannel-no.txt")) is False
    assert parse_multichannel_setting(_read("testparm-multichannel-yes.txt")) is True
    with pytest.raises(ToolOutputError, match="server multichannel support"):
        parse_multichannel_setting("Load smb config files from /etc/samba/smb.conf\n")


def test_samba_417_lists_no_channels_so_they_are_unknown_not_one():
    for name in ("multichannel-off-smbclient-4.17.json", "multichannel-on-smbclient-4.17.json"):
        sessions = parse_session_channels(_read(name), "127.0.0.1")
        assert len(sessions) == 1 and sessions[0].channels is None, name
    assert parse_session_channels(_read("multichannel-on-smbclient-4.17.json"), "10.0.0.9") == []


def test_two_channels_of_one_session_over_two_nas_addresses():
    (session,) = parse_session_channels(_read("two-channels-samba-4.18-layout.json"), "10.250.12.2")
    assert [c.channel_id for c in session.channels] == ["1", "2"]
    assert session.nas_addresses == ["10.250.12.1", "10.250.13.1"]


def test_broken_output_is_an_error_naming_smbstatus():
    for bad in ("", "{not json"):
        with pytest.raises(ToolOutputError, match="smbstatus"):
            parse_session_channels(bad, "10.0.0.2")


def test_a_windows_desktops_channels_from_its_kit():
    from tengig.bench.parse.smb_multichannel_parse import parse_multichannel_connections
    text = (Path(__file__).resolve().parents[1] / "desk" / "fixtures" / "get-smbmultichannelconnection-two-nics.json").read_text()
    got = parse_multichannel_connections(text)
    assert got.channels == 2 and got.server_addresses == ["10.250.12.1", "10.250.13.1"] and got.rss_capable is True
    assert "2 channel(s), from 10.250.12.2, 10.250.13.2" in got.text()
    one = parse_multichannel_connections('{"Selected": true, "ClientIpAddress": "10.0.0.2", "ServerIpAddress": "10.0.0.1"}')
    assert one.channels == 1 and one.rss_capable is None  # ConvertTo-Json prints one row as an object
    with pytest.raises(ToolOutputError, match="Get-SmbMultichannelConnection"):
        parse_multichannel_connections("[1, 2]")


def test_the_lab_sets_multichannel_in_smb_confs_global_section_only(tmp_path):
    """What `tengig lab multichannel off` writes, read back by the testparm the NAS runs."""
    import subprocess

    from tengig.lab.samba import MULTICHANNEL, render_server_conf, with_global_option
    conf = render_server_conf(tmp_path, tmp_path / "share", "tg")
    off = with_global_option(conf, MULTICHANNEL, "no")
    on = with_global_option(off, MULTICHANNEL, "yes")
    assert off.count(MULTICHANNEL) == 1 and on.count(MULTICHANNEL) == 1  # replaced, not added again
    assert on.index(MULTICHANNEL) < on.index("[share]")
    for text, want in ((off, False), (on, True)):
        (tmp_path / "smb.conf").write_text(text)
        done = subprocess.run(["testparm", "-s", f"--parameter-name={MULTICHANNEL}", str(tmp_path / "smb.conf")],
                              capture_output=True, text=True, timeout=30, check=False)  # 1: no lab dirs here
        assert parse_multichannel_setting(done.stdout) is want


def test_the_text_report_says_multichannel_and_the_channels():
    from tengig.bench.phases.smb_results import SmbMultichannel
    from tengig.bench.run.report_text import multichannel_text
    off = SmbMultichannel(enabled=False, read_from="testparm /etc/samba/smb.conf")
    assert multichannel_text(off) == ("off (testparm /etc/samba/smb.conf); the session's channels: not listed by "
                                      "this Samba (before 4.18)")
    two = SmbMultichannel(enabled=True, read_from="TrueNAS smb.config", channels=2, nas_addresses=["10.0.0.1", "10.0.1.1"],
                          client_report="Get-SmbMultichannelConnection: 2 channel(s)")
    assert multichannel_text(two) == ("on (TrueNAS smb.config); the session's channels: 2 channel(s) to 10.0.0.1, "
                                      "10.0.1.1; Get-SmbMultichannelConnection: 2 channel(s)")
