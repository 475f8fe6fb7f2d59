"""`tengig lagg plan|apply` take the LAGG's address and a forced protocol from flags (a plain Linux
machine's own ports need no request file), and `apply --json` prints the plan it applied. With a
request file those come from the file: a flag beside it is refused, naming the flag."""
import json

import pytest

from tengig.cli.main import EXIT_BAD_INPUT, main

from .layouts import inventory


@pytest.fixture
def nics(monkeypatch):
    """This machine's ports as tengig.nic.query reads them (Linux's tools): seed 001's two dual-port cards."""
    from tengig.backends.linux import nics as linux
    from tengig.nic.models import Nic
    monkeypatch.setattr(linux, "linux_nics", lambda *_, **__: [Nic.model_validate(n) for n in inventory("linux")])


def test_address_and_protocol_flags_reach_the_plan(nics, capsys):
    assert main(["lagg", "plan", "--json", "--platform", "linux", "--topology", "unmanaged-switch",
                 "--address", "10.77.0.1/24", "--protocol", "LOADBALANCE"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert (plan["address"], plan["protocol"], plan["protocol_native"]) == ("10.77.0.1/24", "LOADBALANCE", "balance-xor")


@pytest.mark.parametrize("flag", [["--address", "10.77.0.1/24"], ["--protocol", "LACP"], ["--member", "ix0"]])
def test_a_flag_beside_a_request_file_is_refused_naming_it(tmp_path, capsys, flag):
    request = tmp_path / "lagg.json"
    request.write_text(json.dumps({"nics": inventory("linux"), "platform": "linux"}))
    assert main(["lagg", "plan", "--request", str(request), *flag]) == EXIT_BAD_INPUT
    assert f"error: {flag[0]}: {flag[0]} is taken from the request file (--request): set it there" in capsys.readouterr().err
