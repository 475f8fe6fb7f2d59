"""What a NAS may ask a desktop to run: valid instructions become argv; anything else is refused with
the field named, before any program runs."""
import pytest

from tengig.desk.instructions import iperf3_argv, smb_op
from tengig.desk.join import compact_iperf3
from tengig.errors import ValidationError

NET = {"server": "10.250.12.1", "port": 5201, "streams": 4, "seconds": 5, "omit": 1, "reverse": True}
SMB = {"op": "put", "server": "10.250.12.1", "share": "share", "remote": "tengig-bench-1-1-desk\\f0.dat",
       "size": 64 * 1024 * 1024}


def test_iperf3_argv_from_a_valid_instruction():
    assert iperf3_argv(NET) == ["iperf3", "-c", "10.250.12.1", "-p", "5201", "-t", "5", "-O", "1", "-P", "4", "-J", "-R"]
    assert "-R" not in iperf3_argv({**NET, "reverse": False})


@pytest.mark.parametrize("field,value", [
    ("server", "10.0.0.1; rm -rf /"), ("server", "nas.example"), ("port", 0), ("port", "5201"),
    ("streams", 65), ("seconds", True), ("omit", -1),
])
def test_bad_iperf3_instructions_are_refused_naming_the_field(field, value):
    with pytest.raises(ValidationError) as err:
        iperf3_argv({**NET, field: value})
    assert err.value.errors[0][0] == f"instruction.{field}"


def test_smb_op_from_a_valid_instruction():
    assert smb_op(SMB) == ("put", "10.250.12.1", "share", "tengig-bench-1-1-desk\\f0.dat", 64 * 1024 * 1024)


@pytest.mark.parametrize("field,value", [
    ("op", "del"), ("share", "share; x"), ("remote", "..\\..\\windows"), ("remote", "tengig-bench-1\\f0.dat\n"),
    ("remote", "other\\f0.dat"), ("size", 10),
])
def test_bad_smb_instructions_are_refused_naming_the_field(field, value):
    with pytest.raises(ValidationError) as err:
        smb_op({**SMB, field: value})
    assert err.value.errors[0][0] == f"instruction.{field}"


def test_big_iperf3_output_loses_only_its_intervals():
    import json

    doc = {"start": {"x": 1}, "intervals": [{"n": "x" * 1000}] * 100, "end": {"sum_received": {"bytes": 5}}}
    small = json.loads(compact_iperf3(json.dumps(doc)))
    assert "intervals" not in small and small["end"] == doc["end"] and small["start"] == doc["start"]
    tiny = json.dumps({"end": {}})
    assert compact_iperf3(tiny) == tiny
