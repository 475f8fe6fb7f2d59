"""Every `make bench` script imports: a name moved elsewhere in tengig (bench_arc once imported
drop_caches from bench's pool module after it became a method of systems/host_os.py) fails here, not in
the middle of a long benchmark. Importing runs no benchmark: each script does its work under __main__."""
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(set(re.findall(r"scripts/(bench_\w+)\.py", (ROOT / "Makefile").read_text())))


def test_make_bench_runs_scripts():
    assert "bench_arc" in SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_bench_script_imports(name, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))  # as `python scripts/x.py` has it: its siblings import
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # raises ImportError on a name that moved
    assert module.__doc__  # each says what it measures
