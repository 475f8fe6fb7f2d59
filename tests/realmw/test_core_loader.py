"""CORE 13.3's own plugin loader (utils.load_modules + load_classes, as middlewared -o DIR loads an
overlay directory) imports tengig's plugin file without an exception and finds no service: the
plugin declines in one log line, because CORE has no middlewared.api. CORE runs Python 3.9 on
FreeBSD; here its source runs on Linux's 3.11 with stand-ins for the FreeBSD modules and for the
collections aliases 3.10 removed."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .harness import ARCHIVES, HERE, middlewared_build, require_vendor, unpack

pytestmark = pytest.mark.realmw  # no lab: runs beside the lab's tests (scripts/test.sh)

PLUGIN = Path(__file__).resolve().parents[2] / "middleware" / "middlewared_plugin" / "tengig_plugin.py"
CORE_STUBS = "ws4py,prctl,flask,bsd,sentry_sdk,aiohttp_wsgi"
LOAD = """
import collections, collections.abc, json, logging, sys
sys.path[:] = [p for p in sys.path if p]   # as a script, not -c: no "" entry
for name in ("Callable", "Mapping", "MutableMapping", "Sequence", "Iterable"):   # Python 3.9's aliases
    setattr(collections, name, getattr(collections.abc, name))
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())
logging.getLogger().addHandler(Keep())
import stubs
from middlewared.service import ABSTRACT_SERVICES, Service
from middlewared.utils import load_classes, load_modules
modules = list(load_modules(sys.argv[1], depth=1))
print(json.dumps({"modules": [m.__name__ for m in modules],
                  "services": [c.__name__ for m in modules for c in load_classes(m, Service, ABSTRACT_SERVICES)],
                  "error": modules[0].TENGIG_LOAD_ERROR,
                  "log": [r for r in records if "tengig" in r]}))
"""


def test_core_13_3_loader_imports_the_plugin_and_finds_no_service(tmp_path):
    vendor = require_vendor()
    python = middlewared_build("25.10.6").python   # any Python with aiohttp & co; CORE's code is what runs
    core = unpack(vendor / ARCHIVES["13.3"], tmp_path / "core") / "src" / "middlewared"
    overlay = tmp_path / "overlay" / "plugins"
    overlay.mkdir(parents=True)
    shutil.copy2(PLUGIN, overlay / "tengig_plugin.py")
    done = subprocess.run([str(python), "-c", LOAD, str(overlay)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": f"{core}:{HERE}", "TENGIG_TEST_STUBS": CORE_STUBS})
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["modules"] == ["plugins.tengig_plugin"]
    assert result["services"] == []
    assert "cannot host tengig's methods" in result["error"] and "tengig serve" in result["error"]
    assert len(result["log"]) == 1 and result["log"][0].startswith("tengig plugin not loaded:")
