"""What a NAS may ask a desktop to run: valid instructions become argv; anything else is refused with
the field named, before any program runs: another host than the NAS joined, a file that does not fit."""
import ipaddress

import pytest

from tengig.desk.instructions import (FREE_MARGIN_BYTES, check_room, iperf3_argv, nas_addresses, plain_address,
                                      smb_op)
from tengig.desk.join import compact_iperf3, listed_addresses, resolved_addresses
from tengig.errors import ValidationError
from tengig.units import MiB

NET = {"server": "10.250.12.1", "port": 5201, "streams": 4, "seconds": 5, "omit": 1, "reverse": True}
SMB = {"op": "put", "server": "10.250.12.1", "share": "share", "remote": "tengig-bench-1-1-desk\\f0.dat",
       "size": 64 * 1024 * 1024}
JOINED = nas_addresses(["10.250.12.1"])


def test_iperf3_argv_from_a_valid_instruction():
    assert iperf3_argv(NET, JOINED) == ["iperf3", "-c", "10.250.12.1", "-p", "5201", "-t", "5", "-O", "1", "-P", "4", "-J", "-R"]
    assert "-R" not in iperf3_argv({**NET, "reverse": False}, JOINED)


@pytest.mark.parametrize("field,value", [
    ("server", "10.0.0.1; rm -rf /"), ("server", "nas.example"), ("server", "fe80::1%';calc;'"), ("port", 0),
    ("port", "5201"),
    ("streams", 65), ("seconds", True), ("omit", -1),
])
def test_bad_iperf3_instructions_are_refused_naming_the_field(field, value):
    with pytest.raises(ValidationError) as err:
        iperf3_argv({**NET, field: value}, JOINED)
    assert err.value.errors[0][0] == f"instruction.{field}"


def test_smb_op_from_a_valid_instruction():
    assert smb_op(SMB, JOINED) == ("put", "10.250.12.1", "share", "tengig-bench-1-1-desk\\f0.dat", 64 * 1024 * 1024)


@pytest.mark.parametrize("field,value", [
    ("op", "del"), ("share", "share; x"), ("remote", "..\\..\\windows"), ("remote", "tengig-bench-1\\f0.dat\n"),
    ("remote", "other\\f0.dat"), ("size", 10), ("size", 64 * 1024**3 + 1),
])
def test_bad_smb_instructions_are_refused_naming_the_field(field, value):
    with pytest.raises(ValidationError) as err:
        smb_op({**SMB, field: value}, JOINED)
    assert err.value.errors[0][0] == f"instruction.{field}"


def test_big_iperf3_output_loses_only_its_intervals():
    import json

    doc = {"start": {"x": 1}, "intervals": [{"n": "x" * 1000}] * 100, "end": {"sum_received": {"bytes": 5}}}
    small = json.loads(compact_iperf3(json.dumps(doc)))
    assert "intervals" not in small and small["end"] == doc["end"] and small["start"] == doc["start"]
    tiny = json.dumps({"end": {}})
    assert compact_iperf3(tiny) == tiny


@pytest.mark.parametrize("server", ["10.250.12.2", "127.0.0.1", "::ffff:10.250.12.2", "fd00::1"])
def test_an_instruction_naming_another_host_than_the_nas_is_refused_in_words(server):
    for run in (lambda: iperf3_argv({**NET, "server": server}, JOINED), lambda: smb_op({**SMB, "server": server}, JOINED)):
        with pytest.raises(ValidationError) as err:
            run()
        (field, message), = err.value.errors
        shown = str(ipaddress.ip_address(server))  # as Python spells it (3.13: ::ffff:10.250.12.2)
        assert field == "instruction.server"
        assert message.startswith(f"{shown} is not the NAS this desktop joined (10.250.12.1)"), message
        assert message.endswith(f"join again with --nas-address {shown}")


def test_the_nas_is_the_same_host_however_its_address_is_written():
    nas = nas_addresses(["10.250.12.1", "fe80::1%eth0", "FD00:0::1", "not an address"])
    assert nas == {"10.250.12.1", "fe80::1", "fd00::1"}
    assert plain_address(iperf3_argv({**NET, "server": "::ffff:10.250.12.1"}, nas)[2]) == "10.250.12.1"
    assert iperf3_argv({**NET, "server": "fe80::1%eth1"}, nas)[2] == "fe80::1%eth1"
    assert plain_address("::ffff:10.250.12.1") == "10.250.12.1"


def test_listed_addresses_must_be_ip_addresses_naming_the_flag():
    assert listed_addresses(["10.250.12.1", "fe80::1%12"]) == {"10.250.12.1", "fe80::1"}
    for bad in ("nas.example", "10.250.12.0/24", "fe80::1%';calc;'", ""):
        with pytest.raises(ValidationError) as err:
            listed_addresses([bad])
        assert err.value.errors[0][0] == "--nas-address"


def test_a_host_name_resolves_to_its_addresses_and_an_address_to_itself():
    assert resolved_addresses("localhost") >= {"127.0.0.1"}
    assert resolved_addresses("10.250.12.1") == {"10.250.12.1"}
    assert resolved_addresses("no-such-host.invalid") == frozenset()


def test_a_file_must_leave_room_on_the_desktops_disk(tmp_path):
    import shutil

    free = shutil.disk_usage(tmp_path).free
    check_room(tmp_path, MiB)
    with pytest.raises(ValidationError) as err:
        check_room(tmp_path, free - FREE_MARGIN_BYTES // 2)
    (field, message), = err.value.errors
    assert field == "instruction.size" and str(tmp_path) in message and "--workdir" in message
    with pytest.raises(ValidationError, match="cannot read the free space"):
        check_room(tmp_path / "gone", MiB)
