"""`tengig call`, in-process through cli.main: midclt's argument and output rules, the job progress
bar, and errors mapped to exit codes (2 with field paths for bad input, 1 for a call error)."""
from __future__ import annotations

import json

import pytest

from tengig.cli.api_commands import format_result, parse_arg
from tengig.cli.main import main
from tests.server.harness import running_server



@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("call")) as srv:
        yield srv


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ping_prints_plain_text(server, capsys):
    assert run(capsys, "call", "-u", server.url, "-K", server.api_key, "core.ping") == (0, "pong\n", "")


def test_results_print_as_json_and_args_parse_as_json(server, capsys):
    code, out, _ = run(capsys, "call", "-u", f"ws+unix://{server.unix_socket}", "tengig.results.query",
                       '{"kind": "smb", "limit": 3}')
    assert code == 0 and json.loads(out) == []


def test_job_shows_progress_on_stderr_and_prints_its_result(server, capsys):
    code, out, err = run(capsys, "call", "-u", server.url, "-K", server.api_key, "-j", "demo.jobs.count",
                         '{"steps": 4}')
    assert (code, out) == (0, "4\n")
    assert "demo.jobs.count [" in err and "100.0%" in err and "step 4" in err


def test_bad_input_exits_2_naming_the_field(server, capsys):
    code, out, err = run(capsys, "call", "-u", server.url, "-K", server.api_key, "tengig.results.query",
                         '{"limit": 0}')
    assert (code, out) == (2, "") and err.startswith("error: options.limit: ")


def test_call_error_exits_1_with_the_reason(server, capsys):
    code, _, err = run(capsys, "call", "-u", server.url, "-K", server.api_key, "tengig.results.get", "77")
    assert code == 1 and "[ENOENT] run 77 not found" in err
    code, _, err = run(capsys, "call", "-u", server.url, "tengig.targets.query")
    assert code == 1 and "ENOTAUTHENTICATED" in err


def test_midclt_argument_and_output_rules():
    assert [parse_arg(a) for a in ["3", "tank", '{"a": 1}', "[1]", "true", "null"]] == [3, "tank", {"a": 1}, [1],
                                                                                         True, None]
    assert [format_result(r) for r in ["pong", 4, True, None, {"a": 1}]] == ["pong", "4", "true", "null",
                                                                               '{"a": 1}']


def test_the_key_from_a_file_or_the_environment(server, capsys, tmp_path, monkeypatch):
    """Keys need not be in argv (where other users can read them): --api-key-file, or $TENGIG_API_KEY."""
    key_file = tmp_path / "key"
    key_file.write_text(server.api_key + "\n")
    key_file.chmod(0o600)
    assert run(capsys, "call", "-u", server.url, "--api-key-file", str(key_file), "core.get_jobs", "[]",
               '{"count": true}')[0] == 0
    monkeypatch.setenv("TENGIG_API_KEY", server.api_key)
    assert run(capsys, "call", "-u", server.url, "core.get_jobs", "[]", '{"count": true}')[0] == 0
    monkeypatch.setenv("TENGIG_API_KEY", "1-" + "x" * 64)
    code, _, err = run(capsys, "call", "-u", server.url, "core.get_jobs")
    assert code != 0 and "refused the API key" in err
    empty = tmp_path / "empty"
    empty.write_text("\n")
    code, _, err = run(capsys, "call", "-u", server.url, "--api-key-file", str(empty), "core.ping")
    assert code == 2 and "api_key_file" in err
