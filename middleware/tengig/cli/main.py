"""Entry point: `tengig`. Every TengigError becomes a message on stderr and an exit code here, once,
with control characters escaped (an error may quote a desktop's tool output or a server's words)."""
from __future__ import annotations

import importlib
import sys

import click

from ..errors import TengigError, ValidationError
from ..text import shown

# Each command's module, imported when that command runs (or --help lists it): `tengig client join` on a
# desktop starts without loading the NAS's benchmark, server and mesh code: the user waits less.
COMMANDS = {
    "lab": "lab_commands:lab_group", "demo": "demo_command:demo", "bench": "bench_commands:bench_group",
    "results": "results_commands:results_group", "fix": "fix_commands:fix_group",
    "client": "client_commands:client_group", "mesh": "mesh_commands:mesh_group", "lagg": "lagg_commands:lagg_group",
    "nic": "mesh_commands:nic_command", "plugin": "plugin_commands:plugin_group", "app": "app_commands:app_group",
    "serve": "api_commands:serve", "apikey": "api_commands:apikey_group", "call": "api_commands:call",
}


class LazyCommands(click.Group):
    """A group whose commands (COMMANDS) are imported by name when first needed."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            module, attr = COMMANDS[name].split(":")
            self.add_command(getattr(importlib.import_module(f"{__package__}.{module}"), attr), name)
        return super().get_command(ctx, name)


EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


@click.group(cls=LazyCommands)
@click.version_option(package_name="tengig")
def cli() -> None:
    """tengig: meshes, link aggregation and honest NAS benchmarks (pool, network, SMB) with a verdict."""


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
