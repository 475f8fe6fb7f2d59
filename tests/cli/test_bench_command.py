"""`tengig bench` hosts tengig's own bench service in its process: where it cannot listen for desktops to
join, it says so naming --port, before anything runs."""
from __future__ import annotations

import socket

from tengig.cli.main import main


def test_a_join_port_in_use_is_refused_naming_port(tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["bench", "net", "--system", "local", "--join", "1", "--port", str(port),
                     "--db", str(tmp_path / "r.sqlite3")])
    err = capsys.readouterr().err
    assert code == 1 and f"cannot listen on 0.0.0.0:{port}" in err and "choose another --port" in err, err
    assert not (tmp_path / "r.sqlite3").exists()


def test_the_apis_errors_are_said_with_the_commands_flags(tmp_path, capsys):
    """The API names its fields (`system: "local"`); `tengig bench` relays its errors with its flags."""
    code = main(["bench", "all", "--system", "truenas", "--db", str(tmp_path / "r.sqlite3")])
    err = capsys.readouterr().err
    assert code == 2 and err == ("error: --system: benchmarks of a TrueNAS over its API need tengig on the NAS: install "
                                 "it there (tengig plugin install, or the app) and use `--system local` there\n"), err


def test_cli_words_change_only_references_the_command_has_flags_for():
    from tengig.cli.words import cli_text

    flags = {"join": "--join", "system": "--system"}
    assert cli_text('`join: N` or `system: "lab"`; `tengig client join URL --token T`; `kind: "all"`', flags) == \
        '`--join N` or `--system lab`; `tengig client join URL --token T`; `kind: "all"`'


def test_smb_mib_is_the_requests_smb_file_in_bytes_and_refused_below_64():
    from tengig.cli.bench_commands import BENCH_FLAGS, _request

    request = _request("smb", None, None, "ssd-sata", (), "quick", None, 4, 1, "share", 300, smb_mib=96)
    assert request["smb_file"] == 96 * 2**20 and BENCH_FLAGS["smb_file"] == "--smb-mib"
    assert "smb_file" not in _request("smb", None, None, "ssd-sata", (), "quick", None, 4, 1, "share", 300)
    code = main(["bench", "smb", "--smb-mib", "16"])
    assert code == 2  # click's own range check, before anything runs


def test_an_smb_file_below_the_floor_is_refused_naming_the_field():
    import pydantic
    import pytest

    from tengig.api.models.bench import TenGigBenchRunRequest

    with pytest.raises(pydantic.ValidationError) as caught:
        TenGigBenchRunRequest.model_validate({"kind": "smb", "smb_file": 2**20})
    assert caught.value.errors()[0]["loc"] == ("smb_file",) and "67108864" in str(caught.value), caught.value
