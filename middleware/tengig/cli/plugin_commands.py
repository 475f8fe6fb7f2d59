"""`tengig plugin install|status|uninstall`: the middlewared plugin on the TrueNAS SCALE tengig runs on."""
from __future__ import annotations

import json

import click

from ..plugin_install import PluginInstaller, detect_target
from ..plugin_install.installer import DEFAULT_TIMEOUT


def _installer(timeout: float) -> PluginInstaller:
    return PluginInstaller(detect_target(), say=lambda line: click.echo(f"[plugin] {line}", err=True),
                           timeout=timeout)


@click.group("plugin")
def plugin_group() -> None:
    """The middlewared plugin: tengig.* inside TrueNAS SCALE's own API and web GUI (/_plugins/tengig/).
    Needs root and developer mode; an update of TrueNAS drops it (install again)."""


@plugin_group.command("install")
@click.option("--timeout", type=click.FloatRange(min=10), default=DEFAULT_TIMEOUT, show_default=True,
              help="seconds to wait for middlewared to serve tengig.* before restoring the previous state")
@click.option("--force", is_flag=True, help="reinstall even if this version is installed and served")
def install_command(timeout: float, force: bool) -> None:
    """Import-test, install, restart middlewared, check it serves tengig.*; restore by itself if not."""
    click.echo(_installer(timeout).install(force=force))


@plugin_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="machine-readable")
def status_command(as_json: bool) -> None:
    """What is installed, which version, and whether middlewared serves it."""
    status = _installer(DEFAULT_TIMEOUT).status()
    if as_json:
        click.echo(json.dumps(status.__dict__, indent=2))
    else:
        click.echo("\n".join(status.lines()))


@plugin_group.command("uninstall")
@click.option("--timeout", type=click.FloatRange(min=10), default=DEFAULT_TIMEOUT, show_default=True)
def uninstall_command(timeout: float) -> None:
    """Remove the plugin and tengig's copy, restart middlewared, check it answers."""
    click.echo(_installer(timeout).uninstall())
