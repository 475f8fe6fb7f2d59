"""`tengig lagg verify --join N` and `tengig mesh verify --local HOST --join N` at a NAS: what they refuse,
naming this command's flags, before any desktop is waited for (no lab: the members of seed 001 are not
ports of this machine, so the hosted verify stops at once)."""
from __future__ import annotations

import json
import socket

from tengig.cli.main import main

from ..lagg.layouts import seed001


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_lagg_verify_join_refuses_what_does_not_go_with_it(capsys):
    assert main(["lagg", "verify", "--join", "1", "--client", "desk"]) == 2
    assert "--client: with --join" in capsys.readouterr().err
    assert main(["lagg", "verify", "--join", "17"]) == 2
    assert "'--join'" in capsys.readouterr().err


def test_lagg_verify_join_names_the_member_this_nas_does_not_have(tmp_path, capsys):
    request = tmp_path / "lagg.json"
    request.write_text(json.dumps(seed001("linux")))
    code = main(["lagg", "verify", "--request", str(request), "--join", "2", "--port", str(_free_port())])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "error: --member: enp3s0f0, enp4s0f0 are not a port of" in err, err
    assert "desktops join this run" not in err  # refused before any desktop was waited for


def test_mesh_verify_join_needs_local(capsys):
    assert main(["mesh", "verify", "--join", "1"]) == 2
    assert "--local: with --join, name the plan host this machine is" in capsys.readouterr().err
