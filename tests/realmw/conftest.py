"""Fixtures: a test TrueNAS running real middlewared (harness.py) with the tengig plugin installed by
tengig's own installer, as a user installs it."""
from __future__ import annotations

from pathlib import Path

import pytest

from tengig.plugin_install import PluginInstaller, Target

from .harness import SCALE_VERSIONS, MiddlewaredSystem, middlewared_build

TEST_USER = "truenas_admin"
TEST_PASSWORD = "tengig-test"
TEST_API_KEY = "1-" + "a1B2" * 16   # TrueNAS's key form: <id>-<64 letters and digits>


def target_of(system: MiddlewaredSystem) -> Target:
    return Target(python=system.python, plugins_dir=system.plugins_dir, site_dir=system.site_packages,
                  lib_dir=system.root / "usr-local-lib-tengig", restart=tuple(system.restart_argv()),
                  midclt=(str(system.build.midclt), "-u", system.socket_uri), has_api=True)


def installer_for(system: MiddlewaredSystem, lines: list[str] | None = None, **kwargs) -> PluginInstaller:
    return PluginInstaller(target_of(system), say=(lines.append if lines is not None else (lambda _: None)),
                           **kwargs)


def started(build, root: Path) -> MiddlewaredSystem:
    system = MiddlewaredSystem(build, root, api_key=TEST_API_KEY)
    system.start()
    assert system.wait_serving(), f"middlewared {build.version} did not start:\n{system.log()[-3000:]}"
    return system


_systems: dict[str, MiddlewaredSystem] = {}


def truenas_with_tengig(version: str, tmp_path_factory) -> MiddlewaredSystem:
    """The session's TrueNAS of ``version`` with tengig installed by `PluginInstaller`, started once
    and shared by every test that only reads it (stopped when the session ends, see below)."""
    if version not in _systems:
        system = started(middlewared_build(version), tmp_path_factory.mktemp(f"truenas-{version}"))
        try:
            lines: list[str] = []
            system.install_message = installer_for(system, lines).install()
            system.install_lines = lines
        except BaseException:
            system.stop()
            raise
        _systems[version] = system
    return _systems[version]


def stop_shared_systems() -> None:
    for system in _systems.values():
        system.stop()
    _systems.clear()


@pytest.fixture(scope="module", params=SCALE_VERSIONS)
def truenas(request, tmp_path_factory):
    """A TrueNAS (middlewared 25.10.6 or 25.04.2.6) with tengig installed by `PluginInstaller`."""
    return truenas_with_tengig(request.param, tmp_path_factory)
