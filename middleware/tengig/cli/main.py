"""Entry point: `tengig`. Every TengigError becomes a message on stderr and an exit code here, once,
with control characters escaped (an error may quote a desktop's tool output or a server's words)."""
from __future__ import annotations

import sys

import click

from ..errors import TengigError, ValidationError
from ..text import shown
from .api_commands import API_COMMANDS
from .app_commands import app_group
from .bench_commands import bench_group
from .client_commands import client_group
from .demo_command import demo
from .fix_commands import fix_group
from .lab_commands import lab_group
from .lagg_commands import lagg_group
from .mesh_commands import mesh_group, nic_command
from .plugin_commands import plugin_group
from .results_commands import results_group

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


@click.group()
@click.version_option(package_name="tengig")
def cli() -> None:
    """tengig: meshes, link aggregation and honest NAS benchmarks (pool, network, SMB) with a verdict."""


cli.add_command(lab_group)
cli.add_command(demo)
cli.add_command(bench_group)
cli.add_command(results_group)
cli.add_command(fix_group)
cli.add_command(client_group)
cli.add_command(mesh_group)
cli.add_command(lagg_group)
cli.add_command(nic_command)
cli.add_command(plugin_group)
cli.add_command(app_group)
for command in API_COMMANDS:
    cli.add_command(command)


def main(argv: list[str] | None = None) -> int:
    try:
        code = cli.main(args=argv, prog_name="tengig", standalone_mode=False)
    except ValidationError as exc:
        for field, message in exc.errors:
            click.echo(shown(f"error: {field}: {message}", lines=True), err=True)
        return EXIT_BAD_INPUT
    except TengigError as exc:
        click.echo(shown(f"error: {exc.message}", lines=True), err=True)
        return EXIT_FAILED
    except click.ClickException as exc:
        exc.show()
        return EXIT_BAD_INPUT
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return EXIT_FAILED
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
