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
