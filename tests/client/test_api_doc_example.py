"""The Python example of docs/api.md ("Calling tengig", which README.md links) runs as written against a real
server."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.harness import running_server


REPO = Path(__file__).resolve().parents[2]


def api_doc_example() -> str:
    text = (REPO / "docs" / "api.md").read_text()
    assert text.startswith("# Calling tengig\n"), "docs/api.md should be the page on calling tengig"
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1, "the page should have exactly one Python example"
    return blocks[0]


def test_api_doc_python_example_runs_as_written(tmp_path):
    script = tmp_path / "example.py"
    script.write_text(api_doc_example())
    with running_server(tmp_path) as srv:
        env = dict(os.environ, TENGIG_URI=srv.url, TENGIG_API_KEY=srv.api_key,
                   PYTHONPATH=str(REPO / "middleware"))
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "pong"
    assert lines[1].startswith("hdd-15k-best") and "223.4 MB/s" in lines[1]
    assert "0 recent SMB runs" in lines and any(l.startswith("refused: [('options.limit'") for l in lines)
