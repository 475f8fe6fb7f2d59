"""The jail's properties against CORE 13.3's own API models: what the manifest asks of iocage and the
address plugin/iocage/README.md tells users to give (`ip4_addr="ix0|192.168.1.50/24"`), as the `props`
of CORE's `plugin.create` (the call CORE's web UI makes to install a plugin), pass that method's accepts
model and CORE's own props validation (jail_freebsd.common_validation: `key=value` items, every address
checked against the addresses the NAS and its jails already use). Given the NAS's own address, which a jail
sharing its network stack must not take, CORE refuses, naming plugin_create.props.ip4_addr.

CORE runs Python 3.9 on FreeBSD; its source runs here on Linux's 3.11 with stand-ins for the FreeBSD
modules (iocage_lib included: nothing of it runs) and for the collections aliases 3.10 removed, as in
test_core_loader.py. CORE's own middleware is a stand-in answering `jail.query` and `interface.ip_in_use`."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from .harness import ARCHIVES, HERE, middlewared_build, require_vendor, unpack

pytestmark = pytest.mark.realmw  # no lab: runs beside the lab's tests (scripts/test.sh)

MANIFEST = json.loads((Path(__file__).resolve().parents[2] / "manifest.json").read_text())
CORE_STUBS = "ws4py,prctl,flask,bsd,sentry_sdk,aiohttp_wsgi,iocage_lib,sysctl,netif"
NAS_ADDRESS = "192.168.1.10"        # the NAS's own address on ix0 (interface.ip_in_use)
JAIL_ADDRESS = "192.168.1.50"       # the README's example
VALIDATE = """
import collections, collections.abc, json, sys
sys.path[:] = [p for p in sys.path if p]
for name in ("Callable", "Mapping", "MutableMapping", "Sequence", "Iterable"):   # Python 3.9's aliases
    setattr(collections, name, getattr(collections.abc, name))
import stubs
from middlewared.plugins import jail_freebsd
from middlewared.service_exception import ValidationErrors

class CoreMiddleware:
    def call_sync(self, method, *args):
        return {"jail.query": [], "interface.ip_in_use": [{"address": sys.argv[2]}]}[method]

body = json.loads(sys.argv[1])
out = {}
[model] = jail_freebsd.PluginService.do_create.accepts
try:
    cleaned = model.clean(body)
    model.validate(cleaned)
    verrors = jail_freebsd.common_validation(CoreMiddleware(), cleaned, schema="plugin_create")
    out["errors"] = [[e.attribute, e.errmsg] for e in verrors.errors]
except ValidationErrors as exc:
    out["errors"] = [[e.attribute, e.errmsg] for e in exc.errors]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def core(tmp_path_factory) -> tuple[Path, Path]:
    """(a Python with middlewared's dependencies, CORE 13.3's src/middlewared): CORE's code is what runs."""
    vendor = require_vendor()
    python = middlewared_build("25.10.6").python
    return python, unpack(vendor / ARCHIVES["13.3"], tmp_path_factory.mktemp("core")) / "src" / "middlewared"


def core_validates(core: tuple[Path, Path], props: list[str]) -> list[list[str]]:
    python, source = core
    body = {"plugin_name": "tengig", "jail_name": "tengig", "props": props, "plugin_repository": "file:///unused"}
    done = subprocess.run([str(python), "-c", VALIDATE, json.dumps(body), NAS_ADDRESS], capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": f"{source}:{HERE}", "TENGIG_TEST_STUBS": CORE_STUBS})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])["errors"]


def manifest_props(address: str) -> list[str]:
    return [f"{key}={value}" for key, value in MANIFEST["properties"].items()] + [f"ip4_addr=ix0|{address}/24"]


def test_core_13_3_accepts_the_jails_properties_with_an_address_of_its_own(core):
    assert core_validates(core, manifest_props(JAIL_ADDRESS)) == []


def test_core_13_3_refuses_the_nas_own_address_for_the_jail(core):
    [(field, message)] = core_validates(core, manifest_props(NAS_ADDRESS))
    assert field == "plugin_create.props.ip4_addr" and f"{NAS_ADDRESS} is already being used" in message
