"""`PluginInstaller` on real middlewared 25.10.6: each refusal leaves the system as it was; an
install that would leave middlewared down is undone by the installer itself; upgrade, reinstall,
a broken tengig, status and uninstall. One TrueNAS for the module, the steps in order (each step
checks its own starting point)."""
from __future__ import annotations

import hashlib
import textwrap

import pytest

from tengig.plugin_install import InstallError
from tengig.plugin_install.installer import plugin_source
from tengig.plugin_spec import build_plan, method_names

from .conftest import installer_for, started
from .harness import middlewared_build

pytestmark = pytest.mark.realmw  # no lab: runs beside the lab's tests (scripts/test.sh)

# Passes every import-time rule and the installer's import test, then stops middlewared at startup:
# plain pydantic models (what tengig's own plugin did before it derived from middlewared's BaseModel).
STOPS_MIDDLEWARED = textwrap.dedent('''
    from pydantic import BaseModel
    from middlewared.api import api_method
    from middlewared.service import Service


    class TenGigBrokenPingArgs(BaseModel):
        __module__ = "middlewared.api.tengig_broken"


    class TenGigBrokenPingResult(BaseModel):
        __module__ = "middlewared.api.tengig_broken"
        result: str


    class TenGigBrokenService(Service):
        class Config:
            namespace = "tengig.broken"
            cli_namespace = "tengig.broken"

        @api_method(TenGigBrokenPingArgs, TenGigBrokenPingResult, roles=["READONLY_ADMIN"])
        def ping(self):
            return "pong"


    TENGIG_LOAD_ERROR = None
    TENGIG_SERVICES = [TenGigBrokenService]
''')


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


@pytest.fixture(scope="module")
def nas(tmp_path_factory):
    system = started(middlewared_build("25.10.6"), tmp_path_factory.mktemp("installer"))
    yield system
    system.stop()


def test_stopped_middlewared_is_refused_and_nothing_changes(nas):
    nas.stop()
    with pytest.raises(InstallError, match="middlewared is not answering.*nothing was changed"):
        installer_for(nas, timeout=20).install()
    assert not (nas.plugins_dir / "tengig_plugin.py").exists() and not (nas.root / "usr-local-lib-tengig").exists()
    nas.start()
    assert nas.wait_serving()


def test_an_older_version_then_the_same_again_then_an_upgrade(nas):
    lines = []
    assert installer_for(nas, lines, version="0.0.1").install().startswith("tengig 0.0.1 installed")
    pid = nas.pid()
    again = installer_for(nas, version="0.0.1").install()
    assert again == "tengig 0.0.1 is already installed and middlewared serves it; nothing to do"
    assert nas.pid() == pid  # not restarted
    upgraded = installer_for(nas).install()
    assert "(replacing 0.0.1)" in upgraded and nas.pid() != pid
    assert sorted(m for m in nas.methods() if m.startswith("tengig.")) == method_names(build_plan())


def test_a_plugin_that_stops_middlewared_is_undone_by_the_installer(nas, tmp_path):
    plugin = nas.plugins_dir / "tengig_plugin.py"
    before = (sha(plugin), installer_for(nas).record()["version"])
    broken = tmp_path / "tengig_plugin.py"
    broken.write_text(STOPS_MIDDLEWARED)
    lines = []
    with pytest.raises(InstallError, match="the previous state was restored and middlewared serves again"):
        installer_for(nas, lines, source=broken, version="9.9.9", timeout=40).install()
    assert any("restoring the previous state" in line for line in lines)
    assert "schema_model_fields" in nas.log()  # it really stopped middlewared
    assert (sha(plugin), installer_for(nas).record()["version"]) == before
    assert sorted(m for m in nas.methods() if m.startswith("tengig.")) == method_names(build_plan())
    assert not list((nas.root / "usr-local-lib-tengig").glob("backup-*"))


def test_a_plugin_that_does_not_import_is_refused_before_anything_changes(nas, tmp_path):
    plugin = nas.plugins_dir / "tengig_plugin.py"
    before, pid = sha(plugin), nas.pid()
    broken = tmp_path / "tengig_plugin.py"
    broken.write_text(plugin_source().read_text() + "\n    this is not python\n")
    with pytest.raises(InstallError, match="does not load in this middlewared.*nothing was changed"):
        installer_for(nas, source=broken, version="9.9.10").install()
    assert sha(plugin) == before and nas.pid() == pid
    assert not (nas.root / "usr-local-lib-tengig" / "staging").exists()


def test_a_broken_tengig_leaves_middlewared_serving_without_tengig(nas):
    installed = nas.root / "usr-local-lib-tengig" / "lib" / "tengig" / "api" / "__init__.py"
    installed.write_text('raise RuntimeError("broken on purpose")\n')
    nas.start()  # a restart, as after a reboot
    assert nas.wait_serving()
    assert not [m for m in nas.methods() if m.startswith("tengig.")]
    lines = [line for line in nas.log().splitlines() if "tengig plugin not loaded" in line]
    assert lines and "broken on purpose" in lines[-1]
    status = installer_for(nas).status()
    assert status.plugin_file == "as installed" and status.methods == [] and status.middlewared == "serving"


def test_uninstall_removes_everything_and_middlewared_serves(nas):
    message = installer_for(nas).uninstall()
    assert message == "tengig plugin removed; middlewared serves again"
    assert not (nas.plugins_dir / "tengig_plugin.py").exists() and not (nas.site_packages / "tengig.pth").exists()
    assert not (nas.root / "usr-local-lib-tengig" / "lib").exists()
    assert nas.wait_serving() and not [m for m in nas.methods() if m.startswith("tengig.")]
    assert installer_for(nas).uninstall() == "the tengig plugin is not installed; nothing to do"
