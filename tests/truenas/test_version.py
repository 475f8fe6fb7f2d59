"""system.version -> platform, release, protocol and feature flags (forms checked in truenas/middleware:
sw_info()['fullname'] is TrueNAS-SCALE-<v> up to 24.10, TrueNAS-<v> from 25.04; CORE's manifest version)."""
import pytest

from tengig.backends.truenas import TrueNASBackend, parse_version
from tengig.errors import ValidationError


@pytest.mark.parametrize("text, platform, release, protocol, hosts_list, ro_field, purpose, prefix", [
    ("TrueNAS-SCALE-24.10.2.4", "SCALE", (24, 10, 2, 4), "legacy", True, "ro", "NO_PRESET", "bond"),
    ("TrueNAS-25.04.2.6", "SCALE", (25, 4, 2, 6), "jsonrpc", True, "ro", "NO_PRESET", "bond"),
    ("TrueNAS-SCALE-25.04.2.6", "SCALE", (25, 4, 2, 6), "jsonrpc", True, "ro", "NO_PRESET", "bond"),
    ("TrueNAS-25.10.1", "SCALE", (25, 10, 1), "jsonrpc", True, "readonly", "DEFAULT_SHARE", "bond"),
    ("TrueNAS-SCALE-22.12.4.2", "SCALE", (22, 12, 4, 2), "legacy", False, "ro", "NO_PRESET", "bond"),
    ("TrueNAS-13.3-U1.2", "CORE", (13, 3, 1, 2), "legacy", False, "ro", "NO_PRESET", "lagg"),
    ("TrueNAS-13.0-U6.1", "CORE", (13, 0, 6, 1), "legacy", False, "ro", "NO_PRESET", "lagg"),
])
def test_release_forms(text, platform, release, protocol, hosts_list, ro_field, purpose, prefix):
    v = parse_version(text)
    assert (v.platform, v.release, v.protocol, v.hosts_as_list, v.smb_readonly_field, v.smb_purpose,
            v.lag_name_prefix) == (platform, release, protocol, hosts_list, ro_field, purpose, prefix)
    assert v.prerelease is None


def test_platform_differences_for_lagg():
    scale, core = parse_version("TrueNAS-25.04.2.6"), parse_version("TrueNAS-13.3-U1.2")
    assert "ROUNDROBIN" not in scale.lag_protocols and "ROUNDROBIN" in core.lag_protocols
    assert scale.lag_hash_options and not core.lag_hash_options
    assert (scale.mtu_range, core.mtu_range) == ((68, 9216), (1492, 9216))


def test_prereleases_keep_their_suffix():
    beta = parse_version("TrueNAS-25.10-BETA.1")
    assert (beta.release, beta.prerelease, beta.smb_readonly_field) == ((25, 10), "BETA.1", "readonly")
    assert parse_version("TrueNAS-SCALE-24.10-RC.2").protocol == "legacy"


@pytest.mark.parametrize("text", ["FreeNAS-11.3-U5", "TrueNAS", "Linux 6.6", "TrueNAS-SCALE-", 2410])
def test_not_a_truenas_version(text):
    with pytest.raises(ValidationError) as refused:
        parse_version(text)
    assert refused.value.errors[0][0] == "system.version"


@pytest.mark.parametrize("release, text", [("24.10", "TrueNAS-SCALE-24.10.2.4"), ("25.04", "TrueNAS-25.04.2.6"),
                                           ("25.10", "TrueNAS-25.10.1"), ("13.3", "TrueNAS-13.3-U1.2")])
def test_detected_over_the_wire(standin, release, text):
    nas = standin(release)
    with nas.client() as client:
        version = TrueNASBackend(client).version
    assert version.text == text and client.wire.name == version.protocol
